package http_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestHandlerStreamedReplyBeforeVerdict: a handler that echoes the request
// body as its reply streams the reply while it reads the request. When the
// request's rest turns out broken, a reply still within the 32 KiB buffer
// is replaced by the request's Sender fault; one already sent in part
// (beyond the buffer) is aborted: the connection is closed before the
// response ends, so the client sees an error, never a complete reply, and
// the abort is logged.
func TestHandlerStreamedReplyBeforeVerdict(t *testing.T) {
	echoBody := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		return m.Reply(m.Body()), nil
	})
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String()+"/WithinTheBuffer", func(t *testing.T) {
			srv := serve(t, echoBody)
			bt := coretest.BrokenTails(v, "", "", "small")[3] // SecondBody
			resp, data := post(t, srv.URL, map[string]string{"Content-Type": ctype(v)}, bytesReader(bt.Envelope))
			_, f := readFault(t, data)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Contains(t, f.Reason, bt.Reason)
			if v == core.V12 {
				assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			} else {
				assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
			}
		})
		t.Run(v.String()+"/BeyondTheBuffer", func(t *testing.T) {
			var logs lockedBuffer
			srv := serve(t, echoBody, soaphttp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
			big := strings.Repeat("x", 256<<10)
			bt := coretest.BrokenTails(v, "", "", big)[3] // SecondBody
			req, err := http.NewRequest(http.MethodPost, srv.URL, bytesReader(bt.Envelope))
			require.NoError(t, err)
			req.Header.Set("Content-Type", ctype(v))
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err, "the reply started before the request's end was read")
			defer resp.Body.Close()
			assert.Equal(t, http.StatusOK, resp.StatusCode)
			data, err := io.ReadAll(resp.Body)
			require.Error(t, err, "the response is cut off, not complete (read %d bytes)", len(data))
			assert.NotContains(t, string(data), "</"+"soap:Envelope>")
			require.Eventually(t, func() bool { return strings.Contains(logs.String(), "soap: reply aborted after it started") }, 10e9, 1e6)
			assert.Contains(t, logs.String(), "two Bodies")

			// the same request whole is echoed
			sound := coretest.SoundEnvelope(v, "", "", big)
			resp2, data2 := post(t, srv.URL, map[string]string{"Content-Type": ctype(v)}, bytesReader(sound))
			assert.Equal(t, http.StatusOK, resp2.StatusCode)
			assert.Contains(t, string(data2), big)
		})
	}
}
