package soapenc_test

import (
	"encoding/xml"
	"math"
	"math/big"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

// TestLexicalForms: the XML Schema lexical forms real senders use are read
// (white space collapsed, signs, leading zeros, INF, zones, 24:00:00), and
// forms XML Schema does not have are refused.
func TestLexicalForms(t *testing.T) {
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	zone := func(h, m int) *time.Location { return time.FixedZone("", h*3600+m*60) }
	tests := []struct {
		text string
		want any // a value of the target type; nil for a refusal of the type of refuse
		bad  reflect.Type
	}{
		{text: " 12 ", want: int32(12)},
		{text: "+5", want: int32(5)},
		{text: "007", want: int64(7)},
		{text: "-0", want: int8(0)},
		{text: "4294967295", want: uint32(math.MaxUint32)},
		{text: "+7", want: uint16(7)},
		{text: "1_000", bad: reflect.TypeFor[int32]()},
		{text: "2147483648", bad: reflect.TypeFor[int32]()},
		{text: "-1", bad: reflect.TypeFor[uint64]()},
		{text: "INF", want: math.Inf(1)},
		{text: "+INF", want: math.Inf(1)},
		{text: "-INF", want: float32(math.Inf(-1))},
		{text: "1E4", want: 1e4},
		{text: ".5", want: 0.5},
		{text: "5.", want: 5.0},
		{text: "-1.5e-3", want: -1.5e-3},
		{text: "inf", bad: reflect.TypeFor[float64]()},
		{text: "Infinity", bad: reflect.TypeFor[float64]()},
		{text: "0x1p-2", bad: reflect.TypeFor[float64]()},
		{text: "1e39", bad: reflect.TypeFor[float32]()},
		{text: "1", want: true},
		{text: " false ", want: false},
		{text: "TRUE", bad: reflect.TypeFor[bool]()},
		{text: "+1.50", want: soapenc.Decimal("+1.50")},
		{text: "-.5", want: soapenc.Decimal("-.5")},
		{text: "1,5", bad: reflect.TypeFor[soapenc.Decimal]()},
		{text: "1e3", bad: reflect.TypeFor[soapenc.Decimal]()},
		{text: "99999999999999999999999999999999999999.000000000000000000000000000000001", want: big.NewRat(0, 1)}, // checked below
		{text: "aGVs\n bG8=", want: []byte("hello")},
		{text: "c0FE", want: soapenc.HexBinary{0xc0, 0xfe}},
		{text: "abc", bad: reflect.TypeFor[soapenc.HexBinary]()},
		{text: "2024-02-29T23:59:59Z", want: utc(2024, 2, 29, 23, 59, 59, 0)},
		{text: "2024-02-29T23:59:59.123456789123Z", want: utc(2024, 2, 29, 23, 59, 59, 123456789)},
		{text: "2024-12-31T24:00:00Z", want: utc(2025, 1, 1, 0, 0, 0, 0)},
		{text: "2024-01-01T10:00:00+14:00", want: time.Date(2024, 1, 1, 10, 0, 0, 0, zone(14, 0))},
		{text: "2024-01-01T10:00:00-05:30", want: time.Date(2024, 1, 1, 10, 0, 0, 0, zone(-5, -30))},
		{text: "2024-01-01T10:00:00", want: time.Date(2024, 1, 1, 10, 0, 0, 0, soapenc.NoZone())},
		{text: "2024-01-01T24:00:00.5Z", bad: reflect.TypeFor[time.Time]()},
		{text: "2024-01-01T10:00:00+14:01", bad: reflect.TypeFor[time.Time]()},
		{text: "2024-01-01T10:00:00,5Z", bad: reflect.TypeFor[time.Time]()},
		{text: "2024-01-01", bad: reflect.TypeFor[time.Time]()},
		{text: "2024-1-01T10:00:00Z", bad: reflect.TypeFor[time.Time]()},
	}
	for _, tt := range tests {
		typ := tt.bad
		if typ == nil {
			typ = reflect.TypeOf(tt.want)
		}
		t.Run(typ.String()+"/"+tt.text, func(t *testing.T) {
			got := reflect.New(typ)
			err := read(t, 0, wrap(`<v>`+tt.text+`</v>`)).Children()[0].Decode(got.Interface())
			if tt.bad != nil {
				assert.Equal(t, soapenc.SubcodeBadValue, subcode(t, err), "%v", err)
				return
			}
			require.NoError(t, err)
			switch w := tt.want.(type) {
			case *big.Rat:
				r, _ := new(big.Rat).SetString(tt.text)
				assert.Zero(t, r.Cmp(got.Elem().Interface().(*big.Rat)), "exact")
			case time.Time:
				assertSame(t, w, got.Elem().Interface(), tt.text)
			default:
				assertSame(t, tt.want, got.Elem().Interface(), tt.text)
			}
		})
	}
}

// TestQNameScope: a QName value resolves through the namespaces in scope
// where it appears: declared on the element, on an ancestor, redeclared
// on the way, the default namespace, or (Decoder.Namespaces) on the
// Envelope and Body outside the tokens read.
func TestQNameScope(t *testing.T) {
	body := `<m:op xmlns:m="urn:m" xmlns:p="urn:p" xmlns="urn:def">` +
		`<A>p:x</A><B>y</B><C xmlns:p="urn:other">p:z</C><D><E>env:w</E></D></m:op>`
	d := soapenc.NewDecoder(xml.NewDecoder(stringsReader(body)))
	d.Namespaces = map[string]string{"env": "urn:from-envelope", "p": "urn:shadowed"}
	el, err := d.ReadBody()
	require.NoError(t, err)
	var got struct {
		A, B, C xml.Name
		D       struct{ E xml.Name }
	}
	require.NoError(t, el.Decode(&got))
	assert.Equal(t, xml.Name{Space: "urn:p", Local: "x"}, got.A)
	assert.Equal(t, xml.Name{Space: "urn:def", Local: "y"}, got.B)
	assert.Equal(t, xml.Name{Space: "urn:other", Local: "z"}, got.C)
	assert.Equal(t, xml.Name{Space: "urn:from-envelope", Local: "w"}, got.D.E)
}

// TestTypeMismatchMessage: a value whose xsi:type does not fit the Go
// target says so.
func TestTypeMismatchMessage(t *testing.T) {
	var got struct{ A int32 }
	err := read(t, 0, wrap(`<A xsi:type="xsd:boolean">true</A>`)).Decode(&got)
	require.Error(t, err)
	assert.Equal(t, `soapenc: BadValue at /op/A: "true" is not a valid int32 (its xsi:type is xsd:boolean)`, err.Error())
	err = read(t, 0, wrap(`<A xmlns:x="urn:x" xsi:type="x:Rec"><b>1</b></A>`)).Decode(&got)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "found child elements (its xsi:type is {urn:x}Rec)")
	// a number sent as xsd:string is read (zeep and others type loosely)
	require.NoError(t, read(t, 0, wrap(`<A xsi:type="xsd:string">12</A>`)).Decode(&got))
	assert.Equal(t, int32(12), got.A)
}
