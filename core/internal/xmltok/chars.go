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

// isNameStart and isNameRune are NameStartChar and NameChar for names: XML
// 1.0 fourth edition's (Appendix B: Letter | '_' | ':', then Letter | Digit
// | '.' | '-' | '_' | ':' | CombiningChar | Extender), as encoding/xml reads
// them, so that what the tokenizer accepts encoding/xml (behind Body.Decode)
// accepts too. The fifth edition allows more; no SOAP peer needs it.
func isNameStart(r rune) bool {
	if r < utf8.RuneSelf {
		return class[r]&cNameStart != 0
	}
	return inRanges(nameStartRanges, r)
}

func isNameRune(r rune) bool {
	if r < utf8.RuneSelf {
		return class[r]&cName != 0
	}
	return inRanges(nameCharRanges, r)
}

// IsNCName reports whether s is a name without a colon (a prefix or a local
// name) that the Reader reads.
func IsNCName(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError || (i == 0 && !isNameStart(r)) || !isNameRune(r) {
			return false
		}
	}
	return s != ""
}

// inRanges reports whether r is in one of the ranges packed in t: 6 bytes
// each, the first and the last rune in 3 bytes big-endian, sorted.
func inRanges(t string, r rune) bool {
	at := func(i int) rune { return rune(t[i])<<16 | rune(t[i+1])<<8 | rune(t[i+2]) }
	lo, hi := 0, len(t)/6
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if at(6*m) <= r {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo > 0 && r <= at(6*(lo-1)+3)
}
