package xmlvalue_test

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/internal/xmlvalue"
)

// Types Append is checked with against xml.Marshal.

type eEcho struct {
	XMLName xml.Name `xml:"urn:e echoStringResponse"`
	Return  string   `xml:"return"`
}

type eItem struct {
	XMLName xml.Name  `xml:"item"`
	ID      int       `xml:"id,attr"`
	Opt     *uint16   `xml:"opt,attr,omitempty"`
	Many    []int8    `xml:"many,attr"`
	Raw     []byte    `xml:"raw,attr,omitempty"`
	F       float32   `xml:"f,attr"`
	B       bool      `xml:"b,attr,omitempty"`
	Name    string    `xml:"urn:n name"`
	Price   float64   `xml:"price,omitempty"`
	Tags    []string  `xml:"tag,omitempty"`
	Flag    *bool     `xml:"flag"`
	PP      **int64   `xml:"pp"`
	Sub     *eSub     `xml:"urn:s sub"`
	Subs    []eSub    `xml:"subs"`
	Dyns    []eDyn    `xml:"dyn"`
	Bytes   []byte    `xml:"bytes"`
	U       uintptr   `xml:"u"`
	Gen     eGen[int] `xml:",omitempty"`
	Plain   eNoName
	Anon    struct {
		A string `xml:"a,attr"`
		T string `xml:",chardata"`
	} `xml:"anon"`
	Text    string `xml:",chardata"`
	Ignored string `xml:"-"`
	hidden  string // unexported: never written
}

type eSub struct {
	A   string  `xml:"a,attr"`
	T   *string `xml:",chardata"`
	Num uint    `xml:"num,omitempty"`
	In  []*eSub `xml:"in"`
}

type eDyn struct {
	XMLName xml.Name
	V       []byte `xml:",chardata"`
}

// eNSParent has children named by their (empty) XMLName under a
// namespace: xml.Marshal undeclares the default namespace on them.
type eNSParent struct {
	XMLName xml.Name `xml:"urn:p parent"`
	D       eDyn     `xml:"d"`
	Ds      []*eDyn  `xml:"urn:q ds"`
}

type eNoName struct {
	N int `xml:",chardata"`
}

type eGen[T any] struct {
	V T `xml:"v"`
}

// Left to xml.Marshal.
type (
	eNSAttr struct {
		A string `xml:"urn:x a,attr"`
	}
	eCDATA struct {
		C string `xml:",cdata"`
	}
	eMarshaler struct {
		At xml.Name `xml:"at"`
	}
	eIface struct {
		V any `xml:"v"`
	}
)

var encodeTypes = []struct {
	name string
	new  func() any
	fast bool
}{
	{"echo", func() any { return new(eEcho) }, true},
	{"item", func() any { return new(eItem) }, true},
	{"sub", func() any { return new(eSub) }, true},
	{"dyn", func() any { return new(eDyn) }, true},
	{"namespaced parent", func() any { return new(eNSParent) }, true},
	{"no name", func() any { return new(eNoName) }, true},
	{"[]dyn", func() any { return new([]eDyn) }, true},
	{"string", func() any { return new(string) }, true},
	{"anonymous", func() any { return new(struct{ A int }) }, true},
	{"namespaced attribute", func() any { return new(eNSAttr) }, false},
	{"cdata", func() any { return new(eCDATA) }, false},
	{"xml.Name element", func() any { return new(eMarshaler) }, false},
	{"interface", func() any { return new(eIface) }, false},
}

// filler fills Go values from bytes, for the fuzzer.
type filler struct {
	b     []byte
	depth int
}

func (f *filler) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *filler) bytes(n int) []byte {
	n = min(n, len(f.b))
	s := f.b[:n]
	f.b = f.b[n:]
	return s
}

func (f *filler) fill(v reflect.Value) {
	if f.depth > 6 {
		return
	}
	f.depth++
	defer func() { f.depth-- }()
	switch v.Kind() {
	case reflect.String:
		v.SetString(string(f.bytes(int(f.byte() % 12))))
	case reflect.Bool:
		v.SetBool(f.byte()&1 == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var b [8]byte
		copy(b[:], f.bytes(int(f.byte()%9)))
		v.SetInt(int64(binary.LittleEndian.Uint64(b[:])) >> (f.byte() % 64))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		var b [8]byte
		copy(b[:], f.bytes(int(f.byte()%9)))
		v.SetUint(binary.LittleEndian.Uint64(b[:]) >> (f.byte() % 64))
	case reflect.Float32, reflect.Float64:
		switch f.byte() % 6 {
		case 0:
			v.SetFloat(math.NaN())
		case 1:
			v.SetFloat(math.Inf(int(f.byte()%3) - 1))
		case 2:
			v.SetFloat(math.Copysign(0, -1))
		default:
			var b [8]byte
			copy(b[:], f.bytes(8))
			v.SetFloat(math.Float64frombits(binary.LittleEndian.Uint64(b[:])))
		}
	case reflect.Pointer:
		if f.byte()%3 == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem())
		v.Set(p)
	case reflect.Slice:
		n := int(f.byte() % 4)
		if n == 3 {
			return // nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes(append([]byte{}, f.bytes(int(f.byte()%10))...))
			return
		}
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i))
		}
		v.Set(s)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				f.fill(v.Field(i))
			}
		}
	case reflect.Interface:
		if f.byte()%2 == 0 {
			v.Set(reflect.ValueOf(string(f.bytes(4))))
		}
	}
}

// checkEncode writes a value of each type made from data with Append and
// with xml.Marshal: the same bytes, or Append leaves it to xml.Marshal (but
// not for the types it does, when xml.Marshal writes them).
func checkEncode(t *testing.T, data []byte) {
	t.Helper()
	c := new(xmlvalue.Cache)
	for _, et := range encodeTypes {
		v := et.new()
		(&filler{b: data}).fill(reflect.ValueOf(v).Elem())
		for _, val := range []any{v, reflect.ValueOf(v).Elem().Interface()} {
			want, wantErr := xml.Marshal(val)
			got, ok := xmlvalue.Append([]byte("pre"), val, c)
			if ok {
				require.Equal(t, "pre", string(got[:3]), et.name)
				got = got[3:]
			} else {
				require.Len(t, got, 3, "%s: Append gave up but wrote", et.name)
			}
			switch {
			case ok && !et.fast:
				t.Fatalf("%s: the fast path wrote %q; it is xml.Marshal's", et.name, got)
			case ok && wantErr != nil:
				t.Fatalf("%s: xml.Marshal: %v; the fast path wrote %q", et.name, wantErr, got)
			case ok && !bytes.Equal(got, want):
				t.Fatalf("%s: the fast path wrote\n%q\nxml.Marshal\n%q", et.name, got, want)
			case !ok && et.fast && wantErr == nil:
				t.Fatalf("%s: the fast path gave up where xml.Marshal wrote %q", et.name, want)
			}
		}
	}
}

var encodeSeeds = [][]byte{
	nil,
	[]byte("\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"),
	[]byte("\x05hello\x07<&>\"'\t\n\x05\x04\x04\x04\x08\x09\x0a\x0b"),
	[]byte("\x0b\xff\xfe\xed\xa0\x80\xef\xbf\xbd\xef\xbf\xbe\x00\x01\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02\x02"),
	bytes.Repeat([]byte{7, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 2, 1, 1}, 30),
	bytes.Repeat([]byte{0xff, 0x80, 0x01, 0x11}, 60),
}

// TestEncode checks Append against xml.Marshal for the seeds and hand made
// values.
func TestEncode(t *testing.T) {
	for i, s := range encodeSeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkEncode(t, s) })
	}
	s := "x"
	for _, v := range []any{
		eEcho{Return: "hello & <goodbye>"},
		eEcho{Return: "it is Ada's turn, isn't it? \"yes\" said the 12345678 'x'"},
		&eItem{ID: -3, Many: []int8{1, 2}, F: 1.5, Name: "n", Sub: &eSub{A: "a", T: &s, In: []*eSub{nil, {A: "b"}}},
			Dyns: []eDyn{{XMLName: xml.Name{Space: "urn:d", Local: "d"}, V: []byte("v")}, {V: []byte{}}}, Text: "t\r\n"},
		[]eDyn{{XMLName: xml.Name{Local: "a"}}, {}},
		(*eEcho)(nil),
		struct{ A int }{1},
		&eItem{Many: []int8{}, Raw: []byte("'\"<&>\t\n\r\x01\xff"), B: true, Name: "\"q\" 'a' \xed\xa0\x80 \uFFFE \uFFFD", Price: math.NaN(),
			Tags: []string{"", "it's"}, Bytes: []byte{}, Text: "\x00\x1f\x7f"},
		&eItem{F: float32(math.Inf(-1)), Price: math.Copysign(0, -1), U: 1 << 60, Gen: eGen[int]{V: 3}},
		eNSParent{},
		eNSParent{D: eDyn{XMLName: xml.Name{Space: "urn:d", Local: "named"}}, Ds: []*eDyn{{}, nil, {XMLName: xml.Name{Local: "x"}}}},
	} {
		want, wantErr := xml.Marshal(v)
		got, ok := xmlvalue.Append(nil, v, nil)
		if wantErr != nil {
			assert.False(t, ok, "%T: %v", v, wantErr)
			continue
		}
		require.True(t, ok, "%T", v)
		assert.Equal(t, string(want), string(got), "%T", v)
	}
}

// FuzzEncode fills values of each type from the input and writes them
// with Append and with xml.Marshal (checkEncode).
func FuzzEncode(f *testing.F) {
	for _, s := range encodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4<<10 {
			return
		}
		checkEncode(t, data)
	})
}
