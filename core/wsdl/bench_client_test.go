package wsdl_test

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

const benchNS = "urn:soapwire:bench"

type (
	benchEchoReq struct {
		S string `soap:"s"`
	}
	benchEchoResp struct {
		Return string `soap:"return"`
	}
	benchItem struct {
		Name  string   `soap:"name"`
		Price float64  `soap:"price"`
		Tags  []string `soap:"tags"`
	}
	benchStructReq struct {
		Items []benchItem `soap:"items"`
	}
	benchStructResp struct {
		Return []benchItem `soap:"return"`
	}
	// the same values as the codec reads them (xml tags, unqualified as
	// rpc's WSDL says)
	benchItemX struct {
		Name  string   `xml:"name"`
		Price float64  `xml:"price"`
		Tags  []string `xml:"tags"`
	}
	benchEchoIn struct {
		S string `xml:"s"`
	}
	benchEchoOut struct {
		Return string `xml:"return"`
	}
	benchStructIn struct {
		Items []benchItemX `xml:"items"`
	}
	benchStructOut struct {
		Return []benchItemX `xml:"return"`
	}
)

// benchPeer is a code-first echo service behind an in-memory wire: each
// request is written to bytes and read back, the reply too, so both
// clients pay what a transport would make them pay.
func benchPeer(b *testing.B) (core.RoundTripper, *wsdl.Contract) {
	svc := rpc.NewService(benchNS, "Bench")
	rpc.Register(svc, "echoString", func(_ context.Context, r *benchEchoReq) (*benchEchoResp, error) {
		return &benchEchoResp{Return: r.S}, nil
	})
	rpc.Register(svc, "echoStruct", func(_ context.Context, r *benchStructReq) (*benchStructResp, error) {
		return &benchStructResp{Return: r.Items}, nil
	})
	rt := core.RoundTripFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			return nil, err
		}
		req, err := core.ReadMessageBytes(buf.Bytes(), core.Limits{})
		if err != nil {
			return nil, err
		}
		reply, err := svc.ServeSOAP(ctx, req)
		if err != nil {
			return nil, err
		}
		var out bytes.Buffer
		if _, err := reply.WriteTo(&out); err != nil {
			return nil, err
		}
		return core.ReadMessageBytes(out.Bytes(), core.Limits{})
	})
	var doc bytes.Buffer
	if err := svc.WSDL(&doc, "http://127.0.0.1/bench"); err != nil {
		b.Fatal(err)
	}
	ct, err := wsdl.Load(b.Context(), xsd.MapLoader{"bench.wsdl": doc.Bytes()}, "bench.wsdl")
	if err != nil {
		b.Fatal(err)
	}
	return rt, ct
}

// benchCalls returns one call of each path for an operation.
func benchCalls(b *testing.B, op string) (codeFirst, schema func()) {
	rt, ct := benchPeer(b)
	rc := rpc.NewClient(rt, benchNS)
	wc, err := wsdl.NewClient(ct, rt)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	payload := strings.Repeat("abcdefgh", 128) // 1 KB
	items := make([]benchItem, 10)
	itemsX := make([]benchItemX, 10)
	for i := range items {
		items[i] = benchItem{Name: "item", Price: 12.5, Tags: []string{"a", "b"}}
		itemsX[i] = benchItemX(items[i])
	}
	switch op {
	case "echoString":
		codeFirst = func() {
			r, err := rpc.Call[benchEchoResp](ctx, rc, op, benchEchoReq{S: payload})
			if err != nil || r.Return != payload {
				b.Fatal(err)
			}
		}
		schema = func() {
			var out benchEchoOut
			if err := wc.Call(ctx, op, benchEchoIn{S: payload}, &out); err != nil || out.Return != payload {
				b.Fatal(err)
			}
		}
	default:
		codeFirst = func() {
			r, err := rpc.Call[benchStructResp](ctx, rc, op, benchStructReq{Items: items})
			if err != nil || len(r.Return) != 10 {
				b.Fatal(err)
			}
		}
		schema = func() {
			var out benchStructOut
			if err := wc.Call(ctx, op, benchStructIn{Items: itemsX}, &out); err != nil || len(out.Return) != 10 {
				b.Fatal(err)
			}
		}
	}
	return codeFirst, schema
}

// BenchmarkEchoCall: one call by each client through the same in-memory
// wire and code-first service: "code-first" is core/rpc's Client (Go
// types lead the wire), "schema-driven" core/wsdl's Client with the
// service's own WSDL (core/xsd's codec leads and checks). echoString
// carries 1 KB of text, echoStruct ten small structures with a list each.
//
//	go test ./core/wsdl -run '^$' -bench EchoCall -benchmem
func BenchmarkEchoCall(b *testing.B) {
	for _, op := range []string{"echoString", "echoStruct"} {
		codeFirst, schema := benchCalls(b, op)
		b.Run(op+"/code-first", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				codeFirst()
			}
		})
		b.Run(op+"/schema-driven", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				schema()
			}
		})
	}
}

// BenchmarkEchoCallRatio: the schema-driven call's time over the
// code-first one's, in the same run: batches of 20 calls of each,
// alternating (which goes first alternates too), the median of the
// per-pair ratios reported with each path's median time per call.
//
//	go test ./core/wsdl -run '^$' -bench EchoCallRatio -count 5
func BenchmarkEchoCallRatio(b *testing.B) {
	for _, op := range []string{"echoString", "echoStruct"} {
		b.Run(op, func(b *testing.B) {
			codeFirst, schema := benchCalls(b, op)
			const batch = 20
			timed := func(f func()) time.Duration {
				t0 := time.Now()
				for range batch {
					f()
				}
				return time.Since(t0)
			}
			var ratios, cf, sd []float64
			for i := 0; b.Loop(); i++ {
				var tc, ts time.Duration
				if i%2 == 0 {
					tc, ts = timed(codeFirst), timed(schema)
				} else {
					ts, tc = timed(schema), timed(codeFirst)
				}
				ratios = append(ratios, float64(ts)/float64(tc))
				cf = append(cf, float64(tc.Nanoseconds())/batch)
				sd = append(sd, float64(ts.Nanoseconds())/batch)
			}
			median := func(x []float64) float64 { slices.Sort(x); return x[len(x)/2] }
			b.ReportMetric(median(ratios), "schema/code-first")
			b.ReportMetric(median(cf), "code-first-ns/call")
			b.ReportMetric(median(sd), "schema-ns/call")
		})
	}
}
