package xsd_test

import (
	"bytes"
	"encoding/xml"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/xsd"
)

// TestArrayOfArrays: a SOAP-encoded array whose wsdl:arrayType has two
// rank groups (xs:double[][], as Axis and gSOAP write a double[][]) holds
// arrays: its items are read as SOAP-encoded arrays of the item type, and
// written with the outer arrayType "double[][n]" and each inner one's
// "double[m]". Read as a flat array of doubles, the inner items' child
// elements would not parse.
func TestArrayOfArrays(t *testing.T) {
	set := loadShop(t)
	m := set.Type(q(shop, "Matrix")).(*xsd.ComplexType)
	inner, ok := m.Array.ItemType.(*xsd.ComplexType)
	require.True(t, ok, "the items of a double[][] are arrays")
	require.NotNil(t, inner.Array)
	assert.Equal(t, set.Builtin(xsd.KindDouble), inner.Array.ItemType)
	assert.Equal(t, "[]", inner.Array.Dimensions)
	assert.Equal(t, xml.Name{Space: xsd.NamespaceXSD, Local: "double"}, m.Array.ItemTypeName)

	el := &xsd.Element{Name: xml.Name{Local: "m"}, Type: m}
	codec := xsd.NewCodec(set, xsd.Encoded(core.V11))
	in := `<m xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:enc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xsi:type="enc:Array" enc:arrayType="xsd:double[][2]">` +
		`<item xsi:type="enc:Array" enc:arrayType="xsd:double[2]"><item xsi:type="xsd:double">1.5</item><item xsi:type="xsd:double">2</item></item>` +
		`<item xsi:type="enc:Array" enc:arrayType="xsd:double[1]"><item xsi:type="xsd:double">3</item></item></m>`
	var got [][]float64
	require.NoError(t, codec.DecodeBytes([]byte(in), el, &got))
	assert.Equal(t, [][]float64{{1.5, 2}, {3}}, got)

	var out bytes.Buffer
	require.NoError(t, codec.Encode(&out, el, got))
	assert.Contains(t, out.String(), `double[][2]"`)
	assert.Contains(t, out.String(), `double[2]"`)
	var again [][]float64
	require.NoError(t, codec.DecodeBytes(out.Bytes(), el, &again), out.String())
	assert.Equal(t, got, again)
}

// TestArrayTypeDimensions: a wsdl:arrayType's rank and size part is
// bracketed groups of commas, digits and spaces (SOAP 1.1 §5.4.2); any
// other text there fails the load, naming the attribute, since the part is
// written back into arrayType attributes and into generated code.
func TestArrayTypeDimensions(t *testing.T) {
	schema := func(arrayType string) []byte {
		var b bytes.Buffer
		b.WriteString(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/"` +
			` xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" targetNamespace="urn:a">` +
			`<xs:import namespace="http://schemas.xmlsoap.org/soap/encoding/"/>` +
			`<xs:complexType name="A"><xs:complexContent><xs:restriction base="soapenc:Array">` +
			`<xs:attribute ref="soapenc:arrayType" wsdl:arrayType="`)
		xml.EscapeText(&b, []byte(arrayType))
		b.WriteString(`"/></xs:restriction></xs:complexContent></xs:complexType></xs:schema>`)
		return b.Bytes()
	}
	load := func(arrayType string) error {
		_, err := xsd.Load(t.Context(), xsd.FSLoader(fstest.MapFS{"a.xsd": {Data: schema(arrayType)}}), "a.xsd")
		return err
	}
	for _, ok := range []string{"xs:int[]", "xs:int[,]", "xs:int[][]", "xs:int[][,]", "xs:int[3]", "xs:int[][2, 3]"} {
		assert.NoError(t, load(ok), ok)
	}
	for _, bad := range []string{`xs:int["+evil()+"]`, "xs:int[][x]", "xs:int[[]]", "xs:int[]]", "xs:int[]x[]", "xs:int[\n]"} {
		err := load(bad)
		require.Error(t, err, bad)
		assert.Contains(t, err.Error(), "its dimensions are not brackets", bad)
	}
}
