package core_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

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
		if !sameValue(reflect.ValueOf(want), reflect.ValueOf(got)) {
			t.Fatalf("%s: Decode gave\n%#v\nxml.Unmarshal\n%#v\n(error %v)\n%s", dt.name, deref(got), deref(want), wantErr, child)
		}
	}
}

func deref(v any) any { return reflect.ValueOf(v).Elem().Interface() }

// decodeSeeds are body children for the decoding tests and the fuzzer.
var decodeSeeds = []string{
	`<a:item id="7" xml:lang="en" u="3" opt="4" many="1" bytes="xy"><name>n &amp; m</name><a:price> 1.5 </a:price><b:price>2</b:price>` +
		`<tag>x</tag><tag>y</tag><flag>true</flag><sub a="q"><b a="1"><b/></b><n xmlns="urn:n"/><num>3</num>c<![CDATA[<d>]]></sub>` +
		`<subs a="1"/><subs a="2"/><leaf k="1">v</leaf><leaf/><raw>r</raw><raw/><when>18446744073709551615</when>text<n/><a:n/></a:item>`,
	`<item xmlns="urn:a" many="1" many="2"/>`,
	`<item xmlns="urn:a" many=" 3 "><tag/><tag></tag></item>`,
	`<a:item id="x"/>`,
	`<a:item id=""/>`,
	`<a:item u="256"/>`,
	`<a:item many="1"><a:price>abc</a:price></a:item>`,
	`<a:item><flag>maybe</flag></a:item>`,
	`<a:item><sub><num>-1</num></sub></a:item>`,
	`<a:item><leaf k="yes"/></a:item>`,
	`<a:item><price>NaN</price><a:price>NaN</a:price><b:price>-Inf</b:price><big>9223372036854775808</big></a:item>`,
	`<b:item/>`,
	`<item/>`,
	`<other xmlns="urn:a"/>`,
	`<m:echoString xmlns:m="urn:m"><message>hello</message><message>twice</message></m:echoString>`,
	`<m:echoString xmlns:m="urn:m"><message><b>nested</b>x</message></m:echoString>`,
	`<x a="1" xmlns="urn:x" b:s="2"/>`,
	`<item><a:leafy>5</a:leafy><b:leafy>6</b:leafy><leafy>6</leafy><Plain>p</Plain><Leaf>7</Leaf></item>`,
	`<a:leafy>1</a:leafy>`,
	`<v>1<x/>2</v>`,
	`<list><item>a</item></list><second/>`,
	"<a:item>\n  <name>multi\r\nline</name>\n</a:item>",
	`<a:item><!-- c --><name>x<!-- y -->z</name></a:item>`,
	`<a:item xmlns:a="urn:other"><name>q</name></a:item>`,
	`<at><at>2006-01-02T15:04:05Z</at></at>`,
}

// TestDecode checks Body.Decode against xml.Unmarshal for every seed and
// type, and that the types the fast path reads are the ones expected.
func TestDecode(t *testing.T) {
	for _, dt := range decodeTypes {
		assert.Equal(t, dt.fast, core.DecodePlanned(dt.new()), dt.name)
	}
	for i, s := range decodeSeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkDecode(t, decodeEnv(s)) })
	}
}

// TestDecodeValues: what the fast path gives for a request, in detail.
func TestDecodeValues(t *testing.T) {
	m, err := core.ReadMessage(bytes.NewReader(decodeEnv(decodeSeeds[0])), core.Limits{})
	require.NoError(t, err)
	var v dItem
	require.True(t, core.DecodePlanned(&v))
	require.NoError(t, m.Body().Decode(&v))
	four, yes := 4, true
	c, none := "c<d>", ""
	want := dItem{
		XMLName: xml.Name{Space: "urn:a", Local: "item"}, ID: 7, Lang: "en", U: 3, Opt: &four, Many: []int16{1}, Bytes: []byte("xy"),
		Name: "n & m", Price: 1.5, Cost: 2, Tags: []string{"x", "y"}, Flag: &yes,
		Sub:  &dSub{A: "q", Inner: []dSub{{A: "1"}}, N: xml.Name{Space: "urn:n", Local: "n"}, C: &c, Num: 3},
		Subs: []dSub{{A: "1", C: &none}, {A: "2", C: &none}},
		Ptrs: []*dLeaf{{XMLName: xml.Name{Local: "leaf"}, V: "v", K: true}, {XMLName: xml.Name{Local: "leaf"}}},
		Raw:  []byte{}, When: 18446744073709551615, Text: "text",
		Names: []xml.Name{{Local: "n"}, {Space: "urn:a", Local: "n"}},
	}
	want.Sub.Inner[0].C, want.Sub.Inner[0].Inner = &none, []dSub{{C: &none}}
	assert.Equal(t, want, v)
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
	require.False(t, core.DecodePlanned(&p))
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

// FuzzDecode decodes any body child into each type with Body.Decode and
// with xml.Unmarshal (checkDecode).
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, children []byte) {
		if len(children) > 4<<10 {
			return
		}
		checkDecode(t, decodeEnv(string(children)))
	})
}
