package soapenc

import (
	"errors"
	"unicode/utf8"
)

var errBadChar = errors.New("string holds invalid UTF-8 or a character XML cannot carry")

// xmlChar reports whether r may appear in an XML 1.0 document.
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// appendEscaped appends s as element text (attr false) or as a double-quoted
// attribute value (attr true). Carriage returns, and in attributes tabs and
// newlines, become character references so the value reads back unchanged.
// Invalid UTF-8 and characters XML cannot carry (most C0 controls, U+FFFE)
// are an error rather than silently replaced.
func appendEscaped(b []byte, s string, attr bool) ([]byte, error) {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '&' && c != '<' && c != '>' && c != '"' {
			i++
			continue
		}
		var esc string
		width := 1
		switch c {
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '"':
			if attr {
				esc = "&quot;"
			}
		case '\r':
			esc = "&#xD;"
		case '\n':
			if attr {
				esc = "&#xA;"
			}
		case '\t':
			if attr {
				esc = "&#x9;"
			}
		default:
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 || !xmlChar(r) {
				return b, errBadChar
			}
			width = n
		}
		if esc != "" {
			b = append(b, s[last:i]...)
			b = append(b, esc...)
			last = i + width
		}
		i += width
	}
	return append(b, s[last:]...), nil
}
