package main_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeBudgets: the budget keys of the configuration reach their
// bindings: http.content_type_optional serves a POST without a
// Content-Type (415 without it), http.body_timeout and min_body_rate answer
// a body that never comes 408 within their window, and
// smtp.max_sessions_per_ip 1 answers an address's second session 421 4.7.0
// while its first goes on.
func TestServeBudgets(t *testing.T) {
	s := startServe(t, map[string]any{
		"handler": map[string]any{"type": "echo"},
		"http":    map[string]any{"listen": "127.0.0.1:0", "content_type_optional": true, "body_timeout": "1s", "min_body_rate": 100},
		"smtp": map[string]any{"listen": "127.0.0.1:0", "maildir": filepath.Join(t.TempDir(), "mail"), "addresses": []string{"orders@shop.example"},
			"max_sessions": 4, "max_sessions_per_ip": 1, "session_timeout": "5m", "io_timeout": "1m", "min_data_rate": 200, "min_data_rate_grace": "20s"},
	})
	url := s.ready["http"]
	env := `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><p:ping xmlns:p="urn:p">hi</p:ping></e:Body></e:Envelope>`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(env))
	require.NoError(t, err)
	req.Header["Content-Type"] = nil
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "content_type_optional: no Content-Type is served")

	t.Run("body_timeout", func(t *testing.T) {
		host := strings.TrimPrefix(url, "http://")
		host = host[:strings.IndexByte(host, '/')]
		c, err := net.Dial("tcp", host)
		require.NoError(t, err)
		defer c.Close()
		start := time.Now()
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: text/xml\r\nSOAPAction: \"\"\r\nContent-Length: 500\r\n\r\n")
		c.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound against a hang, not the assertion
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
		assert.Less(t, time.Since(start), 20*time.Second, "body_timeout 1s, not the 20 s default (a generous margin)")
	})

	t.Run("max_sessions_per_ip", func(t *testing.T) {
		addr := strings.Fields(s.ready["smtp"])[0]
		greet := func() (net.Conn, string) {
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			c.SetReadDeadline(time.Now().Add(30 * time.Second))
			line, err := bufio.NewReader(c).ReadString('\n')
			require.NoError(t, err)
			return c, line
		}
		first, line := greet()
		defer first.Close()
		require.True(t, strings.HasPrefix(line, "220 "), line)
		second, line := greet()
		defer second.Close()
		assert.True(t, strings.HasPrefix(line, "421 4.7.0"), "the second session from one address: %q", line)
		fmt.Fprintf(first, "NOOP\r\n")
		line, err := bufio.NewReader(first).ReadString('\n')
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(line, "250"), "the first goes on: %q", line)
	})
	require.Equal(t, 0, s.stop(t), s.output())
}

// TestServePendingBytesRefused: nats.pending_bytes below the server's max
// payload stops serve before it serves, naming the key.
func TestServePendingBytesRefused(t *testing.T) {
	ns := startNATS(t)
	path := writeFile(t, "c.json", `{"handler": {"type": "echo"}, "nats": {"url": "`+ns.srv.URL()+`", "subject": "orders.echo", "pending_bytes": 1024}}`)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	res := invocation{args: []string{"serve", "--config", path}}.runCtx(t, ctx)
	require.Equal(t, 1, res.code, "%s", res)
	assert.Contains(t, res.stderr, "nats.pending_bytes: 1024 is less than the server's max payload")
}
