package http_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// serveNewServer runs srv (from NewServer) on a loopback port until the
// test ends and returns its address.
func serveNewServer(t *testing.T, srv *http.Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		assert.NoError(t, srv.Shutdown(ctx))
		assert.ErrorIs(t, <-done, http.ErrServerClosed)
	})
	return ln.Addr().String()
}

// TestNewServerHeaderLimit: request headers over DefaultMaxHeaderBytes are
// refused with 431 before the handler runs; a request just under it is
// served.
func TestNewServerHeaderLimit(t *testing.T) {
	ran := make(chan struct{}, 2)
	echo := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		ran <- struct{}{}
		return m.Reply(core.RawBody([]byte(`<ok xmlns="urn:t"/>`))), nil
	})
	addr := serveNewServer(t, soaphttp.NewServer("127.0.0.1:0", soaphttp.NewHandler(echo)))
	env := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x xmlns="urn:t"/></s:Body></s:Envelope>`
	post := func(header int) *http.Response {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/", strings.NewReader(env))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "text/xml; charset=utf-8")
		req.Header.Set("SOAPAction", `""`)
		req.Header.Set("X-Padding", strings.Repeat("p", header))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	assert.Equal(t, http.StatusOK, post(soaphttp.DefaultMaxHeaderBytes/2).StatusCode)
	<-ran
	assert.Equal(t, http.StatusRequestHeaderFieldsTooLarge, post(2*soaphttp.DefaultMaxHeaderBytes).StatusCode)
	select {
	case <-ran:
		t.Fatal("the handler ran for a request whose headers are over the limit")
	default:
	}
}

// TestNewServerSlowClients: the server NewServer returns disconnects a
// client that stalls in its request headers (ReadHeaderTimeout) and one that
// stalls in its body (ReadTimeout), and closes an idle keep-alive connection
// (IdleTimeout). The timeouts are shortened here; their defaults are the
// exported constants.
func TestNewServerSlowClients(t *testing.T) {
	echo := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if err := m.Body().Discard(); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(`<ok xmlns="urn:t"/>`))), nil
	})
	srv := soaphttp.NewServer("127.0.0.1:0", soaphttp.NewHandler(echo))
	assert.Equal(t, soaphttp.DefaultReadHeaderTimeout, srv.ReadHeaderTimeout)
	assert.Equal(t, soaphttp.DefaultReadTimeout, srv.ReadTimeout)
	assert.Equal(t, soaphttp.DefaultIdleTimeout, srv.IdleTimeout)
	srv.ReadHeaderTimeout, srv.ReadTimeout, srv.IdleTimeout = 200*time.Millisecond, 400*time.Millisecond, 300*time.Millisecond
	addr := serveNewServer(t, srv)

	// closedWithin reads from c until the server closes it.
	closedWithin := func(c net.Conn, d time.Duration) (string, error) {
		require.NoError(t, c.SetReadDeadline(time.Now().Add(d)))
		b, err := io.ReadAll(c)
		return string(b), err
	}
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		t.Cleanup(func() { c.Close() })
		return c
	}

	// Headers that never end.
	c := dial()
	_, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\n")
	require.NoError(t, err)
	got, err := closedWithin(c, 10*time.Second)
	assert.NoError(t, err, "the server closed the connection (no read deadline hit)")
	assert.NotContains(t, got, "200 OK")

	// A body that stops half way.
	env := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x xmlns="urn:t"/></s:Body></s:Envelope>`
	c = dial()
	_, err = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\nContent-Length: 1000\r\n\r\n"+env[:40])
	require.NoError(t, err)
	got, err = closedWithin(c, 10*time.Second)
	assert.NoError(t, err, "the server closed the connection (no read deadline hit)")
	assert.NotContains(t, got, "200 OK")

	// An idle keep-alive connection after a served request.
	c = dial()
	_, err = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\nContent-Length: "+strconv.Itoa(len(env))+"\r\n\r\n"+env)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	_, err = closedWithin(c, 10*time.Second)
	var ne net.Error
	assert.False(t, errors.As(err, &ne) && ne.Timeout(), "the idle connection was closed by the server: %v", err)
}

// TestNewServerWriteTimeout: a client that stops reading a large reply is
// cut off by NewServer's WriteTimeout (shortened here): the server stops
// writing, so what the client reads later stops short of the reply, where
// without the timeout it would get all of it.
func TestNewServerWriteTimeout(t *testing.T) {
	big := []byte(`<big xmlns="urn:t">` + strings.Repeat("0123456789abcdef", 2<<20) + `</big>`) // 32 MiB: more than the sockets buffer
	reply := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if err := m.Body().Discard(); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody(big)), nil
	})
	read := func(t *testing.T, timeout time.Duration) int {
		srv := soaphttp.NewServer("127.0.0.1:0", soaphttp.NewHandler(reply))
		assert.Equal(t, soaphttp.DefaultWriteTimeout, srv.WriteTimeout)
		srv.WriteTimeout = timeout
		addr := serveNewServer(t, srv)
		env := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><x xmlns="urn:t"/></s:Body></s:Envelope>`
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		_, err = io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\nConnection: close\r\nContent-Length: "+strconv.Itoa(len(env))+"\r\n\r\n"+env)
		require.NoError(t, err)
		time.Sleep(time.Second) // not reading: the server's writes block
		require.NoError(t, c.SetReadDeadline(time.Now().Add(10*time.Second)))
		got, _ := io.ReadAll(c) // to the end, or to a stall the deadline ends
		return len(got)
	}
	assert.Greater(t, read(t, time.Minute), len(big), "without the timeout the whole reply arrives")
	assert.Less(t, read(t, 300*time.Millisecond), len(big), "after WriteTimeout the server stopped writing")
}
