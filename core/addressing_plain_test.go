package core_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// plainValueSeeds are header blocks' contents: plain text and everything
// the shortcut must leave to the tokenizer.
var plainValueSeeds = []string{
	`urn:uuid:6b29fc40-ca47-1067-b31d-00dd010662da`,
	"  \n urn:x \t ", ``, `a &amp; b`, `&#x41;BC`, `<![CDATA[x<y]]>`, `x<!-- c -->y`,
	`<inner>z</inner>tail`, "line\r\nnext", `é ü 中`, `a > b`,
}

// plainValueEnvelope puts content in a wsa:MessageID block whose start tag
// has an attribute holding '>' and '/' (the shortcut skips quoted values).
func plainValueEnvelope(content string) string {
	return `<s:Envelope xmlns:s="` + core.NamespaceV12 + `" xmlns:wsa="` + core.NamespaceAddressing + `"><s:Header>` +
		`<wsa:MessageID x:note='a>b/' xmlns:x="urn:x">` + content + `</wsa:MessageID><wsa:To/></s:Header><s:Body/></s:Envelope>`
}

// checkPlainValue: wherever the shortcut answers, the tokenizer answers the
// same for the same block.
func checkPlainValue(t *testing.T, content string) {
	env, err := core.ReadEnvelope(strings.NewReader(plainValueEnvelope(content)), core.Limits{})
	if err != nil {
		return // not a block ReadMessage would hand over
	}
	for _, b := range env.Headers {
		want, err := core.TokenAddressingValue(b.XML)
		require.NoError(t, err)
		if got, ok := core.PlainAddressingValue(b.XML); ok {
			assert.Equal(t, want, got, "block %q", b.XML)
		}
	}
}

// TestPlainAddressingValue: the tokenizer-free reading of WS-Addressing
// values gives the tokenizer's value for plain text and declines the rest.
func TestPlainAddressingValue(t *testing.T) {
	for _, s := range plainValueSeeds {
		checkPlainValue(t, s)
	}
	m, err := core.ReadMessage(strings.NewReader(plainValueEnvelope("  urn:uuid:1  ")), core.Limits{})
	require.NoError(t, err)
	assert.Equal(t, "urn:uuid:1", m.ID)
	for _, tc := range []struct {
		raw string
		ok  bool
	}{
		{`<wsa:MessageID>urn:1</wsa:MessageID>`, true},
		{`<wsa:To/>`, false},
		{`<wsa:To></wsa:To>`, true},
		{`<wsa:To>a &amp; b</wsa:To>`, false},
		{`<wsa:To><![CDATA[a]]></wsa:To>`, false},
		{`<wsa:To>a<!-- c --></wsa:To>`, false},
		{`<wsa:To><x/>a</wsa:To>`, false},
		{"<wsa:To>a\r\nb</wsa:To>", false},
	} {
		_, ok := core.PlainAddressingValue([]byte(tc.raw))
		assert.Equal(t, tc.ok, ok, "%s", tc.raw)
	}
}

// FuzzPlainAddressingValue: the shortcut and the tokenizer agree on any
// block content ReadEnvelope accepts.
func FuzzPlainAddressingValue(f *testing.F) {
	for _, s := range plainValueSeeds {
		f.Add(s)
	}
	f.Fuzz(checkPlainValue)
}
