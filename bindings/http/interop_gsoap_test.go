package http_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// buildGSOAP generates a gSOAP peer from the WSDL at wsdlURL (wsdl2h +
// soapcpp2 -j) and compiles it with testdata/gsoap/interop.cpp against
// libgsoap++. It returns the program's path.
func buildGSOAP(t *testing.T, wsdlURL string) string {
	t.Helper()
	dir := t.TempDir()
	resp, err := http.Get(wsdlURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	wsdl, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "interop.wsdl"), wsdl, 0o644))
	src, err := os.ReadFile("testdata/gsoap/interop.cpp")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "interop.cpp"), src, 0o644))
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(t.Context(), name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", name, out)
	}
	run("wsdl2h", "-o", "interop.h", "interop.wsdl")
	run("soapcpp2", "-j", "-x", "-I/usr/share/gsoap/import", "interop.h")
	run("g++", "-O0", "-pthread", "-DWITH_PURE_VIRTUAL", "-o", "interop",
		"interop.cpp", "soapC.cpp", "soapInteropServiceSoap11Proxy.cpp", "soapInteropServiceSoap11Service.cpp", "-lgsoap++")
	return filepath.Join(dir, "interop")
}

// TestInteropGSOAP: a gSOAP 2.8 program generated from our "?wsdl" (one
// build, a few seconds) calls the interop service served by NewHandler in
// SOAP 1.1 and 1.2, then serves it for our Transport to call in both
// versions.
func TestInteropGSOAP(t *testing.T) {
	t.Parallel() // mostly waiting for peer processes
	if testing.Short() {
		t.Skip("compiles a gSOAP program (-short)")
	}
	needGSOAP(t)
	wsdlSrv := serve(t, newInteropService())
	bin := buildGSOAP(t, wsdlSrv.URL+"/interop?wsdl")

	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run("client/"+v.String(), func(t *testing.T) {
			rec := &recorder{h: newInteropService()}
			srv := serve(t, rec)
			binding := map[core.Version]string{core.V11: "soap11", core.V12: "soap12"}[v]
			cmd := exec.CommandContext(t.Context(), bin, "call", srv.URL+"/interop", binding)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, "gSOAP client failed: %s", stderr.String())
			var r interopResult
			require.NoError(t, json.Unmarshal(out, &r), "output: %s", out)
			r.check(t)
			if v == core.V12 {
				assert.Equal(t, []string{"ns1:Refused"}, r.Fail.Subcodes, "gSOAP read the subcode")
			} else {
				assert.Equal(t, "ns1:Refused", r.Fail.Code, "gSOAP read the qualified 1.1 faultcode")
			}
			s := v.String()
			assert.Equal(t, []string{
				s + " " + interopNS + "#echoString",
				s + " " + interopNS + "#add",
				s + " " + interopNS + "#echoStruct",
				s + " " + interopNS + "#fail",
			}, rec.calls(), "the version and action of each request")
		})
	}

	ports := startPeerServer(t, ".", bin, "serve")
	require.Len(t, ports, 1)
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run("server/"+v.String(), func(t *testing.T) {
			callInterop(t, "http://127.0.0.1:"+ports[0]+"/interop", v, func(t *testing.T, f *core.Fault, status int) {
				want := map[core.Version]int{core.V11: 500, core.V12: 400}[v]
				assert.Equal(t, want, status)
				assert.Equal(t, "failed: boom", f.Reason)
				reason, code := faultDetail(t, f.Detail)
				assert.Equal(t, "boom", reason)
				assert.Equal(t, 42, code)
			})
		})
	}
}
