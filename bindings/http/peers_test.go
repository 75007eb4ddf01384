package http_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/soapwire/soapwire/core/coretest"
)

func TestMain(m *testing.M) { os.Exit(coretest.RunWithPeerSummary(m)) }

// python is Debian's interpreter, which sees python3-zeep and python3-suds
// (a python3 first on PATH may not).
const python = "/usr/bin/python3"

// nodeSoapDir holds the pinned node-soap (package.json, package-lock.json;
// npm ci installs it).
const nodeSoapDir = "testdata/nodesoap"

// needPython checks that Debian's python can import module (the peer).
func needPython(t *testing.T, module string) {
	t.Helper()
	if err := exec.Command(python, "-c", "import "+module).Run(); err != nil {
		coretest.RequirePeer(t, module, fmt.Errorf("%s cannot import %s (apt install python3-%s): %w", python, module, module, err))
	}
}

// needNodeSoap returns the path of node, with node-soap installed.
func needNodeSoap(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		coretest.RequirePeer(t, "node-soap", fmt.Errorf("node is not installed: %w", err))
	}
	if _, err := os.Stat(filepath.Join(nodeSoapDir, "node_modules", "soap", "package.json")); err != nil {
		coretest.RequirePeer(t, "node-soap", fmt.Errorf("not installed (run npm ci in bindings/http/%s): %w", nodeSoapDir, err))
	}
	return node
}

// needGSOAP checks for wsdl2h, soapcpp2, g++ and libgsoap++.
func needGSOAP(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"wsdl2h", "soapcpp2", "g++"} {
		if _, err := exec.LookPath(tool); err != nil {
			coretest.RequirePeer(t, "gSOAP", fmt.Errorf("%s is not installed (apt install gsoap libgsoap-dev g++): %w", tool, err))
		}
	}
	for _, f := range []string{"/usr/include/stdsoap2.h", "/usr/share/gsoap/import/stlvector.h"} {
		if _, err := os.Stat(f); err != nil {
			coretest.RequirePeer(t, "gSOAP", fmt.Errorf("%s is missing (apt install libgsoap-dev gsoap): %w", f, err))
		}
	}
}
