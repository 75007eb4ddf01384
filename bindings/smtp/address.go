package smtp

import (
	"fmt"
	"net/mail"
	"net/url"
	"strings"
)

// parseMailto returns the address of "mailto:user@host" (a query such as
// "?subject=…" is ignored) or of a plain "user@host". CR, LF or NUL anywhere,
// percent-encoded or not, is ErrHeaderInjection.
func parseMailto(addr string) (*mail.Address, error) {
	if hasCtl(addr) {
		return nil, fmt.Errorf("smtp: address %q: %w", addr, ErrHeaderInjection)
	}
	s := addr
	if hasPrefixFold(s, "mailto:") {
		s, _, _ = strings.Cut(s[len("mailto:"):], "?")
		dec, err := url.PathUnescape(s)
		if err != nil {
			return nil, fmt.Errorf("smtp: address %q: %w", addr, ErrAddress)
		}
		s = dec
	} else if strings.Contains(s, ":") && !strings.Contains(s, "@") {
		return nil, fmt.Errorf("smtp: address %q is not a mailto: address: %w", addr, ErrAddress)
	}
	return parseAddress(s)
}

// parseAddress parses one mail address, refusing control characters and
// addresses that are not ASCII (SMTPUTF8 is not used).
func parseAddress(s string) (*mail.Address, error) {
	if hasCtl(s) {
		return nil, fmt.Errorf("smtp: address %q: %w", s, ErrHeaderInjection)
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("smtp: address %q: %w (%v)", s, ErrAddress, err)
	}
	if hasCtl(a.Name) {
		return nil, fmt.Errorf("smtp: address %q: %w", s, ErrHeaderInjection)
	}
	for i := 0; i < len(a.Address); i++ {
		if c := a.Address[i]; c >= 0x80 || c <= ' ' || c == '<' || c == '>' {
			return nil, fmt.Errorf("smtp: address %q: %w (only ASCII addresses are supported)", s, ErrAddress)
		}
	}
	return a, nil
}

// hasCtl reports whether s holds CR, LF or NUL.
func hasCtl(s string) bool { return strings.ContainsAny(s, "\r\n\x00") }

// mailto returns "mailto:"+addr.
func mailto(addr string) string { return "mailto:" + addr }

// addressOnly returns the address part of a header value holding one
// address ("Name <a@b>" → "a@b"), or "" if it holds none.
func addressOnly(h string) string {
	if strings.TrimSpace(h) == "" {
		return ""
	}
	if a, err := mail.ParseAddress(h); err == nil {
		return a.Address
	}
	if list, err := mail.ParseAddressList(h); err == nil && len(list) > 0 {
		return list[0].Address
	}
	return ""
}
