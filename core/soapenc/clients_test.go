package soapenc_test

import (
	"encoding/xml"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

// Bodies as real clients send them.

type SOAPStruct struct {
	VarString string  `soap:"varString"`
	VarInt    int32   `soap:"varInt"`
	VarFloat  float32 `soap:"varFloat"`
}

// Axis 1.x: every struct is a multiRef after the operation element, and
// href comes before the id it points to; prefixes on the Envelope.
const axisEnvelope = `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
 <soapenv:Body>
  <ns1:echoStructArray soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://soapinterop.org/">
   <inputStructArray xsi:type="soapenc:Array" soapenc:arrayType="ns2:SOAPStruct[2]" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns2="http://soapinterop.org/xsd">
    <item href="#id0"/>
    <item href="#id1"/>
   </inputStructArray>
  </ns1:echoStructArray>
  <multiRef id="id1" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="ns3:SOAPStruct" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns3="http://soapinterop.org/xsd">
   <varString xsi:type="xsd:string">second</varString>
   <varInt href="#id2"/>
   <varFloat xsi:type="xsd:float">-2.5E3</varFloat>
  </multiRef>
  <multiRef id="id0" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="ns4:SOAPStruct" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns4="http://soapinterop.org/xsd">
   <varString xsi:type="xsd:string">first &amp; foremost</varString>
   <varInt xsi:type="xsd:int">1</varInt>
   <varFloat xsi:type="xsd:float">1.5</varFloat>
  </multiRef>
  <multiRef id="id2" soapenc:root="0" soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xsi:type="xsd:int" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/">2</multiRef>
 </soapenv:Body>
</soapenv:Envelope>`

func TestDecodeAxis(t *testing.T) {
	el, err := readEnvelope(t, soapenc.V11, axisEnvelope)
	require.NoError(t, err)
	assert.Equal(t, xml.Name{Space: "http://soapinterop.org/", Local: "echoStructArray"}, el.Name)
	kids := el.Children()
	require.Len(t, kids, 1)
	assert.Equal(t, xml.Name{Space: soapenc.NamespaceV11, Local: "Array"}, kids[0].Type())

	var args struct {
		In []SOAPStruct `soap:"inputStructArray"`
	}
	require.NoError(t, el.Decode(&args))
	assert.Equal(t, []SOAPStruct{{"first & foremost", 1, 1.5}, {"second", 2, -2500}}, args.In)

	var items []*SOAPStruct // decoded once each: the pointers are the multiRefs
	require.NoError(t, kids[0].Decode(&items))
	require.Len(t, items, 2)
	assert.Equal(t, "second", items[1].VarString)

	var generic any
	require.NoError(t, kids[0].Decode(&generic))
	assert.Equal(t, []any{
		map[string]any{"varString": "first & foremost", "varInt": int32(1), "varFloat": float32(1.5)},
		map[string]any{"varString": "second", "varInt": int32(2), "varFloat": float32(-2500)},
	}, generic)
}

// gSOAP: ids like "_1", an array whose items carry no xsi:type, and a
// SOAP-ENC-named element type.
const gsoapEnvelope = `<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:ns="urn:echo">
<SOAP-ENV:Body SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">
<ns:echo><s href="#_1"/><t href="#_1"/><list xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="xsd:string[3]"><item>a</item><item></item><item>c</item></list><codes xsi:type="SOAP-ENC:Array" SOAP-ENC:arrayType="xsd:anyType[2]"><SOAP-ENC:int>7</SOAP-ENC:int><SOAP-ENC:string>x</SOAP-ENC:string></codes><q xsi:type="xsd:QName">ns:thing</q></ns:echo>
<ns:SOAPStruct id="_1" xsi:type="ns:SOAPStruct"><varString>shared</varString><varInt>3</varInt><varFloat>INF</varFloat></ns:SOAPStruct>
</SOAP-ENV:Body></SOAP-ENV:Envelope>`

func TestDecodeGSOAP(t *testing.T) {
	el, err := readEnvelope(t, soapenc.V11, gsoapEnvelope)
	require.NoError(t, err)
	var args struct {
		S     *SOAPStruct `soap:"s"`
		T     *SOAPStruct `soap:"t"`
		List  []string    `soap:"list"`
		Codes []any       `soap:"codes"`
		Q     xml.Name    `soap:"q"`
	}
	require.NoError(t, el.Decode(&args))
	require.NotNil(t, args.S)
	assert.Same(t, args.S, args.T, "one multi-ref value, one pointer")
	assert.Equal(t, "shared", args.S.VarString)
	assert.Equal(t, []string{"a", "", "c"}, args.List)
	assert.Equal(t, []any{int32(7), "x"}, args.Codes)
	assert.Equal(t, xml.Name{Space: "urn:echo", Local: "thing"}, args.Q)
}

// node-soap: an array parameter as repeated elements, no xsi:type at all,
// the operation namespace declared locally.
const nodeSoapEnvelope = `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><tns:echoStringArray xmlns:tns="http://soapinterop.org/"><inputStringArray>one</inputStringArray><inputStringArray>two</inputStringArray><inputStringArray>three</inputStringArray><count>3</count><nested><varString>n</varString><varInt>4</varInt><varFloat>0.25</varFloat></nested></tns:echoStringArray></soap:Body></soap:Envelope>`

func TestDecodeNodeSoap(t *testing.T) {
	el, err := readEnvelope(t, soapenc.V11, nodeSoapEnvelope)
	require.NoError(t, err)
	var args struct {
		In     []string   `soap:"inputStringArray"`
		Count  int        `soap:"count"`
		Nested SOAPStruct `soap:"nested"`
	}
	require.NoError(t, el.Decode(&args))
	assert.Equal(t, []string{"one", "two", "three"}, args.In)
	assert.Equal(t, 3, args.Count)
	assert.Equal(t, SOAPStruct{"n", 4, 0.25}, args.Nested)

	// the RPC layer can pick the repeated elements itself
	kids := el.Children()
	var in []string
	require.NoError(t, soapenc.DecodeItems(kids[:3], &in))
	assert.Equal(t, []string{"one", "two", "three"}, in)

	var generic any
	require.NoError(t, el.Decode(&generic))
	assert.Equal(t, map[string]any{
		"inputStringArray": []any{"one", "two", "three"},
		"count":            "3",
		"nested":           map[string]any{"varString": "n", "varInt": "4", "varFloat": "0.25"},
	}, generic)
}

// zeep sends xsi:type but no encodingStyle, single-quoted declaration.
const zeepEnvelope = `<?xml version='1.0' encoding='utf-8'?>
<soap-env:Envelope xmlns:soap-env="http://schemas.xmlsoap.org/soap/envelope/"><soap-env:Body><ns0:echoInteger xmlns:ns0="http://soapinterop.org/"><inputInteger xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:type="xsd:int">-12</inputInteger><when xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:type="xsd:dateTime">2024-03-01T12:30:00+01:00</when></ns0:echoInteger></soap-env:Body></soap-env:Envelope>`

func TestDecodeZeep(t *testing.T) {
	el, err := readEnvelope(t, soapenc.V11, zeepEnvelope)
	require.NoError(t, err)
	kids := el.Children()
	require.Len(t, kids, 2)
	var n int64
	require.NoError(t, kids[0].Decode(&n))
	assert.Equal(t, int64(-12), n)
	var s string // a typed value read as a string is fine
	require.NoError(t, kids[0].Decode(&s))
	assert.Equal(t, "-12", s)
	var when any
	require.NoError(t, kids[1].Decode(&when))
	assert.Equal(t, "2024-03-01T11:30:00Z", when.(time.Time).UTC().Format(time.RFC3339))
}

// Apache SOAP 2 and other early toolkits use the 1999 schema namespaces and
// xsi:null.
const apache1999Body = `<ns1:echo xmlns:ns1="urn:old" xmlns:xsi="http://www.w3.org/1999/XMLSchema-instance" xmlns:xsd="http://www.w3.org/1999/XMLSchema"><a xsi:type="xsd:int">5</a><b xsi:null="1"/><c xsi:type="xsd:boolean">1</c></ns1:echo>`

func TestDecode1999Schema(t *testing.T) {
	el := read(t, soapenc.V11, apache1999Body)
	var generic any
	require.NoError(t, el.Decode(&generic))
	assert.Equal(t, map[string]any{"a": int32(5), "b": nil, "c": true}, generic)
	var args struct {
		A int
		B *string
		C bool
	}
	require.NoError(t, el.Decode(&args))
	assert.Equal(t, 5, args.A)
	assert.Nil(t, args.B)
	assert.True(t, args.C)
}

// SOAP 1.2 (Part 2 examples): enc:id/enc:ref, the ref before its id,
// arraySize with "*", and a 2-D array.
const soap12Body = `<m:echo xmlns:m="urn:x" xmlns:enc="http://www.w3.org/2003/05/soap-encoding" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xs="http://www.w3.org/2001/XMLSchema">
 <b enc:ref="x1"/>
 <a enc:id="x1" xsi:type="xs:string">shared</a>
 <grid enc:itemType="xs:int" enc:arraySize="* 3"><n>1</n><n>2</n><n>3</n><n>4</n><n>5</n><n>6</n></grid>
 <sq enc:itemType="xs:string" enc:arraySize="2 2"><i>a</i><i>b</i><i>c</i></sq>
</m:echo>`

func TestDecodeSOAP12(t *testing.T) {
	el := read(t, soapenc.V12, soap12Body)
	var args struct {
		A, B string
		Grid [][]int    `soap:"grid"`
		Sq   [][]string `soap:"sq"`
	}
	require.NoError(t, el.Decode(&args))
	assert.Equal(t, "shared", args.A)
	assert.Equal(t, "shared", args.B)
	assert.Equal(t, [][]int{{1, 2, 3}, {4, 5, 6}}, args.Grid)
	assert.Equal(t, [][]string{{"a", "b"}, {"c"}}, args.Sq, "a partial array has only the items sent")

	kids := el.Children()
	var flat []int
	require.NoError(t, kids[2].Decode(&flat))
	assert.Equal(t, []int{1, 2, 3, 4, 5, 6}, flat)
	var fixed [2][3]int
	require.NoError(t, kids[2].Decode(&fixed))
	assert.Equal(t, [2][3]int{{1, 2, 3}, {4, 5, 6}}, fixed)
	var generic any
	require.NoError(t, kids[2].Decode(&generic))
	assert.Equal(t, [][]int32{{1, 2, 3}, {4, 5, 6}}, generic)

	// a 1.1 decoder does not read 1.2 references
	el = read(t, soapenc.V11, soap12Body)
	require.NoError(t, el.Decode(&args))
	assert.Equal(t, "", args.B)
}

// Values without xsi:type are read by the Go type.
func TestDecodeUntyped(t *testing.T) {
	el := read(t, 0, `<op><i> 42 </i><f>1e3</f><b>true</b><d>2024-01-02T03:04:05Z</d><bin>aGVs
bG8=</bin><s>  keep  </s><big>123456789012345678901234567890</big></op>`)
	var args struct {
		I   int8 `soap:"i"`
		F   float64
		B   bool
		D   time.Time
		Bin []byte
		S   string
		Big *big.Int
	}
	require.NoError(t, el.Decode(&args))
	assert.Equal(t, int8(42), args.I)
	assert.Equal(t, 1000.0, args.F)
	assert.True(t, args.B)
	assert.Equal(t, 2024, args.D.Year())
	assert.Equal(t, "hello", string(args.Bin))
	assert.Equal(t, "  keep  ", args.S)
	assert.Equal(t, "123456789012345678901234567890", args.Big.String())
}

// TestDecodeSparseAndPartialArrays: the positions of a sparse
// (soapenc:position) or partially transmitted (soapenc:offset, fewer items
// than declared) SOAP 1.1 array that no item was sent for are absent: nil
// in a slice of pointers or of any, and an error for item types that cannot
// be absent, never a value the sender did not send.
func TestDecodeSparseAndPartialArrays(t *testing.T) {
	const ns = `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"`
	ptr := func(s string) *string { return &s }
	offset := `<a ` + ns + ` soapenc:arrayType="xsd:string[5]" soapenc:offset="[2]"><i>third</i><i>fourth</i></a>`
	sparse := `<a ` + ns + ` soapenc:arrayType="xsd:string[10]"><i soapenc:position="[7]">eighth</i><i soapenc:position="[1]">second</i></a>`

	var ptrs []*string
	require.NoError(t, read(t, soapenc.V11, offset).Decode(&ptrs))
	assert.Equal(t, []*string{nil, nil, ptr("third"), ptr("fourth")}, ptrs, "offset: the first two absent")
	require.NoError(t, read(t, soapenc.V11, sparse).Decode(&ptrs))
	assert.Equal(t, []*string{nil, ptr("second"), nil, nil, nil, nil, nil, ptr("eighth")}, ptrs, "positions")
	var anys []any
	require.NoError(t, read(t, soapenc.V11, sparse).Decode(&anys))
	assert.Equal(t, []any{nil, "second", nil, nil, nil, nil, nil, "eighth"}, anys)
	var els []*soapenc.Element
	require.NoError(t, read(t, soapenc.V11, sparse).Decode(&els))
	require.Len(t, els, 8)
	assert.Nil(t, els[0])
	assert.Equal(t, "second", els[1].Text())

	// a type that cannot be absent: refused, naming the position
	var strs []string
	err := read(t, soapenc.V11, offset).Decode(&strs)
	assert.Equal(t, soapenc.SubcodeBadValue, subcode(t, err))
	assert.ErrorContains(t, err, "item 0 (from 0, row-major) was not sent")
	assert.Nil(t, strs, "nothing decoded")
	err = read(t, soapenc.V11, sparse).Decode(&strs)
	assert.ErrorContains(t, err, "item 0 ")
	var ints [10]int
	err = read(t, soapenc.V11, `<a `+ns+` soapenc:arrayType="xsd:int[10]"><i soapenc:position="[0]">1</i></a>`).Decode(&ints)
	assert.ErrorContains(t, err, "item 1 ", "a Go array's places after the last item sent are absent too")
	// an array without gaps decodes into any type
	require.NoError(t, read(t, soapenc.V11, `<a `+ns+` soapenc:arrayType="xsd:string[2]" soapenc:offset="[0]"><i>a</i><i soapenc:position="[1]">b</i></a>`).Decode(&strs))
	assert.Equal(t, []string{"a", "b"}, strs)
	// a partially transmitted array into a slice: it ends with the last item sent
	require.NoError(t, read(t, soapenc.V11, `<a `+ns+` soapenc:arrayType="xsd:string[5]"><i>a</i><i>b</i></a>`).Decode(&strs))
	assert.Equal(t, []string{"a", "b"}, strs)
	var three [3]string
	err = read(t, soapenc.V11, `<a `+ns+` soapenc:arrayType="xsd:string[5]"><i>a</i><i>b</i></a>`).Decode(&three)
	assert.ErrorContains(t, err, "item 2 ", "into a Go array, the third place would be invented")
	var two [2]string
	require.NoError(t, read(t, soapenc.V11, `<a `+ns+` soapenc:arrayType="xsd:string[5]"><i>a</i><i>b</i></a>`).Decode(&two))
	assert.Equal(t, [2]string{"a", "b"}, two)

	// two dimensions: by rows
	grid2 := `<a ` + ns + ` soapenc:arrayType="xsd:int[2,2]"><i soapenc:position="[1,0]">3</i></a>`
	var pgrid [][]*int
	require.NoError(t, read(t, soapenc.V11, grid2).Decode(&pgrid))
	three3 := 3
	assert.Equal(t, [][]*int{{nil, nil}, {&three3}}, pgrid)
	var grid [][]int
	err = read(t, soapenc.V11, grid2).Decode(&grid)
	assert.ErrorContains(t, err, "item 0 ")
	var fixed [2][2]int
	err = read(t, soapenc.V11, `<a `+ns+` soapenc:arrayType="xsd:int[2,2]"><i>1</i><i>2</i></a>`).Decode(&fixed)
	assert.ErrorContains(t, err, "item 1 ", "the second row was not sent")

	// an array of arrays, 1.1 form
	el := read(t, soapenc.V11, `<a `+ns+` soapenc:arrayType="xsd:int[][2]"><i soapenc:arrayType="xsd:int[1]"><x>1</x></i><i soapenc:arrayType="xsd:int[0]"/></a>`)
	require.NoError(t, el.Decode(&grid))
	assert.Equal(t, [][]int{{1}, {}}, grid)
}

// Older SOAP 1.1 stacks type values with the SOAP-ENC namespace's own
// types, including SOAP-ENC:base64, and mark the main element root="1".
func TestDecodeSOAPENCTypes(t *testing.T) {
	el := read(t, soapenc.V11, `<m:op xmlns:m="urn:m" soapenc:root="1" `+nsDecl+`><b xsi:type="soapenc:base64">aGk=</b><s xsi:type="soapenc:string">x</s><n xsi:type="soapenc:int">5</n></m:op>`)
	var generic any
	require.NoError(t, el.Decode(&generic))
	assert.Equal(t, map[string]any{"b": []byte("hi"), "s": "x", "n": int32(5)}, generic)
	var typed struct {
		B soapenc.HexBinary // a base64 value into a hexBinary target is read as base64
	}
	require.NoError(t, el.Decode(&typed))
	assert.Equal(t, soapenc.HexBinary("hi"), typed.B)
}
