package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// TestRun runs the tour: the WSDL, three calls, three faults, a raw POST.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out))
	assert.Equal(t, `server: the Echo service (document/literal wrapped) at $URL
client: GET $URL?wsdl -> 200 text/xml; charset=utf-8
  service Echo, namespace urn:example:echo
  operations: echo, add, divide
  port EchoSoap11 (SOAP 1.1) at $URL
  port EchoSoap12 (SOAP 1.2) at $URL
client (SOAP 1.1): echo "hello, <SOAP> & co" -> "hello, <SOAP> & co"
client (SOAP 1.2): add 2 + 40 -> 42
client (SOAP 1.2): divide 17 / 5 -> 3 remainder 2
client (SOAP 1.2): divide 1 / 0 -> HTTP 400, fault Sender [{urn:example:echo}DivisionByZero]: division by zero
  detail: DivisionByZero, dividend 1
client (SOAP 1.1): divide 1 / 0 -> HTTP 500, fault Sender [{urn:example:echo}DivisionByZero]: division by zero
  detail: DivisionByZero, dividend 1
client (SOAP 1.2): multiply 6 * 7 -> HTTP 400, fault Sender [{http://www.w3.org/2003/05/soap-rpc}ProcedureNotPresent]: no operation {urn:example:echo}multiply
raw POST (text/xml, SOAPAction "urn:example:echo#add"):
  <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><e:add xmlns:e="urn:example:echo"><a>20</a><b>22</b></e:add></soap:Body></soap:Envelope>
  -> 200 text/xml; charset=utf-8
  <soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:addResponse xmlns:m="urn:example:echo"><return>42</return></m:addResponse></soap:Body></soap:Envelope>
`, out.String())
}

// TestServe runs the -serve mode: it answers ?wsdl and calls until its ctx
// ends, then shuts down and returns nil.
func TestServe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln, &out) }()
	url := "http://" + ln.Addr().String() + "/echo"

	resp, err := http.Get(url + "?wsdl")
	require.NoError(t, err)
	wsdl, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(wsdl), `<soap12:address location="`+url+`"/>`)

	tr := soaphttp.NewTransport(url)
	t.Cleanup(tr.CloseIdleConnections)
	sum, err := rpc.Call[AddResp](ctx, rpc.NewClient(tr, ns, rpc.WithVersion(core.V12)), "add", AddReq{A: 1, B: 2})
	require.NoError(t, err)
	assert.Equal(t, int32(3), sum.Sum)

	cancel()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not return after its ctx ended")
	}
	assert.True(t, strings.HasPrefix(out.String(), "serving the Echo service at "+url), out.String())
}

// syncBuffer is a bytes.Buffer safe for two goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// TestREADMEShowsTheOutput: the output README.md shows is what the program
// prints.
func TestREADMEShowsTheOutput(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), &out))
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "```\n"+strings.TrimSpace(out.String())+"\n```", "README.md's output block is out of date")
}
