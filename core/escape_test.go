package core_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core"
)

func TestAppendEscaped(t *testing.T) {
	for _, c := range []struct{ in, text, attr string }{
		{"", "", ""},
		{"plain text, eight+ bytes", "plain text, eight+ bytes", "plain text, eight+ bytes"},
		{`a<b>&"c'`, `a&lt;b&gt;&amp;"c'`, `a&lt;b&gt;&amp;&quot;c'`},
		{"tab\tnl\ncr\r", "tab\tnl\ncr&#xD;", "tab&#x9;nl&#xA;cr&#xD;"},
		{"nul\x00bell\x07", "nul\uFFFDbell\uFFFD", "nul\uFFFDbell\uFFFD"},
		{"bad\xffutf8\xc3", "bad\uFFFDutf8\uFFFD", "bad\uFFFDutf8\uFFFD"},
		{"non-chars \uFFFE\uFFFF", "non-chars \uFFFD\uFFFD", "non-chars \uFFFD\uFFFD"},
		{"ünïcödé € 𝄞", "ünïcödé € 𝄞", "ünïcödé € 𝄞"},
		{strings.Repeat("x", 17) + "&" + strings.Repeat("y", 9), strings.Repeat("x", 17) + "&amp;" + strings.Repeat("y", 9), strings.Repeat("x", 17) + "&amp;" + strings.Repeat("y", 9)},
	} {
		if got := string(core.AppendEscaped([]byte("pre:"), c.in)); got != "pre:"+c.text {
			t.Errorf("AppendEscaped(%q) = %q, want %q", c.in, got, "pre:"+c.text)
		}
		if got := string(core.AppendEscapedAttr(nil, c.in)); got != c.attr {
			t.Errorf("AppendEscapedAttr(%q) = %q, want %q", c.in, got, c.attr)
		}
	}
}

// checkEscaped parses the escaped s back, as element content and as an
// attribute value, with encoding/xml: it must be well-formed and, when s is
// text XML can carry, read back as s.
func checkEscaped(t *testing.T, s string) {
	t.Helper()
	doc := "<a x=\"" + string(core.AppendEscapedAttr(nil, s)) + "\">" + string(core.AppendEscaped(nil, s)) + "</a>"
	var v struct {
		X    string `xml:"x,attr"`
		Text string `xml:",chardata"`
	}
	if err := xml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("escaped %q: %v in %q", s, err, doc)
	}
	if !carried(s) {
		return
	}
	if v.Text != s || v.X != s {
		t.Fatalf("escaped %q read back as text %q, attribute %q", s, v.Text, v.X)
	}
}

// carried reports whether XML 1.0 can carry s as it is.
func carried(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return false
		}
	}
	return true
}

func TestAppendEscapedReadsBack(t *testing.T) {
	for _, s := range appendEscapedSeeds {
		checkEscaped(t, s)
	}
}

var appendEscapedSeeds = []string{"", "a", "a&b<c>d\"e'f", "\r\n\t \r", "x\x00y", "\xed\xa0\x80", "\uFFFE", "€𝄞", strings.Repeat("plain ", 20) + "<", "]]>"}

func FuzzAppendEscaped(f *testing.F) {
	for _, s := range appendEscapedSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkEscaped(t, s) })
}

// BenchmarkAppendEscaped escapes the 1 KiB text of the HTTP load benchmark's
// echo with AppendEscaped and, beside it, with xml.EscapeText into a
// bytes.Buffer (what a handler building a RawBody would otherwise use).
//
//	go test -run XXX -bench AppendEscaped -benchmem -count 6 ./core/
func BenchmarkAppendEscaped(b *testing.B) {
	for _, in := range []struct{ name, s string }{
		{"ascii", strings.Repeat("x", 1024)},
		{"mixed", strings.Repeat("Grüße <&> from the café, ", 41)},
	} {
		b.Run(in.name+"/AppendEscaped", func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			buf := make([]byte, 0, 2*len(in.s))
			for b.Loop() {
				buf = core.AppendEscaped(buf[:0], in.s)
			}
		})
		b.Run(in.name+"/xml.EscapeText", func(b *testing.B) {
			b.SetBytes(int64(len(in.s)))
			var buf bytes.Buffer
			buf.Grow(2 * len(in.s))
			src := []byte(in.s)
			for b.Loop() {
				buf.Reset()
				if err := xml.EscapeText(&buf, src); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
