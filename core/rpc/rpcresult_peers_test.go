package rpc_test

import (
	"os"
	"os/exec"
	"path/filepath"
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

// TestGSOAPServerRPCResult records what a gSOAP server generated from the
// service's SOAP 1.2 rpc/encoded WSDL sends: wsdl2h and soapcpp2 -S make
// its serializers, and the response's writes its return value as the
// plain <return> accessor, never calling soap_element_result (gSOAP's
// writer of rpc:result). The day it does, the peer matrix in docs/rpc.md
// changes.
func TestGSOAPServerRPCResult(t *testing.T) {
	requireGSOAP(t)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "echo.wsdl"))
	require.NoError(t, err)
	require.NoError(t, newEchoService(rpc.WithStyle(rpc.RPCEncoded), rpc.WithRPCResult(true)).WSDL(f, "http://127.0.0.1:1/echo"))
	require.NoError(t, f.Close())
	for _, args := range [][]string{{"wsdl2h", "-o", "echo.h", "echo.wsdl"}, {"soapcpp2", "-j", "-S", "-x", "-I/usr/share/gsoap/import", "echo.h"}} {
		cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", args[0], out)
	}
	src, err := os.ReadFile(filepath.Join(dir, "soapC.cpp"))
	require.NoError(t, err)
	assert.Contains(t, string(src), `soap_out_std__string(soap, "return", -1, &a->return_, "")`, "echoString's response writes <return>")
	assert.NotContains(t, string(src), "soap_element_result", "the serializers never write rpc:result")
	header, err := os.ReadFile(filepath.Join(dir, "echo.h"))
	require.NoError(t, err)
	assert.Contains(t, string(header), "service method-encoding:	echoString_ http://www.w3.org/2003/05/soap-encoding", "the SOAP 1.2 rpc/encoded binding was generated")
}
