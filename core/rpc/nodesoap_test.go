package rpc_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/coretest"
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
		coretest.RequirePeer(t, "node-soap", fmt.Errorf("node on PATH and npm ci in bindings/http/testdata/nodesoap: %w", err))
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
				p := startPeerServer(t, newEchoService(rpc.WithStyle(style)))
				got := runPeer(t, exec.CommandContext(t.Context(), node, "testdata/nodesoap_client.js", p.URL+"?wsdl", binding))
				assertEchoResults(t, got, p, bindingVersion(binding))
			})
		}
	}
	t.Run("rpc/encoded/soap12/rpc:result", func(t *testing.T) { // node-soap skips the rpc:result accessor
		p := startPeerServer(t, newEchoService(rpc.WithStyle(rpc.RPCEncoded), rpc.WithRPCResult(true)))
		got := runPeer(t, exec.CommandContext(t.Context(), node, "testdata/nodesoap_client.js", p.URL+"?wsdl", "soap12"))
		assertEchoResults(t, got, p, bindingVersion("soap12"))
	})
}
