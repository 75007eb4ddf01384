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
		name   string
		opts   []rpc.ServiceOption
		define string
	}{
		{"rpc/encoded", []rpc.ServiceOption{rpc.WithStyle(rpc.RPCEncoded)}, "-DENCODED"},
		{"rpc/literal", []rpc.ServiceOption{rpc.WithStyle(rpc.RPCLiteral)}, "-DLITERAL"},
		{"document/literal", []rpc.ServiceOption{rpc.WithStyle(rpc.DocumentLiteral)}, "-DDOCUMENT"},
		// gSOAP is the strict judge of element forms: built from a WSDL
		// that says elementFormDefault="qualified", it reads only
		// qualified elements (an unqualified one would read as empty).
		{"document/literal qualified", []rpc.ServiceOption{rpc.WithStyle(rpc.DocumentLiteral), rpc.WithQualified(true)}, "-DDOCUMENT"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			client := buildGSOAPClient(t, tt.opts, tt.define)
			style := newEchoService(tt.opts...).Style()
			runs := []struct {
				name, binding string
				opts          []rpc.ServiceOption
			}{{"soap11", "soap11", nil}, {"soap12", "soap12", nil}}
			if style == rpc.RPCEncoded { // gSOAP reads the SOAP 1.2 rpc:result accessor
				runs = append(runs, struct {
					name, binding string
					opts          []rpc.ServiceOption
				}{"soap12/rpc:result", "soap12", []rpc.ServiceOption{rpc.WithRPCResult(true)}})
			}
			for _, run := range runs {
				binding := run.binding
				t.Run(run.name, func(t *testing.T) {
					p := startPeerServer(t, newEchoService(append(run.opts, tt.opts...)...))
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

// buildGSOAPClient generates the proxy of the WSDL of the service with opts and builds the
// client; it returns the binary, which lives as long as the calling test.
func buildGSOAPClient(t *testing.T, opts []rpc.ServiceOption, define string) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "echo.wsdl"))
	require.NoError(t, err)
	// The address is only the proxy's default: the client is given the
	// test server's URL.
	require.NoError(t, newEchoService(opts...).WSDL(f, "http://127.0.0.1:1/echo"))
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
