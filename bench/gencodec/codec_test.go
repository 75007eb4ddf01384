package gencodec_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"os"
	"reflect"
	"syscall"
	"testing"
	"time"

	"github.com/soapwire/soapwire/bench/internal/echows"
	"github.com/soapwire/soapwire/core/soapenc"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/internal/benchstat"
)

const ns = "urn:soapwire:bench"

// sizes are the messages measured: an echoOrder request of about 1 KB and
// of about 100 KB, as the generated code writes them.
var sizes = []struct {
	name  string
	lines int
}{
	{"1KB", 5},
	{"100KB", 620},
}

// order returns an echoOrder request with n lines (every other one with
// a note), the same for every run.
func order(n int) *echows.EchoOrder {
	cur := "EUR"
	o := echows.Order{
		Currency: &cur,
		Id:       "PO-2026-000417",
		Customer: "Müller & Söhne GmbH",
		Placed:   time.Date(2026, 11, 29, 6, 30, 15, 0, time.UTC),
		Total:    "12345.67",
	}
	for i := range n {
		l := echows.Line{
			Sku:         fmt.Sprintf("SKU-%06d", i),
			Description: fmt.Sprintf("stainless steel hex bolt M%d x %d mm", 4+i%12, 20+i%80),
			Quantity:    int32(1 + i%250),
			Price:       soapenc.Decimal(fmt.Sprintf("%d.%02d", 1+i%90, i%100)),
		}
		if i%2 == 0 {
			note := "deliver with the next batch"
			l.Note = &note
		}
		o.Line = append(o.Line, l)
	}
	return &echows.EchoOrder{Order: o}
}

// codecs are the three ways of writing and reading an echoOrder element
// measured: the code soapwire gen generated (bench/internal/echows, the
// calls its server and client make), core/xsd's reflective codec driven by
// the contract's schema, and encoding/xml on the same Go value.
type codecs struct {
	reflective *xsd.Codec
	el         *xsd.Element
}

func newCodecs(tb testing.TB) *codecs {
	ct, err := wsdl.Load(context.Background(), xsd.FSLoader(os.DirFS(".")), "echo.wsdl")
	if err != nil {
		tb.Fatal(err)
	}
	el := ct.Schemas.Element(xml.Name{Space: ns, Local: "echoOrder"})
	if el == nil {
		tb.Fatal("echo.wsdl has no element echoOrder")
	}
	return &codecs{reflective: xsd.NewCodec(ct.Schemas), el: el}
}

func (c *codecs) encodeGenerated(buf *bytes.Buffer, v *echows.EchoOrder) error {
	e := xsd.NewEncoder(buf)
	if err := e.Struct(ns, "echoOrder", v, "", ""); err != nil {
		return err
	}
	return e.Flush()
}

func (c *codecs) decodeGenerated(data []byte) (*echows.EchoOrder, error) {
	d := xsd.NewDecoder(xsd.BytesReader(data))
	st, err := d.Element(ns, "echoOrder")
	if err != nil {
		return nil, err
	}
	var v echows.EchoOrder
	if err := d.Struct(st, &v, "", ""); err != nil {
		return nil, err
	}
	return &v, d.Rest()
}

func (c *codecs) encodeReflective(buf *bytes.Buffer, v *echows.EchoOrder) error {
	return c.reflective.Encode(buf, c.el, v)
}

func (c *codecs) decodeReflective(data []byte) (*echows.EchoOrder, error) {
	var v echows.EchoOrder
	return &v, c.reflective.DecodeBytes(data, c.el, &v)
}

func (c *codecs) encodeXML(buf *bytes.Buffer, v *echows.EchoOrder) error {
	return xml.NewEncoder(buf).EncodeElement(v, xml.StartElement{Name: xml.Name{Space: ns, Local: "echoOrder"}})
}

func (c *codecs) decodeXML(data []byte) (*echows.EchoOrder, error) {
	var v echows.EchoOrder
	return &v, xml.Unmarshal(data, &v)
}

type encodeFunc func(*bytes.Buffer, *echows.EchoOrder) error

type decodeFunc func([]byte) (*echows.EchoOrder, error)

func (c *codecs) encoders() []namedEncode {
	return []namedEncode{{"generated", c.encodeGenerated}, {"reflective", c.encodeReflective}, {"encoding-xml", c.encodeXML}}
}

func (c *codecs) decoders() []namedDecode {
	return []namedDecode{{"generated", c.decodeGenerated}, {"reflective", c.decodeReflective}, {"encoding-xml", c.decodeXML}}
}

type namedEncode struct {
	name string
	f    encodeFunc
}

type namedDecode struct {
	name string
	f    decodeFunc
}

// TestCodecsAgree: what the benchmarks measure is right. The generated
// code and the reflective codec write the same bytes; each of the three
// reads them back into the value written; encoding/xml reads its own
// output back into it too; the messages are about 1 KB and 100 KB.
func TestCodecsAgree(t *testing.T) {
	c := newCodecs(t)
	for _, sz := range sizes {
		t.Run(sz.name, func(t *testing.T) {
			v := order(sz.lines)
			var gen, refl, std bytes.Buffer
			if err := c.encodeGenerated(&gen, v); err != nil {
				t.Fatal(err)
			}
			if err := c.encodeReflective(&refl, v); err != nil {
				t.Fatal(err)
			}
			if err := c.encodeXML(&std, v); err != nil {
				t.Fatal(err)
			}
			if gen.String() != refl.String() {
				t.Errorf("generated and reflective encodings differ:\n%s\n%s", gen.String(), refl.String())
			}
			want := map[string][2]int{"1KB": {900, 1200}, "100KB": {95_000, 110_000}}[sz.name]
			if n := gen.Len(); n < want[0] || n > want[1] {
				t.Errorf("the %s message is %d bytes", sz.name, n)
			}
			for _, d := range c.decoders() {
				got, err := d.f(gen.Bytes())
				if err != nil {
					t.Fatalf("%s decoding the generated encoding: %v", d.name, err)
				}
				if !equal(got, v) {
					t.Errorf("%s decoded a different value:\n%+v\nwant\n%+v", d.name, got.Order.Line[0], v.Order.Line[0])
				}
			}
			got, err := c.decodeXML(std.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			if !equal(got, v) {
				t.Errorf("encoding/xml did not read back its own encoding")
			}
		})
	}
}

// TestCodecsRefuse: the generated and reflective decoders check what they
// read (a quantity that is not an xsd:int); encoding/xml fails on it too,
// as it does not fit an int32.
func TestCodecsRefuse(t *testing.T) {
	c := newCodecs(t)
	var buf bytes.Buffer
	if err := c.encodeGenerated(&buf, order(3)); err != nil {
		t.Fatal(err)
	}
	bad := bytes.Replace(buf.Bytes(), []byte("<quantity>2</quantity>"), []byte("<quantity>99999999999</quantity>"), 1)
	if bytes.Equal(bad, buf.Bytes()) {
		t.Fatal("no quantity 2 in the message")
	}
	for _, d := range c.decoders() {
		if _, err := d.f(bad); err == nil {
			t.Errorf("%s accepts a quantity out of range", d.name)
		}
	}
}

// equal compares two orders, their times as instants.
func equal(a, b *echows.EchoOrder) bool {
	x, y := *a, *b
	if !x.Order.Placed.Equal(y.Order.Placed) {
		return false
	}
	x.Order.Placed, y.Order.Placed = time.Time{}, time.Time{}
	return reflect.DeepEqual(x, y)
}

// BenchmarkCodec: each codec encoding and decoding each message on its
// own (time, bytes and allocations per message).
//
//	go test ./bench/gencodec -run '^$' -bench 'Codec$' -benchmem -count 5
func BenchmarkCodec(b *testing.B) {
	c := newCodecs(b)
	for _, sz := range sizes {
		v := order(sz.lines)
		var msg bytes.Buffer
		if err := c.encodeGenerated(&msg, v); err != nil {
			b.Fatal(err)
		}
		for _, e := range c.encoders() {
			b.Run(sz.name+"/encode/"+e.name, func(b *testing.B) {
				b.SetBytes(int64(msg.Len()))
				b.ReportAllocs()
				var buf bytes.Buffer
				for b.Loop() {
					buf.Reset()
					if err := e.f(&buf, v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		for _, d := range c.decoders() {
			b.Run(sz.name+"/decode/"+d.name, func(b *testing.B) {
				b.SetBytes(int64(msg.Len()))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := d.f(msg.Bytes()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRatioCodec: the reflective codec's and encoding/xml's CPU time
// against the generated code's, robustly on a busy machine: per message
// and direction it alternates batches of the three (in a rotating order)
// and reports the medians of the per-round ratios ("reflective/generated",
// "encoding-xml/generated": above 1, the generated code is faster) and the
// generated code's CPU µs per message.
//
//	go test ./bench/gencodec -run '^$' -bench RatioCodec -count 5
func BenchmarkRatioCodec(b *testing.B) {
	c := newCodecs(b)
	for _, sz := range sizes {
		v := order(sz.lines)
		var msg bytes.Buffer
		if err := c.encodeGenerated(&msg, v); err != nil {
			b.Fatal(err)
		}
		batch := max(1, 100_000/msg.Len())
		b.Run(sz.name+"/encode", func(b *testing.B) {
			var buf bytes.Buffer
			var fs []func() error
			for _, e := range c.encoders() {
				fs = append(fs, func() error { buf.Reset(); return e.f(&buf, v) })
			}
			alternate(b, batch, fs)
		})
		b.Run(sz.name+"/decode", func(b *testing.B) {
			var fs []func() error
			for _, d := range c.decoders() {
				fs = append(fs, func() error { _, err := d.f(msg.Bytes()); return err })
			}
			alternate(b, batch, fs)
		})
	}
}

// alternate runs batches of fs (generated, reflective, encoding/xml) in
// turn, in an order that rotates each round, and reports the medians of
// fs[1] and fs[2]'s CPU time against fs[0]'s and fs[0]'s per call.
func alternate(b *testing.B, batch int, fs []func() error) {
	cpu := make([][]float64, len(fs))
	for n := 0; b.Loop(); n++ {
		for j := range fs {
			i := (j + n) % len(fs)
			c0 := cpuTime()
			for range batch {
				if err := fs[i](); err != nil {
					b.Fatal(err)
				}
			}
			cpu[i] = append(cpu[i], float64(cpuTime()-c0))
		}
	}
	var refl, std, per []float64
	for r := range cpu[0] {
		if cpu[0][r] <= 0 {
			continue
		}
		refl = append(refl, cpu[1][r]/cpu[0][r])
		std = append(std, cpu[2][r]/cpu[0][r])
		per = append(per, cpu[0][r]/1e3/float64(batch))
	}
	if len(per) == 0 {
		return
	}
	b.ReportMetric(benchstat.Median(refl), "reflective/generated")
	b.ReportMetric(benchstat.Median(std), "encoding-xml/generated")
	b.ReportMetric(benchstat.Median(per), "generated-cpu-µs/msg")
}

// cpuTime returns the process's user and system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
