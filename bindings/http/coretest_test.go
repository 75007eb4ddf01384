package http_test

import (
	"context"
	"net/http/httptest"
	"testing"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestConformance runs core/coretest's RoundTripper suite against a
// Transport calling NewHandler over loopback HTTP.
func TestConformance(t *testing.T) {
	coretest.TestRoundTripper(t, coretest.Features{OneWay: true}, func(t *testing.T, h core.Handler) core.RoundTripper {
		srv := httptest.NewServer(soaphttp.NewHandler(h))
		t.Cleanup(srv.Close)
		tr := soaphttp.NewTransport(srv.URL)
		t.Cleanup(tr.CloseIdleConnections)
		return tr
	})
}

// httpFeatures is what one-way delivery over HTTP promises: each Send is one
// POST acknowledged by 202 (once, and in order for one sender). Redelivery
// and persistence belong to the receiving side, here an in-memory Pipe.
var httpFeatures = coretest.Features{ExactlyOnce: true, Ordered: true, OneWay: true}

// newHTTPPair: the Sender is a Transport; it posts to a NewHandler whose
// handler hands each message to a coretest.Pipe (answering 202), and the
// Pipe is the Receiver. So every message crosses a real HTTP exchange
// (media type, SOAPAction or action parameter, envelope) before the suite
// sees it.
func newHTTPPair(t *testing.T) (core.Sender, core.Receiver, string) {
	p := coretest.NewPipe()
	t.Cleanup(func() { _ = p.Close() })
	srv := httptest.NewServer(soaphttp.NewHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return nil, p.Send(ctx, m)
	}), soaphttp.WithLimits(core.Limits{MaxBytes: 8 << 20})))
	t.Cleanup(srv.Close)
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	return tr, p, srv.URL
}

// TestConformanceSend runs the Sender suite over Transport.Send.
func TestConformanceSend(t *testing.T) {
	coretest.TestSendReceive(t, httpFeatures, newHTTPPair)
}

// TestConformanceServe runs core.Serve with replies and faults sent by a
// Transport to the ReplyTo and FaultTo URLs.
func TestConformanceServe(t *testing.T) {
	coretest.TestServe(t, httpFeatures, newHTTPPair)
}
