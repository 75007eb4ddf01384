package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Operation is one operation of one port as zeep derives it from a WSDL.
type Operation struct {
	Service   string `json:"service"`
	Port      string `json:"port"`
	Binding   string `json:"binding"` // "soap11", "soap12", or zeep's class of another binding ("HttpGetBinding")
	Name      string `json:"operation"`
	Signature string `json:"signature"` // as `python -m zeep WSDL` prints it: "add(a: xsd:int, b: xsd:int) -> result: xsd:int"
	Action    string `json:"action"`    // the soapAction
}

// ZeepOperations loads wsdl (a file or a URL) with zeep, offline (schemas
// imported by URL come from the catalog, WithCatalog), and returns every
// operation of every port: a reference for what a WSDL reader should
// derive. A WSDL zeep refuses gives an error with zeep's message; a
// harness failure fails t.
func ZeepOperations(t testing.TB, wsdl string, opts ...ClientOption) ([]Operation, error) {
	t.Helper()
	RequirePython(t, "zeep")
	cfg := clientConfig{catalog: filepath.Join(Dir(), "testdata", "catalog")}
	for _, o := range opts {
		o(&cfg)
	}
	py := filepath.Join(Dir(), "testdata", "python")
	script := filepath.Join(py, "zeep_describe.py")
	for _, f := range []string{script, filepath.Join(py, "zeep_client.py"), filepath.Join(py, "peer.py")} {
		os.ReadFile(f) // tells go test's cache that results depend on it
	}
	ctx, cancel := context.WithTimeout(context.Background(), peerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, Python, script, cfg.catalog, wsdl)
	cmd.Dir = py
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 3 {
		return nil, fmt.Errorf("zeep cannot load %s: %s", wsdl, strings.TrimSpace(stderr.String()))
	}
	if err != nil {
		t.Fatalf("zeep_describe.py %s: %v\n%s", wsdl, err, stderr.String())
	}
	var ops []Operation
	s := bufio.NewScanner(&stdout)
	s.Buffer(nil, 16<<20)
	for s.Scan() {
		var op Operation
		if err := json.Unmarshal(s.Bytes(), &op); err != nil {
			t.Fatalf("zeep_describe.py printed %q: %v", s.Text(), err)
		}
		ops = append(ops, op)
	}
	return ops, nil
}
