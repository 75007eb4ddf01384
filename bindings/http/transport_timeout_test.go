package http_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// rawServer runs answer on every connection to it after reading the
// request's head (answer reads the body if it wants it).
func rawServer(t *testing.T, answer func(c net.Conn, br *bufio.Reader)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				if _, err := http.ReadRequest(br); err != nil {
					return
				}
				answer(c, br)
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

const replyHead = "HTTP/1.1 200 OK\r\nContent-Type: text/xml; charset=utf-8\r\n"

// streamedEnvelope writes the start of a 1.1 envelope whose body is one
// element, then n bytes of its text in pieces of piece bytes every every,
// then its end; it stops at the first failed write.
func streamedEnvelope(c net.Conn, n, piece int, every time.Duration) {
	if _, err := io.WriteString(c, `<s:Envelope xmlns:s="`+core.NamespaceV11+`"><s:Body><t:big xmlns:t="`+testNS+`">`); err != nil {
		return
	}
	chunk := strings.Repeat("x", piece)
	for sent := 0; sent < n; sent += piece {
		if _, err := io.WriteString(c, chunk); err != nil {
			return
		}
		time.Sleep(every)
	}
	io.WriteString(c, `</t:big></s:Body></s:Envelope>`)
}

// TestTransportTimeout: a call whose ctx has no deadline ends when the
// server stops making progress (WithTimeout, 400 ms here): no answer, the
// headers and then nothing, a reply dripping slower than 64 KiB in the
// timeout, a streamed reply that stalls half way. The error has
// context.DeadlineExceeded; it comes no earlier than the timeout and well
// before the test's own bound; the same Transport then calls a server that
// answers.
func TestTransportTimeout(t *testing.T) {
	const d = 400 * time.Millisecond
	hold := make(chan struct{})
	t.Cleanup(func() { close(hold) })
	tests := []struct {
		name   string
		answer func(c net.Conn, br *bufio.Reader)
		stream bool // RoundTrip returns a streamed reply; its body fails
	}{
		{"no answer", func(net.Conn, *bufio.Reader) { <-hold }, false},
		{"the headers, then nothing", func(c net.Conn, _ *bufio.Reader) {
			io.WriteString(c, replyHead+"Content-Length: 1000\r\n\r\n")
			<-hold
		}, false},
		{"a byte every 50 ms", func(c net.Conn, _ *bufio.Reader) {
			io.WriteString(c, replyHead+"Transfer-Encoding: chunked\r\n\r\n")
			for {
				if _, err := io.WriteString(c, "1\r\nx\r\n"); err != nil {
					return
				}
				time.Sleep(50 * time.Millisecond)
			}
		}, false},
		{"a streamed reply that stalls after 200 KiB", func(c net.Conn, _ *bufio.Reader) {
			io.WriteString(c, replyHead+"Content-Length: 10000000\r\n\r\n")
			streamedEnvelope(c, 200<<10, 50<<10, 0)
			<-hold
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := echoRequest(core.V11, "")
			tr := soaphttp.NewTransport(rawServer(t, tt.answer), soaphttp.WithTimeout(d))
			t.Cleanup(tr.CloseIdleConnections)
			start := time.Now()
			err := make(chan error, 1)
			go func() {
				reply, e := tr.RoundTrip(context.Background(), m)
				if e == nil && tt.stream {
					e = reply.Body().Discard()
				} else if e == nil {
					e = fmt.Errorf("a reply: %v", reply)
				}
				err <- e
			}()
			select {
			case e := <-err:
				elapsed := time.Since(start)
				require.ErrorIs(t, e, context.DeadlineExceeded)
				assert.Contains(t, e.Error(), "no progress in 400ms")
				assert.GreaterOrEqual(t, elapsed, d)
			case <-time.After(30 * time.Second):
				t.Fatal("the call is still waiting")
			}
		})
	}
	t.Run("then a server that answers", func(t *testing.T) {
		tr := soaphttp.NewTransport(serve(t, echo).URL, soaphttp.WithTimeout(d))
		t.Cleanup(tr.CloseIdleConnections)
		reply, err := tr.RoundTrip(context.Background(), echoRequest(core.V12, ""))
		require.NoError(t, err)
		assert.Equal(t, "hello", decodeEcho(t, reply).Return)
	})
}

// TestTransportTimeoutKeepsFlows: the timeout bounds progress, not the
// call: a reply that brings 64 KiB every third of it, for several times
// it, is read whole; a caller that stops reading for longer than the
// timeout between reads is not cut (only waiting counts); a request that
// streams for several times it is sent whole, and one the server stops
// taking is ended; and a ctx with a deadline replaces the timeout.
func TestTransportTimeoutKeepsFlows(t *testing.T) {
	const d = 500 * time.Millisecond
	transport := func(t *testing.T, url string) *soaphttp.Transport {
		tr := soaphttp.NewTransport(url, soaphttp.WithTimeout(d))
		t.Cleanup(tr.CloseIdleConnections)
		return tr
	}
	call := func(t *testing.T, ctx context.Context, url string, m *core.Message) *core.Message {
		t.Helper()
		reply, err := transport(t, url).RoundTrip(ctx, m)
		require.NoError(t, err)
		return reply
	}

	t.Run("a reply at 64 KiB per third of the timeout, for 4 timeouts", func(t *testing.T) {
		url := rawServer(t, func(c net.Conn, _ *bufio.Reader) {
			io.WriteString(c, replyHead+"Connection: close\r\n\r\n")
			streamedEnvelope(c, 12*64<<10, 64<<10, d/3)
		})
		start := time.Now()
		reply := call(t, context.Background(), url, echoRequest(core.V11, ""))
		var big struct {
			Text string `xml:",chardata"`
		}
		require.NoError(t, reply.Body().Decode(&big))
		assert.Greater(t, time.Since(start), 3*d)
		assert.Equal(t, strings.Repeat("x", 12*64<<10), big.Text)
	})
	t.Run("a caller that reads slowly", func(t *testing.T) {
		url := rawServer(t, func(c net.Conn, _ *bufio.Reader) {
			io.WriteString(c, replyHead+"Connection: close\r\n\r\n")
			streamedEnvelope(c, 1<<20, 64<<10, 0)
		})
		reply := call(t, context.Background(), url, echoRequest(core.V11, ""))
		w := &slowWriter{pause: 2 * d, every: 256 << 10}
		_, err := reply.Body().WriteTo(w)
		require.NoError(t, err)
		assert.Greater(t, w.n, 1<<20)
	})
	t.Run("a request streamed for 3 timeouts", func(t *testing.T) {
		url := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			var sink strings.Builder
			n, err := m.Body().WriteTo(&sink)
			if err != nil {
				return nil, err
			}
			return m.Reply(core.RawBody(fmt.Appendf(nil, `<t:got xmlns:t="%s">%d</t:got>`, testNS, n))), nil
		})).URL
		chunk := strings.Repeat("y", 64<<10)
		m := core.NewMessage(core.V11, core.StreamBody(xmlName("up"), func(w io.Writer) error {
			if _, err := io.WriteString(w, `<t:up xmlns:t="`+testNS+`">`); err != nil {
				return err
			}
			for range 9 {
				if _, err := io.WriteString(w, chunk); err != nil {
					return err
				}
				time.Sleep(d / 3)
			}
			_, err := io.WriteString(w, `</t:up>`)
			return err
		}))
		start := time.Now()
		reply := call(t, context.Background(), url, m)
		assert.Greater(t, time.Since(start), 2*d)
		require.NoError(t, reply.Body().Discard())
	})
	t.Run("a server that stops taking the request", func(t *testing.T) {
		hold := make(chan struct{})
		t.Cleanup(func() { close(hold) })
		url := rawServer(t, func(net.Conn, *bufio.Reader) { <-hold }) // reads the head only
		chunk := strings.Repeat("y", 64<<10)
		m := core.NewMessage(core.V11, core.StreamBody(xmlName("up"), func(w io.Writer) error {
			if _, err := io.WriteString(w, `<t:up xmlns:t="`+testNS+`">`); err != nil {
				return err
			}
			for range 512 { // 32 MiB: more than the sockets' buffers
				if _, err := io.WriteString(w, chunk); err != nil {
					return err
				}
			}
			_, err := io.WriteString(w, `</t:up>`)
			return err
		}))
		start := time.Now()
		_, err := transport(t, url).RoundTrip(context.Background(), m)
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 20*d, "a generous margin")
	})
	t.Run("a ctx deadline replaces the timeout", func(t *testing.T) {
		url := serve(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			time.Sleep(3 * d)
			return echo(ctx, m)
		})).URL
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		reply := call(t, ctx, url, echoRequest(core.V11, ""))
		assert.Equal(t, "hello", decodeEcho(t, reply).Return)
	})
}

// slowWriter takes what it is given, pausing every so many bytes.
type slowWriter struct {
	n, every, since int
	pause           time.Duration
}

func (w *slowWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	if w.since += len(p); w.since >= w.every {
		w.since = 0
		time.Sleep(w.pause)
	}
	return len(p), nil
}

// TestTransportDefaultTimeout: NewTransport bounds a call without a ctx
// deadline by DefaultTimeout (60 s) unless told otherwise; a negative
// WithTimeout switches the bound off.
func TestTransportDefaultTimeout(t *testing.T) {
	assert.Equal(t, 60*time.Second, soaphttp.DefaultTimeout)
	assert.Equal(t, soaphttp.DefaultTimeout, soaphttp.TransportTimeout(soaphttp.NewTransport("http://x")))
	assert.Equal(t, soaphttp.DefaultTimeout, soaphttp.TransportTimeout(soaphttp.NewTransport("http://x", soaphttp.WithTimeout(0))))
	assert.Equal(t, time.Second, soaphttp.TransportTimeout(soaphttp.NewTransport("http://x", soaphttp.WithTimeout(time.Second))))
	assert.LessOrEqual(t, soaphttp.TransportTimeout(soaphttp.NewTransport("http://x", soaphttp.WithTimeout(-1))), time.Duration(0))
}
