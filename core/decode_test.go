package core_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// decodeEnv is a SOAP 1.1 envelope around body children, with namespaces
// declared around the Body (they are in scope on its children).
func decodeEnv(children string) []byte {
	return []byte(`<s:Envelope xmlns:s="` + core.NamespaceV11 + `" xmlns:a="urn:a" xmlns:b="urn:b"><s:Body>` +
		children + `</s:Body></s:Envelope>`)
}

// firstChild writes the body's first child as encoding/xml is to read it:
// namespace-complete (every binding in scope declared on it, declarations
// before attributes), text and values escaped. ok is false when the
// envelope does not read or the body has no child.
func firstChild(env []byte) (child []byte, ok bool) {
	m, err := core.ReadMessage(bytes.NewReader(env), core.Limits{})
	if err != nil {
		return nil, false
	}
	qname := func(n core.TokenName) string {
		if len(n.Prefix) > 0 {
			return string(n.Prefix) + ":" + string(n.Local)
		}
		return string(n.Local)
	}
	var out bytes.Buffer
	depth := 0
	for {
		t, err := m.Body().Next()
		if err != nil {
			return nil, false
		}
		switch t.Kind {
		case core.StartElement:
			depth++
			out.WriteString("<" + qname(t.Name))
			for _, d := range t.NS {
				if len(d.Prefix) == 0 {
					out.WriteString(` xmlns="`)
				} else {
					out.WriteString(` xmlns:` + string(d.Prefix) + `="`)
				}
				xml.EscapeText(&out, d.URI)
				out.WriteString(`"`)
			}
			for _, a := range t.Attr {
				out.WriteString(" " + qname(a.Name) + `="`)
				xml.EscapeText(&out, a.Value)
				out.WriteString(`"`)
			}
			out.WriteString(">")
		case core.EndElement:
			depth--
			out.WriteString("</" + qname(t.Name) + ">")
			if depth == 0 {
				return out.Bytes(), true
			}
		case core.CharData:
			if depth > 0 {
				xml.EscapeText(&out, t.Text)
			}
		case core.Comment:
			if depth > 0 {
				out.WriteString("<!--" + string(t.Text) + "-->")
			}
		}
	}
}

// checkDecode decodes the body's first child into a fresh value of each
// type with Body.Decode and with xml.Unmarshal of the child written out:
// both must succeed with the same value, or fail with the same error and
// leave the same partial value.
func checkDecode(t *testing.T, env []byte) {
	t.Helper()
	child, ok := firstChild(env)
	if !ok {
		return
	}
	for _, dt := range decodeTypes {
		want, got := dt.new(), dt.new()
		wantErr := xml.Unmarshal(child, want)
		m, err := core.ReadMessage(bytes.NewReader(env), core.Limits{})
		require.NoError(t, err)
		gotErr := m.Body().Decode(got)
		switch {
		case wantErr == nil && gotErr != nil:
			t.Fatalf("%s: Decode: %v; xml.Unmarshal: ok\n%s", dt.name, gotErr, child)
		case wantErr != nil && gotErr == nil:
			t.Fatalf("%s: Decode: ok; xml.Unmarshal: %v\n%s", dt.name, wantErr, child)
		case wantErr != nil:
			var f *core.Fault
			require.True(t, errors.As(gotErr, &f), "%s: %v", dt.name, gotErr)
			if f.Reason != "the body does not fit the expected value: "+wantErr.Error() {
				t.Fatalf("%s: Decode: %q; xml.Unmarshal: %q\n%s", dt.name, f.Reason, wantErr, child)
			}
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("%s: Decode gave\n%#v\nxml.Unmarshal\n%#v\n(error %v)\n%s", dt.name, deref(got), deref(want), wantErr, child)
		}
	}
}

func deref(v any) any { return reflect.ValueOf(v).Elem().Interface() }

// decodeSeeds are body children for the end-to-end decoding test (the
// value fast path's own test, core/internal/xmlvalue, has many more).
var decodeSeeds = []string{
	`<a:item id="7" xml:lang="en" u="3"><name>n &amp; m</name><a:price> 1.5 </a:price><flag>true</flag>text</a:item>`,
	`<a:item id="x"/>`,
	`<b:item/>`,
	`<m:echoString xmlns:m="urn:m"><message>hello</message><message>twice</message></m:echoString>`,
	`<a:leafy>1</a:leafy>`,
	`<at><at>2006-01-02T15:04:05Z</at></at>`,
	"<a:item>\n  <name>multi\r\nline</name>\n</a:item>",
	`<x><a><b>deep</b></a></x>`,
}

// The Go types Body.Decode is checked with end to end: some the value fast
// path reads, some it leaves to encoding/xml.
type (
	dItem struct {
		XMLName xml.Name `xml:"urn:a item"`
		ID      int      `xml:"id,attr"`
		Lang    string   `xml:"http://www.w3.org/XML/1998/namespace lang,attr"`
		U       uint8    `xml:"u,attr"`
		Name    string   `xml:"name"`
		Price   float64  `xml:"urn:a price"`
		Flag    *bool    `xml:"flag"`
		Text    string   `xml:",chardata"`
	}
	dEcho struct {
		Message string `xml:"message"`
	}
	dLeaf struct {
		XMLName xml.Name
		V       string `xml:",chardata"`
		K       bool   `xml:"k,attr"`
	}
	dLeafNamed struct {
		XMLName xml.Name `xml:"urn:a leafy"`
		V       int      `xml:",chardata"`
	}
	dPath struct { // encoding/xml's
		Deep string `xml:"a>b"`
	}
	dTime struct { // encoding/xml's
		At time.Time `xml:"at"`
	}
)

var decodeTypes = []struct {
	name string
	new  func() any
}{
	{"item", func() any { return new(dItem) }},
	{"*item", func() any { return new(*dItem) }},
	{"echo", func() any { return new(dEcho) }},
	{"leaf", func() any { return new(dLeaf) }},
	{"named", func() any { return new(dLeafNamed) }},
	{"string", func() any { return new(string) }},
	{"path", func() any { return new(dPath) }},
	{"time", func() any { return new(dTime) }},
}

// TestDecode checks Body.Decode against xml.Unmarshal for every seed and
// type, on the fast path and through encoding/xml.
func TestDecode(t *testing.T) {
	for i, s := range decodeSeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkDecode(t, decodeEnv(s)) })
	}
}

// TestDecodeRefusals: what does not fit the value is a Sender fault whose
// reason is encoding/xml's, on the fast path as through encoding/xml.
func TestDecodeRefusals(t *testing.T) {
	cases := []struct {
		body string
		v    any
		want string
	}{
		{`<b:item/>`, new(dItem), "expected element <item> in name space urn:a but have urn:b"},
		{`<item/>`, new(dItem), "expected element <item> in name space urn:a but have no name space"},
		{`<a:other/>`, new(dItem), "expected element type <item> but have <other>"},
		{`<a:item id="x"/>`, new(dItem), `strconv.ParseInt: parsing "x": invalid syntax`},
		{`<a:item u="300"/>`, new(dItem), `strconv.ParseUint: parsing "300": value out of range`},
		{`<a:item><flag>maybe</flag></a:item>`, new(dItem), `strconv.ParseBool: parsing "maybe": invalid syntax`},
		{`<a:item><a:price>x</a:price></a:item>`, new(dItem), `strconv.ParseFloat: parsing "x": invalid syntax`},
		{``, new(dEcho), "EOF"},
		{`<at><at>never</at></at>`, new(dTime), `parsing time "never"`},
	}
	for _, tc := range cases {
		t.Run(tc.want, func(t *testing.T) {
			m, err := core.ReadMessage(bytes.NewReader(decodeEnv(tc.body)), core.Limits{})
			require.NoError(t, err)
			err = m.Body().Decode(tc.v)
			require.Error(t, err)
			assert.True(t, errors.Is(err, &core.Fault{Code: core.CodeSender}), "%v", err)
			assert.Contains(t, core.FaultOf(err).Reason, "the body does not fit the expected value: "+tc.want)
		})
	}
}

// TestDecodeInTurn: children decoded one after the other, by the fast path
// and by encoding/xml, then the body read to its end.
func TestDecodeInTurn(t *testing.T) {
	m, err := core.ReadMessage(bytes.NewReader(decodeEnv(`<a:leafy>1</a:leafy> <leafy k="1">x</leafy><x><v>q</v></x>`)), core.Limits{})
	require.NoError(t, err)
	var n dLeafNamed
	require.NoError(t, m.Body().Decode(&n))
	assert.Equal(t, 1, n.V)
	var l dLeaf
	require.NoError(t, m.Body().Decode(&l))
	assert.Equal(t, dLeaf{XMLName: xml.Name{Local: "leafy"}, V: "x", K: true}, l)
	var p dPath // through encoding/xml
	require.NoError(t, m.Body().Decode(&p))
	require.NoError(t, m.Body().Discard())
	var e dEcho
	err = m.Body().Decode(&e)
	assert.ErrorContains(t, err, "EOF")
}

// TestDecodeMalformed: a malformed body is the tokenizer's Sender fault,
// not a decoding error.
func TestDecodeMalformed(t *testing.T) {
	m, err := core.ReadMessage(strings.NewReader(string(decodeEnv(`<a:item><name>x</nme></a:item>`))), core.Limits{})
	require.NoError(t, err)
	var v dItem
	err = m.Body().Decode(&v)
	require.Error(t, err)
	assert.Contains(t, core.FaultOf(err).Reason, "malformed envelope")
}
