package interop

import (
	"os"
	"path/filepath"
	"testing"
)

// NodeSoapServer starts a node-soap server (npm soap 1.13.0, pinned in
// testdata/nodesoap) of contract c on loopback for the test's duration:
// soap.listen given the contract's WSDL, SOAP 1.1 at URL and SOAP 1.2 at
// URL12 (node-soap chooses the envelope version per server; Encoded has no
// SOAP 1.2 port), answering as GSOAPServer does (testdata/nodesoap/server.js;
// Headers' Trace block through addSoapHeader).
// Of Encoded it serves what node-soap makes of rpc/encoded: accessors
// qualified in the wrapper's namespace, no xsi:type, which the contract
// does not allow (TestGeneratedClientNodeSoapEncoded).
// WSDL and WSDL12 are the contract with every port's address set to URL
// and URL12. node-soap reads leniently: it does not check element forms or
// required elements.
func NodeSoapServer(t testing.TB, c Contract) *Server {
	t.Helper()
	node := RequireNodeSoap(t)
	script := filepath.Join(Dir(), "testdata", "nodesoap", "server.js")
	os.ReadFile(script) // tells go test's cache that results depend on it
	ports := startServer(t, filepath.Dir(script), node, script, string(c), c.Path())
	if len(ports) < 2 {
		t.Fatalf("interop: the node-soap server printed the ports %v", ports)
	}
	url := "http://127.0.0.1:" + ports[0] + "/" + string(c)
	url12 := "http://127.0.0.1:" + ports[1] + "/" + string(c)
	return &Server{Name: "node-soap", URL: url, URL12: url12, WSDL: ContractAt(t, c, url), WSDL12: ContractAt(t, c, url12)}
}
