package http_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

func TestNewServerDefaults(t *testing.T) {
	srv := soaphttp.NewServer("127.0.0.1:0", http.NotFoundHandler())
	assert.Equal(t, "127.0.0.1:0", srv.Addr)
	assert.Positive(t, srv.ReadHeaderTimeout)
	assert.Positive(t, srv.ReadTimeout)
	assert.Positive(t, srv.WriteTimeout)
	assert.Positive(t, srv.IdleTimeout)
	assert.Positive(t, srv.MaxHeaderBytes)
	assert.NotNil(t, srv.ErrorLog)
}

// waitGoroutines polls until the number of goroutines is back to at most
// want, and fails after a generous deadline.
func waitGoroutines(t *testing.T, want int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= want {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", n, want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestServerClientDisconnects: clients that send half a request and go
// away leave no goroutine and no memory behind.
func TestServerClientDisconnects(t *testing.T) {
	started := make(chan struct{}, 100)
	h := soaphttp.NewHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		started <- struct{}{}
		return nil, m.Body().Discard()
	}))
	srv := soaphttp.NewServer("", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	// one complete request first, so lazily started runtime goroutines exist
	c, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	c.Close()
	waitGoroutines(t, runtime.NumGoroutine())
	baseline := runtime.NumGoroutine()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	env := envelope(core.V11, "", `<t:echoString xmlns:t="`+testNS+`"><message>`)
	tests := []struct {
		name string
		send func(c net.Conn)
		wait bool // the handler starts before the client goes away
	}{
		{"half the headers", func(c net.Conn) { fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-") }, false},
		{"headers, no body", func(c net.Conn) {
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 100000\r\n\r\n")
		}, false},
		{"half the body", func(c net.Conn) {
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nContent-Length: 100000\r\n\r\n%s", env)
		}, true},
		{"half a chunked body", func(c net.Conn) {
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n", len(env), env)
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			baseline := baseline + 1 // this subtest's goroutine
			for range 50 {
				c, err := net.Dial("tcp", ln.Addr().String())
				require.NoError(t, err)
				tt.send(c)
				if tt.wait {
					<-started
				}
				require.NoError(t, c.Close())
			}
			waitGoroutines(t, baseline)
		})
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	assert.Less(t, int64(after.HeapInuse)-int64(before.HeapInuse), int64(8<<20), "heap in use grew by more than 8 MiB")
}
