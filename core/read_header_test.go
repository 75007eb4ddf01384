package core_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

func TestHeaderBlockAttributes(t *testing.T) {
	const h = `xmlns:h="urn:h"`
	cases := []struct {
		name  string
		v     core.Version
		block string
		want  core.HeaderBlock // XML ignored
	}{
		{"plain 1.1", core.V11, `<h:a ` + h + `/>`, core.HeaderBlock{}},
		{"plain 1.2", core.V12, `<h:a ` + h + `/>`, core.HeaderBlock{}},
		{"actor", core.V11, `<h:a ` + h + ` s:actor="` + core.RoleNextV11 + `"/>`, core.HeaderBlock{Role: core.RoleNextV11}},
		{"role is not 1.1", core.V11, `<h:a ` + h + ` s:role="urn:r"/>`, core.HeaderBlock{}},
		{"role", core.V12, `<h:a ` + h + ` s:role="` + core.RoleNext + `"/>`, core.HeaderBlock{Role: core.RoleNext}},
		{"actor is not 1.2", core.V12, `<h:a ` + h + ` s:actor="urn:r"/>`, core.HeaderBlock{}},
		{"mustUnderstand 1", core.V11, `<h:a ` + h + ` s:mustUnderstand="1"/>`, core.HeaderBlock{MustUnderstand: true}},
		{"mustUnderstand 0", core.V11, `<h:a ` + h + ` s:mustUnderstand="0"/>`, core.HeaderBlock{}},
		{"mustUnderstand 1 in 1.2", core.V12, `<h:a ` + h + ` s:mustUnderstand="1"/>`, core.HeaderBlock{MustUnderstand: true}},
		{"mustUnderstand true", core.V12, `<h:a ` + h + ` s:mustUnderstand="true"/>`, core.HeaderBlock{MustUnderstand: true}},
		{"mustUnderstand false", core.V12, `<h:a ` + h + ` s:mustUnderstand="false"/>`, core.HeaderBlock{}},
		{"unqualified mustUnderstand is not SOAP's", core.V12, `<h:a ` + h + ` mustUnderstand="true"/>`, core.HeaderBlock{}},
		{"relay", core.V12, `<h:a ` + h + ` s:relay="true"/>`, core.HeaderBlock{Relay: true}},
		{"relay 1", core.V12, `<h:a ` + h + ` s:relay="1"/>`, core.HeaderBlock{Relay: true}},
		{"encodingStyle 1.1", core.V11, `<h:a ` + h + ` s:encodingStyle="` + core.EncodingStyleV11 + `"/>`, core.HeaderBlock{EncodingStyle: core.EncodingStyleV11}},
		{"encodingStyle 1.2", core.V12, `<h:a ` + h + ` s:encodingStyle="` + core.EncodingStyleV12 + `"/>`, core.HeaderBlock{EncodingStyle: core.EncodingStyleV12}},
		{"all of them", core.V12, `<h:a ` + h + ` s:role="urn:r" s:mustUnderstand="true" s:relay="true" s:encodingStyle="urn:e">x</h:a>`,
			core.HeaderBlock{Role: "urn:r", MustUnderstand: true, Relay: true, EncodingStyle: "urn:e"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := readAll(envOf(tc.v, wrap(tc.block, "")), core.Limits{})
			require.NoError(t, err)
			require.Len(t, m.Envelope.Headers, 1)
			b := m.Envelope.Headers[0]
			assert.Equal(t, xml.Name{Space: "urn:h", Local: "a"}, b.Name)
			assert.Equal(t, tc.want.Role, b.Role)
			assert.Equal(t, tc.want.MustUnderstand, b.MustUnderstand)
			assert.Equal(t, tc.want.Relay, b.Relay)
			assert.Equal(t, tc.want.EncodingStyle, b.EncodingStyle)
		})
	}
}

func TestHeaderBlockNameIgnoresPrefix(t *testing.T) {
	for _, v := range versions {
		var names []xml.Name
		for _, block := range []string{
			`<h:a xmlns:h="urn:h"/>`,
			`<zz:a xmlns:zz="urn:h"/>`,
			`<a xmlns="urn:h"/>`,
		} {
			m, err := readAll(envOf(v, wrap(block, "")), core.Limits{})
			require.NoError(t, err)
			require.Len(t, m.Envelope.Headers, 1)
			names = append(names, m.Envelope.Headers[0].Name)
		}
		in := envOf(v, `<s:Envelope xmlns:s="{ns}" xmlns:q="urn:h"><s:Header><q:a/></s:Header><s:Body/></s:Envelope>`)
		m, err := readAll(in, core.Limits{})
		require.NoError(t, err)
		names = append(names, m.Envelope.Headers[0].Name)
		for _, n := range names {
			assert.Equal(t, xml.Name{Space: "urn:h", Local: "a"}, n)
		}
	}
}

// resolvedNames parses raw standalone with encoding/xml and lists its
// element and attribute names as {space}local, failing on anything unbound.
func resolvedNames(t *testing.T, raw []byte, known map[string]bool) []string {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(raw))
	var out []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		require.NoError(t, err, "%s", raw)
		if se, ok := tok.(xml.StartElement); ok {
			names := []xml.Name{se.Name}
			for _, a := range se.Attr {
				if a.Name.Space != "xmlns" && a.Name.Local != "xmlns" {
					names = append(names, a.Name)
				}
			}
			for _, n := range names {
				if n.Space != "" {
					require.True(t, known[n.Space], "%q did not resolve to a namespace URI in %s", n.Space, raw)
				}
				out = append(out, "{"+n.Space+"}"+n.Local)
			}
		}
	}
}

func TestHeaderBlockIsNamespaceComplete(t *testing.T) {
	known := map[string]bool{"urn:h": true, "urn:g": true, core.NamespaceXMLSchemaInst: true, core.NamespaceV11: true, core.NamespaceV12: true}
	for _, v := range versions {
		in := envOf(v, `<s:Envelope xmlns:s="{ns}" xmlns:h="urn:h" xmlns:xsd="http://www.w3.org/2001/XMLSchema">`+
			`<s:Header xmlns:g="urn:g" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`+
			`<h:a s:mustUnderstand="1"><g:b xsi:type="xsd:int">1</g:b></h:a></s:Header><s:Body/></s:Envelope>`)
		m, err := readAll(in, core.Limits{})
		require.NoError(t, err)
		require.Len(t, m.Envelope.Headers, 1)
		b := m.Envelope.Headers[0]
		names := resolvedNames(t, b.XML, known)
		assert.Contains(t, names, "{urn:h}a")
		assert.Contains(t, names, "{urn:g}b")
		assert.Contains(t, names, "{"+core.NamespaceXMLSchemaInst+"}type")
		assert.Contains(t, names, "{"+v.Namespace()+"}mustUnderstand")
		assert.Contains(t, string(b.XML), `xmlns:xsd="http://www.w3.org/2001/XMLSchema"`, "QName values stay resolvable")

		var dec struct {
			B struct {
				Type string `xml:"http://www.w3.org/2001/XMLSchema-instance type,attr"`
				Val  int    `xml:",chardata"`
			} `xml:"urn:g b"`
		}
		require.NoError(t, b.Decode(&dec))
		assert.Equal(t, "xsd:int", dec.B.Type)
		assert.Equal(t, 1, dec.B.Val)
	}
}

func TestSudsStylePrefixes(t *testing.T) {
	for _, v := range versions {
		in := envOf(v, `<SOAP-ENV:Envelope xmlns:ns0="urn:m" xmlns:ns1="{ns}" xmlns:SOAP-ENV="{ns}">`+
			`<SOAP-ENV:Header/><ns1:Body><ns0:Get><ns0:id>7</ns0:id></ns0:Get></ns1:Body></SOAP-ENV:Envelope>`)
		env, err := core.ReadEnvelope(strings.NewReader(in), core.Limits{})
		require.NoError(t, err)
		assert.Equal(t, v, env.Version)
		assert.Empty(t, env.Headers)
		assert.Equal(t, xml.Name{Space: "urn:m", Local: "Get"}, env.Body.Name())
		var got struct {
			ID int `xml:"urn:m id"`
		}
		require.NoError(t, env.Body.Decode(&got))
		assert.Equal(t, 7, got.ID)
	}
}

func TestParseAndNewHeaderBlock(t *testing.T) {
	b, err := core.ParseHeaderBlock([]byte(`<h:a xmlns:h="urn:h" xmlns:e="` + core.NamespaceV12 + `" e:role="urn:r" e:mustUnderstand="true" e:relay="1">x</h:a>`))
	require.NoError(t, err)
	assert.Equal(t, xml.Name{Space: "urn:h", Local: "a"}, b.Name)
	assert.Equal(t, "urn:r", b.Role)
	assert.True(t, b.MustUnderstand)
	assert.True(t, b.Relay)

	type token struct {
		XMLName xml.Name `xml:"urn:sec Token"`
		Value   string   `xml:",chardata"`
	}
	nb, err := core.NewHeaderBlock(token{Value: "secret"})
	require.NoError(t, err)
	assert.Equal(t, xml.Name{Space: "urn:sec", Local: "Token"}, nb.Name)
	var back token
	require.NoError(t, nb.Decode(&back))
	assert.Equal(t, "secret", back.Value)

	for _, bad := range []string{`<a/>`, `<h:a/>`, `<h:a xmlns:h="urn:h">`, `<h:a xmlns:h="urn:h"/><h:b xmlns:h="urn:h"/>`, ``} {
		_, err := core.ParseHeaderBlock([]byte(bad))
		assert.Error(t, err, "%q", bad)
	}
	_, err = core.NewHeaderBlock(struct {
		XMLName xml.Name `xml:"plain"`
	}{})
	assert.ErrorContains(t, err, "not namespace-qualified")
}

// TestHeaderBlocksInTurn: envelopes read one after the other (the
// tokenizer, its parser and their buffers recycled between them) each give
// their own blocks, names and namespace completion, whether the
// declarations around the Header change or stay the same.
func TestHeaderBlocksInTurn(t *testing.T) {
	env := func(decls, blocks, body string) string {
		return `<s:Envelope xmlns:s="` + core.NamespaceV11 + `" ` + decls + `><s:Header>` + blocks +
			`</s:Header><s:Body>` + body + `</s:Body></s:Envelope>`
	}
	cases := []struct {
		in    string
		names []xml.Name
		xml   []string
		body  xml.Name
	}{
		{env(`xmlns:a="urn:a1"`, `<h:x xmlns:h="urn:h"><a:y/></h:x><h:z xmlns:h="urn:h2"/>`, `<b:q xmlns:b="urn:b"/>`),
			[]xml.Name{{Space: "urn:h", Local: "x"}, {Space: "urn:h2", Local: "z"}},
			[]string{
				`<h:x xmlns:s="` + core.NamespaceV11 + `" xmlns:a="urn:a1" xmlns:h="urn:h"><a:y/></h:x>`,
				`<h:z xmlns:s="` + core.NamespaceV11 + `" xmlns:a="urn:a1" xmlns:h="urn:h2"/>`,
			}, xml.Name{Space: "urn:b", Local: "q"}},
		{env(`xmlns:a="urn:a2"`, `<h:x xmlns:h="urn:h"><a:y/></h:x>`, ``),
			[]xml.Name{{Space: "urn:h", Local: "x"}},
			[]string{`<h:x xmlns:s="` + core.NamespaceV11 + `" xmlns:a="urn:a2" xmlns:h="urn:h"><a:y/></h:x>`}, xml.Name{}},
		{env(`xmlns:a="urn:a2"`, `<wsa:To xmlns:wsa="`+core.NamespaceAddressing+`">urn:to</wsa:To><a:w>1</a:w>`, `<a:q/>`),
			[]xml.Name{{Space: "urn:a2", Local: "w"}},
			[]string{`<a:w xmlns:s="` + core.NamespaceV11 + `" xmlns:a="urn:a2">1</a:w>`}, xml.Name{Space: "urn:a2", Local: "q"}},
		{env(`xmlns:a="urn:a2" xmlns:b="urn:b"`, `<a:w a:k='v "q"'>1</a:w>`, `<a:q/>`),
			[]xml.Name{{Space: "urn:a2", Local: "w"}},
			[]string{`<a:w xmlns:s="` + core.NamespaceV11 + `" xmlns:a="urn:a2" xmlns:b="urn:b" a:k='v "q"'>1</a:w>`}, xml.Name{Space: "urn:a2", Local: "q"}},
		{env(`xmlns:a="urn:a2"`, `<a:w>1</a:w>`, `<a:q/>`),
			[]xml.Name{{Space: "urn:a2", Local: "w"}},
			[]string{`<a:w xmlns:s="` + core.NamespaceV11 + `" xmlns:a="urn:a2">1</a:w>`}, xml.Name{Space: "urn:a2", Local: "q"}},
		{env(`xmlns:a="urn:a1"`, `<h:x xmlns:h="urn:h" xmlns:a="urn:a3" a:k="&amp;"><a:y/></h:x>`, `<b:q xmlns:b="urn:b"/>`),
			[]xml.Name{{Space: "urn:h", Local: "x"}},
			[]string{`<h:x xmlns:s="` + core.NamespaceV11 + `" xmlns:h="urn:h" xmlns:a="urn:a3" a:k="&amp;"><a:y/></h:x>`},
			xml.Name{Space: "urn:b", Local: "q"}},
	}
	for round := range 2 {
		for i, tc := range cases {
			m, err := core.ReadMessage(strings.NewReader(tc.in), core.Limits{})
			require.NoError(t, err, "round %d, envelope %d", round, i)
			var names []xml.Name
			var raw []string
			for _, b := range m.Envelope.Headers {
				names = append(names, b.Name)
				raw = append(raw, string(b.XML))
			}
			assert.Equal(t, tc.names, names, "round %d, envelope %d", round, i)
			assert.Equal(t, tc.xml, raw, "round %d, envelope %d", round, i)
			assert.Equal(t, tc.body, m.Body().Name(), "round %d, envelope %d", round, i)
			require.NoError(t, m.Body().Discard())
		}
	}
}
