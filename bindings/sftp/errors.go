package sftp

import (
	"errors"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// Errors the binding returns, in the chain of its errors (errors.Is).
var (
	// ErrAddress: an address is not an sftp:// URL this binding can use,
	// or a root or layout is not a folder it can use.
	ErrAddress = errors.New("sftp: bad address")
	// ErrForeignServer: an address names a server or account other than
	// the Client's.
	ErrForeignServer = errors.New("sftp: address on another server or account")
	// ErrHostKey: the server's host key is not the one expected (a
	// known_hosts entry or the pinned key says otherwise).
	ErrHostKey = errors.New("sftp: host key mismatch")
	// ErrUnknownHost: the server is not in the known_hosts file (and no
	// key is pinned): refused, as every unknown host is.
	ErrUnknownHost = errors.New("sftp: unknown host (not in known_hosts)")
	// ErrLogin: the server refused the user's password or key.
	ErrLogin = errors.New("sftp: login refused")
	// ErrClientClosed: the Client was closed.
	ErrClientClosed = errors.New("sftp: client closed")
	// ErrLeaseLost: a claimed file was no longer in the work folder when
	// the delivery was settled (its lease ran out; the same error in every
	// file-drop binding).
	ErrLeaseLost = drop.ErrLeaseLost
	// ErrTooLarge: a file is larger than Limits.MaxBytes.
	ErrTooLarge = drop.ErrTooLarge
	// ErrUnsafeName: a file name cannot be used as a single path element.
	ErrUnsafeName = drop.ErrUnsafeName
)
