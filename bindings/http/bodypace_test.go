package http_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// answer is what a client read back on a raw connection: the response, its
// body, how long after the request's headers it came, and whether the
// server closed the connection after it.
type answer struct {
	resp   *http.Response
	body   []byte
	after  time.Duration
	closed bool
}

// rawExchange writes head (a request's line and headers, ending with the
// empty line) on a new connection to addr, then runs send to write (or not)
// the body, and reads the answer, waiting at most wait.
func rawExchange(t *testing.T, addr, head string, send func(c net.Conn), wait time.Duration) answer {
	t.Helper()
	a, err := exchange(addr, head, send, wait)
	require.NoError(t, err)
	return a
}

// exchange is rawExchange for any goroutine: the connection is closed when
// it returns.
func exchange(addr, head string, send func(c net.Conn), wait time.Duration) (answer, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return answer{}, err
	}
	defer c.Close()
	if _, err := io.WriteString(c, head); err != nil {
		return answer{}, err
	}
	start := time.Now()
	go send(c)
	if err := c.SetReadDeadline(start.Add(wait)); err != nil {
		return answer{}, err
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return answer{}, fmt.Errorf("no answer within %s: %w", wait, err)
	}
	a := answer{resp: resp, after: time.Since(start)}
	a.body, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return a, err
	}
	// a closed connection reads EOF (or a reset, when the server closed
	// it on bytes it did not read) at once; a kept one times out
	if err := c.SetReadDeadline(time.Now().Add(time.Second)); err != nil {
		return a, err
	}
	_, err = br.ReadByte()
	var ne net.Error
	a.closed = err != nil && !(errors.As(err, &ne) && ne.Timeout())
	return a, nil
}

// exchanges runs the exchanges of slow at once and returns their answers
// in the same order.
func exchanges(t *testing.T, addr string, slow []slowRequest, wait time.Duration) []answer {
	t.Helper()
	answers := make([]answer, len(slow))
	errs := make([]error, len(slow))
	var wg sync.WaitGroup
	for i, r := range slow {
		wg.Go(func() { answers[i], errs[i] = exchange(addr, r.head, r.send, wait) })
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, slow[i].name)
	}
	return answers
}

// slowRequest is a request whose body a hostile client sends: send writes
// (or not) the body after head.
type slowRequest struct {
	name string
	head string
	send func(net.Conn)
}

// drip writes s a piece at a time, every, until it is written or the
// connection fails.
func drip(s string, piece int, every time.Duration) func(c net.Conn) {
	return func(c net.Conn) {
		for len(s) > 0 {
			n := min(piece, len(s))
			if _, err := io.WriteString(c, s[:n]); err != nil {
				return
			}
			s = s[n:]
			time.Sleep(every)
		}
	}
}

// chunkDrip writes s as chunked framing, one chunk of piece bytes every.
func chunkDrip(s string, piece int, every time.Duration) func(c net.Conn) {
	return func(c net.Conn) {
		for len(s) > 0 {
			n := min(piece, len(s))
			if _, err := fmt.Fprintf(c, "%x\r\n%s\r\n", n, s[:n]); err != nil {
				return
			}
			s = s[n:]
			time.Sleep(every)
		}
		io.WriteString(c, "0\r\n\r\n")
	}
}

func requestHead(v core.Version, framing string) string {
	return "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: " + ctype(v) + "\r\nSOAPAction: \"\"\r\n" + framing + "\r\n"
}

// countLines counts the log lines holding s.
func countLines(logs, s string) int {
	n := 0
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// TestHandlerBodyPace: a request body that never comes, stops half way, or
// drips slower than WithMinBodyRate is cut by WithBodyTimeout (2 s here, at
// 100 bytes/s: 200 bytes in each 2 s) and answered 408 with a Sender fault
// in the request's version, one log line each, the connection closed; the
// bound holds whatever the framing. Meanwhile a body that arrives at ten
// times the rate for longer than the window, and ordinary requests, are
// served.
func TestHandlerBodyPace(t *testing.T) {
	var logs syncBuffer
	h := soaphttp.NewHandler(echo,
		soaphttp.WithBodyTimeout(2*time.Second), soaphttp.WithMinBodyRate(100),
		soaphttp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		soaphttp.WithLogInterval(-1)) // a line each (TestHandlerRefusalFloodLogs: the bound)
	addr := serveNewServer(t, soaphttp.NewServer("127.0.0.1:0", h))

	padded := func(v core.Version, n int) string { // an echo envelope of about n bytes
		return envelope(v, "", `<t:echoString xmlns:t="`+testNS+`"><message>hello</message><pad>`+strings.Repeat("p", n)+`</pad></t:echoString>`)
	}
	length := func(s string) string { return fmt.Sprintf("Content-Length: %d\r\n", len(s)) }
	const chunked = "Transfer-Encoding: chunked\r\n"
	slow := func(v core.Version) []slowRequest {
		env := padded(v, 400)
		return []slowRequest{
			{"nothing after the headers", requestHead(v, length(env)), func(net.Conn) {}},
			{"nothing after the headers, chunked", requestHead(v, chunked), func(net.Conn) {}},
			{"stops half way", requestHead(v, length(env)), drip(env[:len(env)/2], len(env), time.Hour)},
			{"a byte every 50 ms (20 bytes/s)", requestHead(v, length(env)), drip(env, 1, 50*time.Millisecond)},
			{"a 1-byte chunk every 50 ms", requestHead(v, chunked), chunkDrip(env, 1, 50*time.Millisecond)},
			{"fast, then a byte every 50 ms", requestHead(v, length(env)), func(c net.Conn) {
				io.WriteString(c, env[:250])
				drip(env[250:], 1, 50*time.Millisecond)(c)
			}},
		}
	}
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			// the slow bodies, a body at ten times the rate for longer than
			// the window, and ordinary requests, all at once
			requests := slow(v)
			env := padded(v, 3000) // 100 bytes every 100 ms: about 3.3 s
			requests = append(requests, slowRequest{"ten times the rate", requestHead(v, length(env)), drip(env, 100, 100*time.Millisecond)})
			ordinary := make(chan error, 1)
			go func() {
				tr := soaphttp.NewTransport("http://" + addr)
				defer tr.CloseIdleConnections()
				for range 20 {
					reply, err := tr.RoundTrip(context.Background(), core.NewMessage(v, core.RawBody([]byte(echoBody))))
					if err == nil {
						err = reply.Body().Discard()
					}
					if err != nil {
						ordinary <- err
						return
					}
					time.Sleep(100 * time.Millisecond)
				}
				ordinary <- nil
			}()
			answers := exchanges(t, addr, requests, time.Minute)
			require.NoError(t, <-ordinary, "ordinary requests are served meanwhile")
			for i, a := range answers[:len(answers)-1] {
				name := requests[i].name
				require.Equal(t, http.StatusRequestTimeout, a.resp.StatusCode, "%s: %s", name, a.body)
				m, f := readFault(t, a.body)
				assert.Equal(t, v, m.Version(), name)
				assert.Equal(t, core.CodeSender, f.Code, name)
				assert.Equal(t, "the request body did not arrive in time", f.Reason, name)
				assert.GreaterOrEqual(t, a.after, 1500*time.Millisecond, "%s: not before the window", name)
				assert.Less(t, a.after, 20*time.Second, "%s: the window is 2 s (a generous margin)", name)
				assert.True(t, a.closed, "%s: the connection is closed after the 408", name)
			}
			fast := answers[len(answers)-1]
			require.Equal(t, http.StatusOK, fast.resp.StatusCode, "%s", fast.body)
			assert.Greater(t, fast.after, 2*time.Second, "it took longer than one window")
			_, r := readReply(t, fast.body)
			assert.Equal(t, "hello", r.Return)
			got := logs.take()
			assert.Equal(t, len(answers)-1, countLines(got, "did not arrive in time"), "one log line per slow body: %s", got)
		})
	}
}

// TestHandlerBodyPaceDefaults: with NewServer and NewHandler as the docs
// show them, a body that never comes or drips a byte a second is answered
// 408 within DefaultBodyTimeout (20 s; the bound asserted is 30 s), where
// it used to hold the connection for NewServer's two-minute ReadTimeout
// and be cut without an answer.
func TestHandlerBodyPaceDefaults(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for DefaultBodyTimeout (20 s)")
	}
	t.Parallel() // with the interop tests
	require.Equal(t, 20*time.Second, soaphttp.DefaultBodyTimeout)
	require.Equal(t, 500, soaphttp.DefaultMinBodyRate)
	addr := serveNewServer(t, soaphttp.NewServer("127.0.0.1:0", soaphttp.NewHandler(echo)))
	env := envelope(core.V12, "", echoBody)
	head := requestHead(core.V12, fmt.Sprintf("Content-Length: %d\r\n", len(env)))
	requests := []slowRequest{
		{"nothing after the headers", head, func(net.Conn) {}},
		{"a byte a second", head, drip(env, 1, time.Second)},
	}
	for i, a := range exchanges(t, addr, requests, 2*time.Minute) {
		name := requests[i].name
		require.Equal(t, http.StatusRequestTimeout, a.resp.StatusCode, "%s: %s", name, a.body)
		_, f := readFault(t, a.body)
		assert.Equal(t, core.CodeSender, f.Code, name)
		assert.GreaterOrEqual(t, a.after, 15*time.Second, name)
		assert.Less(t, a.after, 30*time.Second, "%s: the documented bound", name)
	}
}

// TestHandlerBodyPaceAfterTheBody: once the body is read, its bound is
// gone: a handler that works for several windows after reading it keeps
// its context and answers.
func TestHandlerBodyPaceAfterTheBody(t *testing.T) {
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if err := m.Body().Discard(); err != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the request's context ended: %w", ctx.Err())
		case <-time.After(time.Second): // four windows
		}
		return m.Reply(core.RawBody([]byte(`<t:done xmlns:t="` + testNS + `"/>`))), nil
	})
	addr := serveNewServer(t, soaphttp.NewServer("127.0.0.1:0", soaphttp.NewHandler(h, soaphttp.WithBodyTimeout(250*time.Millisecond))))
	var requests []slowRequest
	for _, v := range []core.Version{core.V11, core.V12} {
		env := envelope(v, "", echoBody)
		requests = append(requests,
			slowRequest{v.String() + " with a length", requestHead(v, fmt.Sprintf("Content-Length: %d\r\n", len(env))), drip(env, len(env), 0)},
			slowRequest{v.String() + " chunked", requestHead(v, "Transfer-Encoding: chunked\r\n"), chunkDrip(env, len(env), 0)})
	}
	for i, a := range exchanges(t, addr, requests, time.Minute) {
		assert.Equal(t, http.StatusOK, a.resp.StatusCode, "%s: %s", requests[i].name, a.body)
		assert.False(t, a.closed, "%s: the connection is kept", requests[i].name)
	}
}

// TestHandlerBodyPaceReadTimeout: the pace never outlasts the server's
// ReadTimeout, which bounds the whole body; a body cut by it is answered
// 408 with a Sender fault even when the WriteTimeout is as short (as
// NewServer's are equal), where it used to be cut without an answer.
func TestHandlerBodyPaceReadTimeout(t *testing.T) {
	srv := soaphttp.NewServer("127.0.0.1:0", soaphttp.NewHandler(echo, soaphttp.WithBodyTimeout(10*time.Second)))
	srv.ReadTimeout, srv.WriteTimeout = 1500*time.Millisecond, 1500*time.Millisecond
	addr := serveNewServer(t, srv)
	env := envelope(core.V11, "", `<t:echoString xmlns:t="`+testNS+`"><message>hello</message><pad>`+strings.Repeat("p", 5000)+`</pad></t:echoString>`)
	// 1,000 bytes/s, twice the default rate: within the pace, not within
	// the ReadTimeout
	a := rawExchange(t, addr, requestHead(core.V11, fmt.Sprintf("Content-Length: %d\r\n", len(env))), drip(env, 100, 100*time.Millisecond), time.Minute)
	require.Equal(t, http.StatusRequestTimeout, a.resp.StatusCode, "%s", a.body)
	_, f := readFault(t, a.body)
	assert.Equal(t, "the request body did not arrive in time", f.Reason)
	assert.Less(t, a.after, 10*time.Second, "the ReadTimeout, not the pace's window")
}
