package ftp

import (
	"errors"
	"net/textproto"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// Errors the binding returns, in the chain of its errors (errors.Is).
var (
	// ErrAddress: an address is not an ftp:// URL this binding can use.
	ErrAddress = errors.New("ftp: bad address")
	// ErrForeignServer: an address names a server other than the Client's.
	// A Sender never takes its credentials to a server it was not made for,
	// whatever a peer puts in ReplyTo.
	ErrForeignServer = errors.New("ftp: address on another server")
	// ErrUnsafeName: a file name cannot be used as a single path element
	// (the same error in every file-drop binding).
	ErrUnsafeName = drop.ErrUnsafeName
	// ErrLogin: the server refused the user name or password.
	ErrLogin = errors.New("ftp: login refused")
	// ErrClientClosed: the Client was closed.
	ErrClientClosed = errors.New("ftp: client closed")
	// ErrLeaseLost: a claimed file was no longer in the work folder when the
	// delivery was settled, because its lease ran out and another Poller
	// returned it to the inbox. The message will be (or was) processed again.
	// (The same error in every file-drop binding.)
	ErrLeaseLost = drop.ErrLeaseLost
	// ErrTooLarge: a file is larger than Limits.MaxBytes (the same error in
	// every file-drop binding).
	ErrTooLarge = drop.ErrTooLarge
)

// replyCode returns the FTP reply code in err's chain, or 0.
func replyCode(err error) int {
	var te *textproto.Error
	if errors.As(err, &te) {
		return te.Code
	}
	return 0
}

// onlyReplies reports whether err is nothing but FTP replies from the server
// (so the control connection is still in step and can be reused).
func onlyReplies(err error) bool {
	switch e := err.(type) {
	case nil:
		return true
	case *textproto.Error:
		return true
	case interface{ Unwrap() []error }:
		for _, x := range e.Unwrap() {
			if x != nil && !onlyReplies(x) {
				return false
			}
		}
		return true
	case interface{ Unwrap() error }:
		u := e.Unwrap()
		return u != nil && onlyReplies(u)
	}
	return false
}
