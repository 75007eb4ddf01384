package mail

import "errors"

// Sentinel errors, for errors.Is. The mail bindings declare theirs as these
// (soapsmtp.ErrHeaderInjection is ErrHeaderInjection).
var (
	// ErrAddress: an address is not a single mailto: (or plain) mail address.
	ErrAddress = errors.New("mail: not a usable mail address")
	// ErrHeaderInjection: a value bound for a mail header holds CR, LF or
	// NUL. Nothing was sent.
	ErrHeaderInjection = errors.New("mail: CR, LF or NUL in a header value (header injection)")
	// ErrHeaderTooLong: a value does not fit in a mail header line (998
	// bytes). Nothing was sent.
	ErrHeaderTooLong = errors.New("mail: header value too long")
)
