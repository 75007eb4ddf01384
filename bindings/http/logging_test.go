package http_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) take() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.b.String()
	s.b.Reset()
	return out
}

// TestHandlerLogsRefusals: every refusal is logged through WithLogger, with
// what was wrong; a request served normally logs nothing.
func TestHandlerLogsRefusals(t *testing.T) {
	var logs syncBuffer
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if m.Action == "fault" {
			return nil, core.SenderFault("refused by the handler")
		}
		return echo(ctx, m)
	})
	srv := serve(t, h,
		soaphttp.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))),
		soaphttp.WithLogInterval(-1), // a line each (TestHandlerRefusalFloodLogs: the bound)
		soaphttp.WithLimits(core.Limits{MaxBytes: 1024}),
		soaphttp.WithAuth(soaphttp.StaticCredentials(map[string]string{"u": "p"})))
	wsa := `<wsa:Action xmlns:wsa="` + core.NamespaceAddressing + `">urn:a</wsa:Action>`
	tests := []struct {
		name, method, ct, action, body string
		status                         int
		log                            string // "" : nothing logged
		noAuth                         bool
	}{
		{"served", "POST", "text/xml", "", envelope(core.V11, "", echoBody), 200, "", false},
		{"method", "PUT", "text/xml", "", "", 405, "soap: method not allowed", false},
		{"credentials", "POST", "text/xml", "", envelope(core.V11, "", echoBody), 401, "soap: unauthorized", true},
		{"media type", "POST", "application/json", "", "{}", 415, "soap: unsupported media type", false},
		{"too large", "POST", "text/xml", "", envelope(core.V11, "", strings.Repeat("<x/>", 400)), 413, "soap: request too large", false},
		{"no Content-Type", "POST", "", "", envelope(core.V11, "", echoBody), 415, "soap: unsupported media type", false},
		{"not SOAP", "POST", "", "", "hello", 415, "soap: unsupported media type", false},
		{"not XML, sent as SOAP", "POST", "text/xml", "", "hello", 500, "soap: request refused", false},
		{"malformed", "POST", "application/soap+xml", "", envelope(core.V12, "", "<a:b/>"), 400, "soap: request refused", false},
		{"content type contradicts", "POST", "text/xml", "", envelope(core.V12, "", echoBody), 500, "soap: request refused", false},
		{"action mismatch", "POST", "text/xml", `"urn:b"`, envelope(core.V11, wsa, echoBody), 500, "ActionMismatch", false},
		{"handler fault", "POST", "text/xml", "fault", envelope(core.V11, "", echoBody), 500, "refused by the handler", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(tt.method, srv.URL, strings.NewReader(tt.body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", tt.ct)
			if tt.action != "" {
				req.Header.Set("SOAPAction", tt.action)
			}
			if !tt.noAuth {
				req.SetBasicAuth("u", "p")
			}
			resp, data := do(t, req)
			require.Equal(t, tt.status, resp.StatusCode, "%s", data)
			got := logs.take()
			if tt.log == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.log)
		})
	}
}
