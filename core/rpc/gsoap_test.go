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

func requireGSOAP(t *testing.T) {
	t.Helper()
	var missing string
	for _, tool := range []string{"wsdl2h", "soapcpp2", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = tool
		}
	}
	if _, err := os.Stat("/usr/include/stdsoap2.h"); err != nil && missing == "" {
		missing = "libgsoap-dev (stdsoap2.h)"
	}
	if missing == "" {
		return
	}
	if os.Getenv("SOAPWIRE_REQUIRE_PEERS") == "1" {
		t.Fatalf("gSOAP is required (SOAPWIRE_REQUIRE_PEERS=1) but %s is missing", missing)
	}
	t.Skipf("gSOAP is not available: %s is missing (apt install gsoap libgsoap-dev g++)", missing)
}

// TestGSOAP: wsdl2h and soapcpp2 generate a C++ client from the WSDL of
// each style, which is built against libgsoap++ and calls every
// operation over SOAP 1.1. (It takes a while: the generated code is
// compiled each run.)
func TestGSOAP(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a C++ client; skipped with -short")
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
		t.Run(tt.style.String(), func(t *testing.T) { testGSOAP(t, tt.style, tt.define) })
	}
}

func testGSOAP(t *testing.T, style rpc.Style, define string) {
	svc := newEchoService(rpc.WithStyle(style))
	srv := httptest.NewServer(soapHTTP(svc))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "echo.wsdl"))
	require.NoError(t, err)
	require.NoError(t, svc.WSDL(f, srv.URL+"/echo"))
	require.NoError(t, f.Close())
	src, err := os.ReadFile("testdata/gsoap_client.cpp")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "gsoap_client.cpp"), src, 0o644))

	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)
	}
	run("wsdl2h", "-o", "echo.h", "echo.wsdl")
	run("soapcpp2", "-j", "-C", "-x", "-I/usr/share/gsoap/import", "echo.h")
	run("g++", "-O0", define, "-o", "gsoap_client", "gsoap_client.cpp", "soapC.cpp", "soapEchoServiceSoap11Proxy.cpp", "-lgsoap++")

	cmd := exec.CommandContext(t.Context(), filepath.Join(dir, "gsoap_client"), srv.URL+"/echo")
	out, err := cmd.Output()
	var stderr string
	if ee, ok := err.(*exec.ExitError); ok {
		stderr = string(ee.Stderr)
	}
	require.NoError(t, err, "gSOAP client failed:\n%s", stderr)
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
	// gSOAP reports a 1.1 Client fault with the 1.2 name.
	assert.Regexp(t, `^SOAP-ENV:(Client|Sender)`, got.Fail.Code)
	assert.Contains(t, got.Fail.Detail, "42")
}
