package rpc_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/rpc"
)

func requireGSOAP(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"wsdl2h", "soapcpp2", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			coretest.RequirePeer(t, "gSOAP", fmt.Errorf("%s is missing (apt install gsoap libgsoap-dev g++): %w", tool, err))
		}
	}
	if _, err := os.Stat("/usr/include/stdsoap2.h"); err != nil {
		coretest.RequirePeer(t, "gSOAP", fmt.Errorf("libgsoap-dev (stdsoap2.h) is missing: %w", err))
	}
}

// TestGSOAP: for each style, wsdl2h and soapcpp2 generate C++ from the
// service's WSDL and g++ builds testdata/gsoap/client.cpp against
// libgsoap++, once per style and test run (in the test's temporary
// directory); the client then calls every operation through the SOAP 1.1
// and through the SOAP 1.2 binding. Building takes a few seconds per style.
func TestGSOAP(t *testing.T) {
	if testing.Short() && os.Getenv(coretest.RequirePeersEnv) != "1" {
		t.Skip("builds a C++ client per style; skipped with -short")
	}
	requireGSOAP(t)
	for _, tt := range []struct {
		style  rpc.Style
		define string
	}{
		{rpc.RPCEncoded, "-DENCODED"},
		{rpc.RPCLiteral, "-DLITERAL"},
		{rpc.DocumentLiteral, "-DDOCUMENT"},
	} {
		t.Run(tt.style.String(), func(t *testing.T) {
			client := buildGSOAPClient(t, tt.style, tt.define)
			runs := []struct {
				name, binding string
				opts          []rpc.ServiceOption
			}{{"soap11", "soap11", nil}, {"soap12", "soap12", nil}}
			if tt.style == rpc.RPCEncoded { // gSOAP reads the SOAP 1.2 rpc:result accessor
				runs = append(runs, struct {
					name, binding string
					opts          []rpc.ServiceOption
				}{"soap12/rpc:result", "soap12", []rpc.ServiceOption{rpc.WithRPCResult(true)}})
			}
			for _, run := range runs {
				binding := run.binding
				t.Run(run.name, func(t *testing.T) {
					p := startPeerServer(t, newEchoService(append(run.opts, rpc.WithStyle(tt.style))...))
					got := runPeer(t, exec.CommandContext(t.Context(), client, p.URL, binding))
					assertEchoResults(t, got, p, bindingVersion(binding))
					if binding == "soap11" {
						// the subcode is the 1.1 faultcode (WS-I BP R1004); gSOAP
						// writes a namespace it does not know as "URI":local.
						assert.Equal(t, `"urn:soapwire:errors":NoAccount`, got.Fail.Code)
					} else {
						assert.Equal(t, "SOAP-ENV:Sender", got.Fail.Code)
						// gSOAP writes a subcode in a namespace it does not know as "URI":local.
						assert.Equal(t, []string{`"urn:soapwire:errors":NoAccount`}, got.Fail.Subcodes)
					}
				})
			}
		})
	}
}

// buildGSOAPClient generates the proxy of style's WSDL and builds the
// client; it returns the binary, which lives as long as the calling test.
func buildGSOAPClient(t *testing.T, style rpc.Style, define string) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "echo.wsdl"))
	require.NoError(t, err)
	// The address is only the proxy's default: the client is given the
	// test server's URL.
	require.NoError(t, newEchoService(rpc.WithStyle(style)).WSDL(f, "http://127.0.0.1:1/echo"))
	require.NoError(t, f.Close())
	for _, name := range []string{"client.cpp", "calls.inc"} {
		src, err := os.ReadFile(filepath.Join("testdata", "gsoap", name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), src, 0o644))
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)
	}
	run("wsdl2h", "-o", "echo.h", "echo.wsdl")
	run("soapcpp2", "-j", "-C", "-x", "-I/usr/share/gsoap/import", "echo.h")
	run("g++", "-O0", define, "-o", "client", "client.cpp", "soapC.cpp", "soapEchoServiceSoap11Proxy.cpp", "-lgsoap++")
	return filepath.Join(dir, "client")
}
