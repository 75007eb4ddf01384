package main_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeLimits: the config's limits bound every envelope a binding
// reads: over HTTP a request larger than limits.max_bytes is answered 413
// and one nested deeper than limits.max_depth 400 (SOAP 1.2 Sender faults),
// while a request within them is echoed.
func TestServeLimits(t *testing.T) {
	s := startServe(t, map[string]any{
		"handler": map[string]any{"type": "echo"},
		"http":    map[string]any{"listen": "127.0.0.1:0"},
		"limits":  map[string]any{"max_bytes": 2048, "max_depth": 8},
	})
	url := s.ready["http"]
	post := func(body string) int {
		t.Helper()
		env := `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body>` + body + `</e:Body></e:Envelope>`
		resp, err := http.Post(url, "application/soap+xml; charset=utf-8", strings.NewReader(env))
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	assert.Equal(t, http.StatusOK, post(`<p:ping xmlns:p="urn:p">hi</p:ping>`), "within the limits")
	assert.Equal(t, http.StatusRequestEntityTooLarge, post(`<p:ping xmlns:p="urn:p">`+strings.Repeat("x", 4096)+`</p:ping>`), "over max_bytes")
	deep := strings.Repeat("<a>", 10) + strings.Repeat("</a>", 10)
	assert.Equal(t, http.StatusBadRequest, post(`<p:ping xmlns:p="urn:p">`+deep+`</p:ping>`), "over max_depth")
	require.Equal(t, 0, s.stop(t), s.output())
}

// TestServeLimitsRefused: a negative limit is a configuration error (a
// bound cannot be switched off from the config).
func TestServeLimitsRefused(t *testing.T) {
	path := writeFile(t, "bad.json", `{"handler": {"type": "echo"}, "http": {"listen": "127.0.0.1:0"}, "limits": {"max_bytes": -1, "max_depth": -5}}`)
	res := soapwire(t, "serve", "--config", path)
	require.Equal(t, 2, res.code, "%s", res)
	assert.Contains(t, res.stderr, "limits.max_bytes: -1: must be positive")
	assert.Contains(t, res.stderr, "limits.max_depth: -5: must be positive")
}
