package core_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

func TestTextHeaderBlock(t *testing.T) {
	name := xml.Name{Space: "urn:ex:session", Local: "Session"}
	const text = `a < b & "c" ]]> é` + "\r"
	for _, v := range versions {
		for _, mu := range []bool{false, true} {
			b := core.TextHeaderBlock(name, text)
			b.MustUnderstand = mu
			if mu {
				b.Role = core.RoleNext
			}
			m := core.NewMessage(v, core.RawBody([]byte(`<m:op xmlns:m="urn:m"/>`)))
			m.Envelope.Headers = []core.HeaderBlock{b}
			var out bytes.Buffer
			_, err := m.WriteTo(&out)
			require.NoError(t, err)
			got, err := core.ReadMessage(&out, core.Limits{})
			require.NoError(t, err, "%s", out.String())
			require.Len(t, got.Envelope.Headers, 1)
			h := got.Envelope.Headers[0]
			assert.Equal(t, name, h.Name)
			assert.Equal(t, mu, h.MustUnderstand, "%s mu=%v", v, mu)
			var s struct {
				Text string `xml:",chardata"`
			}
			require.NoError(t, h.Decode(&s))
			assert.Equal(t, text, s.Text, "%s", v)
		}
	}
	// the same block as ParseHeaderBlock reads it
	b := core.TextHeaderBlock(name, "x")
	p, err := core.ParseHeaderBlock(b.XML)
	require.NoError(t, err)
	assert.Equal(t, p.Name, b.Name)
	assert.Equal(t, `<h:Session xmlns:h="urn:ex:session">x</h:Session>`, string(b.XML))
	assert.Equal(t, `<h:a xmlns:h="urn:a&amp;&quot;">&lt;</h:a>`, string(core.TextHeaderBlock(xml.Name{Space: `urn:a&"`, Local: "a"}, "<").XML))
}

func TestTextHeaderBlockBadName(t *testing.T) {
	for _, n := range []xml.Name{
		{Local: "unqualified"},
		{Space: "urn:x", Local: ""},
		{Space: "urn:x", Local: "p:local"},
		{Space: "urn:x", Local: "9lives"},
		{Space: "urn:x", Local: `a"><evil/`},
	} {
		b := core.TextHeaderBlock(n, "text")
		assert.Nil(t, b.XML, "%v", n)
		m := core.NewMessage(core.V12, core.Body{})
		m.Envelope.Headers = []core.HeaderBlock{b}
		_, err := m.WriteTo(&bytes.Buffer{})
		assert.Error(t, err, "%v", n)
		// a block built by hand with that name is refused alike
		m.Envelope.Headers = []core.HeaderBlock{{Name: n}}
		_, err = m.WriteTo(&bytes.Buffer{})
		assert.Error(t, err, "%v", n)
	}
}

func ExampleTextHeaderBlock() {
	b := core.TextHeaderBlock(xml.Name{Space: "urn:example:trace", Local: "Trace"}, "hop <1>")
	b.MustUnderstand = true
	env := &core.Envelope{Version: core.V12, Headers: []core.HeaderBlock{b}}
	if _, err := env.WriteTo(os.Stdout); err != nil {
		fmt.Println(err)
	}
	fmt.Println()
	fmt.Println(strings.Contains(string(b.XML), "hop &lt;1&gt;"))
	// Output:
	// <soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Header><h:Trace xmlns:h="urn:example:trace" xmlns:soap="http://www.w3.org/2003/05/soap-envelope" soap:mustUnderstand="true">hop &lt;1&gt;</h:Trace></soap:Header><soap:Body/></soap:Envelope>
	// true
}
