package imap

import (
	"errors"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
)

// Sentinel errors, for errors.Is.
var (
	// ErrAddress: an address is not a usable imap:// or imaps:// address
	// (NewReceiver, NewAppender, an Appender's To).
	ErrAddress = errors.New("imap: not a usable imap:// or imaps:// address")
	// ErrHeaderInjection: a value bound for a mail header holds CR, LF or
	// NUL (the Appender). Nothing was sent.
	ErrHeaderInjection = mailfmt.ErrHeaderInjection
	// ErrNoTLS: the server does not offer STARTTLS on an imap:// address
	// (use imaps://, or WithPlaintext to go without TLS).
	ErrNoTLS = errors.New("imap: server does not offer STARTTLS")
	// ErrNoAuth: the server offers no login the client can use
	// (AUTH=PLAIN or LOGIN for WithCredentials; AUTH=OAUTHBEARER or
	// AUTH=XOAUTH2 for WithOAuth), or none was configured.
	ErrNoAuth = errors.New("imap: no usable login")
	// ErrUnsupported: the server lacks what a Receiver needs: UIDPLUS
	// (RFC 4315), to know a claimed mail's UID in the processing folder.
	ErrUnsupported = errors.New("imap: server lacks UIDPLUS")
	// ErrReleased is returned by Ack and Nack of a delivery that the
	// Receiver's Close returned to the inbox (it will be received again).
	ErrReleased = errors.New("imap: delivery released by Close")
	// ErrLeaseLost: the claimed mail was no longer in the processing folder
	// when the delivery was settled: its lease ran out and a Receiver
	// returned it to the inbox, to be processed again.
	ErrLeaseLost = errors.New("imap: claim lost (lease expired)")
)
