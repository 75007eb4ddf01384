package rpc_test

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/rpc"
)

// TestZeepRPCResult records what zeep does with a SOAP 1.2 rpc/encoded
// response that names its return value in an rpc:result accessor (SOAP
// 1.2 Part 2 §4.2.2, WithRPCResult): zeep 4.2.1 refuses it, which is why
// WithRPCResult is off by default. If a zeep release reads it, this test
// fails: the default and the peer matrix in docs/rpc.md can then change.
func TestZeepRPCResult(t *testing.T) {
	requireZeep(t)
	p := startPeerServer(t, newEchoService(rpc.WithStyle(rpc.RPCEncoded), rpc.WithRPCResult(true)))
	cmd := exec.CommandContext(t.Context(), python, "testdata/zeep_client.py", p.URL+"?wsdl", "soap12")
	out, err := cmd.Output()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, "zeep read a response with rpc:result: %s", out)
	t.Logf("zeep: %s", lastLine(ee.Stderr))
	assert.Contains(t, string(ee.Stderr), "Unexpected element '{http://www.w3.org/2003/05/soap-rpc}result'",
		"zeep refuses the accessor its WSDL parts do not declare")
}

func lastLine(b []byte) string {
	for len(b) > 0 && b[len(b)-1] == '\n' {
		b = b[:len(b)-1]
	}
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\n' {
			return string(b[i+1:])
		}
	}
	return string(b)
}
