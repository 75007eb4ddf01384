package http_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// TestHandlerStreamsTheBody proves the handler runs while the body is still
// being sent: the client sends the rest only after the handler has started,
// which would deadlock if the request were buffered first.
func TestHandlerStreamsTheBody(t *testing.T) {
	const size = 1 << 20 // far more than the connection's buffers hold
	started := make(chan struct{})
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		close(started)
		var c countWriter
		if _, err := m.Body().WriteTo(&c); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(fmt.Sprintf(`<t:n xmlns:t="urn:t">%d</t:n>`, c.n)))), nil
	})
	srv := serve(t, h, soaphttp.WithLimits(core.Limits{MaxBytes: 64 << 20}))
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	req, err := http.NewRequest(http.MethodPost, srv.URL, pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "text/xml")
	type result struct {
		resp *http.Response
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		done <- result{resp, err}
	}()
	env := envelope(core.V11, "", "<t:echoString xmlns:t=\""+testNS+"\"><message>|</message></t:echoString>")
	head, tail, _ := strings.Cut(env, "|")
	_, err = io.WriteString(pw, head)
	require.NoError(t, err)
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the handler did not start before the body was complete")
	}
	chunk := []byte(strings.Repeat("x", 64<<10))
	for i := 0; i < size/len(chunk); i++ {
		_, err := pw.Write(chunk)
		require.NoError(t, err)
	}
	_, err = io.WriteString(pw, tail)
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	res := <-done
	require.NoError(t, res.err)
	defer res.resp.Body.Close()
	data, err := io.ReadAll(res.resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.resp.StatusCode, "%s", data)
	var n struct {
		N int `xml:",chardata"`
	}
	m, err := core.ReadMessage(strings.NewReader(string(data)), core.Limits{})
	require.NoError(t, err)
	require.NoError(t, m.Body().Decode(&n))
	assert.Greater(t, n.N, size, "the whole body reached the handler")
}

// TestHandlerBodyStreamFaults: errors found while the handler reads the body
// become the right fault and status, whatever the handler made of them.
func TestHandlerBodyStreamFaults(t *testing.T) {
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var req echoReq
		err := m.Body().Decode(&req)
		switch {
		case m.Action == "swallow" && err != nil:
			return nil, errors.New("something went wrong")
		case err != nil:
			return nil, fmt.Errorf("decode: %w", err)
		}
		return echo(ctx, m)
	})
	srv := serve(t, h, soaphttp.WithLimits(core.Limits{MaxBytes: 64 << 10}))
	large := func(v core.Version) string {
		return envelope(v, "", `<t:echoString xmlns:t="`+testNS+`"><message>`+strings.Repeat("x", 200<<10)+`</message></t:echoString>`)
	}
	tests := []struct {
		name    string
		version core.Version
		action  string
		body    string
		status  int
	}{
		{"1.1 too large while streaming", core.V11, "", large(core.V11), 413},
		{"1.2 too large while streaming", core.V12, "", large(core.V12), 413},
		{"too large, error swallowed by the handler", core.V12, "swallow", large(core.V12), 413},
		{"1.2 malformed inside the body", core.V12, "", envelope(core.V12, "", `<t:echoString xmlns:t="urn:t"><message>x</msg></t:echoString>`), 400},
		{"1.1 malformed inside the body", core.V11, "", envelope(core.V11, "", `<t:echoString xmlns:t="urn:t"><message>x</msg></t:echoString>`), 500},
		{"1.2 element after the Body", core.V12, "", strings.Replace(envelope(core.V12, "", echoBody), "</soap-env:Body>", "</soap-env:Body><x/>", 1), 400},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, srv.URL, struct{ io.Reader }{strings.NewReader(tt.body)})
			require.NoError(t, err)
			req.ContentLength = -1 // chunked: the limit is found while reading
			req.Header.Set("Content-Type", ctype(tt.version))
			req.Header.Set("SOAPAction", tt.action)
			resp, data := do(t, req)
			require.Equal(t, tt.status, resp.StatusCode, "%s", data)
			m, f := readFault(t, data)
			assert.Equal(t, tt.version, m.Version())
			assert.Equal(t, core.CodeSender, f.Code)
		})
	}
	t.Run("broken chunked framing", func(t *testing.T) {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		t.Cleanup(func() { conn.Close() })
		part := envelope(core.V12, "", echoBody)[:120]
		fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/soap+xml\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\nzz\r\n", len(part), part)
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", data)
		_, f := readFault(t, data)
		assert.Equal(t, "the request body could not be read", f.Reason)
	})
}

// TestHandlerReplyStreamFailure: a reply that streams the request body back
// fails when the request turns out malformed. Early, the client still gets
// a fault; after the reply has started, the response is cut short so it
// never looks complete.
func TestHandlerReplyStreamFailure(t *testing.T) {
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if m.Action == "panic" {
			return m.Reply(core.StreamBody(xmlName("x"), func(w io.Writer) error { panic("writer bug") })), nil
		}
		return m.Reply(core.StreamBody(xmlName("echo"), func(w io.Writer) error {
			_, err := m.Body().WriteTo(w)
			return err
		})), nil
	})
	srv := serve(t, h, soaphttp.WithLimits(core.Limits{MaxBytes: 4 << 20}))
	bad := func(n int) string {
		return envelope(core.V12, "", `<t:echo xmlns:t="urn:t"><m>`+strings.Repeat("x", n)+`</m></t:bad></t:echo>`)
	}
	t.Run("early", func(t *testing.T) {
		resp, data := post(t, srv.URL, map[string]string{"Content-Type": ctype(core.V12)}, strings.NewReader(bad(10)))
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%s", data)
		_, f := readFault(t, data)
		assert.Equal(t, core.CodeSender, f.Code)
	})
	t.Run("late", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(bad(1<<20)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", ctype(core.V12))
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		_, err = io.ReadAll(resp.Body)
		assert.Error(t, err, "the reply is cut short")
	})
	t.Run("panic while writing", func(t *testing.T) {
		resp, data := post(t, srv.URL, map[string]string{"Content-Type": ctype(core.V11), "SOAPAction": "panic"}, strings.NewReader(envelope(core.V11, "", echoBody)))
		require.Equal(t, http.StatusInternalServerError, resp.StatusCode, "%s", data)
		_, f := readFault(t, data)
		assert.Equal(t, core.CodeReceiver, f.Code)
		assert.NotContains(t, string(data), "writer bug")
	})
}

// TestHandlerReplySizes: replies below, around and beyond the 32 KiB the
// handler buffers before sending come whole, with a Content-Length when
// they fit the buffer.
func TestHandlerReplySizes(t *testing.T) {
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		n, err := strconv.Atoi(m.Action)
		if err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(`<t:r xmlns:t="urn:t">` + strings.Repeat("y", n) + `</t:r>`))), nil
	})
	srv := serve(t, h)
	for _, n := range []int{0, 4000, 4096, 8000, 32<<10 - 200, 32<<10 - 100, 32 << 10, 32<<10 + 100, 100 << 10} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			resp, data := post(t, srv.URL, map[string]string{"Content-Type": ctype(core.V11), "SOAPAction": strconv.Itoa(n)},
				strings.NewReader(envelope(core.V11, "", echoBody)))
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
			m, err := core.ReadMessage(bytes.NewReader(data), core.Limits{})
			require.NoError(t, err)
			var r struct {
				Text string `xml:",chardata"`
			}
			require.NoError(t, m.Body().Decode(&r))
			assert.Equal(t, strings.Repeat("y", n), r.Text)
			if len(data) <= 32<<10 {
				assert.Equal(t, strconv.Itoa(len(data)), resp.Header.Get("Content-Length"))
			}
		})
	}
}

// countingBody is a request body that counts what was read from it.
type countingBody struct {
	r   io.Reader
	n   int
	eof bool
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	if err == io.EOF {
		c.eof = true
	}
	return n, err
}

func (c *countingBody) Close() error { return nil }

// TestHandlerReadsWhatIsLeft: before the reply is sent, a request body
// the handler did not read is read to its end, however large (the verdict
// on the whole envelope, core.Message.Verdict), and its tokenizer recycled.
func TestHandlerReadsWhatIsLeft(t *testing.T) {
	lazy := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return m.Reply(core.RawBody([]byte(`<t:ok xmlns:t="urn:t"/>`))), nil
	})
	h := soaphttp.NewHandler(lazy)
	for _, tc := range []struct {
		name    string
		size    int
		readAll bool
	}{
		{"small", 1 << 10, true},
		{"just under the bound", 60 << 10, true},
		{"large", 1 << 20, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := envelope(core.V11, "", `<t:echoString xmlns:t="`+testNS+`"><message>`+strings.Repeat("x", tc.size)+`</message></t:echoString>`)
			body := &countingBody{r: strings.NewReader(env)}
			req := httptest.NewRequest(http.MethodPost, "/", nil)
			req.Body, req.ContentLength = body, int64(len(env))
			req.Header.Set("Content-Type", ctype(core.V11))
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			assert.Equal(t, tc.readAll, body.eof, "read %d of %d bytes", body.n, len(env))
		})
	}
}
