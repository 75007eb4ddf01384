package interop

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/soapwire/soapwire/core/coretest"
)

// Python is Debian's interpreter, which sees python3-zeep, python3-suds and
// python3-spyne (a python3 found first on PATH may not).
const Python = "/usr/bin/python3"

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
// the Debian package python3-MODULE), or skips t (fails it with
// SOAPWIRE_REQUIRE_PEERS=1, coretest.RequirePeer).
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
			err = fmt.Errorf("%s cannot import %s (apt install python3-%s): %w", Python, m, m, err)
		}
		coretest.RequirePeer(t, m, err)
	}
}

// RequireGSOAP makes sure wsdl2h, soapcpp2, g++ and libgsoap-dev are
// installed, or skips t (coretest.RequirePeer).
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
		err = fmt.Errorf("%w (apt install gsoap libgsoap-dev g++)", err)
	}
	coretest.RequirePeer(t, "gSOAP", err)
}

// RequireNodeSoap makes sure node and the pinned node-soap
// (testdata/nodesoap, installed by npm ci there) are present, or skips t
// (coretest.RequirePeer). It returns the path of node.
func RequireNodeSoap(t testing.TB) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		dir := filepath.Join(Dir(), "testdata", "nodesoap")
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules", "soap", "package.json")); statErr != nil {
			err = fmt.Errorf("node-soap is not installed (run npm ci in %s): %w", dir, statErr)
		}
	}
	coretest.RequirePeer(t, "node-soap", err)
	return node
}
