package xmlesc

import "unicode/utf8"

// Mode says what is escaped and how.
type Mode uint8

const (
	// Text is element content as the core writes it: '&', '<', '>' and
	// '\r' (which end-of-line handling would drop) become references;
	// quotes, tab and line feed are kept.
	Text Mode = iota
	// Attr is an attribute value between double quotes: Text, and '"',
	// tab and line feed too (which attribute-value normalization would
	// change).
	Attr
	// Marshal is what xml.EscapeText writes: Attr with numeric references
	// for '"', tab and line feed, and the apostrophe escaped too.
	Marshal
)

// looks marks, for each byte, the modes (bit 1 << mode) that look at it:
// the ASCII bytes a mode escapes, and every byte of a multi-byte character
// (to check it).
const looks = "" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x06\x06\x07\x07\x07\x07\x07" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07" +
	"\x00\x00\x06\x00\x00\x00\x07\x04\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x07\x00\x07\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07" +
	"\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07\x07"

// Append appends s escaped in mode m to dst and returns the extended slice.
func Append[S string | []byte](dst []byte, s S, m Mode) []byte {
	bit := byte(1) << m
	last := 0
	for i := 0; i < len(s); {
		for i < len(s) && looks[s[i]]&bit == 0 {
			i++
		}
		if i == len(s) {
			break
		}
		c := s[i]
		width := 1
		var esc string
		if c < utf8.RuneSelf {
			esc = ascii(c, m)
		} else {
			var r rune
			switch v := any(s).(type) {
			case string:
				r, width = utf8.DecodeRuneInString(v[i:])
			case []byte:
				r, width = utf8.DecodeRune(v[i:])
			}
			if r == utf8.RuneError && width == 1 || r == 0xFFFE || r == 0xFFFF {
				esc = "\uFFFD"
			} else {
				i += width
				continue
			}
		}
		dst = append(dst, s[last:i]...)
		dst = append(dst, esc...)
		i += width
		last = i
	}
	return append(dst, s[last:]...)
}

// ascii is what mode m writes for the ASCII byte c, one that looks marks
// for m.
func ascii(c byte, m Mode) string {
	switch c {
	case '&':
		return "&amp;"
	case '<':
		return "&lt;"
	case '>':
		return "&gt;"
	case '\r':
		return "&#xD;"
	case '"':
		if m == Attr {
			return "&quot;"
		}
		return "&#34;"
	case '\'':
		return "&#39;"
	case '\t':
		return "&#x9;"
	case '\n':
		return "&#xA;"
	}
	return "\uFFFD" // a C0 control XML cannot carry
}

// Valid reports whether s holds only characters XML 1.0 can carry (what
// Append keeps as it is or escapes, none it replaces): valid UTF-8, no C0
// control other than tab, line feed and carriage return, no U+FFFE or
// U+FFFF.
func Valid(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
				return false
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 || r == 0xFFFE || r == 0xFFFF {
			return false
		}
		i += w
	}
	return true
}
