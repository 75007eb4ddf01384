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

func requireSuds(t *testing.T) {
	t.Helper()
	if err := exec.Command(python, "-c", "import suds").Run(); err != nil {
		coretest.RequirePeer(t, "suds", fmt.Errorf("not installed for %s (apt install python3-suds): %w", python, err))
	}
}

// TestSuds: suds (SOAP 1.1 only) loads the WSDL of each style and calls
// every operation.
func TestSuds(t *testing.T) {
	requireSuds(t)
	for _, style := range styles {
		t.Run(style.String(), func(t *testing.T) {
			p := startPeerServer(t, newEchoService(rpc.WithStyle(style)))
			got := runPeer(t, exec.CommandContext(t.Context(), python, "testdata/suds_client.py", p.URL+"?wsdl"))
			assertEchoResults(t, got, p, core.V11)
			assert.Equal(t, "fc:NoAccount", got.Fail.Code, "suds reports the qualified 1.1 faultcode as sent")
		})
	}
}
