package http_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// countingServer serves h and counts the connections clients opened.
func countingServer(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	srv := httptest.NewUnstartedServer(h)
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func echoRequest(v core.Version, action string) *core.Message {
	m := core.NewMessage(v, core.RawBody([]byte(echoBody)))
	m.Action = action
	return m
}

func decodeEcho(t *testing.T, m *core.Message) echoResp {
	t.Helper()
	var r echoResp
	require.NoError(t, m.Body().Decode(&r))
	return r
}

func TestTransportRoundTrip(t *testing.T) {
	var mu sync.Mutex
	var seen http.Header
	inner := soaphttp.NewHandler(echo)
	srv, _ := countingServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Clone()
		mu.Unlock()
		inner.ServeHTTP(w, r)
	}))
	tr := soaphttp.NewTransport(srv.URL, soaphttp.WithCredentials("alice", "pw"))
	t.Cleanup(tr.CloseIdleConnections)
	tests := []struct {
		name        string
		version     core.Version
		action      string
		contentType string
		soapAction  []string
	}{
		{"1.1", core.V11, "urn:echo", "text/xml; charset=utf-8", []string{`"urn:echo"`}},
		{"1.1 empty action", core.V11, "", "text/xml; charset=utf-8", []string{`""`}},
		{"1.2", core.V12, "urn:echo", `application/soap+xml; charset=utf-8; action="urn:echo"`, nil},
		{"1.2 no action", core.V12, "", "application/soap+xml; charset=utf-8", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, err := tr.RoundTrip(context.Background(), echoRequest(tt.version, tt.action))
			require.NoError(t, err)
			require.NotNil(t, reply)
			assert.Equal(t, tt.version, reply.Version())
			assert.Equal(t, "200", reply.Meta["http.status"])
			r := decodeEcho(t, reply)
			assert.Equal(t, "hello", r.Return)
			assert.Equal(t, tt.action, r.Action)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, tt.contentType, seen.Get("Content-Type"))
			assert.Equal(t, tt.soapAction, seen["Soapaction"])
			u, p, ok := (&http.Request{Header: seen}).BasicAuth()
			assert.True(t, ok)
			assert.Equal(t, "alice|pw", u+"|"+p)
		})
	}
}

func TestTransportReplies(t *testing.T) {
	mux := http.NewServeMux()
	mux.Handle("/soap", soaphttp.NewHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		switch m.Action {
		case "fault":
			return nil, &core.Fault{Code: core.CodeSender, Reason: "bad request", Detail: []byte(`<d:why xmlns:d="urn:d">because</d:why>`)}
		case "oneway":
			return nil, m.Body().Discard()
		}
		return echo(ctx, m)
	})))
	mux.HandleFunc("/html500", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(500)
		io.WriteString(w, "<html><body><h1>Internal Server Error</h1></body></html>")
	})
	mux.HandleFunc("/empty400", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(400)
	})
	mux.HandleFunc("/json200", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`)
	})
	mux.HandleFunc("/garbage500", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/xml")
		w.WriteHeader(500)
		io.WriteString(w, "Internal error, not XML")
	})
	mux.HandleFunc("/empty200", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	})
	srv, conns := countingServer(t, mux)
	tests := []struct {
		name    string
		path    string
		version core.Version
		action  string
		check   func(t *testing.T, reply *core.Message, err error)
	}{
		{"SOAP 1.1 fault", "/soap", core.V11, "fault", func(t *testing.T, reply *core.Message, err error) {
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.True(t, f.Remote)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "bad request", f.Reason)
			assert.Contains(t, string(f.Detail), "because")
			assert.Nil(t, reply)
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se, "the HTTP status is in the fault's Cause")
			assert.Equal(t, 500, se.Code)
		}},
		{"SOAP 1.2 fault", "/soap", core.V12, "fault", func(t *testing.T, reply *core.Message, err error) {
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.True(t, f.Remote)
			assert.Equal(t, core.V12, f.Version)
			assert.Nil(t, reply)
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 400, se.Code)
			assert.Equal(t, "application/soap+xml; charset=utf-8", se.ContentType)
		}},
		{"202 one-way", "/soap", core.V11, "oneway", func(t *testing.T, reply *core.Message, err error) {
			assert.NoError(t, err)
			assert.Nil(t, reply)
		}},
		{"200 with an empty body", "/empty200", core.V11, "", func(t *testing.T, reply *core.Message, err error) {
			assert.NoError(t, err)
			assert.Nil(t, reply)
		}},
		{"HTML 500", "/html500", core.V11, "", func(t *testing.T, reply *core.Message, err error) {
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 500, se.Code)
			assert.Equal(t, "text/html; charset=utf-8", se.ContentType)
			assert.Contains(t, se.Body, "Internal Server Error")
			assert.Nil(t, reply)
		}},
		{"empty 400", "/empty400", core.V12, "", func(t *testing.T, reply *core.Message, err error) {
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 400, se.Code)
			assert.Empty(t, se.Body)
		}},
		{"wrong content type", "/json200", core.V11, "", func(t *testing.T, reply *core.Message, err error) {
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 200, se.Code)
			assert.Equal(t, "application/json", se.ContentType)
		}},
		{"text/xml 500 that is not XML", "/garbage500", core.V11, "", func(t *testing.T, reply *core.Message, err error) {
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 500, se.Code)
			assert.Contains(t, se.Body, "not XML")
		}},
		{"404", "/nowhere", core.V11, "", func(t *testing.T, reply *core.Message, err error) {
			var se *soaphttp.StatusError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, 404, se.Code)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := soaphttp.NewTransport(srv.URL + tt.path)
			t.Cleanup(tr.CloseIdleConnections)
			before := conns.Load()
			for range 3 {
				reply, err := tr.RoundTrip(context.Background(), echoRequest(tt.version, tt.action))
				tt.check(t, reply, err)
			}
			assert.Equal(t, int64(1), conns.Load()-before, "the three calls share one keep-alive connection")
		})
	}
}

func TestTransportKeepAlive(t *testing.T) {
	big := strings.Repeat("y", 200<<10)
	srv, conns := countingServer(t, soaphttp.NewHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if m.Action == "big" {
			if err := m.Body().Discard(); err != nil {
				return nil, err
			}
			return m.Reply(core.RawBody([]byte(`<t:echoStringResponse xmlns:t="` + testNS + `"><return>` + big + `</return></t:echoStringResponse>`))), nil
		}
		return echo(ctx, m)
	})))
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	ctx := context.Background()
	for i := range 20 {
		action := "small"
		if i%2 == 1 {
			action = "big" // streamed: read to the end, then the connection is reused
		}
		reply, err := tr.RoundTrip(ctx, echoRequest(core.V11, action))
		require.NoError(t, err)
		r := decodeEcho(t, reply)
		require.NoError(t, reply.Body().Discard())
		if action == "big" {
			assert.Len(t, r.Return, len(big))
		}
	}
	assert.Equal(t, int64(1), conns.Load())

	t.Run("parallel callers", func(t *testing.T) {
		before := conns.Load()
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 20 {
					reply, err := tr.RoundTrip(ctx, echoRequest(core.V12, "small"))
					if assert.NoError(t, err) {
						assert.Equal(t, "hello", decodeEcho(t, reply).Return)
					}
				}
			})
		}
		wg.Wait()
		// net/http may dial for a caller and then hand it a connection that
		// came back idle first; the dialled one joins the pool. So up to one
		// extra connection per caller, but far fewer than the 160 requests.
		assert.LessOrEqual(t, conns.Load()-before, int64(2*8), "connections are reused, not one per request")
	})
}

func TestTransportLargeRequestStreams(t *testing.T) {
	const n = 1 << 20
	type got struct {
		length int64
		chunks int
		size   int
	}
	seen := make(chan got, 1)
	h := soaphttp.NewHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		r, _ := soaphttp.RequestFromContext(ctx)
		var req echoReq
		if err := m.Body().Decode(&req); err != nil {
			return nil, err
		}
		seen <- got{length: r.ContentLength, size: len(req.Message)}
		return nil, nil
	}), soaphttp.WithLimits(core.Limits{MaxBytes: 4 << 20}))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	body := core.StreamBody(xmlName("echoString"), func(w io.Writer) error {
		io.WriteString(w, `<t:echoString xmlns:t="`+testNS+`"><message>`)
		chunk := strings.Repeat("z", 4096)
		for i := 0; i < n/4096; i++ {
			if _, err := io.WriteString(w, chunk); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, `</message></t:echoString>`)
		return err
	})
	reply, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V11, body))
	require.NoError(t, err)
	assert.Nil(t, reply)
	g := <-seen
	assert.Equal(t, int64(-1), g.length, "sent chunked, as it was written")
	assert.Equal(t, n, g.size)
}

func TestTransportRequestWriteError(t *testing.T) {
	srv := serve(t, echo)
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	boom := errors.New("boom")
	for _, size := range []int{10, 200 << 10} {
		body := core.StreamBody(xmlName("x"), func(w io.Writer) error {
			io.WriteString(w, `<t:x xmlns:t="urn:t">`+strings.Repeat("a", size))
			return boom
		})
		_, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V11, body))
		require.Error(t, err)
		assert.ErrorIs(t, err, boom, "size %d", size)
	}
}

func TestTransportDeadline(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		select {
		case <-ctx.Done():
		case <-release:
		}
		return nil, ctx.Err()
	}))
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	reply, err := tr.RoundTrip(ctx, echoRequest(core.V11, ""))
	assert.Nil(t, reply)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestTransportReplyLimits(t *testing.T) {
	srv := serve(t, echo)
	tr := soaphttp.NewTransport(srv.URL, soaphttp.WithLimits(core.Limits{MaxBytes: 100}))
	t.Cleanup(tr.CloseIdleConnections)
	_, err := tr.RoundTrip(context.Background(), echoRequest(core.V11, ""))
	require.Error(t, err)
	assert.ErrorIs(t, err, core.ErrTooLarge)
}

func TestTransportSend(t *testing.T) {
	hits := make(chan string, 10)
	h := func(name string) http.Handler {
		return soaphttp.NewHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			hits <- name + " " + m.To
			switch m.Action {
			case "reply":
				return echo(ctx, m)
			case "fault":
				return nil, core.ReceiverFault("nope")
			}
			return nil, m.Body().Discard()
		}))
	}
	a := httptest.NewServer(h("a"))
	t.Cleanup(a.Close)
	b := httptest.NewServer(h("b"))
	t.Cleanup(b.Close)
	tr := soaphttp.NewTransport(a.URL)
	t.Cleanup(tr.CloseIdleConnections)
	tests := []struct {
		name, to, action, hit string
		fault                 bool
		status                string // Meta[MetaStatus] on the sent message
	}{
		{"202 to the transport URL", "", "", "a ", false, "202"},
		{"200 counts as sent", "", "reply", "a ", false, "200"},
		{"to an http address", b.URL, "", "b " + b.URL, false, "202"},
		{"a mailto address goes to the transport URL", "mailto:x@example.org", "", "a mailto:x@example.org", false, "202"},
		{"fault", "", "fault", "a ", true, "500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := echoRequest(core.V12, tt.action)
			m.To = tt.to
			err := tr.Send(context.Background(), m)
			if tt.fault {
				var f *core.Fault
				require.ErrorAs(t, err, &f)
				assert.True(t, f.Remote)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, tt.hit, <-hits)
			assert.Equal(t, tt.status, m.Meta[soaphttp.MetaStatus], "the status the server answered")
		})
	}
}
