package xmlvalue_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/internal/xmltok"
	"github.com/soapwire/soapwire/core/internal/xmlvalue"
)

// tokens is a body's children as the core hands them to Decode: the
// children of an element (standing for the Body) that declares the prefixes
// a and b, read with the core's default limits.
type tokens struct{ r *xmltok.Reader }

func newTokens(children string) (*tokens, error) {
	r := xmltok.NewReader(strings.NewReader(`<body xmlns:a="urn:a" xmlns:b="urn:b">`+children+`</body>`),
		xmltok.Limits{MaxDepth: 128, MaxAttrs: 64, MaxNSDecls: 32, MaxNameLen: 256})
	if _, err := r.Next(); err != nil {
		return nil, err
	}
	return &tokens{r}, nil
}

func (ts *tokens) Next() (*xmltok.Token, bool, error) {
	t, err := ts.r.Next()
	if err != nil {
		return nil, false, err
	}
	d := ts.r.Depth()
	if t.Kind == xmltok.EndElement && d == 0 {
		return nil, false, io.EOF
	}
	return t, t.Kind == xmltok.StartElement && d == 2, nil
}

func (ts *tokens) Scope() []xmltok.NS { return ts.r.Scope() }

// firstChild writes the first child as encoding/xml is to read it:
// namespace-complete (every binding in scope declared on it, declarations
// before attributes), text and values escaped. ok is false when the
// children do not read or there is none.
func firstChild(children string) (child []byte, ok bool) {
	ts, err := newTokens(children)
	if err != nil {
		return nil, false
	}
	qname := func(n xmltok.Name) string {
		if len(n.Prefix) > 0 {
			return string(n.Prefix) + ":" + string(n.Local)
		}
		return string(n.Local)
	}
	var out bytes.Buffer
	depth := 0
	for {
		t, top, err := ts.Next()
		if err != nil {
			return nil, false
		}
		switch t.Kind {
		case xmltok.StartElement:
			depth++
			out.WriteString("<" + qname(t.Name))
			decls := t.NS
			if top {
				decls = ts.Scope()
			}
			for _, d := range decls {
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
		case xmltok.EndElement:
			depth--
			out.WriteString("</" + qname(t.Name) + ">")
			if depth == 0 {
				return out.Bytes(), true
			}
		case xmltok.CharData:
			if depth > 0 {
				xml.EscapeText(&out, t.Text)
			}
		case xmltok.Comment:
			if depth > 0 {
				out.WriteString("<!--" + string(t.Text) + "-->")
			}
		}
	}
}

// checkDecode decodes the first child into a fresh value of each type with
// Decode and with xml.Unmarshal of the child written out: both succeed
// with the same value, or fail with the same error and leave the same
// partial value. Decode does the types of decodeTypes it says, and no
// other.
func checkDecode(t *testing.T, children string) {
	t.Helper()
	child, ok := firstChild(children)
	if !ok {
		return
	}
	c := new(xmlvalue.Cache)
	for _, dt := range decodeTypes {
		want, got := dt.new(), dt.new()
		wantErr := xml.Unmarshal(child, want)
		ts, err := newTokens(children)
		require.NoError(t, err)
		ok, _, gotErr := xmlvalue.Decode(ts, got, c, nil)
		if !ok {
			if dt.fast {
				t.Fatalf("%s: Decode left it to encoding/xml", dt.name)
			}
			continue
		}
		switch {
		case !dt.fast:
			t.Fatalf("%s: Decode read it; it is encoding/xml's", dt.name)
		case wantErr == nil && gotErr != nil:
			t.Fatalf("%s: Decode: %v; xml.Unmarshal: ok\n%s", dt.name, gotErr, child)
		case wantErr != nil && gotErr == nil:
			t.Fatalf("%s: Decode: ok; xml.Unmarshal: %v\n%s", dt.name, wantErr, child)
		case wantErr != nil && gotErr.Error() != wantErr.Error():
			t.Fatalf("%s: Decode: %q; xml.Unmarshal: %q\n%s", dt.name, gotErr, wantErr, child)
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

// TestDecode checks Decode against xml.Unmarshal for every seed and type,
// and that the types it reads are the ones expected.
func TestDecode(t *testing.T) {
	for i, s := range decodeSeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkDecode(t, s) })
	}
}

// TestDecodeValues: what Decode gives for a request, in detail.
func TestDecodeValues(t *testing.T) {
	ts, err := newTokens(decodeSeeds[0])
	require.NoError(t, err)
	var v dItem
	ok, _, err := xmlvalue.Decode(ts, &v, nil, nil)
	require.True(t, ok)
	require.NoError(t, err)
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

// TestDecodeNotPlanned: what Decode leaves to encoding/xml it does not
// read at all.
func TestDecodeNotPlanned(t *testing.T) {
	for _, v := range []any{nil, dEcho{}, (*dEcho)(nil), new(dPath), new(***dItem)} {
		ts, err := newTokens(`<m:x xmlns:m="urn:m"><message>m</message></m:x>`)
		require.NoError(t, err)
		ok, _, err := xmlvalue.Decode(ts, v, nil, nil)
		assert.False(t, ok, "%T", v)
		require.NoError(t, err)
		tok, top, err := ts.Next()
		require.NoError(t, err)
		assert.True(t, top && string(tok.Name.Local) == "x", "%T: the stream moved", v)
	}
}

// FuzzDecode decodes any body child into each type with Decode and with
// xml.Unmarshal (checkDecode).
func FuzzDecode(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, children []byte) {
		if len(children) > 4<<10 {
			return
		}
		checkDecode(t, string(children))
	})
}
