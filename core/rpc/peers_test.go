package rpc_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// The real-client tests (TestZeep, TestSuds, TestNodeSoap, TestGSOAP) share
// this: each peer script or program loads the example service's WSDL (or
// code generated from it), calls every operation and prints one JSON object.

// python is Debian's interpreter, which sees python3-zeep and python3-suds
// (the python3 first on PATH may be another one).
const python = "/usr/bin/python3"

// peerResult is what every peer client prints.
type peerResult struct {
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

func TestMain(m *testing.M) { os.Exit(coretest.RunWithPeerSummary(m)) }

// runPeer runs a peer client and decodes what it prints.
func runPeer(t *testing.T, cmd *exec.Cmd) peerResult {
	t.Helper()
	out, err := cmd.Output()
	var stderr string
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = string(ee.Stderr)
	}
	require.NoError(t, err, "%s failed:\n%s", cmd.Path, stderr)
	var got peerResult
	require.NoError(t, json.Unmarshal(out, &got), "output: %s", out)
	return got
}

// assertEchoResults checks the values every peer must get back, and that
// the server read only envelopes of version want.
func assertEchoResults(t *testing.T, got peerResult, p *peerServer, want core.Version) {
	t.Helper()
	assert.Equal(t, "héllo <&> wörld", got.EchoString)
	assert.Equal(t, 42, got.Add)
	assert.Equal(t, "n1", got.EchoStruct.Name)
	assert.Equal(t, 7, got.EchoStruct.Count)
	assert.InDelta(t, 2.5, got.EchoStruct.Score, 0)
	assert.Equal(t, []string{"a", "b", "c"}, got.EchoStruct.Tags, "the string array field")
	assert.Equal(t, 50, got.Counter.Return, "inout/out parameters")
	assert.Equal(t, 5, got.Counter.Value)
	assert.Equal(t, 10, got.Counter.Doubled)
	assert.True(t, got.Fail.Raised, "the fail operation raised no fault")
	assert.Equal(t, "no such account", got.Fail.Message)
	assert.Contains(t, got.Fail.Detail, "42", "the fault detail")
	seen := p.versions()
	assert.Equal(t, 5, seen[want], "requests of SOAP %s read (all: %v)", want, seen)
	assert.Len(t, seen, 1, "only SOAP %s envelopes: %v", want, seen)
}
