package http_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

const testNS = "urn:soapwire:test"

// envelope returns an envelope of version v ("" namespace for v == 0 is an
// unknown one) with the given header blocks and body children.
func envelope(v core.Version, header, body string) string {
	ns := "urn:not-soap"
	switch v {
	case core.V11:
		ns = core.NamespaceV11
	case core.V12:
		ns = core.NamespaceV12
	}
	var b strings.Builder
	b.WriteString(`<soap-env:Envelope xmlns:soap-env="` + ns + `">`)
	if header != "" {
		b.WriteString(`<soap-env:Header>` + header + `</soap-env:Header>`)
	}
	b.WriteString(`<soap-env:Body>` + body + `</soap-env:Body></soap-env:Envelope>`)
	return b.String()
}

const echoBody = `<t:echoString xmlns:t="` + testNS + `"><message>hello</message></t:echoString>`

type echoReq struct {
	Message string `xml:"message"`
}

// echo answers <echoStringResponse> with the message and the action seen.
var echo = core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
	var req echoReq
	if err := m.Body().Decode(&req); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteString(`<t:echoStringResponse xmlns:t="` + testNS + `"><return>`)
	b.WriteString(req.Message)
	b.WriteString(`</return><action>`)
	b.WriteString(m.Action)
	b.WriteString(`</action></t:echoStringResponse>`)
	return m.Reply(core.RawBody(b.Bytes())), nil
})

func serve(t *testing.T, h core.Handler, opts ...soaphttp.HandlerOption) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(soaphttp.NewHandler(h, opts...))
	t.Cleanup(srv.Close)
	return srv
}

// post sends body with the given headers (keys sent exactly as spelled) and
// returns the response and its body.
func post(t *testing.T, url string, headers map[string]string, body io.Reader) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	require.NoError(t, err)
	for k, v := range headers {
		req.Header[k] = []string{v}
	}
	return do(t, req)
}

func do(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, data
}

func ctype(v core.Version) string {
	if v == core.V12 {
		return "application/soap+xml; charset=utf-8"
	}
	return "text/xml; charset=utf-8"
}

// readFault parses a fault reply.
func readFault(t *testing.T, data []byte) (*core.Message, *core.Fault) {
	t.Helper()
	m, err := core.ReadMessage(bytes.NewReader(data), core.Limits{})
	require.NoError(t, err, "reply: %s", data)
	f := m.Fault()
	require.NotNil(t, f, "not a fault: %s", data)
	return m, f
}

// readReply parses a reply and decodes its body.
func readReply(t *testing.T, data []byte) (*core.Message, echoResp) {
	t.Helper()
	m, err := core.ReadMessage(bytes.NewReader(data), core.Limits{})
	require.NoError(t, err, "reply: %s", data)
	var r echoResp
	require.NoError(t, m.Body().Decode(&r))
	return m, r
}

type echoResp struct {
	Return string `xml:"return"`
	Action string `xml:"action"`
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }
func bytesReader(b []byte) io.Reader   { return bytes.NewReader(b) }

func xmlName(local string) xml.Name { return xml.Name{Space: testNS, Local: local} }
