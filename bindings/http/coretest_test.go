package http_test

import (
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
