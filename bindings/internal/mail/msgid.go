package mail

import (
	"encoding/base64"
	"net/url"
	"strings"
)

// The right-hand sides MessageIDHeader uses for ids that are not already
// mail message ids.
const (
	uuidDomain = "uuid.invalid" // <U@uuid.invalid> stands for urn:uuid:U
	idDomain   = "id.invalid"   // <base64url(id)@id.invalid> stands for any other id
)

// MessageIDHeader returns the Message-ID header value, "<left@right>", that
// stands for a WS-Addressing message id, so that the mail's Message-ID and
// In-Reply-To carry the envelope's MessageID and RelatesTo (the W3C SOAP 1.2
// Email Binding correlates by them). IDFromMessageID reverses it:
//
//   - "mid:left@right" (RFC 2392) is "<left@right>";
//   - "urn:uuid:U" is "<U@uuid.invalid>";
//   - any other id is "<B@id.invalid>", B its unpadded base64url.
//
// The result never holds CR, LF or anything else a header cannot carry.
// MessageIDHeader("") is "".
func MessageIDHeader(id string) string {
	switch {
	case id == "":
		return ""
	case strings.HasPrefix(id, "mid:"):
		// Only the canonical spelling, so that IDFromMessageID gives id back.
		if s, err := url.PathUnescape(id[4:]); err == nil && url.PathEscape(s) == id[4:] {
			if l, r, ok := strings.Cut(s, "@"); ok && isDotAtom(l) && isDotAtom(r) && !ourDomain(r) {
				return "<" + s + ">"
			}
		}
	case strings.HasPrefix(id, "urn:uuid:"):
		if u := id[9:]; isDotAtom(u) {
			return "<" + u + "@" + uuidDomain + ">"
		}
	}
	return "<" + base64.RawURLEncoding.EncodeToString([]byte(id)) + "@" + idDomain + ">"
}

// IDFromMessageID returns the message id that a Message-ID (or the first id
// of an In-Reply-To or References) header value stands for: the inverse of
// MessageIDHeader, and "mid:…" (RFC 2392) for a message id of any other
// mail. It returns "" for an empty value.
func IDFromMessageID(h string) string {
	s := firstMsgID(h)
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '@'); i > 0 {
		left, right := s[:i], s[i+1:]
		switch strings.ToLower(right) {
		case uuidDomain:
			return "urn:uuid:" + left
		case idDomain:
			if b, err := base64.RawURLEncoding.DecodeString(left); err == nil {
				return string(b)
			}
		}
	}
	return "mid:" + url.PathEscape(s)
}

// ourDomain reports whether r is a right-hand side MessageIDHeader gives
// a meaning to.
func ourDomain(r string) bool {
	return strings.EqualFold(r, uuidDomain) || strings.EqualFold(r, idDomain)
}

// firstMsgID returns the content of the first <…> in h, or h trimmed when
// it has none.
func firstMsgID(h string) string {
	h = strings.TrimSpace(h)
	if i := strings.IndexByte(h, '<'); i >= 0 {
		if j := strings.IndexByte(h[i:], '>'); j > 0 {
			return strings.TrimSpace(h[i+1 : i+j])
		}
	}
	return h
}

// lastMsgID returns the last <…> of h (References: the parent), or "".
func lastMsgID(h string) string {
	i := strings.LastIndexByte(h, '<')
	if i < 0 {
		return ""
	}
	return firstMsgID(h[i:])
}

// isDotAtom reports whether s is RFC 5322 dot-atom-text.
func isDotAtom(s string) bool {
	if s == "" || s[0] == '.' || s[len(s)-1] == '.' || strings.Contains(s, "..") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '.':
		case strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
