package http_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"strings"
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
		if err := m.Body().Discard(); err != nil {
			return nil, err
		}
		if m.Action != "big" {
			return nil, nil
		}
		// an 8 MiB reply, far more than the socket buffers hold
		return m.Reply(core.StreamBody(xmlName("big"), func(w io.Writer) error {
			if _, err := io.WriteString(w, `<t:big xmlns:t="`+testNS+`">`); err != nil {
				return err
			}
			chunk := strings.Repeat("b", 64<<10)
			for range 128 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return err
				}
			}
			_, err := io.WriteString(w, `</t:big>`)
			return err
		})), nil
	}))
	srv := soaphttp.NewServer("", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	// one complete request first, so lazily started runtime goroutines exist
	tr := soaphttp.NewTransport("http://" + ln.Addr().String())
	reply, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V11, core.RawBody([]byte(echoBody))))
	require.NoError(t, err)
	require.Nil(t, reply)
	<-started
	tr.CloseIdleConnections()
	waitGoroutines(t, runtime.NumGoroutine())
	baseline := runtime.NumGoroutine()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	// head is a request's head in version v, the action "big" asking for the
	// 8 MiB reply.
	head := func(v core.Version, framing string, big bool) string {
		ct, action := ctype(v), ""
		if big {
			if v == core.V12 {
				ct += `; action="big"`
			} else {
				action = "SOAPAction: big\r\n"
			}
		}
		return "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: " + ct + "\r\n" + action + framing + "\r\n"
	}
	tests := []struct {
		name string
		send func(c net.Conn, v core.Version)
		wait bool // the handler starts before the client goes away
	}{
		{"half the headers", func(c net.Conn, v core.Version) { fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-") }, false},
		{"headers, no body", func(c net.Conn, v core.Version) {
			fmt.Fprint(c, head(v, "Content-Length: 100000\r\n", false))
		}, false},
		{"half the body", func(c net.Conn, v core.Version) {
			half, _, _ := strings.Cut(envelope(v, "", echoBody), "hello")
			fmt.Fprint(c, head(v, "Content-Length: 100000\r\n", false)+half)
		}, true},
		{"half a chunked body", func(c net.Conn, v core.Version) {
			half, _, _ := strings.Cut(envelope(v, "", echoBody), "hello")
			fmt.Fprintf(c, "%s%x\r\n%s\r\n", head(v, "Transfer-Encoding: chunked\r\n", false), len(half), half)
		}, true},
		{"gone while the reply is written", func(c net.Conn, v core.Version) {
			full := envelope(v, "", echoBody)
			fmt.Fprintf(c, "%s%s", head(v, fmt.Sprintf("Content-Length: %d\r\n", len(full)), true), full)
			io.ReadFull(c, make([]byte, 4096)) // the status line and the start of the reply
		}, true},
	}
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, tt := range tests {
			t.Run(v.String()+"/"+tt.name, func(t *testing.T) {
				baseline := baseline + 1 // this subtest's goroutine
				for range 25 {
					c, err := net.Dial("tcp", ln.Addr().String())
					require.NoError(t, err)
					tt.send(c, v)
					if tt.wait {
						<-started
					}
					require.NoError(t, c.Close())
				}
				waitGoroutines(t, baseline)
			})
		}
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	assert.Less(t, int64(after.HeapInuse)-int64(before.HeapInuse), int64(8<<20), "heap in use grew by more than 8 MiB")
}

// TestServerReadTimeout: NewServer's read timeout ends a request whose
// client stalls mid-body: the handler's body read fails, the handler
// returns, the client gets 408 with a Sender fault and the connection is
// closed.
func TestServerReadTimeout(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			done := make(chan error, 1)
			h := soaphttp.NewHandler(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				err := m.Body().Discard()
				done <- err
				return nil, err
			}))
			srv := soaphttp.NewServer("", h)
			srv.ReadTimeout = 300 * time.Millisecond // the default is minutes: shorten it for the test
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })

			c, err := net.Dial("tcp", ln.Addr().String())
			require.NoError(t, err)
			t.Cleanup(func() { c.Close() })
			env, _, _ := strings.Cut(envelope(v, "", echoBody), "hello") // half an envelope
			fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: 100000\r\n\r\n%s", ctype(v), env)
			// ... and nothing more: the client stalls.
			select {
			case err := <-done:
				require.Error(t, err, "the handler's read of the stalled body fails")
			case <-time.After(30 * time.Second):
				t.Fatal("the handler is still reading a stalled body")
			}
			require.NoError(t, c.SetReadDeadline(time.Now().Add(30*time.Second)))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			require.NoError(t, err)
			defer resp.Body.Close()
			data, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode, "%s", data)
			m, f := readFault(t, data)
			assert.Equal(t, v, m.Version())
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "the request body did not arrive in time", f.Reason)
			_, err = c.Read(make([]byte, 1))
			assert.ErrorIs(t, err, io.EOF, "the server closed the connection")
		})
	}
}

// faultStatus is the status of a Sender fault in version v.
func faultStatus(v core.Version) int {
	if v == core.V12 {
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
