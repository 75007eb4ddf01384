package interop

import (
	"os"
	"path/filepath"
	"testing"
)

// SpyneServer starts a spyne server (Debian python3-spyne, run by Python)
// of contract c, Qualified, Bare or Headers, on loopback for the test's
// duration: SOAP 1.1 at URL, SOAP 1.2 at URL12, each with its own WSDL
// (spyne writes one binding per endpoint). spyne serves its own model of the contract:
// the same namespace, operations, element names and forms (qualified), the
// same values and fault as GSOAPServer; where its WSDL differs is listed in
// testdata/python/spyne_server.py. It validates requests against its
// schema, so an element in the wrong namespace gets a Client fault
// (SchemaValidationError), not a zero. spyne has no rpc/encoded.
func SpyneServer(t testing.TB, c Contract) *Server {
	t.Helper()
	if c != Qualified && c != Bare && c != Headers {
		t.Fatalf("interop: spyne serves %s, %s and %s, not %s", Qualified, Bare, Headers, c)
	}
	RequirePython(t, "spyne", "lxml")
	script := filepath.Join(Dir(), "testdata", "python", "spyne_server.py")
	os.ReadFile(script) // tells go test's cache that results depend on it
	ports := startServer(t, filepath.Dir(script), Python, script, string(c))
	base := "http://127.0.0.1:" + ports[0]
	return &Server{
		Name: "spyne",
		URL:  base + "/soap11", URL12: base + "/soap12",
		WSDL: base + "/soap11?wsdl", WSDL12: base + "/soap12?wsdl",
	}
}
