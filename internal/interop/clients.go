package interop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// ClientOption configures a zeep or suds client.
type ClientOption func(*clientConfig)

type clientConfig struct{ catalog string }

// WithCatalog makes the client read schemas imported by URL from folder
// dir (a catalog.json mapping URLs to files, as in the WSDL corpus's
// catalog) instead of testdata/catalog, which has the SOAP encoding schema
// and xml.xsd. A URL in no catalog is refused unless it is on loopback:
// the peers are offline.
func WithCatalog(dir string) ClientOption { return func(c *clientConfig) { c.catalog = dir } }

// Zeep returns a zeep client (Debian python3-zeep, run by Python) that
// loads wsdl, a file or a URL, offline.
func Zeep(t testing.TB, wsdl string, opts ...ClientOption) Client {
	t.Helper()
	RequirePython(t, "zeep")
	return newScriptClient("zeep", wsdl, opts, Python, filepath.Join(Dir(), "testdata", "python", "zeep_client.py"))
}

// Suds returns a suds client (Debian python3-suds, suds-community, run by
// Python) that loads wsdl, a file or a URL, offline. suds speaks SOAP 1.1
// only: a call of version 1.2 fails the test.
func Suds(t testing.TB, wsdl string, opts ...ClientOption) Client {
	t.Helper()
	RequirePython(t, "suds")
	return newScriptClient("suds", wsdl, opts, Python, filepath.Join(Dir(), "testdata", "python", "suds_client.py"))
}

// NodeSoap returns a node-soap client (npm soap 1.13.0, pinned in
// testdata/nodesoap) that loads wsdl, a file or a URL. For SOAP 1.2 it is
// created with forceSoap12Headers, as node-soap wants.
func NodeSoap(t testing.TB, wsdl string) Client {
	t.Helper()
	node := RequireNodeSoap(t)
	return newScriptClient("node-soap", wsdl, nil, node, filepath.Join(Dir(), "testdata", "nodesoap", "client.js"))
}

func newScriptClient(name, wsdl string, opts []ClientOption, argv ...string) *scriptClient {
	// Reading the scripts tells go test's cache that a result depends on
	// them (it does not see what the interpreter opens).
	py := filepath.Join(Dir(), "testdata", "python")
	for _, f := range []string{argv[1], filepath.Join(py, "peer.py")} {
		os.ReadFile(f)
	}
	cfg := clientConfig{catalog: filepath.Join(Dir(), "testdata", "catalog")}
	for _, o := range opts {
		o(&cfg)
	}
	return &scriptClient{name: name, wsdl: wsdl, catalog: cfg.catalog, argv: argv}
}

// scriptClient is a peer client run as a script: it gets the calls as
// JSON on standard input and prints their values in the text form.
type scriptClient struct {
	name    string
	wsdl    string
	catalog string
	argv    []string // the interpreter and the script
}

func (s *scriptClient) Name() string { return s.name }

type scriptCall struct {
	Op      string `json:"op"`
	Version string `json:"version"`
	Args    Args   `json:"args"`
	Headers Args   `json:"headers,omitempty"`
}

func (s *scriptClient) Call(t testing.TB, endpoint string, calls ...Call) []Values {
	t.Helper()
	in := struct {
		Calls []scriptCall `json:"calls"`
	}{}
	for _, c := range calls {
		v := "1.1"
		if c.Version == core.V12 {
			v = "1.2"
		}
		in.Calls = append(in.Calls, scriptCall{Op: c.Op, Version: v, Args: c.Args, Headers: c.Headers})
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		t.Fatalf("interop: the arguments: %v", err)
	}
	if endpoint == "" {
		endpoint = "-"
	}
	argv := append(append([]string{}, s.argv...), s.catalog, s.wsdl, endpoint)
	return runValues(t, len(calls), filepath.Dir(s.argv[1]), stdin, argv...)
}
