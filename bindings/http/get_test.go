package http_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
)

// described is a handler that can write its WSDL, as core/rpc's Service does.
type described struct{ core.Handler }

func (described) WSDL(w io.Writer, address string) error {
	_, err := fmt.Fprintf(w, `<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><service><port><address location=%q/></port></service></definitions>`, address)
	return err
}

var _ soaphttp.Describer = described{}

func TestGetWSDL(t *testing.T) {
	srv := serve(t, described{echo})
	for _, query := range []string{"?wsdl", "?WSDL", "?wsdl=", "?x=1&wsdl"} {
		t.Run(query, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+"/services/echo"+query, nil)
			require.NoError(t, err)
			resp, data := do(t, req)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			assert.Equal(t, "text/xml; charset=utf-8", resp.Header.Get("Content-Type"))
			assert.Contains(t, string(data), `location="`+srv.URL+`/services/echo"`)
		})
	}
	t.Run("the address follows the Host the client used", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/services/echo?wsdl", nil)
		require.NoError(t, err)
		req.Host = "soap.example.org:8443"
		resp, data := do(t, req)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(data), `location="http://soap.example.org:8443/services/echo"`)
	})
	t.Run("WithPublicURL behind a proxy", func(t *testing.T) {
		proxied := httptest.NewServer(soaphttp.NewHandler(described{echo}, soaphttp.WithPublicURL("https://soap.example.org/api/")))
		t.Cleanup(proxied.Close)
		req, err := http.NewRequest(http.MethodGet, proxied.URL+"/services/echo?wsdl", nil)
		require.NoError(t, err)
		req.Header.Set("X-Forwarded-Host", "evil.example.net") // never trusted
		resp, data := do(t, req)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(data), `location="https://soap.example.org/api/services/echo"`)
		assert.NotContains(t, string(data), "evil.example.net")
	})
	t.Run("https over TLS", func(t *testing.T) {
		tls := httptest.NewTLSServer(soaphttp.NewHandler(described{echo}))
		t.Cleanup(tls.Close)
		resp, err := tls.Client().Get(tls.URL + "/svc?wsdl")
		require.NoError(t, err)
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(data), `location="`+tls.URL+`/svc"`)
		assert.Contains(t, tls.URL, "https://")
	})
	t.Run("a core/rpc Service is a Describer", func(t *testing.T) {
		srv := serve(t, newInteropService())
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/interop?wsdl", nil)
		require.NoError(t, err)
		resp, data := do(t, req)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(data), `location="`+srv.URL+`/interop"`)
		assert.Contains(t, string(data), `wsdl:service name="InteropService"`)
	})
	t.Run("GET without ?wsdl", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/services/echo", nil)
		require.NoError(t, err)
		resp, _ := do(t, req)
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	})
	t.Run("Allow lists GET", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPut, srv.URL, nil)
		require.NoError(t, err)
		resp, _ := do(t, req)
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
		assert.Equal(t, "GET, POST", resp.Header.Get("Allow"))
	})
	t.Run("WithDescriber for a wrapped handler", func(t *testing.T) {
		srv := serve(t, &core.Node{Handler: echo}, soaphttp.WithDescriber(described{}))
		req, err := http.NewRequest(http.MethodGet, srv.URL+"/x?wsdl", nil)
		require.NoError(t, err)
		resp, data := do(t, req)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, string(data), srv.URL+"/x")
	})
	t.Run("POST still works", func(t *testing.T) {
		resp, data := post(t, srv.URL, map[string]string{"Content-Type": "text/xml"}, stringsReader(envelope(core.V11, "", echoBody)))
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	})
}

// TestGetResponseMEP is the SOAP 1.2 SOAP Response MEP: GET returns an
// envelope holding a document.
func TestGetResponseMEP(t *testing.T) {
	get := func(ctx context.Context, r *http.Request) (*core.Message, error) {
		switch r.URL.Path {
		case "/stock/ACME":
			return core.NewMessage(0, core.RawBody([]byte(`<s:quote xmlns:s="urn:stock"><price>42</price></s:quote>`))), nil
		case "/bad":
			return nil, core.SenderFault("no such symbol")
		case "/broken":
			return nil, fmt.Errorf("database down")
		}
		return nil, nil
	}
	srv := serve(t, echo, soaphttp.WithGet(get), soaphttp.WithAuth(soaphttp.StaticCredentials(map[string]string{"u": "p"})))
	tests := []struct {
		name    string
		path    string
		accept  string
		auth    bool
		status  int
		version core.Version
		fault   core.Code
	}{
		{"document", "/stock/ACME", "application/soap+xml", true, 200, core.V12, 0},
		{"no Accept is 1.2", "/stock/ACME", "", true, 200, core.V12, 0},
		{"Accept text/xml", "/stock/ACME", "text/xml", true, 200, core.V11, 0},
		{"Accept prefers 1.2", "/stock/ACME", "text/xml;q=0.5, application/soap+xml", true, 200, core.V12, 0},
		{"Sender fault is 400", "/bad", "application/soap+xml", true, 400, core.V12, core.CodeSender},
		{"plain error is 500", "/broken", "", true, 500, core.V12, core.CodeReceiver},
		{"nothing there is 404", "/nothing", "", true, 404, 0, 0},
		{"unauthenticated is 401", "/stock/ACME", "application/soap+xml", false, 401, core.V12, core.CodeSender},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, srv.URL+tt.path, nil)
			require.NoError(t, err)
			if tt.accept != "" {
				req.Header.Set("Accept", tt.accept)
			}
			if tt.auth {
				req.SetBasicAuth("u", "p")
			}
			resp, data := do(t, req)
			require.Equal(t, tt.status, resp.StatusCode, "%s", data)
			if tt.version == 0 {
				return
			}
			assert.Equal(t, ctype(tt.version), resp.Header.Get("Content-Type"))
			m, err := core.ReadMessage(bytesReader(data), core.Limits{})
			require.NoError(t, err)
			assert.Equal(t, tt.version, m.Version())
			if tt.status == 200 {
				var q struct {
					Price int `xml:"price"`
				}
				require.NoError(t, m.Body().Decode(&q))
				assert.Equal(t, 42, q.Price)
				return
			}
			require.NotNil(t, m.Fault())
			assert.Equal(t, tt.fault, m.Fault().Code)
		})
	}
}
