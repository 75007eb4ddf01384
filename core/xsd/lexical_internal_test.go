package xsd

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core/internal/xmlesc"
)

// TestCheckCharsAsIsXMLChar: checkChars accepts a character exactly when
// XML's Char production (isXMLChar, the plain rule) does, for every
// character alone and between others, and refuses invalid UTF-8 (a stray
// byte, an encoded surrogate, a truncated sequence) saying so; xmlesc.Valid,
// which it asks first, agrees with it on each.
func TestCheckCharsAsIsXMLChar(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue // not encodable in UTF-8: below
		}
		s := string(r)
		want := isXMLChar(r)
		for _, in := range []string{s, "ab" + s + "cd"} {
			err := checkChars(in)
			if (err == nil) != want {
				t.Fatalf("%U in %q: checkChars says %v, isXMLChar %v", r, in, err, want)
			}
			if xmlesc.Valid(in) != want {
				t.Fatalf("%U in %q: xmlesc.Valid says %v, isXMLChar %v", r, in, !want, want)
			}
			if err != nil && !strings.Contains(err.Error(), "cannot be carried by XML") {
				t.Fatalf("%U: %v", r, err)
			}
		}
	}
	for _, in := range []string{"\x80", "a\xffb", "\xed\xa0\x80", "x\xe6\x97", "\xc0\xaf", "ok \xf4\x90\x80\x80"} {
		err := checkChars(in)
		if err == nil || err.Error() != "not UTF-8" {
			t.Errorf("%q: %v, want not UTF-8", in, err)
		}
		if xmlesc.Valid(in) {
			t.Errorf("%q: xmlesc.Valid accepts it", in)
		}
	}
}
