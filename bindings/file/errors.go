package file

import (
	"errors"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// Errors the binding returns, in the chain of its errors (errors.Is).
var (
	// ErrAddress: an address is not a file:// URL this binding can use, or
	// a root or layout is not a folder it can use.
	ErrAddress = errors.New("file: bad address")
	// ErrOutsideRoot: an address names a folder outside the Sender's root.
	// A Sender never writes where a peer's ReplyTo points unless it is
	// below the root it was made for.
	ErrOutsideRoot = errors.New("file: address outside the sender's root")
	// ErrLeaseLost: a claimed file was no longer in the work folder when
	// the delivery was settled (its lease ran out; the same error in every
	// file-drop binding).
	ErrLeaseLost = drop.ErrLeaseLost
	// ErrTooLarge: a file is larger than Limits.MaxBytes.
	ErrTooLarge = drop.ErrTooLarge
	// ErrUnsafeName: a file name cannot be used as a single path element.
	ErrUnsafeName = drop.ErrUnsafeName
)
