package document_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/document"
)

// benchDocs is how many one-way documents one batch carries.
const benchDocs = 10_000

const benchAction = "urn:example:po:submit"

// bareBatch sends benchDocs orders through a Pipe as plain core messages
// (MessageID, To and Action set, as any one-way document carries) and
// serves them with a core.Handler that decodes each order: the baseline.
func bareBatch(b *testing.B) {
	ctx := context.Background()
	p := coretest.NewPipe(coretest.WithBuffer(256))
	defer p.Close()
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var o order
		return nil, m.Body().Decode(&o)
	})
	go func() {
		for range benchDocs {
			m := core.NewMessage(core.V12, core.RawBody([]byte(orderXML)))
			m.To, m.Action, m.ID = p.Addr(), benchAction, core.NewMessageID()
			if err := p.Send(ctx, m); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	drain(b, ctx, p, h)
}

// documentBatch sends the same orders with document.Send through an Outbox
// to a Pipe and serves them with a document.Handler with duplicate
// suppression on (a MemoryStore).
func documentBatch(b *testing.B) {
	ctx := context.Background()
	p := coretest.NewPipe(coretest.WithBuffer(256))
	defer p.Close()
	out := document.NewOutbox(map[string]core.Sender{"pipe": p})
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		var o order
		return nil, in.Decode(&o)
	}, document.WithStore(document.NewMemoryStore()))
	go func() {
		for range benchDocs {
			if _, err := document.Send(ctx, out, p.Addr(), []byte(orderXML), document.WithAction(benchAction)); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	drain(b, ctx, p, h)
}

// drain receives benchDocs messages, serves each with h and Acks it.
func drain(b *testing.B, ctx context.Context, p *coretest.Pipe, h core.Handler) {
	for range benchDocs {
		d, err := p.Receive(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := h.ServeSOAP(ctx, d.Message()); err != nil {
			b.Fatal(err)
		}
		if err := d.Ack(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOneWay10k: one op is a batch of 10,000 one-way documents, sent
// and served. Compare bare and document in the same run.
func BenchmarkOneWay10k(b *testing.B) {
	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			bareBatch(b)
		}
	})
	b.Run("document", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			documentBatch(b)
		}
	})
}

// BenchmarkOneWay10kInterleaved runs a bare batch and a document batch
// alternately (which goes first alternates too), so that both see the same
// machine load, and reports for each the wall time and the CPU time (all
// threads) per batch, and the throughput ratios document/bare (1.0 means no
// overhead) by both.
func BenchmarkOneWay10kInterleaved(b *testing.B) {
	var bare, doc, bareCPU, docCPU time.Duration
	measure := func(batch func(*testing.B), wall, cpu *time.Duration) {
		t0, c0 := time.Now(), cpuTime()
		batch(b)
		*wall += time.Since(t0)
		*cpu += cpuTime() - c0
	}
	for i := 0; b.Loop(); i++ {
		if i%2 == 0 {
			measure(bareBatch, &bare, &bareCPU)
			measure(documentBatch, &doc, &docCPU)
		} else {
			measure(documentBatch, &doc, &docCPU)
			measure(bareBatch, &bare, &bareCPU)
		}
	}
	n := float64(b.N)
	b.ReportMetric(bare.Seconds()*1e3/n, "bare-ms/batch")
	b.ReportMetric(doc.Seconds()*1e3/n, "document-ms/batch")
	b.ReportMetric(bare.Seconds()/doc.Seconds(), "wall-ratio")
	if docCPU > 0 {
		b.ReportMetric(bareCPU.Seconds()*1e3/n, "bare-cpu-ms/batch")
		b.ReportMetric(docCPU.Seconds()*1e3/n, "document-cpu-ms/batch")
		b.ReportMetric(bareCPU.Seconds()/docCPU.Seconds(), "cpu-ratio")
	}
}

// BenchmarkNewBody: what checking and dropping a prolog costs, beside the
// body the document used to be copied into as is (core.RawBody, the
// baseline), for a document without a prolog, one with a BOM, declaration
// and comment, and the same streamed from a reader (written out).
func BenchmarkNewBody(b *testing.B) {
	plain := []byte(orderXML)
	withProlog := []byte("\uFEFF<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- exported -->\n" + orderXML)
	b.Run("baseline-raw", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = core.RawBody(plain).Name()
		}
	})
	b.Run("bytes-plain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, err := document.NewBody(plain)
			if err != nil {
				b.Fatal(err)
			}
			_ = body.Name()
		}
	})
	b.Run("bytes-prolog", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			body, err := document.NewBody(withProlog)
			if err != nil {
				b.Fatal(err)
			}
			_ = body.Name()
		}
	})
	b.Run("baseline-copy", func(b *testing.B) {
		b.ReportAllocs()
		var r bytes.Reader
		for b.Loop() {
			r.Reset(withProlog)
			if _, err := io.Copy(io.Discard, &r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reader-prolog", func(b *testing.B) {
		b.ReportAllocs()
		var r bytes.Reader
		for b.Loop() {
			r.Reset(withProlog)
			body, err := document.NewBody(&r)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := body.WriteTo(io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
}
