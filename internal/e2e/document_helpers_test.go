package e2e_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// docServer serves h over loopback HTTP until the end of the test.
func docServer(t *testing.T, h core.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(soaphttp.NewHandler(h))
	t.Cleanup(srv.Close)
	return srv
}

// docStatuses is an http.RoundTripper that records the status of every
// response, to see what the receiving side answered at the HTTP level.
type docStatuses struct {
	mu    sync.Mutex
	codes []int
}

func (s *docStatuses) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		s.mu.Lock()
		s.codes = append(s.codes, resp.StatusCode)
		s.mu.Unlock()
	}
	return resp, err
}

func (s *docStatuses) all() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.codes...)
}

// docOutbox is an Outbox whose http and https Sender is one HTTP
// Transport (it posts each message to its To URL), with recorded statuses.
func docOutbox(t *testing.T) (*document.Outbox, *docStatuses) {
	t.Helper()
	st := &docStatuses{}
	tr := soaphttp.NewTransport("http://127.0.0.1:1/unused", soaphttp.WithClient(&http.Client{Transport: st}))
	return document.NewOutbox(map[string]core.Sender{"http": tr, "https": tr}), st
}

// docCollector is a core.Handler that keeps what it is given.
type docCollector struct {
	mu   sync.Mutex
	msgs []*core.Message
}

func (c *docCollector) ServeSOAP(_ context.Context, m *core.Message) (*core.Message, error) {
	if m.Envelope != nil && m.Fault() == nil { // keep the body past the request
		var buf []byte
		w := &docSliceWriter{&buf}
		if _, err := m.Body().WriteTo(w); err != nil {
			return nil, err
		}
		m.Envelope.Body = core.RawBody(buf)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.msgs = append(c.msgs, m)
	return nil, nil
}

func (c *docCollector) got() []*core.Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*core.Message(nil), c.msgs...)
}

type docSliceWriter struct{ b *[]byte }

func (w *docSliceWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

// docEventually polls cond: a bound against hangs, not a timing assertion.
func docEventually(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never happened: %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func docCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// docSwappable is an http.Handler whose handler can be replaced, as a process
// restart replaces what serves a fixed address.
type docSwappable struct {
	mu sync.RWMutex
	h  http.Handler
}

func (s *docSwappable) set(h http.Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.h = h
}

func (s *docSwappable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.RLock()
	h := s.h
	s.mu.RUnlock()
	if h == nil {
		http.Error(w, "restarting", http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
}

// docListenAgain listens on addr again after a server on it was closed.
func docListenAgain(t *testing.T, addr string) net.Listener {
	t.Helper()
	var l net.Listener
	docEventually(t, func() bool {
		var err error
		l, err = net.Listen("tcp", addr)
		return err == nil
	}, "listening on "+addr+" again")
	return l
}
