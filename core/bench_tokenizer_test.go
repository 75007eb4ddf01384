package core_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"slices"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// Benchmarks of the tokenizer against encoding/xml, and of the whole core
// path against the bare tokenizer, on the inputs of bench_test.go. Run (see
// docs/benchmarks.md):
//
//	go test -run XXX -bench 'Tokenizer|Node|Decode' -benchmem -count 5 ./core/
//
// Each also reports "cpu-ns/op", the process's CPU time per operation
// (getrusage), steadier than wall time on a busy machine; the Ratio
// benchmarks alternate short batches of the two sides and report the
// median of the per-pair ratios.

// walk reads in with the tokenizer, token by token, to its end.
func walk(in []byte) error {
	r := xmltok.NewReader(bytes.NewReader(in), xmltok.Limits{})
	defer r.Release()
	for {
		if _, err := r.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

var tokenizerInputs = []struct {
	name string
	in   func() []byte
}{
	{"rpc-1KB", benchRPC},
	{"doc-100KB", func() []byte { return benchDoc(100 << 10) }},
	{"doc-10MB", func() []byte { return benchDoc(10 << 20) }},
}

// cpuPerOp runs the loop of b and reports the CPU time per operation.
func cpuPerOp(b *testing.B, op func() error) {
	c0 := cpuTime()
	n := 0
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if c := cpuTime() - c0; c > 0 && n > 0 {
		b.ReportMetric(float64(c.Nanoseconds())/float64(n), "cpu-ns/op")
	}
}

func BenchmarkTokenizer(b *testing.B) {
	for _, in := range tokenizerInputs {
		data := in.in()
		b.Run(in.name+"/encoding-xml", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpuPerOp(b, func() error { return baseline(data) })
		})
		b.Run(in.name+"/xmltok", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			cpuPerOp(b, func() error { return walk(data) })
		})
	}
}

// ratio alternates batches of a and b and reports the median of b's time
// over a's, in CPU time.
func ratio(bm *testing.B, batch int, metric string, a, b func() error) {
	var ratios []float64
	for bm.Loop() {
		c0 := cpuTime()
		for range batch {
			if err := a(); err != nil {
				bm.Fatal(err)
			}
		}
		c1 := cpuTime()
		for range batch {
			if err := b(); err != nil {
				bm.Fatal(err)
			}
		}
		c2 := cpuTime()
		if c1 > c0 {
			ratios = append(ratios, float64(c2-c1)/float64(c1-c0))
		}
	}
	if len(ratios) > 0 {
		slices.Sort(ratios)
		bm.ReportMetric(ratios[len(ratios)/2], metric)
	}
}

// BenchmarkRatioTokenizer: how many times the tokenizer's speed
// encoding/xml's Token is (metric "encoding-xml/xmltok").
func BenchmarkRatioTokenizer(b *testing.B) {
	for i, in := range tokenizerInputs {
		data := in.in()
		batch := []int{50, 1, 1}[i]
		b.Run(in.name, func(b *testing.B) {
			ratio(b, batch, "encoding-xml/xmltok", func() error { return walk(data) }, func() error { return baseline(data) })
		})
	}
}

// BenchmarkNode: the 1 KB request read, processed by a Node (a header block
// understood, the body read to its end) and its reply written, beside the
// bare tokenizer walk of the same bytes.
func BenchmarkNode(b *testing.B) {
	in := benchRPC()
	n := benchNode(false)
	ctx := context.Background()
	b.Run("rpc-1KB/xmltok-walk", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		cpuPerOp(b, func() error { return walk(in) })
	})
	b.Run("rpc-1KB/node", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		cpuPerOp(b, func() error { return soapwire(ctx, n, in, core.Limits{}) })
	})
}

// BenchmarkRatioNode: the full path's time over the bare walk's (metric
// "node/walk"; the target is 2).
func BenchmarkRatioNode(b *testing.B) {
	in := benchRPC()
	n := benchNode(false)
	ctx := context.Background()
	ratio(b, 50, "node/walk", func() error { return walk(in) }, func() error { return soapwire(ctx, n, in, core.Limits{}) })
}

// echoRequest is the 1 KB request's body, as a user's own struct.
type echoRequest struct {
	XMLName     xml.Name `xml:"http://soapinterop.org/ echoString"`
	InputString string   `xml:"inputString"`
}

// echoEnvelope is the whole request for encoding/xml's Unmarshal.
type echoEnvelope struct {
	XMLName xml.Name `xml:"http://schemas.xmlsoap.org/soap/envelope/ Envelope"`
	Body    struct {
		Echo echoRequest
	} `xml:"http://schemas.xmlsoap.org/soap/envelope/ Body"`
}

// BenchmarkDecode: decoding the request into the user's struct, the one
// path that still goes through encoding/xml (Body.Decode), beside
// encoding/xml's Unmarshal of the whole envelope.
func BenchmarkDecode(b *testing.B) {
	in := benchRPC()
	b.Run("rpc-1KB/encoding-xml-unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		cpuPerOp(b, func() error {
			var e echoEnvelope
			return xml.Unmarshal(in, &e)
		})
	})
	b.Run("rpc-1KB/core-read-decode", func(b *testing.B) {
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		cpuPerOp(b, func() error {
			m, err := core.ReadMessage(bytes.NewReader(in), core.Limits{})
			if err != nil {
				return err
			}
			var req echoRequest
			if err := m.Body().Decode(&req); err != nil {
				return err
			}
			return m.Body().Discard()
		})
	})
}

// TestTokenizerBenchInputs: the walk reads every input, and the decoding
// benchmarks decode the same text both ways.
func TestTokenizerBenchInputs(t *testing.T) {
	for _, in := range tokenizerInputs[:2] {
		if err := walk(in.in()); err != nil {
			t.Fatalf("%s: %v", in.name, err)
		}
	}
	in := benchRPC()
	var e echoEnvelope
	if err := xml.Unmarshal(in, &e); err != nil {
		t.Fatal(err)
	}
	m, err := core.ReadMessage(bytes.NewReader(in), core.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var req echoRequest
	if err := m.Body().Decode(&req); err != nil {
		t.Fatal(err)
	}
	if len(req.InputString) < 200 || req.InputString != e.Body.Echo.InputString {
		t.Fatalf("decoded %q and %q", req.InputString, e.Body.Echo.InputString)
	}
	if cpuTime() <= 0 && cpuTimeSupported {
		t.Fatal("no CPU time")
	}
}
