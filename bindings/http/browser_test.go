package http_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// TestHandlerRefusesBrowserRequests: the POSTs a web page can send to
// another origin without a CORS preflight (no Content-Type, as a Blob or
// ArrayBuffer body goes; text/plain; a form's two media types) are refused
// with 415 before the handler runs, and logged once each. With
// WithContentTypeOptional the one without a Content-Type is served (and a
// body that is not SOAP at all is an empty 400); the others stay refused.
func TestHandlerRefusesBrowserRequests(t *testing.T) {
	var ran atomic.Int32
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		ran.Add(1)
		return echo(ctx, m)
	})
	var logs syncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	strict := serve(t, h, soaphttp.WithLogger(log), soaphttp.WithLogInterval(-1))
	lax := serve(t, h, soaphttp.WithLogger(log), soaphttp.WithContentTypeOptional(), soaphttp.WithLogInterval(-1))
	env := envelope(core.V11, "", echoBody)
	tests := []struct {
		name, ct, body string
		lax            bool
		status         int
		runs           bool
		log            string
	}{
		{"no Content-Type", "", env, false, 415, false, "soap: unsupported media type"},
		{"blank Content-Type", " ", env, false, 415, false, "soap: unsupported media type"},
		{"text/plain", "text/plain", env, false, 415, false, "soap: unsupported media type"},
		{"form", "application/x-www-form-urlencoded", env, false, 415, false, "soap: unsupported media type"},
		{"multipart form", "multipart/form-data; boundary=x", "--x\r\n\r\n" + env + "\r\n--x--\r\n", false, 415, false, "soap: unsupported media type"},
		{"WithContentTypeOptional: no Content-Type is served", "", env, true, 200, true, ""},
		{"WithContentTypeOptional: not SOAP is an empty 400", "", "hello", true, 400, false, "soap: request is not SOAP"},
		{"WithContentTypeOptional: text/plain", "text/plain", env, true, 415, false, "soap: unsupported media type"},
		{"WithContentTypeOptional: form", "application/x-www-form-urlencoded", env, true, 415, false, "soap: unsupported media type"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			url := strict.URL
			if tt.lax {
				url = lax.URL
			}
			req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(tt.body))
			require.NoError(t, err)
			if tt.ct != "" {
				req.Header["Content-Type"] = []string{tt.ct}
			}
			before := ran.Load()
			resp, data := do(t, req)
			assert.Equal(t, tt.status, resp.StatusCode, "%s", data)
			assert.Equal(t, tt.runs, ran.Load() > before, "the handler ran")
			got := logs.take()
			if tt.log == "" {
				assert.Empty(t, got)
				return
			}
			assert.Equal(t, 1, strings.Count(got, "\n"), "one log line: %s", got)
			assert.Contains(t, got, tt.log)
		})
	}
}
