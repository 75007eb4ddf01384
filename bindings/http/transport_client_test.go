package http_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// countingRoundTripper passes requests to net/http's transport and counts
// them, to show a Transport sends through the client it was given.
type countingRoundTripper struct {
	next  http.RoundTripper
	calls atomic.Int64
	ua    string
}

func (c *countingRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	c.calls.Add(1)
	r.Header.Set("User-Agent", c.ua)
	return c.next.RoundTrip(r)
}

func TestTransportWithClient(t *testing.T) {
	agents := make(chan string, 4)
	inner := soaphttp.NewHandler(echo)
	srv, conns := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents <- r.UserAgent()
		inner.ServeHTTP(w, r)
	}))
	base := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(base.CloseIdleConnections)
	rt := &countingRoundTripper{next: base, ua: "custom-client/1"}
	tr := soaphttp.NewTransport(srv.URL, soaphttp.WithClient(&http.Client{Transport: rt}))
	for _, v := range []core.Version{core.V11, core.V12} {
		reply, err := tr.RoundTrip(context.Background(), echoRequest(v, "urn:echo"))
		require.NoError(t, err)
		assert.Equal(t, "hello", decodeEcho(t, reply).Return)
		assert.Equal(t, "custom-client/1", <-agents)
	}
	assert.Equal(t, int64(2), rt.calls.Load(), "both calls went through the given client")
	assert.Equal(t, int64(1), conns.Load(), "and reused its keep-alive connection")
}

// TestTransportBasicAuth: WithCredentials against a WithAuth server;
// refused credentials come back as the server's 401 fault.
func TestTransportBasicAuth(t *testing.T) {
	srv := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		user, _ := soaphttp.UserFromContext(ctx)
		m.Action = user // echo reports the action: here, the user the handler saw
		return echo(ctx, m)
	}), soaphttp.WithAuth(soaphttp.StaticCredentials(map[string]string{"alice": "pw"})))
	tests := []struct {
		name    string
		opts    []soaphttp.TransportOption
		version core.Version
		ok      bool
	}{
		{"1.1 right credentials", []soaphttp.TransportOption{soaphttp.WithCredentials("alice", "pw")}, core.V11, true},
		{"1.2 right credentials", []soaphttp.TransportOption{soaphttp.WithCredentials("alice", "pw")}, core.V12, true},
		{"1.1 wrong password", []soaphttp.TransportOption{soaphttp.WithCredentials("alice", "nope")}, core.V11, false},
		{"1.2 wrong password", []soaphttp.TransportOption{soaphttp.WithCredentials("alice", "nope")}, core.V12, false},
		{"1.1 no credentials", nil, core.V11, false},
		{"1.2 no credentials", nil, core.V12, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := soaphttp.NewTransport(srv.URL, tt.opts...)
			t.Cleanup(tr.CloseIdleConnections)
			reply, err := tr.RoundTrip(context.Background(), echoRequest(tt.version, "urn:echo"))
			if tt.ok {
				require.NoError(t, err)
				assert.Equal(t, "alice", decodeEcho(t, reply).Action)
				return
			}
			assert.Nil(t, reply)
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.True(t, f.Remote)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, soaphttp.ClientErrorReason, f.Reason)
			assert.Equal(t, tt.version, f.Version)
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, http.StatusUnauthorized, se.Code)
		})
	}
}
