package rpc_test

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/rpc"
)

// nodeModules is the pinned node-soap install of the HTTP binding's interop
// tests (package.json + package-lock.json there; npm ci installs it).
const nodeModules = "../../bindings/http/testdata/nodesoap/node_modules"

func requireNodeSoap(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(nodeModules, "soap", "package.json"))
	}
	if err != nil {
		if os.Getenv("SOAPWIRE_REQUIRE_PEERS") == "1" {
			t.Fatalf("node-soap is required (SOAPWIRE_REQUIRE_PEERS=1): %v", err)
		}
		t.Skipf("node-soap is not available (node on PATH and npm ci in bindings/http/testdata/nodesoap): %v", err)
	}
	abs, err := filepath.Abs(nodeModules)
	require.NoError(t, err)
	t.Setenv("NODE_PATH", abs)
	return node
}

// TestNodeSoap: node-soap loads the WSDL of each style and calls every
// operation, in SOAP 1.1 and 1.2.
func TestNodeSoap(t *testing.T) {
	node := requireNodeSoap(t)
	for _, style := range styles {
		for _, binding := range []string{"soap11", "soap12"} {
			t.Run(style.String()+"/"+binding, func(t *testing.T) {
				srv := httptest.NewServer(soapHTTP(newEchoService(rpc.WithStyle(style))))
				t.Cleanup(srv.Close)
				cmd := exec.CommandContext(t.Context(), node, "testdata/nodesoap_client.js", srv.URL+"/echo?wsdl", binding)
				out, err := cmd.Output()
				var stderr string
				if ee, ok := err.(*exec.ExitError); ok {
					stderr = string(ee.Stderr)
				}
				require.NoError(t, err, "node-soap failed:\n%s", stderr)
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
				assert.Contains(t, got.Fail.Detail, "42")
			})
		}
	}
}
