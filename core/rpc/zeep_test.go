package rpc_test

import (
	"fmt"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/rpc"
)

// requireZeep skips (or, with SOAPWIRE_REQUIRE_PEERS=1, fails) when zeep is
// not installed.
func requireZeep(t *testing.T) {
	t.Helper()
	if err := exec.Command(python, "-c", "import zeep").Run(); err != nil {
		coretest.RequirePeer(t, "zeep", fmt.Errorf("not installed for %s (apt install python3-zeep): %w", python, err))
	}
}

// TestZeep: zeep loads the WSDL of each style and calls every operation
// through the SOAP 1.1 and the SOAP 1.2 port.
func TestZeep(t *testing.T) {
	requireZeep(t)
	tests := []struct {
		style    rpc.Style
		binding  string
		wantCode string
	}{
		{rpc.DocumentLiteral, "soap11", "fc:NoAccount"}, // zeep prints the 1.1 faultcode as sent: our subcode, qualified
		{rpc.DocumentLiteral, "soap12", "soap:Sender"},
		{rpc.RPCLiteral, "soap11", "fc:NoAccount"},
		{rpc.RPCLiteral, "soap12", "soap:Sender"},
		{rpc.RPCEncoded, "soap11", "fc:NoAccount"},
		{rpc.RPCEncoded, "soap12", "soap:Sender"},
	}
	for _, tt := range tests {
		t.Run(tt.style.String()+"/"+tt.binding, func(t *testing.T) {
			p := startPeerServer(t, newEchoService(rpc.WithStyle(tt.style)))
			got := runPeer(t, exec.CommandContext(t.Context(), python, "testdata/zeep_client.py", p.URL+"?wsdl", tt.binding))
			assertEchoResults(t, got, p, bindingVersion(tt.binding))
			assert.Equal(t, tt.wantCode, got.Fail.Code)
			assert.Contains(t, got.Fail.Detail, "problem")
			assert.Contains(t, got.Fail.Detail, "<e:code>42</e:code>")
			if bindingVersion(tt.binding) == core.V12 {
				assert.Equal(t, []string{"{urn:soapwire:errors}NoAccount"}, got.Fail.Subcodes)
			}
		})
	}
}
