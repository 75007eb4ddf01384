package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

// namespaceComplete checks that every top-level element of x declares every
// prefix used in it: element and attribute names, and the QName values of
// xsi:type, soapenc:arrayType and enc:itemType.
func namespaceComplete(t testing.TB, x string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(x))
	var stack []map[string]bool
	bound := func(p string) bool {
		if p == "" || p == "xml" || p == "xmlns" {
			return true
		}
		for i := len(stack) - 1; i >= 0; i-- {
			if stack[i][p] {
				return true
			}
		}
		return false
	}
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return
		}
		require.NoError(t, err)
		switch tok := tok.(type) {
		case xml.StartElement:
			decl := map[string]bool{}
			for _, a := range tok.Attr {
				if a.Name.Space == "xmlns" {
					decl[a.Name.Local] = true
				}
			}
			stack = append(stack, decl)
			require.True(t, bound(tok.Name.Space), "element prefix %q unbound in %s", tok.Name.Space, x)
			for _, a := range tok.Attr {
				require.True(t, bound(a.Name.Space), "attribute prefix %q unbound in %s", a.Name.Space, x)
				if a.Name.Local == "type" || a.Name.Local == "arrayType" || a.Name.Local == "itemType" {
					if p, _, ok := strings.Cut(a.Value, ":"); ok {
						require.True(t, bound(p), "QName prefix %q unbound in %s", p, x)
					}
				}
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		}
	}
}

func TestEncodeNamespaceComplete(t *testing.T) {
	for _, tc := range roundTrips() {
		for _, v := range versions {
			for _, multi := range []bool{false, true} {
				for _, tns := range []string{"", "urn:types"} {
					enc := soapenc.Encoder{Version: v, MultiRefs: multi, TypeNamespace: tns, EncodingStyle: multi}
					namespaceComplete(t, encode(t, enc, tc.in))
				}
			}
		}
	}
}

func TestEncodeExact(t *testing.T) {
	const decl11 = ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"`
	const decl12 = ` xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:enc="http://www.w3.org/2003/05/soap-encoding"`
	shared := &Address{Street: "s"}
	cases := []struct {
		name string
		enc  soapenc.Encoder
		v    any
		want string
	}{
		{"string escaped", soapenc.Encoder{}, "a<b>&\"c\"\r\n",
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="xsd:string">a&lt;b&gt;&amp;"c"&#xD;` + "\n" + `</m:value>`},
		{"int", soapenc.Encoder{Version: soapenc.V12}, int32(-5),
			`<m:value xmlns:m="urn:test"` + decl12 + ` xsi:type="xsd:int">-5</m:value>`},
		{"floats", soapenc.Encoder{}, []float64{1e21, 1e20, 1e-7, 0.000001, 100},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="soapenc:Array" soapenc:arrayType="xsd:double[5]"><item xsi:type="xsd:double">1e+21</item><item xsi:type="xsd:double">100000000000000000000</item><item xsi:type="xsd:double">1e-7</item><item xsi:type="xsd:double">0.000001</item><item xsi:type="xsd:double">100</item></m:value>`},
		{"special floats", soapenc.Encoder{}, []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.Copysign(0, -1))},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="soapenc:Array" soapenc:arrayType="xsd:float[4]"><item xsi:type="xsd:float">INF</item><item xsi:type="xsd:float">-INF</item><item xsi:type="xsd:float">NaN</item><item xsi:type="xsd:float">-0</item></m:value>`},
		{"exact decimals", soapenc.Encoder{}, []any{soapenc.Decimal("-0.000000000000000000000000000000000001"), big.NewRat(-3, 1<<10), bigInt("123456789012345678901234567890123456789")},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="soapenc:Array" soapenc:arrayType="xsd:anyType[3]"><item xsi:type="xsd:decimal">-0.000000000000000000000000000000000001</item><item xsi:type="xsd:decimal">-0.0029296875</item><item xsi:type="xsd:integer">123456789012345678901234567890123456789</item></m:value>`},
		{"unsigned", soapenc.Encoder{}, struct {
			A uint8
			B uint64
		}{255, math.MaxUint64},
			`<m:value xmlns:m="urn:test"` + decl11 + `><A xsi:type="xsd:unsignedByte">255</A><B xsi:type="xsd:unsignedLong">18446744073709551615</B></m:value>`},
		{"dateTime zones", soapenc.Encoder{}, []time.Time{
			time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC),
			time.Date(2024, 1, 2, 3, 4, 5, 600000000, time.FixedZone("x", -(4*3600+1800))),
			time.Date(2024, 1, 2, 3, 4, 5, 0, soapenc.NoZone())},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="soapenc:Array" soapenc:arrayType="xsd:dateTime[3]"><item xsi:type="xsd:dateTime">2024-01-02T03:04:05Z</item><item xsi:type="xsd:dateTime">2024-01-02T03:04:05.6-04:30</item><item xsi:type="xsd:dateTime">2024-01-02T03:04:05</item></m:value>`},
		{"QName", soapenc.Encoder{}, xml.Name{Space: "urn:q&", Local: "n"},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="xsd:QName" xmlns:q="urn:q&amp;">q:n</m:value>`},
		{"hex and base64", soapenc.Encoder{}, struct {
			H soapenc.HexBinary
			B []byte
		}{soapenc.HexBinary{0xab, 1}, []byte("hi")},
			`<m:value xmlns:m="urn:test"` + decl11 + `><H xsi:type="xsd:hexBinary">AB01</H><B xsi:type="xsd:base64Binary">aGk=</B></m:value>`},
		{"struct tags", soapenc.Encoder{TypeNamespace: "urn:t"}, Address{Street: "s"},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xmlns:tns="urn:t" xsi:type="tns:Address"><street xsi:type="xsd:string">s</street><city xsi:type="xsd:string"></city></m:value>`},
		{"empty array 1.2", soapenc.Encoder{Version: soapenc.V12}, []int{},
			`<m:value xmlns:m="urn:test"` + decl12 + ` xsi:type="enc:Array" enc:itemType="xsd:long" enc:arraySize="0"></m:value>`},
		{"multi-dim 1.1", soapenc.Encoder{}, [2][1]string{{"a"}, {"b"}},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[2,1]"><item xsi:type="xsd:string">a</item><item xsi:type="xsd:string">b</item></m:value>`},
		{"array of arrays 1.1", soapenc.Encoder{}, [][]bool{{true}},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="soapenc:Array" soapenc:arrayType="xsd:boolean[][1]"><item xsi:type="soapenc:Array" soapenc:arrayType="xsd:boolean[1]"><item xsi:type="xsd:boolean">true</item></item></m:value>`},
		{"multiref 1.1", soapenc.Encoder{MultiRefs: true}, []*Address{shared, shared},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="soapenc:Array" soapenc:arrayType="xsd:anyType[2]"><item href="#id1"/><item href="#id1"/></m:value>` +
				`<multiRef` + decl11 + ` id="id1" soapenc:root="0"><street xsi:type="xsd:string">s</street><city xsi:type="xsd:string"></city></multiRef>`},
		{"multiref 1.2", soapenc.Encoder{Version: soapenc.V12, MultiRefs: true}, []*Address{shared, shared},
			`<m:value xmlns:m="urn:test"` + decl12 + ` xsi:type="enc:Array" enc:itemType="xsd:anyType" enc:arraySize="2"><item enc:id="id1"><street xsi:type="xsd:string">s</street><city xsi:type="xsd:string"></city></item><item enc:ref="id1"/></m:value>`},
		{"shared without multiref", soapenc.Encoder{}, []*int32{ptr(int32(1)), nil},
			`<m:value xmlns:m="urn:test"` + decl11 + ` xsi:type="soapenc:Array" soapenc:arrayType="xsd:int[2]"><item xsi:type="xsd:int">1</item><item xsi:nil="true"/></m:value>`},
		{"map sorted", soapenc.Encoder{}, map[string]bool{"b": true, "a": false},
			`<m:value xmlns:m="urn:test"` + decl11 + `><a xsi:type="xsd:boolean">false</a><b xsi:type="xsd:boolean">true</b></m:value>`},
		{"encodingStyle", soapenc.Encoder{EncodingStyle: true}, 1,
			`<m:value xmlns:m="urn:test"` + decl11 + ` xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="xsd:long">1</m:value>`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, encode(t, tc.enc, tc.v))
		})
	}
}

func TestEncodeOmitEmptyAndTags(t *testing.T) {
	type T struct {
		A  string    `soap:"a,omitempty"`
		B  int       `xml:"urn:bees bee,omitempty"`
		C  []string  `soap:",omitempty" xml:"sea"`
		D  *int      `soap:"d,omitempty"`
		E  time.Time `soap:"e,omitempty"`
		F  string    `xml:"-"`
		G  string    `soap:"-"`
		H  bool      `soap:"h,omitempty"`
		OK string
	}
	x := encode(t, soapenc.Encoder{}, T{F: "f", G: "g", OK: "y"})
	assert.NotContains(t, x, "<a")
	assert.NotContains(t, x, "<bee")
	assert.NotContains(t, x, "<sea")
	assert.NotContains(t, x, "<d")
	assert.NotContains(t, x, "<e")
	assert.NotContains(t, x, "<F")
	assert.NotContains(t, x, "<G")
	assert.NotContains(t, x, "<h")
	assert.Contains(t, x, `<OK xsi:type="xsd:string">y</OK>`)
	x = encode(t, soapenc.Encoder{}, T{A: "1", B: 2, C: []string{"c"}, H: true})
	assert.Contains(t, x, `<a xsi:type="xsd:string">1</a>`)
	assert.Contains(t, x, `<p:bee xmlns:p="urn:bees" xsi:type="xsd:long">2</p:bee>`, "the tag's namespace")
	assert.Contains(t, x, `<sea xsi:type="soapenc:Array"`)
	var back T
	require.NoError(t, read(t, soapenc.V11, x).Decode(&back))
	assert.Equal(t, T{A: "1", B: 2, C: []string{"c"}, H: true}, back)
}

func TestEncodeParts(t *testing.T) {
	shared := &SOAPStruct{VarString: "s", VarInt: 1}
	for _, v := range versions {
		var b bytes.Buffer
		enc := soapenc.Encoder{Version: v, MultiRefs: true, TypeNamespace: "http://soapinterop.org/xsd"}
		require.NoError(t, enc.EncodeParts(&b, xml.Name{Space: "http://soapinterop.org/", Local: "echoStructResponse"},
			soapenc.Part{Name: "return", Value: shared}, soapenc.Part{Name: "copy", Value: shared}, soapenc.Part{Name: "none"}))
		x := b.String()
		namespaceComplete(t, x)
		el := read(t, v, x)
		assert.Equal(t, xml.Name{Space: "http://soapinterop.org/", Local: "echoStructResponse"}, el.Name)
		kids := el.Children()
		require.Len(t, kids, 3)
		assert.Equal(t, "return", kids[0].Name.Local)
		assert.Equal(t, xml.Name{Space: "http://soapinterop.org/xsd", Local: "SOAPStruct"}, kids[0].Type())
		assert.True(t, kids[2].IsNil())
		var ret, cp *SOAPStruct
		require.NoError(t, kids[0].Decode(&ret))
		require.NoError(t, kids[1].Decode(&cp))
		assert.Same(t, ret, cp, "shared across Decode calls")
		assert.Equal(t, shared, ret)
		if v == soapenc.V11 {
			assert.Equal(t, 1, strings.Count(x, "<multiRef"), x)
		}
	}
}

// Encode streams: a large value is written in pieces, not built whole.
func TestEncodeStreams(t *testing.T) {
	var w countingWriter
	big := make([]string, 20000)
	for i := range big {
		big[i] = fmt.Sprint(i)
	}
	require.NoError(t, (&soapenc.Encoder{}).Encode(&w, xml.Name{Local: "x"}, big))
	assert.Greater(t, w.writes, 5)
}

type countingWriter struct{ writes int }

func (w *countingWriter) Write(p []byte) (int, error) { w.writes++; return len(p), nil }

// One Encoder from many goroutines.
func TestEncodeConcurrent(t *testing.T) {
	enc := soapenc.Encoder{MultiRefs: true, TypeNamespace: "urn:t"}
	zip := 1
	v := Person{Name: "Ann", Home: Address{Zip: &zip}, Work: &Address{City: "c"}, Tags: []string{"x"}}
	want := encode(t, enc, v)
	done := make(chan string)
	for range 8 {
		go func() {
			var b bytes.Buffer
			_ = enc.Encode(&b, xml.Name{Space: "urn:test", Local: "value"}, v)
			done <- b.String()
		}()
	}
	for range 8 {
		assert.Equal(t, want, <-done)
	}
}
