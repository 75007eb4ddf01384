package interop

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core"
)

// CacheEnv names a folder for the built gSOAP peers; by default they go to
// soapwire-interop in the user's cache folder (os.UserCacheDir).
const CacheEnv = "SOAPWIRE_INTEROP_CACHE"

// gsoapBinding is the first binding of each contract, which names the
// classes and files soapcpp2 -j generates.
var gsoapBinding = map[Contract]string{
	Qualified: "CalcSoap11",
	Bare:      "CalcBareSoap11",
	Encoded:   "CalcEncodedSoap11",
	Headers:   "CalcHeadersSoap11",
}

// builds holds one build per contract and process.
var builds sync.Map // Contract -> *build

type build struct {
	once sync.Once
	bin  string
	err  error
}

// GSOAPProgram returns the gSOAP peer program of contract c (server and
// client in one binary, see testdata/gsoap/common.h), building it when
// needed: wsdl2h and soapcpp2 -j generate C++ from the contract, g++
// compiles it with testdata/gsoap/CONTRACT.cpp against libgsoap++. A build
// takes 10 to 20 seconds; it is kept in a cache folder (CacheEnv) named by
// a hash of its inputs and of the gSOAP and g++ versions, so later test
// runs reuse it, and done at most once per process.
func GSOAPProgram(t testing.TB, c Contract) string {
	t.Helper()
	RequireGSOAP(t)
	if gsoapBinding[c] == "" {
		t.Fatalf("interop: no gSOAP peer for contract %q", c)
	}
	v, _ := builds.LoadOrStore(c, &build{})
	b := v.(*build)
	b.once.Do(func() {
		start := time.Now()
		var cached bool
		b.bin, cached, b.err = buildGSOAP(c)
		if b.err == nil && !cached {
			t.Logf("gSOAP peer of %s built in %s: %s", c, time.Since(start).Round(time.Millisecond), b.bin)
		}
	})
	if b.err != nil {
		t.Fatalf("building the gSOAP peer of %s: %v", c, b.err)
	}
	return b.bin
}

// cacheDir returns the folder the built peers are kept in.
func cacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return d, os.MkdirAll(d, 0o755)
	}
	base, err := os.UserCacheDir()
	if err != nil {
		base = filepath.Join(os.TempDir(), fmt.Sprintf("soapwire-cache-%d", os.Getuid()))
	}
	d := filepath.Join(base, "soapwire-interop")
	return d, os.MkdirAll(d, 0o755)
}

// gsoapSources are the files a contract's program is built from.
func gsoapSources(c Contract) []string {
	g := filepath.Join(Dir(), "testdata", "gsoap")
	return []string{c.Path(), filepath.Join(g, "typemap.dat"), filepath.Join(g, "common.h"),
		filepath.Join(g, "person.h"), filepath.Join(g, string(c)+".cpp")}
}

// buildKey hashes what the program depends on: its sources and the tools.
func buildKey(c Contract) (string, error) {
	h := sha256.New()
	for _, f := range gsoapSources(c) {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	for _, argv := range [][]string{{"soapcpp2", "-V"}, {"wsdl2h", "-V"}, {"g++", "-dumpfullversion", "-dumpmachine"}, {"g++", "-print-file-name=libgsoap++.so"}} {
		out, _ := exec.Command(argv[0], argv[1:]...).CombinedOutput()
		fmt.Fprintf(h, "%s: %s\n", argv, out)
	}
	for _, f := range []string{"/usr/include/stdsoap2.h"} {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// buildGSOAP builds c's program into the cache, or finds it there. It
// builds in a fresh folder and renames it into place, so test processes
// building at once each get a whole program.
func buildGSOAP(c Contract) (bin string, cached bool, err error) {
	key, err := buildKey(c)
	if err != nil {
		return "", false, err
	}
	root, err := cacheDir()
	if err != nil {
		return "", false, err
	}
	final := filepath.Join(root, "gsoap-"+string(c)+"-"+key)
	bin = filepath.Join(final, string(c))
	if _, err := os.Stat(bin); err == nil {
		return bin, true, nil
	}
	tmp, err := os.MkdirTemp(root, "building-")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(tmp)
	for _, f := range gsoapSources(c) {
		if err := copyFile(f, filepath.Join(tmp, filepath.Base(f))); err != nil {
			return "", false, err
		}
	}
	step := func(argv ...string) error {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = tmp
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
		return nil
	}
	if err := step("wsdl2h", "-t", "typemap.dat", "-o", "calc.h", string(c)+".wsdl"); err != nil {
		return "", false, err
	}
	if err := step("soapcpp2", "-j", "-x", "-I/usr/share/gsoap/import", "calc.h"); err != nil {
		return "", false, err
	}
	// The four units compile in parallel (most of the time is soapC.cpp).
	b := gsoapBinding[c]
	units := []string{string(c) + ".cpp", "soapC.cpp", "soap" + b + "Proxy.cpp", "soap" + b + "Service.cpp"}
	errs := make([]error, len(units))
	var wg sync.WaitGroup
	for i, u := range units {
		wg.Go(func() {
			errs[i] = step("g++", "-O0", "-pthread", "-DWITH_PURE_VIRTUAL", "-c", u)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return "", false, err
	}
	objs := make([]string, len(units))
	for i, u := range units {
		objs[i] = strings.TrimSuffix(u, ".cpp") + ".o"
	}
	link := append([]string{"g++", "-pthread", "-o", string(c)}, objs...)
	if err := step(append(link, "-lgsoap++")...); err != nil {
		return "", false, err
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(bin); statErr == nil {
			return bin, false, nil // another process built it meanwhile
		}
		return "", false, err
	}
	return bin, false, nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// ServerOption configures a gSOAP server.
type ServerOption func(*serverConfig)

type serverConfig struct{ strict bool }

// Strict makes the gSOAP server validate what it reads (SOAP_XML_STRICT):
// an element it does not expect, or a required one missing, is a fault
// instead of a value left empty.
func Strict() ServerOption { return func(c *serverConfig) { c.strict = true } }

// Server is a peer server on loopback.
type Server struct {
	Name  string // "gSOAP", "spyne"
	URL   string // the endpoint, for both SOAP versions unless URL12 is set
	URL12 string // the SOAP 1.2 endpoint, when it differs from URL
	// WSDL describes the server at its address (a file or a URL): every
	// port unless WSDL12 is set, else the SOAP 1.1 port.
	WSDL   string
	WSDL12 string // the WSDL of the SOAP 1.2 endpoint, when it has its own
}

// Endpoint returns the server's endpoint for SOAP version v.
func (s *Server) Endpoint(v core.Version) string {
	if v == core.V12 && s.URL12 != "" {
		return s.URL12
	}
	return s.URL
}

// WSDLOf returns the WSDL that describes the server's port of version v.
func (s *Server) WSDLOf(v core.Version) string {
	if v == core.V12 && s.WSDL12 != "" {
		return s.WSDL12
	}
	return s.WSDL
}

// GSOAPServer starts contract c's gSOAP server on loopback for the test's
// duration. It answers both SOAP versions at one URL, each request in its
// own version, as the contract says: echoString, add and echoStruct echo
// (Encoded adds sumArray), fail answers a Sender/Client fault "calc
// refused: CODE" with the detail CalcFault{code: CODE, message: "failure
// CODE as asked"}. gSOAP reads leniently by default (an element in the
// wrong namespace is skipped, its value left empty or zero); Strict makes
// it refuse such a request.
func GSOAPServer(t testing.TB, c Contract, opts ...ServerOption) *Server {
	t.Helper()
	var cfg serverConfig
	for _, o := range opts {
		o(&cfg)
	}
	bin := GSOAPProgram(t, c)
	argv := []string{bin, "serve"}
	if cfg.strict {
		argv = append(argv, "strict")
	}
	ports := startServer(t, filepath.Dir(bin), argv...)
	url := "http://127.0.0.1:" + ports[0] + "/" + string(c)
	return &Server{Name: "gSOAP", URL: url, WSDL: ContractAt(t, c, url)}
}

// GSOAPClient returns contract c's gSOAP client. Its Call needs an
// endpoint (the contract's own address is a placeholder).
func GSOAPClient(t testing.TB, c Contract) Client {
	t.Helper()
	return &gsoapClient{bin: GSOAPProgram(t, c), contract: c}
}

type gsoapClient struct {
	bin      string
	contract Contract
}

func (g *gsoapClient) Name() string { return "gSOAP" }

func (g *gsoapClient) Call(t testing.TB, endpoint string, calls ...Call) []Values {
	t.Helper()
	if endpoint == "" {
		t.Fatal("interop: the gSOAP client needs an endpoint")
	}
	out := make([]Values, 0, len(calls))
	for _, c := range calls {
		binding := "soap11"
		if c.Version == core.V12 {
			binding = "soap12"
		}
		argv := []string{g.bin, "call", endpoint, binding, c.Op}
		args := Args{}
		for p, v := range c.Args {
			args[p] = v
		}
		for p, v := range c.Headers {
			args["header."+p] = v // the program's name for a header block's value
		}
		for _, p := range sortedPaths(args) {
			text, isNil := argText(args[p])
			if isNil {
				argv = append(argv, p)
			} else {
				argv = append(argv, p+"="+text)
			}
		}
		out = append(out, runValues(t, 1, filepath.Dir(g.bin), nil, argv...)...)
	}
	return out
}
