package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

// Every round-trip value but those whose Go type comes from xsi:type (any)
// reads back from the literal form, led by the Go type.
func TestLiteralRoundTrip(t *testing.T) {
	for _, tc := range roundTrips() {
		if strings.Contains(tc.name, "any") {
			continue // literal values carry no type: an any target gets text
		}
		t.Run(tc.name, func(t *testing.T) {
			x := encode(t, soapenc.Encoder{Literal: true}, tc.in)
			assert.NotContains(t, x, "xsi:type", x)
			assert.NotContains(t, x, "soapenc", x)
			namespaceComplete(t, x)
			got := reflect.New(reflect.TypeOf(tc.in))
			require.NoError(t, read(t, 0, x).Decode(got.Interface()), x)
			assertSame(t, tc.in, got.Elem().Interface(), x)
		})
	}
}

type litRecord struct {
	Name  string            `soap:"name"`
	Tags  []string          `soap:"tags"`
	Grid  [][]int           `soap:"grid"`
	Next  *litRecord        `soap:"next"`
	Items []*Address        `soap:"items"`
	Attrs map[string]string `soap:"attrs"`
	Bin   []byte            `soap:"bin"`
	Note  string            `soap:"note,omitempty"`
	Kind  xml.Name          `soap:"kind"`
}

func TestLiteralExact(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"repeated fields, nil pointer left out, nil item kept", litRecord{
			Name: "a<b", Tags: []string{"x", "y"}, Grid: [][]int{{1, 2}, {}},
			Items: []*Address{{Street: "s"}, nil}, Attrs: map[string]string{"b": "2", "a": "1"},
			Kind: xml.Name{Space: "urn:k", Local: "k1"}},
			`<m:value xmlns:m="urn:test"><name>a&lt;b</name><tags>x</tags><tags>y</tags>` +
				`<grid><item>1</item><item>2</item></grid><grid></grid>` +
				`<items><street>s</street><city></city></items><items xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>` +
				`<attrs><a>1</a><b>2</b></attrs><bin></bin><kind xmlns:q="urn:k">q:k1</kind></m:value>`},
		{"nil map and interface are xsi:nil", struct {
			M map[string]int
			A any
		}{}, `<m:value xmlns:m="urn:test"><M xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/>` +
			`<A xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></m:value>`},
		{"top-level list is a wrapper of items", []int32{1, 2},
			`<m:value xmlns:m="urn:test"><item>1</item><item>2</item></m:value>`},
		{"exact decimal forms", []any{big.NewRat(1, 1<<20), soapenc.Decimal("123456789012345678901234567890.000000000000000000000000000001")},
			`<m:value xmlns:m="urn:test"><item>0.00000095367431640625</item><item>123456789012345678901234567890.000000000000000000000000000001</item></m:value>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := encode(t, soapenc.Encoder{Literal: true, TypeNamespace: "urn:ignored", MultiRefs: true, EncodingStyle: true}, tt.in)
			assert.Equal(t, tt.want, x)
		})
	}
	// and it reads back
	in := litRecord{Name: "n", Tags: []string{"x"}, Grid: [][]int{{1}, {2, 3}}, Next: &litRecord{Name: "inner", Bin: []byte{}}, // a nil []byte reads back empty
		Items: []*Address{nil, {City: "c"}}, Attrs: map[string]string{"k": "v"}, Bin: []byte{1}, Kind: xml.Name{Local: "plain"}}
	var back litRecord
	x := encode(t, soapenc.Encoder{Literal: true}, in)
	require.NoError(t, read(t, 0, x).Decode(&back), x)
	assert.Equal(t, in, back)
}

// WrapLists: a list part is one element of items (rpc/literal); without it
// the part repeats (document/literal). Nil pointer parts are left out.
func TestLiteralParts(t *testing.T) {
	name := xml.Name{Space: "urn:svc", Local: "op"}
	parts := []soapenc.Part{{Name: "list", Value: []string{"a", "b"}}, {Name: "none", Value: (*int)(nil)}, {Name: "n", Value: 3}}
	for _, tt := range []struct {
		wrap bool
		want string
	}{
		{false, `<m:op xmlns:m="urn:svc"><list>a</list><list>b</list><n>3</n></m:op>`},
		{true, `<m:op xmlns:m="urn:svc"><list><item>a</item><item>b</item></list><n>3</n></m:op>`},
	} {
		var b bytes.Buffer
		require.NoError(t, (&soapenc.Encoder{Literal: true, WrapLists: tt.wrap}).EncodeParts(&b, name, parts...))
		assert.Equal(t, tt.want, b.String())
	}
}

// A Go array field sent as more repeated elements than it holds is refused.
func TestLiteralArrayFieldOverflow(t *testing.T) {
	var got Pairs
	err := read(t, 0, wrap(`<One>a</One><One>b</One><One>c</One>`)).Decode(&got)
	assert.Equal(t, soapenc.SubcodeArraySize, subcode(t, err), "%v", err)
}

func TestLiteralErrors(t *testing.T) {
	n := &Node{Name: "loop"}
	n.Next = n
	tests := []struct {
		name string
		in   any
		sub  string
	}{
		{"cycle", n, soapenc.SubcodeCycle},
		{"rat without a finite decimal form", big.NewRat(1, 3), soapenc.SubcodeBadValue},
		{"invalid UTF-8", "a\xffb", soapenc.SubcodeBadValue},
		{"control character", "a\x01b", soapenc.SubcodeBadValue},
		{"bad decimal", soapenc.Decimal("1e5"), soapenc.SubcodeBadValue},
		{"bad QName", xml.Name{Local: "a b"}, soapenc.SubcodeBadValue},
		{"channel", make(chan int), soapenc.SubcodeUnsupported},
		{"bad map key", map[string]int{"a b": 1}, soapenc.SubcodeUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := (&soapenc.Encoder{Literal: true}).Encode(&bytes.Buffer{}, xml.Name{Local: "v"}, tt.in)
			assert.Equal(t, tt.sub, subcode(t, err), "%v", err)
		})
	}
}

// Fields is the accessor list the Encoder writes: what core/wsdl describes.
func TestFields(t *testing.T) {
	fields, err := soapenc.Fields(reflect.TypeFor[*Embedded]())
	require.NoError(t, err)
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	assert.Equal(t, []string{"street", "city", "zip", "Extra"}, names, "promoted fields in place")
	assert.True(t, fields[2].OmitEmpty)
	assert.Equal(t, reflect.TypeFor[*int](), fields[2].Type)

	fields, err = soapenc.Fields(reflect.TypeFor[Person]())
	require.NoError(t, err)
	assert.Len(t, fields, 6, "XMLName, soap:\"-\" and unexported fields left out")

	_, err = soapenc.Fields(reflect.TypeFor[int]())
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, err))
	_, err = soapenc.Fields(reflect.TypeFor[struct {
		A int `soap:"a b"`
	}]())
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, err))
}

// A part with a Space is a qualified accessor, its namespace declared on it.
func TestQualifiedPart(t *testing.T) {
	name := xml.Name{Space: "urn:svc", Local: "opResponse"}
	part := soapenc.Part{Space: "http://www.w3.org/2003/05/soap-rpc", Name: "result", Value: xml.Name{Local: "return"}}
	var b bytes.Buffer
	require.NoError(t, (&soapenc.Encoder{Version: soapenc.V12}).EncodeParts(&b, name, part, soapenc.Part{Name: "return", Value: 1}))
	x := b.String()
	namespaceComplete(t, x)
	assert.Contains(t, x, `<p:result xmlns:p="http://www.w3.org/2003/05/soap-rpc" xsi:type="xsd:QName" xmlns="">return</p:result><return xsi:type="xsd:long">1</return>`)
	kids := read(t, soapenc.V12, x).Children()
	require.Len(t, kids, 2)
	var q xml.Name
	require.NoError(t, kids[0].Decode(&q))
	assert.Equal(t, xml.Name{Space: "http://www.w3.org/2003/05/soap-rpc", Local: "result"}, kids[0].Name)
	assert.Equal(t, xml.Name{Local: "return"}, q)

	b.Reset()
	require.NoError(t, (&soapenc.Encoder{Literal: true}).EncodeParts(&b, name, part))
	assert.Equal(t, `<m:opResponse xmlns:m="urn:svc"><p:result xmlns:p="http://www.w3.org/2003/05/soap-rpc" xmlns="">return</p:result></m:opResponse>`, b.String())
}
