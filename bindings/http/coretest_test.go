package http_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
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

// TestConformanceVerdict runs coretest's verdict suite: each broken-tail
// envelope POSTed to NewHandler is answered with the Sender fault (400 in
// 1.2, 500 in 1.1), never with the handler's reply.
func TestConformanceVerdict(t *testing.T) {
	coretest.TestVerdictRoundTrip(t, coretest.Features{}, func(t *testing.T, h core.Handler) coretest.RawRoundTripFunc {
		srv := httptest.NewServer(soaphttp.NewHandler(h))
		t.Cleanup(srv.Close)
		return func(ctx context.Context, v core.Version, data []byte) (*core.Message, error) {
			return rawPost(ctx, srv.URL, v, data)
		}
	})
}

// rawPost posts data as an envelope of version v and reads the answer: a
// fault as its *core.Fault error, after checking its status.
func rawPost(ctx context.Context, url string, v core.Version, data []byte) (*core.Message, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", v.MediaType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	m, err := core.ReadMessageBytes(b, core.Limits{})
	if err != nil {
		return nil, fmt.Errorf("status %d, %q: %w", resp.StatusCode, b, err)
	}
	if f := m.Fault(); f != nil {
		want := http.StatusInternalServerError
		if v == core.V12 && f.Code == core.CodeSender {
			want = http.StatusBadRequest
		}
		if resp.StatusCode != want {
			return nil, fmt.Errorf("a %s fault answered with status %d", f.Code, resp.StatusCode)
		}
		return nil, f
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("a reply with status %d", resp.StatusCode)
	}
	return m, nil
}

// TestConformanceAttachments runs core/coretest's attachment suites over
// HTTP: MTOM, SwA and inline Binary values in both versions, request-reply
// (the reply in the request's packaging), a 3 MiB part spooled on the way;
// and one-way (a Transport's Send to NewHandler into a Pipe: the handler
// stores each message it is sent by writing it again, its xop:Includes
// kept, naming the same parts).
func TestConformanceAttachments(t *testing.T) {
	t.Run("SendReceive", func(t *testing.T) {
		coretest.TestAttachmentsSendReceive(t, httpFeatures, newHTTPPair)
	})
	t.Run("RoundTrip", func(t *testing.T) {
		coretest.TestAttachmentsRoundTrip(t, coretest.Features{}, func(t *testing.T, h core.Handler) core.RoundTripper {
			srv := httptest.NewServer(soaphttp.NewHandler(h))
			t.Cleanup(srv.Close)
			tr := soaphttp.NewTransport(srv.URL)
			t.Cleanup(tr.CloseIdleConnections)
			return tr
		})
	})
}
