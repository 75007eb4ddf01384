package xsd_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core/soapenc"
	"github.com/soapwire/soapwire/core/xsd"
)

// FuzzCodecDecode: any bytes decode against kitchen.xsd's order (strict,
// lenient, into a tree and into a Go value) without a panic; what decodes
// strictly is written again by the codec and reads back as the same tree,
// in the same bytes.
func FuzzCodecDecode(f *testing.F) {
	f.Add([]byte(fullOrderXML))
	f.Add([]byte(minimal(`<k:cash>1</k:cash>`)))
	f.Add([]byte(minimal(`<k:card>x</k:card><k:shape xsi:type="k:Circle"><k:label>l</k:label><k:radius>INF</k:radius></k:shape><k:closed>c</k:closed>`)))
	f.Add([]byte(minimal(`<k:numbers> 1  2 </k:numbers><k:kind xmlns:q="urn:q">q:x</k:kind><k:cash>0</k:cash><k:extra><q:a xmlns:q="urn:q"><q:b>t</q:b></q:a></k:extra>`)))
	f.Add([]byte(`<k:pair xmlns:k="urn:kitchen"><k:right>r</k:right><k:left>l</k:left></k:pair>`))
	set := kitchen(f)
	strict, lenient := xsd.NewCodec(set), xsd.NewCodec(set, xsd.Lenient())
	el := kel(set, "order")
	f.Fuzz(func(t *testing.T, data []byte) {
		var o Order
		_ = strict.DecodeBytes(data, el, &o)
		_ = lenient.DecodeBytes(data, el, &o)
		var tree *xsd.Value
		_ = lenient.DecodeBytes(data, el, &tree)
		tree = nil
		if err := strict.DecodeBytes(data, el, &tree); err != nil {
			return
		}
		var out bytes.Buffer
		if err := strict.Encode(&out, el, tree); err != nil {
			t.Fatalf("a tree read from %q does not write: %v", data, err)
		}
		var back *xsd.Value
		if err := strict.DecodeBytes(out.Bytes(), el, &back); err != nil {
			t.Fatalf("%q, written as %q, does not read: %v", data, out.Bytes(), err)
		}
		var again bytes.Buffer
		if err := strict.Encode(&again, el, back); err != nil {
			t.Fatal(err)
		}
		if again.String() != out.String() || back.String() != tree.String() {
			t.Fatalf("round trip:\n%s\n%s", out.Bytes(), again.Bytes())
		}
	})
}

// FuzzCodecRoundTrip: a Go value the codec writes reads back equal; one
// it refuses is refused with a *ValueError.
func FuzzCodecRoundTrip(f *testing.F) {
	f.Add("open", int64(7), "12.50", "VISA", []byte("hi"), 1.5, int64(1714557000), "a b")
	f.Add("", int64(-1), "-0.1", "", []byte{}, -0.0, int64(0), "")
	f.Add("<&>", int64(1<<62), "1e3", "\x01", []byte{0}, 1e300, int64(-62135596800), "x\ty")
	set := kitchen(f)
	c := xsd.NewCodec(set)
	el := kel(set, "order")
	f.Fuzz(func(t *testing.T, status string, id int64, amount, card string, blob []byte, radius float64, unix int64, remark string) {
		o := Order{
			Status: status, ID: id, When: time.Unix(unix, 0).UTC(),
			Total: Money{Amount: soapenc.Decimal(amount), Currency: "EUR"},
			Card:  &card, Blob: blob,
			Shapes: []any{Circle{Label: status, Radius: radius}},
			Remark: ptr(xsd.Some(remark)),
		}
		var buf bytes.Buffer
		err := c.Encode(&buf, el, o)
		if err != nil {
			var ve *xsd.ValueError
			if !errors.As(err, &ve) {
				t.Fatalf("not a ValueError: %v", err)
			}
			return
		}
		var back Order
		if err := c.DecodeBytes(buf.Bytes(), el, &back); err != nil {
			t.Fatalf("%+v written as %s does not read back: %v", o, buf.Bytes(), err)
		}
		if back.Status != o.Status || back.ID != o.ID || !back.When.Equal(o.When) || *back.Card != card ||
			!bytes.Equal(back.Blob, blob) && len(blob) > 0 || back.Remark.Value != remark || back.Remark.Nil {
			t.Fatalf("%+v came back as %+v", o, back)
		}
		if string(back.Total.Amount) != strings.Join(strings.Fields(amount), " ") { // written with its white space collapsed
			t.Fatalf("amount %q came back as %q", amount, back.Total.Amount)
		}
		if r := back.Shapes[0].(*xsd.Value).Elem("radius").Text; r == "" {
			t.Fatalf("radius lost")
		}
	})
}
