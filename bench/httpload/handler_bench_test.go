package main

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/soapwire/soapwire/internal/benchstat"
)

// serveOnce runs one request through h in the process, without a
// connection.
func serveOnce(tb testing.TB, kind string, h http.Handler, body []byte, rd *bytes.Reader) {
	rd.Reset(body)
	req := httptest.NewRequest(http.MethodPost, "/", rd)
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	req.Header.Set("SOAPAction", `"`+echoNS+`#echoString"`)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		tb.Fatalf("%s: status %d: %s", kind, w.Code, w.Body)
	}
}

// BenchmarkHandler runs each server's http.Handler in the process, without
// a connection: the request's work on the server side (the SOAP reading,
// handling and writing, soaphttp's checks), what the profile of a
// httpload run points at.
func BenchmarkHandler(b *testing.B) {
	body := request()
	for _, kind := range allKinds {
		h, err := handler(kind)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(kind, func(b *testing.B) {
			b.ReportAllocs()
			rd := bytes.NewReader(body)
			for b.Loop() {
				serveOnce(b, kind, h, body, rd)
			}
		})
	}
}

// BenchmarkHandlerCPU alternates batches of 200 requests of every server's
// handler, in the process, and reports each one's CPU time per request
// (the process's user and system time: the collector's work included)
// and its ratio to net-http's, the median of the per-batch ratios: the
// figure to read on a busy machine.
func BenchmarkHandlerCPU(b *testing.B) {
	const batch = 200
	body := request()
	hs := make([]http.Handler, len(allKinds))
	for i, kind := range allKinds {
		h, err := handler(kind)
		if err != nil {
			b.Fatal(err)
		}
		hs[i] = h
	}
	base := len(allKinds) - 1
	cpu := make([][]time.Duration, len(allKinds))
	rd := bytes.NewReader(body)
	for n := 0; b.Loop(); n++ {
		for j := range allKinds {
			i := (j + n) % len(allKinds) // rotate the order
			c0 := selfCPU()
			for range batch {
				serveOnce(b, allKinds[i], hs[i], body, rd)
			}
			cpu[i] = append(cpu[i], selfCPU()-c0)
		}
	}
	for i, kind := range allKinds {
		var per, ratios []float64
		for r, c := range cpu[i] {
			per = append(per, float64(c.Nanoseconds())/1e3/batch)
			ratios = append(ratios, float64(c)/float64(cpu[base][r]))
		}
		b.ReportMetric(benchstat.Median(per), kind+"-cpu-µs/req")
		if i != base {
			b.ReportMetric(benchstat.Median(ratios), kind+"/net-http")
		}
	}
}
