package xmltok_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// TestReaderRaw: Raw gives a token's input bytes only when they are what
// the token holds.
func TestReaderRaw(t *testing.T) {
	const none = "<nil>"
	tests := []struct {
		name string
		in   string
		raw  []string // per token; none for nil
	}{
		{"plain", `<a x='1'  y="2"><b>text &gt; no</b></a>`,
			[]string{`<a x='1'  y="2">`, `<b>`, none, `</b>`, `</a>`}},
		{"plain text", `<a>t > u</a >`, []string{`<a>`, `t > u`, `</a >`}},
		{"empty element", `<a><b/></a>`, []string{`<a>`, `<b/>`, ``, `</a>`}},
		{"declarations kept", `<p:a xmlns:p="urn:p" xmlns="urn:d"/>`, []string{`<p:a xmlns:p="urn:p" xmlns="urn:d"/>`, ``}},
		{"reference in an attribute", `<a x="&amp;"/>`, []string{none, ``}},
		{"tab in an attribute", "<a x=\"\t\"></a>", []string{none, `</a>`}},
		{"CR LF in text", "<a>1\r\n2</a>", []string{`<a>`, none, `</a>`}},
		{"lone CR in text", "<a>1\r2</a>", []string{`<a>`, "1\n2", `</a>`}},
		{"CDATA", `<a><![CDATA[<x>]]></a>`, []string{`<a>`, none, `</a>`}},
		{"comment", `<a><!-- c --></a>`, []string{`<a>`, `<!-- c -->`, `</a>`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := xmltok.NewReader(strings.NewReader(tt.in), xmltok.Limits{})
			t.Cleanup(r.Release)
			var got []string
			for {
				if _, err := r.Next(); err != nil {
					require.ErrorContains(t, err, "EOF")
					break
				}
				if raw := r.Raw(); raw != nil {
					got = append(got, string(raw))
				} else {
					got = append(got, none)
				}
			}
			assert.Equal(t, tt.raw, got)
		})
	}
}
