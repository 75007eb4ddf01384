package http_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// python is Debian's interpreter, which sees python3-zeep and python3-suds
// (a python3 first on PATH may not).
const python = "/usr/bin/python3"

// nodeSoapDir holds the pinned node-soap (package.json, package-lock.json;
// npm ci installs it).
const nodeSoapDir = "testdata/nodesoap"

// missingPeer skips the test, or fails it when SOAPWIRE_REQUIRE_PEERS=1 (as
// CI sets it), so a missing peer never passes unnoticed there.
func missingPeer(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("SOAPWIRE_REQUIRE_PEERS") == "1" {
		t.Fatalf("%s (SOAPWIRE_REQUIRE_PEERS=1 requires every interop peer)", msg)
	}
	t.Skip(msg)
}

// needPython checks that Debian's python can import module.
func needPython(t *testing.T, module string) {
	t.Helper()
	if err := exec.Command(python, "-c", "import "+module).Run(); err != nil {
		missingPeer(t, "%s cannot import %s (apt install python3-%s): %v", python, module, module, err)
	}
}

// needNodeSoap returns the path of node, with node-soap installed.
func needNodeSoap(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missingPeer(t, "node is not installed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(nodeSoapDir, "node_modules", "soap", "package.json")); err != nil {
		missingPeer(t, "node-soap is not installed (run npm ci in bindings/%s): %v", nodeSoapDir, err)
	}
	return node
}

// needGSOAP checks for wsdl2h, soapcpp2, g++ and libgsoap++.
func needGSOAP(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"wsdl2h", "soapcpp2", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			missingPeer(t, "gSOAP: %s is not installed (apt install gsoap libgsoap-dev g++): %v", tool, err)
		}
	}
	for _, f := range []string{"/usr/include/stdsoap2.h", "/usr/share/gsoap/import/stlvector.h"} {
		if _, err := os.Stat(f); err != nil {
			missingPeer(t, "gSOAP: %s is missing (apt install libgsoap-dev gsoap): %v", f, err)
		}
	}
}
