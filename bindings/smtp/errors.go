package smtp

import (
	"errors"
	"fmt"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
)

// Sentinel errors, for errors.Is.
var (
	// ErrAddress: an address is not a single mailto: (or plain) mail address.
	ErrAddress = mailfmt.ErrAddress
	// ErrHeaderInjection: a value bound for a mail header holds CR, LF or
	// NUL. Nothing was sent.
	ErrHeaderInjection = mailfmt.ErrHeaderInjection
	// ErrHeaderTooLong: a value does not fit in a mail header line (998
	// bytes). Nothing was sent.
	ErrHeaderTooLong = mailfmt.ErrHeaderTooLong
	// ErrRefused is in the chain of a *StatusError with a permanent (5xx)
	// code: sending again will not help.
	ErrRefused = errors.New("smtp: refused")
	// ErrTemporary is in the chain of a *StatusError with a temporary (4xx)
	// code that persisted through the Sender's retries.
	ErrTemporary = errors.New("smtp: temporarily refused")
	// ErrNoTLS: the Sender was configured for STARTTLS and the server does
	// not offer it.
	ErrNoTLS = errors.New("smtp: server does not offer STARTTLS")
	// ErrNoAuth: the Sender has credentials and the server offers neither
	// AUTH PLAIN nor AUTH LOGIN.
	ErrNoAuth = errors.New("smtp: server offers no usable AUTH mechanism")
	// ErrClosed is returned by Send after Close.
	ErrClosed = errors.New("smtp: sender closed")
	// ErrReleased is returned by Ack and Nack of a delivery that the
	// Receiver's Close returned to the mailbox (it will be received again).
	ErrReleased = errors.New("smtp: delivery released by Close")
)

// StatusError is an SMTP reply that refused a message: a 5xx (permanent,
// ErrRefused in its chain) or a 4xx that persisted through the Sender's
// retries (ErrTemporary).
type StatusError struct {
	Command  string // the command refused: "MAIL", "RCPT", "DATA" (BDAT too), "AUTH"; "CONNECT" (the greeting), "EHLO", "HELO", "STARTTLS"
	Code     int    // 550
	Enhanced string // "5.1.1", "" when the server sent none
	Message  string // the server's text
}

// Error describes the refusal.
func (e *StatusError) Error() string {
	s := fmt.Sprintf("smtp: %s refused: %d", e.Command, e.Code)
	if e.Enhanced != "" {
		s += " " + e.Enhanced
	}
	if e.Message != "" {
		s += " " + e.Message
	}
	return s
}

// Temporary reports whether the code is a 4xx.
func (e *StatusError) Temporary() bool { return e.Code/100 == 4 }

// Unwrap returns ErrTemporary for a 4xx, ErrRefused otherwise.
func (e *StatusError) Unwrap() error {
	if e.Temporary() {
		return ErrTemporary
	}
	return ErrRefused
}
