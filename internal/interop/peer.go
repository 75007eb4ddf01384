package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Python is Debian's interpreter, which sees python3-zeep, python3-suds and
// python3-spyne (a python3 found first on PATH may not).
const Python = "/usr/bin/python3"

// RequirePeersEnv is the variable that turns a missing peer from a skip
// into a failure; CI sets it to 1 (docs/README.md, "Testing").
const RequirePeersEnv = "SOAPWIRE_REQUIRE_PEERS"

// Missing skips t saying why a peer is missing, or fails t when
// SOAPWIRE_REQUIRE_PEERS=1, so a missing peer never passes unnoticed in CI.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv(RequirePeersEnv) == "1" {
		t.Fatalf("%s (%s=1 requires every interop peer)", msg, RequirePeersEnv)
	}
	t.Skip(msg)
}

// checks remembers, per process, what a peer check found (running the
// interpreter costs a few hundred milliseconds).
var checks sync.Map // string -> *check

type check struct {
	once sync.Once
	err  error
}

func checked(key string, f func() error) error {
	v, _ := checks.LoadOrStore(key, &check{})
	c := v.(*check)
	c.once.Do(func() { c.err = f() })
	return c.err
}

// RequirePython makes sure Debian's python can import modules (each from
// the Debian package python3-MODULE), or calls Missing.
func RequirePython(t testing.TB, modules ...string) {
	t.Helper()
	for _, m := range modules {
		err := checked("python:"+m, func() error {
			out, err := exec.Command(Python, "-c", "import "+m).CombinedOutput()
			if err != nil {
				return fmt.Errorf("%v: %s", err, strings.TrimSpace(string(out)))
			}
			return nil
		})
		if err != nil {
			Missing(t, "%s cannot import %s (apt install python3-%s): %v", Python, m, m, err)
		}
	}
}

// RequireGSOAP makes sure wsdl2h, soapcpp2, g++ and libgsoap-dev are
// installed, or calls Missing.
func RequireGSOAP(t testing.TB) {
	t.Helper()
	err := checked("gsoap", func() error {
		for _, tool := range []string{"wsdl2h", "soapcpp2", "g++"} {
			if _, err := exec.LookPath(tool); err != nil {
				return err
			}
		}
		for _, f := range []string{"/usr/include/stdsoap2.h", "/usr/share/gsoap/import/stlvector.h"} {
			if _, err := os.Stat(f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		Missing(t, "gSOAP is not installed (apt install gsoap libgsoap-dev g++): %v", err)
	}
}

// RequireNodeSoap makes sure node and the pinned node-soap
// (testdata/nodesoap, installed by npm ci there) are present, or calls
// Missing. It returns the path of node.
func RequireNodeSoap(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not installed: %v", err)
	}
	dir := filepath.Join(Dir(), "testdata", "nodesoap")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "soap", "package.json")); err != nil {
		Missing(t, "node-soap is not installed (run npm ci in %s): %v", dir, err)
	}
	return node
}
