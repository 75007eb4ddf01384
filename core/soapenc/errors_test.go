package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

const nsDecl = `xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:enc="http://www.w3.org/2003/05/soap-encoding"`

// wrap puts content in an operation element declaring the usual prefixes.
func wrap(content string) string {
	return `<m:op xmlns:m="urn:m" ` + nsDecl + `>` + content + `</m:op>`
}

func TestReadBodyErrors(t *testing.T) {
	cases := []struct {
		name, body, subcode string
		v                   soapenc.Version
	}{
		{"missing id 1.1", wrap(`<a href="#nope"/>`), soapenc.SubcodeMissingID, soapenc.V11},
		{"missing id 1.2", wrap(`<a enc:ref="nope"/>`), soapenc.SubcodeMissingID, soapenc.V12},
		{"duplicate id 1.1", wrap(`<a id="x">1</a>`) + `<b id="x">2</b>`, soapenc.SubcodeDuplicateID, soapenc.V11},
		{"duplicate id 1.2", wrap(`<a enc:id="x">1</a><b enc:id="x">2</b>`), soapenc.SubcodeDuplicateID, soapenc.V12},
		{"id and ref 1.2", wrap(`<a enc:id="x" enc:ref="x"/>`), soapenc.SubcodeBadValue, soapenc.V12},
		{"external href", wrap(`<a href="cid:part1"/>`), soapenc.SubcodeBadValue, soapenc.V11},
		{"reference loop", wrap(`<a href="#p"/>`) + `<p id="p" href="#q"/><q id="q" href="#p"/>`, soapenc.SubcodeBadValue, soapenc.V11},
		{"unbound xsi:type prefix", wrap(`<a xsi:type="nope:int">1</a>`), soapenc.SubcodeBadValue, soapenc.V11},
		{"bad QName", wrap(`<a xsi:type=":int">1</a>`), soapenc.SubcodeBadValue, soapenc.V11},
		{"unknown encodingStyle", `<m:op xmlns:m="urn:m" xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" e:encodingStyle="urn:my-encoding"/>`, soapenc.SubcodeDataEncodingUnknown, soapenc.V11},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readErr(tc.v, tc.body)
			assert.Equal(t, tc.subcode, subcode(t, err), "%v", err)
		})
	}
}

func TestReadBodyEOF(t *testing.T) {
	_, err := readErr(0, "  ")
	assert.ErrorIs(t, err, io.EOF)
	_, err = readErr(0, "<a><b>")
	assert.Error(t, err)
	_, err = soapenc.NewDecoder(&tokens{xml.EndElement{Name: xml.Name{Local: "x"}}}).ReadBody()
	assert.Error(t, err)
	_, err = soapenc.NewDecoder(&tokens{xml.StartElement{Name: xml.Name{Local: "x"}}}).ReadBody()
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	_, err = (&soapenc.Decoder{}).ReadBody()
	assert.Error(t, err)
}

// tokens is a TokenReader over a fixed list.
type tokens []xml.Token

func (t *tokens) Token() (xml.Token, error) {
	if len(*t) == 0 {
		return nil, io.EOF
	}
	tok := (*t)[0]
	*t = (*t)[1:]
	return tok, nil
}

func TestDecodeErrors(t *testing.T) {
	type target struct {
		I8   int8
		I    int
		U    uint16
		F    float32
		B    bool
		T    time.Time
		Bin  []byte
		Hex  soapenc.HexBinary
		Dec  soapenc.Decimal
		Name xml.Name
		S    string
		St   SOAPStruct
		Arr  [2]int
		L    []int
		LL   [][]int
	}
	cases := []struct{ name, content, subcode string }{
		{"abc into int", `<I>abc</I>`, soapenc.SubcodeBadValue},
		{"300 into int8", `<I8 xsi:type="xsd:int">300</I8>`, soapenc.SubcodeBadValue},
		{"xsd:string not a number into int", `<I xsi:type="xsd:string">twelve</I>`, soapenc.SubcodeBadValue},
		{"float into int", `<I>1.5</I>`, soapenc.SubcodeBadValue},
		{"negative into uint", `<U>-1</U>`, soapenc.SubcodeBadValue},
		{"70000 into uint16", `<U>70000</U>`, soapenc.SubcodeBadValue},
		{"bad float", `<F>1.2.3</F>`, soapenc.SubcodeBadValue},
		{"float32 overflow", `<F>1e39</F>`, soapenc.SubcodeBadValue},
		{"go float syntax refused", `<F>0x1p-2</F>`, soapenc.SubcodeBadValue},
		{"inf lowercase refused", `<F>inf</F>`, soapenc.SubcodeBadValue},
		{"bad bool", `<B>yes</B>`, soapenc.SubcodeBadValue},
		{"bad dateTime", `<T>2024-13-01T00:00:00Z</T>`, soapenc.SubcodeBadValue},
		{"dateTime without time", `<T>2024-01-01</T>`, soapenc.SubcodeBadValue},
		{"bad base64", `<Bin>!!!</Bin>`, soapenc.SubcodeBadValue},
		{"bad hex", `<Hex>xyz</Hex>`, soapenc.SubcodeBadValue},
		{"bad decimal", `<Dec>1e5</Dec>`, soapenc.SubcodeBadValue},
		{"QName unbound", `<Name>zz:x</Name>`, soapenc.SubcodeBadValue},
		{"struct into string", `<S><x>1</x></S>`, soapenc.SubcodeBadValue},
		{"array into string", `<S soapenc:arrayType="xsd:string[1]"><i>x</i></S>`, soapenc.SubcodeBadValue},
		{"text into struct", `<St>hello</St>`, soapenc.SubcodeBadValue},
		{"array into struct", `<St soapenc:arrayType="xsd:string[0]"/>`, soapenc.SubcodeBadValue},
		{"bad field in struct", `<St><varInt>x</varInt></St>`, soapenc.SubcodeBadValue},
		{"too many for Go array", `<Arr soapenc:arrayType="xsd:int[3]"><i>1</i><i>2</i><i>3</i></Arr>`, soapenc.SubcodeArraySize},
		{"more items than declared", `<L soapenc:arrayType="xsd:int[1]"><i>1</i><i>2</i></L>`, soapenc.SubcodeArraySize},
		{"absurd size", `<L soapenc:arrayType="xsd:int[2147483647]"><i>1</i></L>`, soapenc.SubcodeArraySize},
		{"overflowing size", `<L soapenc:arrayType="xsd:int[99999999999999999999999]"><i>1</i></L>`, soapenc.SubcodeArraySize},
		{"absurd product", `<L soapenc:arrayType="xsd:int[100000,100000]"><i>1</i></L>`, soapenc.SubcodeArraySize},
		{"1.2 absurd size", `<L enc:itemType="xsd:int" enc:arraySize="2147483647"><i>1</i></L>`, soapenc.SubcodeArraySize},
		{"1.2 star not first", `<L enc:itemType="xsd:int" enc:arraySize="2 *"><i>1</i></L>`, soapenc.SubcodeArraySize},
		{"negative size", `<L soapenc:arrayType="xsd:int[-1]"/>`, soapenc.SubcodeArraySize},
		{"bad arrayType", `<L soapenc:arrayType="xsd:int"/>`, soapenc.SubcodeBadValue},
		{"bad arrayType rank", `<L soapenc:arrayType="xsd:int[x][2]"/>`, soapenc.SubcodeBadValue},
		{"position outside", `<L soapenc:arrayType="xsd:int[2]"><i soapenc:position="[5]">1</i></L>`, soapenc.SubcodeArraySize},
		{"absurd position", `<L soapenc:arrayType="xsd:int[]"><i soapenc:position="[2000000000]">1</i></L>`, soapenc.SubcodeArraySize},
		{"two items same position", `<L soapenc:arrayType="xsd:int[3]"><i soapenc:position="[1]">1</i><i soapenc:position="[1]">2</i></L>`, soapenc.SubcodeArraySize},
		{"unspecified inner dimension", `<LL soapenc:arrayType="xsd:int[2,]"><i>1</i></LL>`, soapenc.SubcodeArraySize},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			el := read(t, soapenc.V11, wrap(tc.content))
			var got target
			err := el.Decode(&got)
			assert.Equal(t, tc.subcode, subcode(t, err), "%v", err)
			var e *soapenc.Error
			require.ErrorAs(t, err, &e)
			assert.True(t, strings.HasPrefix(e.Path, "/op/"), "path %q", e.Path)
			assert.NotEmpty(t, e.Msg)
		})
	}
}

func TestDecodeErrorMessage(t *testing.T) {
	el := read(t, soapenc.V11, wrap(`<a><b>1</b><b>x</b></a>`))
	var got struct{ A struct{ B []int8 } }
	err := el.Decode(&got)
	require.Error(t, err)
	assert.Equal(t, `soapenc: BadValue at /op/a/b[2]: "x" is not a valid int8`, err.Error())
}

func TestDecodeNotPointer(t *testing.T) {
	el := read(t, 0, `<a>1</a>`)
	var n int
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, el.Decode(n)))
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, el.Decode(nil)))
	var c chan int
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, el.Decode(&c)))
	var s fmt.Stringer
	assert.Equal(t, soapenc.SubcodeBadValue, subcode(t, el.Decode(&s)))
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, soapenc.DecodeItems(nil, &n)))
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100)
	d := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(deep)))
	d.MaxDepth = 50
	_, err := d.ReadBody()
	assert.Equal(t, soapenc.SubcodeLimit, subcode(t, err))

	d = soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(`<a>` + strings.Repeat("<b/>", 100) + `</a>`)))
	d.MaxNodes = 50
	_, err = d.ReadBody()
	assert.Equal(t, soapenc.SubcodeLimit, subcode(t, err))

	d = soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(`<a>` + strings.Repeat("x", 1000) + `</a>`)))
	d.MaxBytes = 100
	_, err = d.ReadBody()
	assert.Equal(t, soapenc.SubcodeLimit, subcode(t, err))

	d = soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(wrap(`<L soapenc:arrayType="xsd:int[11]"><i>1</i></L>`))))
	d.MaxArraySize = 10
	el, err := d.ReadBody()
	require.NoError(t, err)
	var got struct{ L []int }
	assert.Equal(t, soapenc.SubcodeArraySize, subcode(t, el.Decode(&got)))

	// negative: no limit
	d = soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(deep)))
	d.MaxDepth = -1
	_, err = d.ReadBody()
	assert.NoError(t, err)
}

// A declared size far above what is sent allocates only what is sent.
func TestDeclaredSizeNotAllocated(t *testing.T) {
	el := read(t, soapenc.V11, wrap(`<L soapenc:arrayType="xsd:int[1000000]"><i>1</i><i>2</i></L>`))
	var got struct{ L []int }
	allocs := testing.AllocsPerRun(10, func() { require.NoError(t, el.Decode(&got)) })
	assert.Equal(t, []int{1, 2}, got.L)
	assert.Equal(t, 2, cap(got.L))
	assert.Less(t, allocs, 20.0)

	el = read(t, soapenc.V12, wrap(`<L enc:itemType="xsd:int" enc:arraySize="1000 1000"><i>1</i><i>2</i><i>3</i></L>`))
	var grid struct{ L [][]int }
	require.NoError(t, el.Decode(&grid))
	assert.Equal(t, [][]int{{1, 2, 3}}, grid.L)
	assert.Equal(t, 1, cap(grid.L))
}

type Node struct {
	Name string
	Next *Node
	Kids []*Node
}

func TestCycles(t *testing.T) {
	// 1.1: a ring of two nodes, the main element pointing into it
	body := wrap(`<n href="#a"/>`) +
		`<multiRef id="a" ` + nsDecl + `><Name>A</Name><Next href="#b"/></multiRef>` +
		`<multiRef id="b" ` + nsDecl + `><Name>B</Name><Next href="#a"/><Kids><k href="#a"/><k href="#b"/></Kids></multiRef>`
	el := read(t, soapenc.V11, body)
	var got struct{ N *Node }
	require.NoError(t, el.Decode(&got))
	a := got.N
	require.NotNil(t, a)
	assert.Equal(t, "A", a.Name)
	assert.Equal(t, "B", a.Next.Name)
	assert.Same(t, a, a.Next.Next)
	assert.Same(t, a, a.Next.Kids[0])
	assert.Same(t, a.Next, a.Next.Kids[1])

	// into any: maps can hold the cycle too
	var generic any
	require.NoError(t, el.Decode(&generic))
	m := generic.(map[string]any)["n"].(map[string]any)
	assert.Equal(t, "A", m["Name"])
	next := m["Next"].(map[string]any)
	assert.Equal(t, fmt.Sprintf("%p", m), fmt.Sprintf("%p", next["Next"].(map[string]any)))

	// into a type with no pointer, the cycle cannot be held
	type flat struct {
		Name string
		Next []flat
	}
	var bad struct{ N flat }
	err := el.Decode(&bad)
	assert.Equal(t, soapenc.SubcodeCycle, subcode(t, err), "%v", err)
	// a failed Decode leaves no half-made shared values behind
	require.NoError(t, el.Decode(&got))
	assert.Same(t, got.N, got.N.Next.Next)

	// 1.2: self reference by enc:ref to an ancestor
	el = read(t, soapenc.V12, wrap(`<n enc:id="self"><Name>me</Name><Next enc:ref="self"/></n>`))
	var self struct{ N *Node }
	require.NoError(t, el.Decode(&self))
	assert.Same(t, self.N, self.N.Next)
}

// allocated returns the bytes f allocates (the heap's total, so it does not
// depend on the machine's speed or load, unlike a wall-clock bound).
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// expansion builds a body whose multiRefs each reference the next one twice:
// levels of sharing that a decoder copying by value would expand to 2^levels
// leaves.
func expansion(levels int) string {
	var b strings.Builder
	b.WriteString(wrap(`<top href="#r0"/>`))
	for i := range levels {
		fmt.Fprintf(&b, `<multiRef id="r%d"><l href="#r%d"/><r href="#r%d"/></multiRef>`, i, i+1, i+1)
	}
	fmt.Fprintf(&b, `<multiRef id="r%d">leaf</multiRef>`, levels)
	return b.String()
}

// Shared values referenced many times by value do not expand exponentially:
// the memory a decode allocates grows with the input (twice the levels, about
// twice the bytes), not with the 2^levels leaves; and 60 levels decode at all.
func TestReferenceExpansion(t *testing.T) {
	type tree struct{ L, R any }
	decode := func(levels int) {
		el := read(t, soapenc.V11, expansion(levels))
		var generic any
		require.NoError(t, el.Decode(&generic))
	}
	small, large := allocated(func() { decode(12) }), allocated(func() { decode(24) })
	t.Logf("12 levels: %d B; 24 levels: %d B (%.2fx)", small, large, float64(large)/float64(small))
	assert.Less(t, float64(large)/float64(small), 3.0,
		"12 levels allocated %d B, 24 levels %d B: more than linear growth", small, large)
	decode(60)

	var typed struct{ Top tree }
	d := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(expansion(60))))
	d.MaxDepth = 100
	el, err := d.ReadBody()
	require.NoError(t, err)
	require.NoError(t, el.Decode(&typed))
}

// A long chain of references is bounded by MaxDepth, not by the stack.
func TestReferenceDepth(t *testing.T) {
	var b strings.Builder
	b.WriteString(wrap(`<n href="#n0"/>`))
	const n = 2000
	for i := range n {
		fmt.Fprintf(&b, `<multiRef id="n%d"><Name>%d</Name><Next href="#n%d"/></multiRef>`, i, i, i+1)
	}
	fmt.Fprintf(&b, `<multiRef id="n%d"><Name>end</Name></multiRef>`, n)
	el := read(t, soapenc.V11, b.String())
	var got struct{ N *Node }
	assert.Equal(t, soapenc.SubcodeLimit, subcode(t, el.Decode(&got)))

	d := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(b.String())))
	d.MaxDepth = 3 * n
	el, err := d.ReadBody()
	require.NoError(t, err)
	require.NoError(t, el.Decode(&got))
	count := 0
	for p := got.N; p != nil; p = p.Next {
		count++
	}
	assert.Equal(t, n+1, count)
}

func TestEncodeErrors(t *testing.T) {
	type withFunc struct{ F func() }
	type withChan struct{ C chan int }
	type badTag struct {
		X int `soap:"a b"`
	}
	cyclic := &Node{Name: "loop"}
	cyclic.Next = cyclic
	selfSlice := []any{nil}
	selfSlice[0] = selfSlice
	selfMap := map[string]any{}
	selfMap["m"] = selfMap
	cases := []struct {
		name    string
		v       any
		subcode string
	}{
		{"func field", withFunc{F: func() {}}, soapenc.SubcodeUnsupported},
		{"chan field", withChan{}, soapenc.SubcodeUnsupported},
		{"complex", complex(1, 2), soapenc.SubcodeUnsupported},
		{"int map key", map[int]string{1: "a"}, soapenc.SubcodeUnsupported},
		{"bad map key", map[string]int{"a b": 1}, soapenc.SubcodeUnsupported},
		{"bad tag", badTag{}, soapenc.SubcodeUnsupported},
		{"control character", "bell\a", soapenc.SubcodeBadValue},
		{"invalid utf8", "\xff", soapenc.SubcodeBadValue},
		{"bad decimal", soapenc.Decimal("1/3"), soapenc.SubcodeBadValue},
		{"endless rational", bigRat(1, 3), soapenc.SubcodeBadValue},
		{"year 10000", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), soapenc.SubcodeBadValue},
		{"bad QName", xml.Name{Local: "a:b"}, soapenc.SubcodeBadValue},
		{"cyclic pointer", cyclic, soapenc.SubcodeCycle},
		{"cyclic slice", selfSlice, soapenc.SubcodeCycle},
		{"cyclic map", selfMap, soapenc.SubcodeCycle},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, v := range versions {
				err := (&soapenc.Encoder{Version: v}).Encode(io.Discard, xml.Name{Local: "x"}, tc.v)
				assert.Equal(t, tc.subcode, subcode(t, err), "%v", err)
			}
		})
	}
	// with MultiRefs pointer cycles are fine, slice and map cycles are not
	for _, v := range versions {
		enc := soapenc.Encoder{Version: v, MultiRefs: true}
		assert.NoError(t, enc.Encode(io.Discard, xml.Name{Local: "x"}, cyclic))
		assert.Equal(t, soapenc.SubcodeCycle, subcode(t, enc.Encode(io.Discard, xml.Name{Local: "x"}, selfSlice)))
	}
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, (&soapenc.Encoder{}).Encode(io.Discard, xml.Name{Local: "a b"}, 1)))
	assert.Equal(t, soapenc.SubcodeUnsupported, subcode(t, (&soapenc.Encoder{}).EncodeParts(io.Discard, xml.Name{Local: "a"}, soapenc.Part{Name: "1x"})))
}

func TestEncodeWriteError(t *testing.T) {
	boom := errors.New("boom")
	err := (&soapenc.Encoder{}).Encode(failWriter{boom}, xml.Name{Local: "x"}, make([]string, 10000))
	assert.ErrorIs(t, err, boom)
}

type failWriter struct{ err error }

func (w failWriter) Write([]byte) (int, error) { return 0, w.err }

func TestEncodeErrorPath(t *testing.T) {
	v := struct{ A []struct{ F float64 } }{A: []struct{ F float64 }{{1}, {2}}}
	var b bytes.Buffer
	require.NoError(t, (&soapenc.Encoder{}).Encode(&b, xml.Name{Local: "x"}, v))
	type bad struct{ S []string }
	err := (&soapenc.Encoder{}).Encode(io.Discard, xml.Name{Local: "x"}, bad{S: []string{"ok", "no\x00"}})
	var e *soapenc.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "/x/S/item[2]", e.Path)
	_ = math.Pi
}

// Inputs shaped to make naive code quadratic stay fast: each is linear
// work of well under a second, or minutes if quadratic.
func TestHostileInputsAreCheap(t *testing.T) {
	cases := map[string]func(n int) string{
		"text split by comments": func(n int) string {
			return `<op><A>` + strings.Repeat("xxxxxxxxxx<!---->", n) + `</A></op>`
		},
		"long reference chain": func(n int) string {
			var b strings.Builder
			b.WriteString(`<op><a href="#r0"/></op>`)
			for i := range n {
				fmt.Fprintf(&b, `<r id="r%d" href="#r%d"/>`, i, i+1)
			}
			fmt.Fprintf(&b, `<r id="r%d">end</r>`, n)
			return b.String()
		},
		"many repeated elements": func(n int) string {
			return `<op>` + strings.Repeat(`<L>1</L>`, n) + `</op>`
		},
	}
	const n = 150000
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			decode := func(n int) {
				d := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body(n))))
				d.MaxNodes = 2 * n
				el, err := d.ReadBody()
				require.NoError(t, err)
				var v struct {
					A string
					L []int
				}
				require.NoError(t, el.Decode(&v))
				var generic any
				require.NoError(t, el.Decode(&generic))
			}
			// Linear work allocates about twice as much for twice the
			// input; quadratic work four times as much.
			small, large := allocated(func() { decode(n / 8) }), allocated(func() { decode(n / 4) })
			t.Logf("%d units: %d B; %d units: %d B (%.2fx)", n/8, small, n/4, large, float64(large)/float64(small))
			assert.Less(t, float64(large)/float64(small), 3.0,
				"%d units allocated %d B, %d units %d B: more than linear growth", n/8, small, n/4, large)
			decode(n) // and the full size decodes
		})
	}

	flood := `<a `
	for i := range 2000 {
		flood += fmt.Sprintf(`xmlns:p%d="urn:%d" `, i, i)
	}
	_, err := readErr(0, flood+`/>`)
	assert.Equal(t, soapenc.SubcodeLimit, subcode(t, err))
}
