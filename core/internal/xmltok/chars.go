package xmltok

import "unicode/utf8"

// Byte classes, for the loops that scan names, text and attribute values.
const (
	cNameStart = 1 << iota // an ASCII NameStartChar (':' excluded: it is the QName separator)
	cName                  // an ASCII NameChar (':' excluded)
	cText                  // a byte that text carries as is (not '<', '&', ']', '\r', a control or non-ASCII)
	cValue                 // a byte that an attribute value carries as is (not a quote, '<', '&', white space but ' ', a control or non-ASCII)
	cSpace                 // XML white space
	cCDATA                 // a byte that a CDATA section carries as is (not ']', '\r', a control or non-ASCII)
)

// class holds each byte's classes (generated from the rules above; TestClassTable
// checks it).
const class = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x34\x34\x00\x00\x10\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x3c\x2c\x24\x2c\x2c\x2c\x20\x24\x2c\x2c\x2c\x2c\x2c\x2e\x2e\x2c" +
	"\x2e\x2e\x2e\x2e\x2e\x2e\x2e\x2e\x2e\x2e\x2c\x2c\x20\x2c\x2c\x2c" +
	"\x2c\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f" +
	"\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2c\x2c\x08\x2c\x2f" +
	"\x2c\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f" +
	"\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2f\x2c\x2c\x2c\x2c\x2c" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// isChar reports whether r is a Char of XML 1.0 (§2.2). Surrogates never get
// here: UTF-8 decoding refuses them.
func isChar(r rune) bool {
	switch {
	case r >= 0x20 && r <= 0xD7FF:
		return true
	case r == '\t' || r == '\n' || r == '\r':
		return true
	case r >= 0xE000 && r <= 0xFFFD:
		return true
	case r >= 0x10000 && r <= 0x10FFFF:
		return true
	}
	return false
}

// isNameStart and isNameRune are XML 1.0 fifth edition's NameStartChar and
// NameChar (§2.3) for runes beyond ASCII.
func isNameStart(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return class[r]&cNameStart != 0
	case r >= 0xC0 && r <= 0xD6, r >= 0xD8 && r <= 0xF6, r >= 0xF8 && r <= 0x2FF,
		r >= 0x370 && r <= 0x37D, r >= 0x37F && r <= 0x1FFF, r >= 0x200C && r <= 0x200D,
		r >= 0x2070 && r <= 0x218F, r >= 0x2C00 && r <= 0x2FEF, r >= 0x3001 && r <= 0xD7FF,
		r >= 0xF900 && r <= 0xFDCF, r >= 0xFDF0 && r <= 0xFFFD, r >= 0x10000 && r <= 0xEFFFF:
		return true
	}
	return false
}

func isNameRune(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return class[r]&cName != 0
	case isNameStart(r), r == 0xB7, r >= 0x300 && r <= 0x36F, r >= 0x203F && r <= 0x2040:
		return true
	}
	return false
}
