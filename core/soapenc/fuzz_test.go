package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core/soapenc"
)

// fuzzTarget has a field of every kind the decoder handles.
type fuzzTarget struct {
	S    string
	I    int
	I8   int8
	U    uint32
	F    float64
	F32  float32
	B    bool
	T    time.Time
	Bin  []byte
	Hex  soapenc.HexBinary
	Big  *big.Int
	Dec  soapenc.Decimal
	Rat  *big.Rat
	Q    xml.Name
	P    *fuzzTarget
	N    *Node
	L    []string
	LL   [][]int
	Grid [2][2]int
	M    map[string]any
	A    any
	E    *soapenc.Element
}

func FuzzDecode(f *testing.F) {
	seeds := []string{
		axisEnvelope, gsoapEnvelope, nodeSoapEnvelope, zeepEnvelope, apache1999Body, soap12Body,
		wrap(`<a href="#x"/>`) + `<multiRef id="x"><P href="#x"/><S>s</S></multiRef>`,
		wrap(`<L soapenc:arrayType="xsd:int[2147483647]"><i>1</i></L>`),
		wrap(`<LL soapenc:arrayType="xsd:int[2,3]"><i soapenc:position="[1,2]">1</i></LL>`),
		wrap(`<A enc:itemType="xsd:string" enc:arraySize="* 2"><i>a</i><i>b</i></A>`),
		wrap(`<N enc:id="n"><Next enc:ref="n"/></N>`),
		wrap(`<Q xsi:type="xsd:QName">xsd:int</Q><T>2024-01-01T00:00:00+05:00</T><Rat>-1.25</Rat>`),
	}
	for _, tc := range roundTrips() {
		for _, v := range versions {
			var b bytes.Buffer
			if (&soapenc.Encoder{Version: v, MultiRefs: true, TypeNamespace: "urn:t"}).Encode(&b, xml.Name{Local: "A"}, tc.in) == nil {
				seeds = append(seeds, `<op>`+b.String()+`</op>`)
			}
		}
	}
	for i, s := range seeds {
		f.Add(s, uint8(i%3))
	}
	f.Fuzz(func(t *testing.T, body string, version uint8) {
		d := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body)))
		d.Version = soapenc.Version(version % 3)
		d.MaxNodes, d.MaxDepth, d.MaxArraySize = 5000, 64, 1<<16
		el, err := d.ReadBody()
		// the same body read through Token (encoding/xml resolving the
		// prefixes) instead of RawToken: what RawToken accepts, Token reads
		// into the same tree
		dt := soapenc.NewDecoder(tokenOnly{xml.NewDecoder(strings.NewReader(body))})
		dt.Version, dt.MaxNodes, dt.MaxDepth, dt.MaxArraySize = d.Version, d.MaxNodes, d.MaxDepth, d.MaxArraySize
		elt, errt := dt.ReadBody()
		if err != nil {
			return
		}
		if errt != nil {
			t.Fatalf("RawToken read the body, Token refused it: %v", errt)
		}
		sameTree(t, el, elt, 6)
		// and through core's Body (Next): core is stricter than
		// encoding/xml, but what both read is the same tree
		if elc, errc := readCore(body); errc == nil && d.Version == 0 {
			sameTreeAttrNorm(t, el, elc, 6)
		}
		var target fuzzTarget
		_ = el.Decode(&target)
		// and strictly, forms checked (version 2 asks for qualified ones):
		// refusals, never a panic
		strict := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body)))
		strict.Strict, strict.CheckForms = true, version%2 == 0
		if version%3 == 2 {
			strict.FieldNamespace = "urn:t"
		}
		if els, err := strict.ReadBody(); err == nil {
			_ = els.Decode(&fuzzTarget{})
			_ = els.Decode(&formPerson{})
		}
		var generic any
		if el.Decode(&generic) == nil {
			// what was decoded can be written again (or refused cleanly)
			_ = (&soapenc.Encoder{Version: d.Version, MultiRefs: true}).Encode(io.Discard, xml.Name{Local: "x"}, generic)
		}
		for _, c := range el.Children() {
			var list []fuzzTarget
			_ = c.Decode(&list)
			var grid [][]any
			_ = c.Decode(&grid)
			_ = c.Type()
			_ = c.Text()
		}
	})
}
