package rpc_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/rpc"
)

const python = "/usr/bin/python3"

// requirePeer skips (or, with SOAPWIRE_REQUIRE_PEERS=1, fails) when zeep is
// not installed.
func requireZeep(t *testing.T) {
	t.Helper()
	if err := exec.Command(python, "-c", "import zeep").Run(); err != nil {
		if os.Getenv("SOAPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatalf("zeep is required (SOAPWIRE_REQUIRE_PEERS=1) but %s cannot import it: %v", python, err)
		}
		t.Skipf("zeep is not installed for %s (apt install python3-zeep): %v", python, err)
	}
}

type zeepResult struct {
	EchoString string `json:"echoString"`
	Add        int    `json:"add"`
	EchoStruct struct {
		Name  string   `json:"name"`
		Count int      `json:"count"`
		Score float64  `json:"score"`
		Tags  []string `json:"tags"`
	} `json:"echoStruct"`
	Counter struct {
		Return  int `json:"return"`
		Value   int `json:"value"`
		Doubled int `json:"doubled"`
	} `json:"counter"`
	Fail struct {
		Raised   bool     `json:"raised"`
		Code     string   `json:"code"`
		Message  string   `json:"message"`
		Detail   string   `json:"detail"`
		Subcodes []string `json:"subcodes"`
	} `json:"fail"`
}

func TestZeep(t *testing.T) {
	requireZeep(t)
	tests := []struct {
		style    rpc.Style
		binding  string
		wantCode string
	}{
		{rpc.DocumentLiteral, "soap11", "soap:Client.NoAccount"},
		{rpc.DocumentLiteral, "soap12", "soap:Sender"}, // zeep prints the 1.1 code with our subcode dotted
		{rpc.RPCLiteral, "soap11", "soap:Client.NoAccount"},
		{rpc.RPCLiteral, "soap12", "soap:Sender"},
		{rpc.RPCEncoded, "soap11", "soap:Client.NoAccount"},
		{rpc.RPCEncoded, "soap12", "soap:Sender"},
	}
	for _, tt := range tests {
		t.Run(tt.style.String()+"/"+tt.binding, func(t *testing.T) {
			srv := httptest.NewServer(soapHTTP(newEchoService(rpc.WithStyle(tt.style))))
			t.Cleanup(srv.Close)
			cmd := exec.CommandContext(t.Context(), python, "testdata/zeep_client.py", srv.URL+"/echo?wsdl", tt.binding)
			out, err := cmd.Output()
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			require.NoError(t, err, "zeep failed:\n%s", stderr)
			var got zeepResult
			require.NoError(t, json.Unmarshal(out, &got), "output: %s", out)
			assert.Equal(t, "héllo <&> wörld", got.EchoString)
			assert.Equal(t, 42, got.Add)
			assert.Equal(t, "n1", got.EchoStruct.Name)
			assert.Equal(t, 7, got.EchoStruct.Count)
			assert.InDelta(t, 2.5, got.EchoStruct.Score, 0)
			assert.Equal(t, []string{"a", "b", "c"}, got.EchoStruct.Tags)
			assert.Equal(t, 50, got.Counter.Return, "inout/out parameters")
			assert.Equal(t, 5, got.Counter.Value)
			assert.Equal(t, 10, got.Counter.Doubled)
			assert.True(t, got.Fail.Raised)
			assert.Equal(t, tt.wantCode, got.Fail.Code)
			assert.Equal(t, "no such account", got.Fail.Message)
			assert.Contains(t, got.Fail.Detail, "problem")
			assert.Contains(t, got.Fail.Detail, "<e:code>42</e:code>")
			if tt.binding == "soap12" {
				assert.Equal(t, []string{"{urn:soapwire:errors}NoAccount"}, got.Fail.Subcodes)
			}
		})
	}
}
