package xmlesc_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core/internal/xmlesc"
)

// reference is what each mode writes, rune by rune: Marshal is
// xml.EscapeText's; Text and Attr are the core writer's rules.
func reference(s string, m xmlesc.Mode) string {
	if m == xmlesc.Marshal {
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		i += w
		switch {
		case r == utf8.RuneError && w == 1, r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0xFFFE, r == 0xFFFF:
			b.WriteRune('\uFFFD')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '\r':
			b.WriteString("&#xD;")
		case m == xmlesc.Attr && r == '"':
			b.WriteString("&quot;")
		case m == xmlesc.Attr && r == '\t':
			b.WriteString("&#x9;")
		case m == xmlesc.Attr && r == '\n':
			b.WriteString("&#xA;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var modes = []xmlesc.Mode{xmlesc.Text, xmlesc.Attr, xmlesc.Marshal}

// check compares Append for s, as a string and as bytes, with reference.
func check(t *testing.T, s string, m xmlesc.Mode) {
	t.Helper()
	want := reference(s, m)
	if got := string(xmlesc.Append([]byte("pre"), s, m)); got != "pre"+want {
		t.Fatalf("mode %d: Append(%q) = %q, want %q", m, s, got, "pre"+want)
	}
	if got := string(xmlesc.Append(nil, []byte(s), m)); got != want {
		t.Fatalf("mode %d: Append([]byte %q) = %q, want %q", m, s, got, want)
	}
}

// TestAppendEveryPosition: every byte value, and characters of every
// length (allowed or not), at every position of strings of 1 to 20 bytes,
// in each mode, escaped as the reference says.
func TestAppendEveryPosition(t *testing.T) {
	odd := []string{"é", "€", "😀", "\uFFFD", "\uFFFE", "\uFFFF", "\xed\xa0\x80", "\xc3", "\xe2\x82", "\xf0\x9f\x98"}
	for c := range 256 {
		odd = append(odd, string([]byte{byte(c)}))
	}
	for _, m := range modes {
		for n := 1; n <= 20; n++ {
			for at := 0; at < n; at++ {
				for _, o := range odd {
					a := strings.Repeat("a", n)
					check(t, a[:at]+o+a[at+1:], m)
				}
			}
		}
	}
}

// validRef is Valid's definition.
func validRef(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF
	})
}

// TestValid: Valid refuses exactly what Append would replace, every byte
// value and character at every position.
func TestValid(t *testing.T) {
	odd := []string{"é", "\uFFFD", "\uFFFE", "\uFFFF", "\xed\xa0\x80", "\xc3", "😀"}
	for c := range 256 {
		odd = append(odd, string([]byte{byte(c)}))
	}
	for n := 1; n <= 12; n++ {
		for at := 0; at < n; at++ {
			for _, o := range odd {
				a := strings.Repeat("a", n)
				s := a[:at] + o + a[at+1:]
				if got, want := xmlesc.Valid(s), validRef(s); got != want {
					t.Fatalf("Valid(%q) = %v, want %v", s, got, want)
				}
				out := xmlesc.Append(nil, s, xmlesc.Text)
				if replaced := bytes.Count(out, []byte("\uFFFD")) > strings.Count(s, "\uFFFD"); replaced == xmlesc.Valid(s) {
					t.Fatalf("Valid(%q) = %v, and Append replaces characters: %v", s, xmlesc.Valid(s), replaced)
				}
			}
		}
	}
}

// FuzzAppend: Append agrees with the reference in every mode (Marshal with
// xml.EscapeText), and Text and Attr read back as what they escaped, but
// for the characters replaced.
func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "plain", `<a href="x">it's & 'so'</a>`, "\t\n\r\x00\x7f", "é\xff\uFFFE"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, m := range modes {
			check(t, s, m)
		}
		if got, want := xmlesc.Valid(s), validRef(s); got != want {
			t.Fatalf("Valid(%q) = %v, want %v", s, got, want)
		}
	})
}
