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

func requireSuds(t *testing.T) {
	t.Helper()
	if err := exec.Command(python, "-c", "import suds").Run(); err != nil {
		if os.Getenv("SOAPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatalf("suds is required (SOAPWIRE_REQUIRE_PEERS=1) but %s cannot import it: %v", python, err)
		}
		t.Skipf("suds is not installed for %s (apt install python3-suds): %v", python, err)
	}
}

// TestSuds: suds (SOAP 1.1 only) loads the WSDL of each style and calls
// every operation.
func TestSuds(t *testing.T) {
	requireSuds(t)
	for _, style := range styles {
		t.Run(style.String(), func(t *testing.T) {
			srv := httptest.NewServer(soapHTTP(newEchoService(rpc.WithStyle(style))))
			t.Cleanup(srv.Close)
			cmd := exec.CommandContext(t.Context(), python, "testdata/suds_client.py", srv.URL+"/echo?wsdl")
			out, err := cmd.Output()
			var stderr string
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = string(ee.Stderr)
			}
			require.NoError(t, err, "suds failed:\n%s", stderr)
			var got zeepResult
			require.NoError(t, json.Unmarshal(out, &got), "output: %s", out)
			assert.Equal(t, "héllo <&> wörld", got.EchoString)
			assert.Equal(t, 42, got.Add)
			assert.Equal(t, "n1", got.EchoStruct.Name)
			assert.Equal(t, 7, got.EchoStruct.Count)
			assert.InDelta(t, 2.5, got.EchoStruct.Score, 0)
			assert.Equal(t, []string{"a", "b", "c"}, got.EchoStruct.Tags)
			assert.Equal(t, 50, got.Counter.Return)
			assert.Equal(t, 5, got.Counter.Value)
			assert.Equal(t, 10, got.Counter.Doubled)
			assert.True(t, got.Fail.Raised)
			assert.Equal(t, "no such account", got.Fail.Message)
			assert.Contains(t, got.Fail.Code, "Client")
		})
	}
}
