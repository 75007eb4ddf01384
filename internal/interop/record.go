package interop

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Exchange is one request a Recorder forwarded and the reply it got.
type Exchange struct {
	Method  string
	Header  http.Header // the request's, as the client sent them
	Request []byte
	Status  int
	Reply   []byte
	// ReplyHeader are the reply's headers, as the server sent them.
	ReplyHeader http.Header
}

// Recorder is an HTTP proxy on loopback that forwards every request to one
// target and keeps both sides: put it between a peer client and a server to
// see what the client sent and what the server answered.
type Recorder struct {
	URL    string // where clients send their requests (any path)
	target string

	mu        sync.Mutex
	exchanges []Exchange
}

// hopHeaders are not forwarded (RFC 9110, section 7.6.1).
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// Record starts a Recorder that forwards to target (its query is kept when
// the request has none; a request's query replaces it), for the test's
// duration.
func Record(t testing.TB, target string) *Recorder {
	t.Helper()
	r := &Recorder{target: target}
	tr := &http.Transport{DisableCompression: true}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		url := r.target
		if req.URL.RawQuery != "" {
			url = stripQuery(url) + "?" + req.URL.RawQuery
		}
		out, err := http.NewRequestWithContext(req.Context(), req.Method, url, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = req.Header.Clone()
		for _, h := range hopHeaders {
			out.Header.Del(h)
		}
		resp, err := tr.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		reply, err := io.ReadAll(resp.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		r.mu.Lock()
		r.exchanges = append(r.exchanges, Exchange{
			Method: req.Method, Header: req.Header.Clone(), Request: body,
			Status: resp.StatusCode, Reply: reply, ReplyHeader: resp.Header.Clone(),
		})
		r.mu.Unlock()
		for k, vs := range resp.Header {
			for _, v := range vs {
				w.Header().Add(k, v)
			}
		}
		for _, h := range hopHeaders {
			w.Header().Del(h)
		}
		w.Header().Del("Content-Length")
		w.WriteHeader(resp.StatusCode)
		w.Write(reply)
	}))
	t.Cleanup(func() {
		srv.Close()
		tr.CloseIdleConnections()
	})
	r.URL = srv.URL
	return r
}

func stripQuery(url string) string {
	base, _, _ := strings.Cut(url, "?")
	return base
}

// Exchanges returns what the Recorder forwarded so far, in order.
func (r *Recorder) Exchanges() []Exchange {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Exchange(nil), r.exchanges...)
}
