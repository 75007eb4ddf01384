package core

// AppendEscaped appends s to dst escaped as XML character data (element
// content) and returns the extended slice: '&', '<' and '>' become entity
// references and '\r' a character reference (so it survives end-of-line
// normalization). Characters XML 1.0 cannot carry (C0 controls other than
// tab, newline and carriage return, invalid UTF-8, U+FFFE, U+FFFF) become
// U+FFFD, so the result is always well-formed text, as the core's own writer
// escapes it.
//
// It is what to use when building a [RawBody] by hand: unlike
// xml.EscapeText it appends to a byte slice and decodes runes only where a
// byte is not ASCII.
func AppendEscaped(dst []byte, s string) []byte { return appendEscaped(dst, s, false) }

// AppendEscapedAttr is AppendEscaped for an attribute value written between
// double quotes: '"' is escaped too, and tab and newline become character
// references (so attribute-value normalization keeps them).
func AppendEscapedAttr(dst []byte, s string) []byte { return appendEscaped(dst, s, true) }
