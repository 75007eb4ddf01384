package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

type Address struct {
	Street string `soap:"street"`
	City   string `xml:"city"`
	Zip    *int   `soap:"zip,omitempty"`
}

type Person struct {
	XMLName  xml.Name `xml:"ignored"`
	Name     string
	Age      int32  `soap:"age"`
	Skip     string `soap:"-"`
	Home     Address
	Work     *Address
	Tags     []string
	Nick     string `soap:"nick,omitempty"`
	internal int
}

type Pairs struct {
	One   [2]string
	Two   [2][2]int8
	Three [3]*Address
}

type Embedded struct {
	Address
	Extra bool
}

func bigInt(s string) *big.Int {
	b, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return b
}

func ptr[T any](v T) *T { return &v }

// roundTrips are values that must decode to themselves, in both versions,
// with and without MultiRefs.
func roundTrips() []struct {
	name string
	in   any
} {
	zip := 75001
	return []struct {
		name string
		in   any
	}{
		{"string", "hello"},
		{"string empty", ""},
		{"string unicode", "héllo wörld ✓ 日本語 𝄞 emoji 🎉"},
		{"string escaping", `<a href="x">&amp; 'q' ]]> </a>`},
		{"string whitespace", "  leading\ttab\nnewline\r\ncrlf trailing  "},
		{"bool true", true},
		{"bool false", false},
		{"int8", int8(-128)},
		{"uint8", uint8(255)},
		{"int16", int16(-32768)},
		{"uint16", uint16(65535)},
		{"int32", int32(math.MinInt32)},
		{"uint32", uint32(math.MaxUint32)},
		{"int64", int64(math.MinInt64)},
		{"uint64", uint64(math.MaxUint64)},
		{"int", int(math.MaxInt64)},
		{"uint", uint(12)},
		{"float64", 3.141592653589793},
		{"float64 tiny", 5e-324},
		{"float64 huge", 1.7976931348623157e308},
		{"float64 1e21", 1e21},
		{"float64 1e-7", 1e-7},
		{"float64 neg zero", math.Copysign(0, -1)},
		{"float64 INF", math.Inf(1)},
		{"float64 -INF", math.Inf(-1)},
		{"float32", float32(0.1)},
		{"float32 max", float32(math.MaxFloat32)},
		{"float32 INF", float32(math.Inf(-1))},
		{"base64", []byte{0, 1, 2, 0xfe, 0xff}},
		{"base64 empty", []byte{}},
		{"hexBinary", soapenc.HexBinary{0xde, 0xad, 0xbe, 0xef}},
		{"dateTime Z", time.Date(2024, 2, 29, 23, 59, 59, 0, time.UTC)},
		{"dateTime nanos", time.Date(2024, 2, 29, 23, 59, 59, 123456789, time.UTC)},
		{"dateTime +05:30", time.Date(2001, 10, 26, 21, 32, 52, 0, time.FixedZone("", 5*3600+1800))},
		{"dateTime -08:00", time.Date(2001, 10, 26, 21, 32, 52, 500000000, time.FixedZone("", -8*3600))},
		{"dateTime no zone", time.Date(2001, 10, 26, 21, 32, 52, 0, soapenc.NoZone())},
		{"QName", xml.Name{Space: "urn:q", Local: "thing"}},
		{"QName xsd", xml.Name{Space: soapenc.NamespaceXSD, Local: "int"}},
		{"QName no namespace", xml.Name{Local: "plain"}},
		{"integer huge", bigInt("-123456789012345678901234567890123456789012345678901234567890")},
		{"integer zero", bigInt("0")},
		{"decimal huge", soapenc.Decimal("1234567890123456789012345678901234567890.000000000000000000001")},
		{"decimal negative", soapenc.Decimal("-0.5")},
		{"rat", big.NewRat(-1, 8)},
		{"struct", Person{Name: "Ann", Age: 41, Home: Address{"1 Rue", "Paris", &zip}, Tags: []string{"a", "b"}}},
		{"struct nil pointer", Person{Name: "Bob", Work: nil}},
		{"pointer to struct", &Address{Street: "s", City: "c"}},
		{"embedded", Embedded{Address: Address{Street: "e"}, Extra: true}},
		{"nested pointer", ptr(ptr(int32(5)))},
		{"slice of string", []string{"a", "", "c"}},
		{"slice empty", []string{}},
		{"slice of struct", []Address{{Street: "x"}, {City: "y"}}},
		{"slice of pointers", []*Address{{Street: "x"}, nil, {City: "y"}}},
		{"slice of slices", [][]int{{1, 2, 3}, {}, {4}}},
		{"slice of slices of slices", [][][]string{{{"a"}, {"b", "c"}}, {}}},
		{"go array", [3]int16{1, 2, 3}},
		{"go array 2d", [2][3]int32{{1, 2, 3}, {4, 5, 6}}},
		{"struct with go array fields", Pairs{One: [2]string{"a", "b"}, Two: [2][2]int8{{1, 2}, {3, 4}}, Three: [3]*Address{nil, {City: "c"}, nil}}},
		{"slice of go arrays", [][2]bool{{true, false}, {false, true}}},
		{"slice of bytes", [][]byte{{1}, {}, {2, 3}}},
		{"slice of times", []time.Time{time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"map", map[string]int{"a": 1, "b": 2}},
		{"map of any", map[string]any{"s": "x", "n": int32(3), "l": []string{"p"}}},
		{"slice of any", []any{"s", int32(1), 2.5, true, nil, []any{int64(7)}}},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range roundTrips() {
		for _, v := range versions {
			for _, multi := range []bool{false, true} {
				name := tc.name + "/" + v.String()
				if multi {
					name += "/multiref"
				}
				t.Run(name, func(t *testing.T) {
					enc := soapenc.Encoder{Version: v, MultiRefs: multi, TypeNamespace: "urn:types"}
					x := encode(t, enc, tc.in)
					got := reflect.New(reflect.TypeOf(tc.in))
					require.NoError(t, read(t, v, x).Decode(got.Interface()), x)
					assertSame(t, tc.in, got.Elem().Interface(), x)
				})
			}
		}
	}
}

// assertSame compares decoded values: times by instant and zone offset
// (and NoZone by identity), floats by bits (NaN, -0), the rest deeply.
func assertSame(t *testing.T, want, got any, msg string) {
	t.Helper()
	switch w := want.(type) {
	case time.Time:
		g := got.(time.Time)
		assert.True(t, w.Equal(g), "want %v got %v\n%s", w, g, msg)
		_, wo := w.Zone()
		_, gotOff := g.Zone()
		assert.Equal(t, wo, gotOff, msg)
		assert.Equal(t, w.Location() == soapenc.NoZone(), g.Location() == soapenc.NoZone(), "zoneless: %s", msg)
	case float64:
		assert.Equal(t, math.Float64bits(w), math.Float64bits(got.(float64)), "want %v got %v\n%s", w, got, msg)
	case []time.Time:
		g := got.([]time.Time)
		require.Len(t, g, len(w))
		for i := range w {
			assertSame(t, w[i], g[i], msg)
		}
	case *big.Int:
		assert.Equal(t, 0, w.Cmp(got.(*big.Int)), "want %v got %v", w, got)
	case *big.Rat:
		assert.Equal(t, 0, w.Cmp(got.(*big.Rat)), "want %v got %v", w, got)
	default:
		assert.Equal(t, want, got, msg)
	}
}

func TestRoundTripNaN(t *testing.T) {
	for _, v := range versions {
		x := encode(t, soapenc.Encoder{Version: v}, []float32{float32(math.NaN())})
		assert.Contains(t, x, ">NaN<")
		var got []float32
		require.NoError(t, read(t, v, x).Decode(&got))
		require.Len(t, got, 1)
		assert.True(t, math.IsNaN(float64(got[0])))
	}
}

func TestRoundTripNil(t *testing.T) {
	for _, v := range versions {
		for _, in := range []any{nil, (*int)(nil), []string(nil), map[string]int(nil), []byte(nil), (*big.Int)(nil)} {
			x := encode(t, soapenc.Encoder{Version: v}, in)
			assert.Contains(t, x, `xsi:nil="true"`)
			el := read(t, v, x)
			assert.True(t, el.IsNil())
			if in == nil {
				var got any = "not nil"
				require.NoError(t, el.Decode(&got))
				assert.Nil(t, got)
				continue
			}
			// decode into a target that holds a non-nil value: nil must replace it
			got := reflect.New(reflect.TypeOf(in))
			switch reflect.TypeOf(in).Kind() {
			case reflect.Pointer:
				got.Elem().Set(reflect.New(reflect.TypeOf(in).Elem()))
			case reflect.Slice:
				got.Elem().Set(reflect.MakeSlice(reflect.TypeOf(in), 1, 1))
			case reflect.Map:
				got.Elem().Set(reflect.MakeMap(reflect.TypeOf(in)))
			}
			require.NoError(t, el.Decode(got.Interface()))
			assert.True(t, got.Elem().IsNil(), "%T", in)
		}
	}
}

// TestRoundTripAny decodes encoded values into any and checks the natural
// Go type.
func TestRoundTripAny(t *testing.T) {
	when := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := []struct {
		in   any
		want any
	}{
		{"s", "s"},
		{true, true},
		{int8(-1), int8(-1)},
		{int16(2), int16(2)},
		{int32(3), int32(3)},
		{4, int64(4)},
		{uint8(5), uint8(5)},
		{uint(6), uint64(6)},
		{1.5, 1.5},
		{float32(2.5), float32(2.5)},
		{[]byte("hi"), []byte("hi")},
		{soapenc.HexBinary("hi"), soapenc.HexBinary("hi")},
		{when, when},
		{xml.Name{Space: "urn:x", Local: "y"}, xml.Name{Space: "urn:x", Local: "y"}},
		{soapenc.Decimal("1.10"), soapenc.Decimal("1.10")},
		{[]string{"a"}, []string{"a"}},
		{[][]int32{{1}, {2}}, []any{[]int32{1}, []int32{2}}},
		{[2][2]string{{"a", "b"}, {"c", "d"}}, [][]string{{"a", "b"}, {"c", "d"}}},
		{Address{Street: "s", City: "c"}, map[string]any{"street": "s", "city": "c"}},
		{[]Address{{Street: "s"}}, []any{map[string]any{"street": "s", "city": ""}}},
	}
	for _, v := range versions {
		for _, tc := range cases {
			x := encode(t, soapenc.Encoder{Version: v, TypeNamespace: "urn:types"}, tc.in)
			var got any
			require.NoError(t, read(t, v, x).Decode(&got), x)
			assert.Equal(t, tc.want, got, x)
		}
		x := encode(t, soapenc.Encoder{Version: v}, big.NewInt(7))
		var got any
		require.NoError(t, read(t, v, x).Decode(&got))
		assert.Equal(t, "7", got.(*big.Int).String())
	}
}

// TestTypes registers a Go type for an xsi:type, for any targets.
func TestTypes(t *testing.T) {
	for _, v := range versions {
		x := encode(t, soapenc.Encoder{Version: v, TypeNamespace: "urn:types"}, []any{Address{Street: "s"}, "x"})
		d := soapenc.NewDecoder(xml.NewDecoder(stringsReader(x)))
		d.Types = map[xml.Name]reflect.Type{{Space: "urn:types", Local: "Address"}: reflect.TypeFor[Address]()}
		el, err := d.ReadBody()
		require.NoError(t, err)
		var got []any
		require.NoError(t, el.Decode(&got))
		assert.Equal(t, []any{Address{Street: "s"}, "x"}, got)
	}
}

func TestTypeName(t *testing.T) {
	n, ok := soapenc.TypeName(reflect.TypeFor[int32](), soapenc.V11, "urn:t")
	assert.True(t, ok)
	assert.Equal(t, xml.Name{Space: soapenc.NamespaceXSD, Local: "int"}, n)
	n, ok = soapenc.TypeName(reflect.TypeFor[*Address](), soapenc.V11, "urn:t")
	assert.True(t, ok)
	assert.Equal(t, xml.Name{Space: "urn:t", Local: "Address"}, n)
	n, ok = soapenc.TypeName(reflect.TypeFor[[]int](), soapenc.V12, "urn:t")
	assert.True(t, ok)
	assert.Equal(t, xml.Name{Space: soapenc.NamespaceV12, Local: "Array"}, n)
	_, ok = soapenc.TypeName(reflect.TypeFor[Address](), soapenc.V11, "")
	assert.False(t, ok)
	_, ok = soapenc.TypeName(reflect.TypeFor[chan int](), soapenc.V11, "urn:t")
	assert.False(t, ok)
}

// Shared and cyclic pointers survive a round trip with MultiRefs, in both
// versions and through a wrapper of parts.
func TestRoundTripMultiRefGraph(t *testing.T) {
	for _, v := range versions {
		a := &Node{Name: "a"}
		b := &Node{Name: "b", Next: a}
		a.Next = b
		a.Kids = []*Node{a, b, {Name: "leaf"}}
		var buf bytes.Buffer
		enc := soapenc.Encoder{Version: v, MultiRefs: true, TypeNamespace: "urn:g"}
		require.NoError(t, enc.EncodeParts(&buf, xml.Name{Space: "urn:g", Local: "graph"},
			soapenc.Part{Name: "first", Value: a}, soapenc.Part{Name: "second", Value: b}))
		x := buf.String()
		namespaceComplete(t, x)
		el := read(t, v, x)
		var got struct {
			First  *Node `soap:"first"`
			Second *Node `soap:"second"`
		}
		require.NoError(t, el.Decode(&got), x)
		ga, gb := got.First, got.Second
		assert.Equal(t, "a", ga.Name)
		assert.Same(t, gb, ga.Next)
		assert.Same(t, ga, gb.Next)
		require.Len(t, ga.Kids, 3)
		assert.Same(t, ga, ga.Kids[0])
		assert.Same(t, gb, ga.Kids[1])
		assert.Equal(t, "leaf", ga.Kids[2].Name)
		assert.Equal(t, 2, strings.Count(x, `id="id`), "two shared nodes, one id each: %s", x)
	}
}
