package core_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Benchmarks of the whole core path against encoding/xml walking the same
// bytes. Run (see docs/benchmarks.md):
//
//	go test -run XXX -bench BenchmarkEnvelope -benchmem -count 6 ./core/

// benchRPC is a SOAP 1.1 RPC request of about 1 KB: an echoString call with
// two header blocks, one of them mandatory.
func benchRPC() []byte {
	const text = "The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs. "
	s := `<?xml version="1.0" encoding="utf-8"?>
<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <soap:Header>
    <s:Session xmlns:s="urn:example:session" soap:mustUnderstand="1"><s:ID>4f1c9e2a-77b3-4d0e-9a51-0c6d2b8e1f37</s:ID></s:Session>
    <t:Trace xmlns:t="urn:example:trace" soap:actor="http://schemas.xmlsoap.org/soap/actor/next">hop-1</t:Trace>
  </soap:Header>
  <soap:Body>
    <m:echoString xmlns:m="http://soapinterop.org/" soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">
      <inputString xsi:type="xsd:string">` + strings.Repeat(text, 3) + `</inputString>
    </m:echoString>
  </soap:Body>
</soap:Envelope>`
	return []byte(s)
}

// benchDoc is a SOAP 1.2 document-style message whose body is a purchase
// order with items lines, about size bytes in all.
func benchDoc(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing">` +
		`<env:Header><wsa:MessageID>urn:uuid:0b7e2d4c-1f3a-4e59-8a6b-2c9d0e1f3a4b</wsa:MessageID>` +
		`<wsa:Action>urn:example:orders:Submit</wsa:Action>` +
		`<wsa:ReplyTo><wsa:Address>mailto:orders@example.org</wsa:Address></wsa:ReplyTo>` +
		`<s:Session xmlns:s="urn:example:session" env:mustUnderstand="true"><s:ID>4f1c9e2a</s:ID></s:Session>` +
		`</env:Header><env:Body><po:PurchaseOrder xmlns:po="urn:example:po" date="2026-11-22">`)
	const tail = `</po:PurchaseOrder></env:Body></env:Envelope>`
	for i := 0; b.Len() < size-len(tail)-200; i++ {
		fmt.Fprintf(&b, `<po:item sku="SKU-%06d" qty="%d"><po:name>Widget number %d &amp; co</po:name><po:price currency="EUR">%d.%02d</po:price></po:item>`+"\n", i, i%17+1, i, i%1000, i%100)
	}
	b.WriteString(tail)
	return b.Bytes()
}

// benchNode is the processing the soapwire side does: a Node that
// understands the Session block, in front of a handler that either returns a
// small reply (reading the request body to its end) or streams the request
// body into its reply.
func benchNode(copyBody bool) *core.Node {
	session := xml.Name{Space: "urn:example:session", Local: "Session"}
	type sessionKey struct{}
	return &core.Node{
		URI: "https://bench.example.org/",
		Headers: map[xml.Name]core.HeaderFunc{
			session: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				return context.WithValue(ctx, sessionKey{}, b), nil
			},
		},
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			if ctx.Value(sessionKey{}) == nil {
				return nil, core.SenderFault("no session")
			}
			if copyBody {
				body := m.Body()
				return m.Reply(core.StreamBody(xml.Name{Space: "urn:example:po", Local: "Receipt"}, func(w io.Writer) error {
					_, err := body.WriteTo(w)
					return err
				})), nil
			}
			if err := m.Body().Discard(); err != nil {
				return nil, err
			}
			return m.Reply(core.RawBody([]byte(`<m:echoStringResponse xmlns:m="http://soapinterop.org/"><return>ok</return></m:echoStringResponse>`))), nil
		}),
	}
}

// baseline walks the bytes with encoding/xml's Decoder.Token until EOF.
func baseline(in []byte) error {
	d := xml.NewDecoder(bytes.NewReader(in))
	for {
		if _, err := d.Token(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// soapwire reads, processes and writes: ReadMessage → Node → handler →
// reply written to io.Discard.
func soapwire(ctx context.Context, n *core.Node, in []byte, lim core.Limits) error {
	m, err := core.ReadMessage(bytes.NewReader(in), lim)
	if err != nil {
		return err
	}
	reply, err := n.ServeSOAP(ctx, m)
	if err != nil {
		return err
	}
	if _, err := reply.WriteTo(io.Discard); err != nil {
		return err
	}
	return m.Body().Discard() // the request body to its end (already read by the handler)
}

func BenchmarkEnvelope(b *testing.B) {
	inputs := []struct {
		name     string
		in       []byte
		copyBody bool
	}{
		{"rpc-1KB", benchRPC(), false},
		{"doc-100KB", benchDoc(100 << 10), true},
		{"doc-10MB", benchDoc(10 << 20), true},
	}
	lim := core.Limits{MaxBytes: 64 << 20}
	for _, in := range inputs {
		b.Run(in.name+"/baseline", func(b *testing.B) {
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := baseline(in.in); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/soapwire", func(b *testing.B) {
			n := benchNode(in.copyBody)
			ctx := context.Background()
			if err := soapwire(ctx, n, in.in, lim); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(in.in)))
			b.ReportAllocs()
			for b.Loop() {
				if err := soapwire(ctx, n, in.in, lim); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestBenchInputs keeps the benchmark honest: the inputs have the sizes the
// names say, and the soapwire path really copies a document body into the
// reply.
func TestBenchInputs(t *testing.T) {
	rpc := benchRPC()
	if len(rpc) < 900 || len(rpc) > 1200 {
		t.Fatalf("the RPC request is %d bytes, not about 1 KB", len(rpc))
	}
	for _, size := range []int{100 << 10, 10 << 20} {
		doc := benchDoc(size)
		if len(doc) > size || len(doc) < size-400 {
			t.Fatalf("the document is %d bytes, not about %d", len(doc), size)
		}
	}
	doc := benchDoc(100 << 10)
	m, err := core.ReadMessage(bytes.NewReader(doc), core.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := benchNode(true).ServeSOAP(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := reply.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	if want, got := bytes.Count(doc, []byte("<po:item ")), bytes.Count(out.Bytes(), []byte("<po:item ")); got != want || want < 100 {
		t.Fatalf("the reply carries %d items, the request %d", got, want)
	}
	for _, c := range []struct {
		in       []byte
		copyBody bool
	}{{rpc, false}, {doc, true}} {
		if err := baseline(c.in); err != nil {
			t.Fatal(err)
		}
		if err := soapwire(t.Context(), benchNode(c.copyBody), c.in, core.Limits{}); err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkRatioEnvelope measures soapwire's time over the baseline's
// robustly on a busy machine, where BenchmarkEnvelope's sequential runs see
// the load change between the baseline and soapwire: it alternates short
// batches of both (20 runs of the 1 KB request, single runs of the
// documents) and reports the median of the per-pair ratios (metric
// "soapwire/baseline"). Its ns/op is the time of one pair of batches.
func BenchmarkRatioEnvelope(b *testing.B) {
	inputs := []struct {
		name     string
		in       []byte
		copyBody bool
		batch    int
	}{
		{"rpc-1KB", benchRPC(), false, 20},
		{"doc-100KB", benchDoc(100 << 10), true, 1},
		{"doc-10MB", benchDoc(10 << 20), true, 1},
	}
	lim := core.Limits{MaxBytes: 64 << 20}
	for _, in := range inputs {
		b.Run(in.name, func(b *testing.B) {
			n := benchNode(in.copyBody)
			ctx := context.Background()
			var ratios []float64
			for b.Loop() {
				t0 := time.Now()
				for range in.batch {
					if err := baseline(in.in); err != nil {
						b.Fatal(err)
					}
				}
				t1 := time.Now()
				for range in.batch {
					if err := soapwire(ctx, n, in.in, lim); err != nil {
						b.Fatal(err)
					}
				}
				t2 := time.Now()
				ratios = append(ratios, float64(t2.Sub(t1))/float64(t1.Sub(t0)))
			}
			slices.Sort(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "soapwire/baseline")
		})
	}
}
