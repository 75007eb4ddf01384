package xmldoc

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// charset is how a document's bytes become UTF-8.
type charset uint8

const (
	csUTF8 charset = iota
	csLatin1
	csLatin9
	csWindows1252
)

// charsetOf maps an encoding label of an XML declaration to a charset. The
// UTF-16 labels are handled by the byte order detection before this.
func charsetOf(label string) (charset, error) {
	switch strings.ToLower(label) {
	case "utf-8", "utf8", "us-ascii", "ascii", "iso646-us":
		return csUTF8, nil
	case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "cp819", "ibm819", "iso-ir-100":
		return csLatin1, nil
	case "iso-8859-15", "iso8859-15", "iso_8859-15", "latin-9", "latin9", "l9":
		return csLatin9, nil
	case "windows-1252", "cp1252", "x-cp1252":
		return csWindows1252, nil
	}
	return 0, fmt.Errorf("unsupported encoding %q (UTF-8, UTF-16, US-ASCII, ISO-8859-1, ISO-8859-15 and windows-1252 are)", label)
}

// windows1252 maps the bytes 0x80-0x9F of windows-1252; 0 for the five it
// leaves undefined.
func windows1252(b byte) rune {
	const runes = "\u20AC\x00\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\x00\u017D\x00" +
		"\x00\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\x00\u017E\u0178"
	i := int(b) - 0x80
	for _, r := range runes {
		if i == 0 {
			return r
		}
		i--
	}
	return 0
}

// latin9 maps the eight bytes where ISO-8859-15 differs from ISO-8859-1.
func latin9(b byte) rune {
	switch b {
	case 0xA4:
		return 0x20AC
	case 0xA6:
		return 0x0160
	case 0xA8:
		return 0x0161
	case 0xB4:
		return 0x017D
	case 0xB8:
		return 0x017E
	case 0xBC:
		return 0x0152
	case 0xBD:
		return 0x0153
	case 0xBE:
		return 0x0178
	}
	return rune(b)
}

// transcode returns b (a single-byte encoding) in UTF-8, and whether that is
// a new slice: ASCII input is returned as is.
func transcode(b []byte, cs charset) ([]byte, bool, error) {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || cs == csUTF8 {
		return b, false, nil
	}
	out := make([]byte, 0, len(b)+len(b)/8)
	for i, c := range b {
		if c < utf8.RuneSelf {
			out = append(out, c)
			continue
		}
		r := rune(c)
		switch cs {
		case csLatin9:
			r = latin9(c)
		case csWindows1252:
			if c < 0xA0 {
				if r = windows1252(c); r == 0 {
					return nil, false, fmt.Errorf("byte %#x at %d is not defined in windows-1252", c, i)
				}
			}
		}
		out = utf8.AppendRune(out, r)
	}
	return out, true, nil
}

// fromUTF16 decodes UTF-16 (after its byte order mark, if any) to UTF-8.
func fromUTF16(b []byte, big bool) ([]byte, error) {
	if len(b)%2 != 0 {
		return nil, fmt.Errorf("truncated UTF-16 input (an odd number of bytes)")
	}
	out := make([]byte, 0, len(b)/2+16)
	for i := 0; i < len(b); i += 2 {
		u := rune(b[i+1])<<8 | rune(b[i])
		if big {
			u = rune(b[i])<<8 | rune(b[i+1])
		}
		if utf16.IsSurrogate(u) {
			if i+3 >= len(b) {
				return nil, fmt.Errorf("truncated UTF-16 surrogate pair at byte %d", i)
			}
			v := rune(b[i+3])<<8 | rune(b[i+2])
			if big {
				v = rune(b[i+2])<<8 | rune(b[i+3])
			}
			if u = utf16.DecodeRune(u, v); u == utf8.RuneError {
				return nil, fmt.Errorf("invalid UTF-16 surrogate pair at byte %d", i)
			}
			i += 2
		}
		out = utf8.AppendRune(out, u)
	}
	return out, nil
}
