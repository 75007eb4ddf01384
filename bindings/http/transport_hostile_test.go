package http_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// scripted answers every request with a fixed reply: a server that says
// what a test makes it say.
func scripted(t *testing.T, status int, ctype, body string) string {
	t.Helper()
	srv := serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", ctype)
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	return srv
}

func serveHTTP(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := &http.Server{Handler: h}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// TestTransportReplyInTheOtherVersion: a reply in the other SOAP version
// than the request, answer or fault, is an error (a VersionMismatch fault
// this side found, not Remote), from RoundTrip and from Send; a
// VersionMismatch fault in the other version is the peer saying it does not
// speak the request's, handed on as its fault. The Transport then calls a
// server that answers right.
func TestTransportReplyInTheOtherVersion(t *testing.T) {
	answer := func(v core.Version) string {
		return envelope(v, "", `<t:echoStringResponse xmlns:t="`+testNS+`"><return>hello</return></t:echoStringResponse>`)
	}
	tests := []struct {
		name     string
		sent     core.Version
		status   int
		ctype    string
		body     string
		mismatch bool // refused as a reply in the other version
		remoteVM bool // handed on: the peer's VersionMismatch fault
	}{
		{"1.2 answer to a 1.1 request", core.V11, 200, ctype(core.V12), answer(core.V12), true, false},
		{"1.2 answer typed text/xml to a 1.1 request", core.V11, 200, ctype(core.V11), answer(core.V12), true, false},
		{"1.1 answer to a 1.2 request", core.V12, 200, ctype(core.V11), answer(core.V11), true, false},
		{"1.2 Sender fault to a 1.1 request", core.V11, 400, ctype(core.V12), envelope(core.V12, "", `<soap-env:Fault><soap-env:Code><soap-env:Value>soap-env:Sender</soap-env:Value></soap-env:Code><soap-env:Reason><soap-env:Text xml:lang="en">no</soap-env:Text></soap-env:Reason></soap-env:Fault>`), true, false},
		{"1.1 Server fault to a 1.2 request", core.V12, 500, ctype(core.V11), envelope(core.V11, "", `<soap-env:Fault><faultcode>soap-env:Server</faultcode><faultstring>no</faultstring></soap-env:Fault>`), true, false},
		{"1.1 VersionMismatch fault to a 1.2 request", core.V12, 500, ctype(core.V11), envelope(core.V11, "", `<soap-env:Fault><faultcode>soap-env:VersionMismatch</faultcode><faultstring>SOAP 1.1 only</faultstring></soap-env:Fault>`), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := soaphttp.NewTransport(scripted(t, tt.status, tt.ctype, tt.body))
			t.Cleanup(tr.CloseIdleConnections)
			reply, err := tr.RoundTrip(t.Context(), echoRequest(tt.sent, ""))
			assert.Nil(t, reply)
			sendErr := tr.Send(t.Context(), echoRequest(tt.sent, ""))
			for _, err := range []error{err, sendErr} {
				var f *core.Fault
				require.True(t, errors.As(err, &f), "%v", err)
				assert.Equal(t, core.CodeVersionMismatch, f.Code)
				if tt.mismatch {
					assert.False(t, f.Remote, "found by this side")
					assert.Equal(t, tt.sent, f.Version)
					assert.Contains(t, f.Reason, "the request was SOAP "+tt.sent.String())
				}
				if tt.remoteVM {
					assert.True(t, f.Remote, "the peer's fault")
					assert.Equal(t, "SOAP 1.1 only", f.Reason)
				}
			}
		})
	}
	t.Run("then a server that answers right", func(t *testing.T) {
		tr := soaphttp.NewTransport(serve(t, echo).URL)
		t.Cleanup(tr.CloseIdleConnections)
		for _, v := range []core.Version{core.V11, core.V12} {
			reply, err := tr.RoundTrip(t.Context(), echoRequest(v, ""))
			require.NoError(t, err)
			assert.Equal(t, v, reply.Version())
			assert.Equal(t, "hello", decodeEcho(t, reply).Return)
		}
	})
}

// hugeReplyServer answers every request on a raw connection with a reply
// announcing size bytes by its Content-Length, and writes as much of it as
// the client takes; written counts the bytes of body it got out.
func hugeReplyServer(t *testing.T, size int64, written *atomic.Int64) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	chunk := []byte(strings.Repeat("x", 64<<10))
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				req, err := http.ReadRequest(bufio.NewReader(c))
				if err != nil {
					return
				}
				io.Copy(io.Discard, req.Body)
				head := `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Body><t:big xmlns:t="` + testNS + `">`
				fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", size, head)
				c.SetWriteDeadline(time.Now().Add(30 * time.Second))
				for n := int64(len(head)); n < size; {
					k, err := c.Write(chunk[:min(int64(len(chunk)), size-n)])
					written.Add(int64(k))
					n += int64(k)
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestTransportReplyAnnouncedTooLarge: a reply whose Content-Length is over
// the reply limit (100 MB announced, the default 16 MiB limit; 1 MiB + 1
// against a 1 MiB limit) is refused before its body is read: the error has
// core.ErrTooLarge, the call allocates far less than the announced size
// (runtime.MemStats), the server gets out no more than the sockets'
// buffers hold, and the Transport then calls a server that answers right.
func TestTransportReplyAnnouncedTooLarge(t *testing.T) {
	for _, tt := range []struct {
		name  string
		size  int64
		limit int64 // 0: the default
	}{
		{"100 MB, the default limit", 100 << 20, 0},
		{"1 MiB + 1, a limit of 1 MiB", 1<<20 + 1, 1 << 20},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var written atomic.Int64
			tr := soaphttp.NewTransport(hugeReplyServer(t, tt.size, &written), soaphttp.WithLimits(core.Limits{MaxBytes: tt.limit}))
			t.Cleanup(tr.CloseIdleConnections)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			reply, err := tr.RoundTrip(t.Context(), echoRequest(core.V11, ""))
			runtime.ReadMemStats(&after)
			assert.Nil(t, reply)
			require.ErrorIs(t, err, core.ErrTooLarge)
			assert.Contains(t, err.Error(), fmt.Sprintf("announces %d bytes", tt.size))
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "allocated while refusing the reply")
			// the server is stopped by the closed connection, short of
			// what the limit would have let through
			time.Sleep(200 * time.Millisecond)
			assert.Less(t, written.Load(), int64(16<<20), "body bytes the server got out")

			tr2 := soaphttp.NewTransport(serve(t, echo).URL, soaphttp.WithLimits(core.Limits{MaxBytes: tt.limit}))
			t.Cleanup(tr2.CloseIdleConnections)
			reply, err = tr2.RoundTrip(t.Context(), echoRequest(core.V11, ""))
			require.NoError(t, err)
			assert.Equal(t, "hello", decodeEcho(t, reply).Return)
		})
	}
}

// TestTransportReplyOverTheLimitWithoutLength: a reply with no
// Content-Length is cut when it crosses the limit while it is read, as
// before (the announced size is the only one to refuse early).
func TestTransportReplyOverTheLimitWithoutLength(t *testing.T) {
	big := envelope(core.V11, "", `<t:big xmlns:t="`+testNS+`">`+strings.Repeat("x", 2<<20)+`</t:big>`)
	srv := serveHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", ctype(core.V11))
		for i := 0; i < len(big); i += 32 << 10 { // flushed: chunked, no Content-Length
			w.Write([]byte(big[i:min(i+32<<10, len(big))]))
			w.(http.Flusher).Flush()
		}
	}))
	tr := soaphttp.NewTransport(srv, soaphttp.WithLimits(core.Limits{MaxBytes: 1 << 20}))
	t.Cleanup(tr.CloseIdleConnections)
	reply, err := tr.RoundTrip(context.Background(), echoRequest(core.V11, ""))
	if err == nil {
		err = reply.Body().Discard()
	}
	assert.ErrorIs(t, err, core.ErrTooLarge)
}
