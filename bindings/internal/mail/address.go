package mail

import (
	"fmt"
	netmail "net/mail"
	"net/url"
	"strings"
)

// ParseMailto returns the address of "mailto:user@host" (a query such as
// "?subject=…" is ignored) or of a plain "user@host". CR, LF or NUL anywhere,
// percent-encoded or not, is ErrHeaderInjection.
func ParseMailto(addr string) (*netmail.Address, error) {
	if HasCtl(addr) {
		return nil, fmt.Errorf("mail: address %q: %w", addr, ErrHeaderInjection)
	}
	s := addr
	if hasPrefixFold(s, "mailto:") {
		s, _, _ = strings.Cut(s[len("mailto:"):], "?")
		dec, err := url.PathUnescape(s)
		if err != nil {
			return nil, fmt.Errorf("mail: address %q: %w", addr, ErrAddress)
		}
		s = dec
	} else if strings.Contains(s, ":") && !strings.Contains(s, "@") {
		return nil, fmt.Errorf("mail: address %q is not a mailto: address: %w", addr, ErrAddress)
	}
	return ParseAddress(s)
}

// ParseAddress parses one mail address, refusing control characters and
// addresses that are not ASCII (SMTPUTF8 is not used).
func ParseAddress(s string) (*netmail.Address, error) {
	if HasCtl(s) {
		return nil, fmt.Errorf("mail: address %q: %w", s, ErrHeaderInjection)
	}
	a, err := netmail.ParseAddress(s)
	if err != nil {
		return nil, fmt.Errorf("mail: address %q: %w (%v)", s, ErrAddress, err)
	}
	if HasCtl(a.Name) {
		return nil, fmt.Errorf("mail: address %q: %w", s, ErrHeaderInjection)
	}
	for i := 0; i < len(a.Address); i++ {
		if c := a.Address[i]; c >= 0x80 || c <= ' ' || c == '<' || c == '>' {
			return nil, fmt.Errorf("mail: address %q: %w (only ASCII addresses are supported)", s, ErrAddress)
		}
	}
	return a, nil
}

// HasCtl reports whether s holds CR, LF or NUL.
func HasCtl(s string) bool { return strings.ContainsAny(s, "\r\n\x00") }

// Mailto returns "mailto:"+addr.
func Mailto(addr string) string { return "mailto:" + addr }

// AddressOnly returns the address part of a header value holding one
// address ("Name <a@b>" → "a@b"), or "" if it holds none.
func AddressOnly(h string) string {
	if strings.TrimSpace(h) == "" {
		return ""
	}
	if a, err := netmail.ParseAddress(h); err == nil {
		return a.Address
	}
	if list, err := netmail.ParseAddressList(h); err == nil && len(list) > 0 {
		return list[0].Address
	}
	return ""
}
