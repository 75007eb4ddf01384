package unixsock_test

import (
	"context"
	"net/http/httptest"
	"testing"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

// BenchmarkRoundTrip compares a call over unixsock with the same call over
// bindings/http on loopback TCP (the baseline), with the same handler.
func BenchmarkRoundTrip(b *testing.B) {
	h := core.HandlerFunc(echo)
	transports := []struct {
		name string
		rt   func(b *testing.B) core.RoundTripper
	}{
		{"unixsock", func(b *testing.B) core.RoundTripper { return unixsock.NewTransport(startServer(b, h)) }},
		{"http", func(b *testing.B) core.RoundTripper {
			srv := httptest.NewServer(soaphttp.NewHandler(h))
			b.Cleanup(srv.Close)
			tr := soaphttp.NewTransport(srv.URL)
			b.Cleanup(tr.CloseIdleConnections)
			return tr
		}},
	}
	for _, tt := range transports {
		b.Run(tt.name, func(b *testing.B) {
			rt := tt.rt(b)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rt.RoundTrip(ctx, request("ping")); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSendReceive is one message through an Inbox: sent, synced to
// disk, received and Acked.
func BenchmarkSendReceive(b *testing.B) {
	in, addr := startInbox(b, shortDir(b))
	tr := unixsock.NewTransport("")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		m := request("ping")
		m.To = addr
		if err := tr.Send(ctx, m); err != nil {
			b.Fatal(err)
		}
		d, err := in.Receive(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.Ack(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
