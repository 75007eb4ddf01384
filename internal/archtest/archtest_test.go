package archtest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/internal/archtest"
)

// knownState lists the package-level variables of core packages accepted
// for now, per package (relative to the module), with why. Each is a debt
// against DESIGN.md §1.7: remove the entry when the variable goes. A new
// variable is not added here without the lead's agreement.
var knownState = map[string]map[string]string{
	"core": {
		"writeBufs": "sync.Pool of writer buffers (no observable state), added for the benchmarks",
	},
	"core/internal/xmltok": {
		"readBufs": "sync.Pool of idle *Reader values with their buffers (Reader.Release; no observable state)",
	},
	"core/soapenc": {
		"noExtra":      "zero value used as a marker, never written",
		"typeElement":  "reflect.Type constant",
		"statePool":    "sync.Pool of encoder buffers (no observable state)",
		"infoCache":    "sync.Map cache of per-type encoding plans, like encoding/xml's (no observable state)",
		"noZone":       "time.FixedZone constant",
		"xsdNames":     "read-only lookup table",
		"xsdKinds":     "read-only lookup table",
		"naturalTypes": "read-only lookup table",
		"typeTime":     "reflect.Type constant",
		"typeName":     "reflect.Type constant",
		"typeBigInt":   "reflect.Type constant",
		"typeBigRat":   "reflect.Type constant",
		"typeDecimal":  "reflect.Type constant",
		"typeHex":      "reflect.Type constant",
		"typeAny":      "reflect.Type constant",
		"typeMapAny":   "reflect.Type constant",
		"typeSlcAny":   "reflect.Type constant",
	},
	"core/rpc": {
		"subBadArguments":        "xml.Name constant",
		"subProcedureNotPresent": "xml.Name constant",
	},
	"core/xsd": {
		"standardFS": "embed.FS of the standard schemas soapwire ships (read-only; go:embed needs a variable)",
	},
}

// listed is the part of `go list -json` the test reads.
type listed struct {
	archtest.Package
	Error *struct{ Err string }
}

// moduleRoot returns the module path and its root folder.
func moduleRoot(t *testing.T) (archtest.Module, string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	require.NoError(t, err, "go env GOMOD")
	gomod := strings.TrimSpace(string(out))
	require.NotEmpty(t, gomod, "not inside a module")
	require.NotEqual(t, os.DevNull, gomod, "not inside a module")
	root := filepath.Dir(gomod)

	cmd := exec.Command("go", "mod", "edit", "-json")
	cmd.Dir = root
	out, err = cmd.Output()
	require.NoError(t, err, "go mod edit -json")
	var mf struct {
		Module  struct{ Path string }
		Require []struct{ Path string }
	}
	require.NoError(t, json.Unmarshal(out, &mf))
	m := archtest.Module{Path: mf.Module.Path}
	for _, r := range mf.Require {
		m.Requires = append(m.Requires, r.Path)
	}
	return m, root
}

// goList runs `go list -e -json ./...` in the module root.
func goList(t *testing.T, root string) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list: %s", stderr.String())
	var pkgs []listed
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listed
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		pkgs = append(pkgs, p)
	}
	require.NotEmpty(t, pkgs)
	return pkgs
}

func TestImportTable(t *testing.T) {
	m, root := moduleRoot(t)
	var pkgs []archtest.Package
	for _, p := range goList(t, root) {
		if p.Error != nil {
			// its imports may be incomplete; the build of that package fails on its own
			t.Logf("%s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p.Package)
	}
	for _, v := range archtest.CheckImports(archtest.Table, m, pkgs) {
		t.Error(v)
	}
}

func TestCoreHasNoGlobalState(t *testing.T) {
	m, root := moduleRoot(t)
	checked := 0
	for _, p := range goList(t, root) {
		if !archtest.InCore(m.Path, p.ImportPath) {
			continue
		}
		rel := strings.TrimPrefix(p.ImportPath, m.Path+"/")
		allow := knownState[rel]
		used := map[string]bool{}
		files, err := filepath.Glob(filepath.Join(p.Dir, "*.go"))
		require.NoError(t, err)
		fset := token.NewFileSet()
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			for _, msg := range archtest.CheckGlobalState(fset, f, allow, used) {
				if r, err := filepath.Rel(root, msg); err == nil && !strings.HasPrefix(r, "..") {
					msg = r
				}
				t.Error(msg)
			}
			checked++
		}
		var stale []string
		for name := range allow {
			if !used[name] {
				stale = append(stale, name)
			}
		}
		sort.Strings(stale)
		for _, name := range stale {
			t.Logf("%s: knownState lists %s, which is gone: drop the entry", rel, name)
		}
	}
	require.NotZero(t, checked, "no core file was checked")
}

// fakeModule is a module for the rule tests.
var fakeModule = archtest.Module{
	Path:     "example.com/m",
	Requires: []string{"github.com/stretchr/testify", "github.com/nats-io/nats.go", "github.com/emersion/go-smtp", "goftp.io/server/v2"},
}

func pkg(rel string, imports ...string) archtest.Package {
	return archtest.Package{ImportPath: mod(rel), Imports: imports}
}

func mod(rel string) string {
	if rel == "" {
		return fakeModule.Path
	}
	return fakeModule.Path + "/" + rel
}

func TestCheckImportsAccepts(t *testing.T) {
	pkgs := []archtest.Package{
		pkg("core", "bytes", "encoding/xml", mod("core/internal/xmltok")),
		pkg("core/internal/xmltok", "encoding/xml"),
		pkg("core/soapenc", "reflect", mod("core")),
		pkg("core/rpc", mod("core"), mod("core/soapenc"), mod("core/wsdl")),
		pkg("core/wsdl", mod("core/soapenc")),
		pkg("core/coretest", mod("core"), "github.com/stretchr/testify/require", "testing"),
		pkg("document", mod("core"), mod("core/rpc"), "os"),
		pkg("bindings/http", mod("core"), mod("core/wsdl"), "net/http", mod("bindings/http/internal/media")),
		pkg("bindings/http/internal/media", "mime"),
		pkg("bindings/smtp", mod("core"), "github.com/emersion/go-smtp", "github.com/emersion/go-sasl"),
		pkg("bindings/ftp", mod("core"), "github.com/jlaffaye/ftp", "goftp.io/server/v2", "goftp.io/server/v2/driver/file"),
		pkg("bindings/nats", mod("core"), "github.com/nats-io/nats.go", "github.com/nats-io/nats.go/jetstream"),
		pkg("examples/quickstart", mod("core"), mod("bindings/nats"), mod("document"), "github.com/nats-io/nats.go"),
		pkg("cmd/soapwire", mod("core/coretest"), "github.com/emersion/go-smtp/backendutil"),
		pkg("internal/archtest", "go/parser", mod("core")),
		{
			ImportPath:   mod("bindings/nats"),
			Imports:      []string{mod("core")},
			TestImports:  []string{"github.com/stretchr/testify/require"},
			XTestImports: []string{mod("bindings/nats"), mod("core/coretest"), "github.com/nats-io/nats-server/v2/server"},
		},
		{ImportPath: "github.com/other/pkg", Imports: []string{"anything.example/x"}}, // not the module's: ignored
	}
	assert.Empty(t, archtest.CheckImports(archtest.Table, fakeModule, pkgs))
}

func TestCheckImportsRefuses(t *testing.T) {
	cases := []struct {
		name string
		pkg  archtest.Package
		want string
	}{
		{"core imports soapenc", pkg("core", mod("core/soapenc")), "imports example.com/m/core/soapenc"},
		{"core imports rpc", pkg("core", mod("core/rpc")), "core/rpc"},
		{"core imports wsdl", pkg("core", mod("core/wsdl")), "core/wsdl"},
		{"core imports a non-std library", pkg("core", "golang.org/x/text/encoding"), "golang.org/x/text/encoding"},
		{"core/internal imports testify", pkg("core/internal/xmltok", "github.com/stretchr/testify/require"), "testify"},
		{"core imports coretest", pkg("core", mod("core/coretest")), "core/coretest"},
		{"soapenc imports testify outside tests", pkg("core/soapenc", "github.com/stretchr/testify/assert"), "testify"},
		{"rpc imports document", pkg("core/rpc", mod("document")), "document"},
		{"wsdl imports a binding", pkg("core/wsdl", mod("bindings/http")), "bindings/http"},
		{"coretest imports soapenc", pkg("core/coretest", mod("core/soapenc")), "core/soapenc"},
		{"coretest imports nats", pkg("core/coretest", "github.com/nats-io/nats.go"), "nats.go"},
		{"document imports a binding", pkg("document", mod("bindings/smtp")), "bindings/smtp"},
		{"document imports coretest", pkg("document", mod("core/coretest")), "core/coretest"},
		{"document imports go-smtp", pkg("document", "github.com/emersion/go-smtp"), "go-smtp"},
		{"binding imports document", pkg("bindings/http", mod("document")), "document"},
		{"binding imports another binding", pkg("bindings/ftp", mod("bindings/http")), "bindings/http"},
		{"binding imports coretest outside tests", pkg("bindings/http", mod("core/coretest")), "core/coretest"},
		{"binding imports another transport", pkg("bindings/http", "github.com/nats-io/nats.go"), "nats.go"},
		{"smtp imports jlaffaye/ftp", pkg("bindings/smtp", "github.com/jlaffaye/ftp"), "jlaffaye"},
		{"binding subpackage imports another binding", pkg("bindings/http/internal/x", mod("bindings/nats")), "bindings/nats"},
		{"example imports a module not in go.mod", pkg("examples/x", "github.com/unknown/lib"), "github.com/unknown/lib"},
		{"package in no row", pkg("extras/thing", "fmt"), "not in the import table"},
		{"new folder under core", pkg("core/mime", "fmt"), "not in the import table"},
		{"module root package", pkg("", "fmt"), "not in the import table"},
		{"test imports a binding", archtest.Package{ImportPath: mod("document"), XTestImports: []string{mod("bindings/http")}}, "external test imports example.com/m/bindings/http"},
		{"core test imports soapenc", archtest.Package{ImportPath: mod("core"), TestImports: []string{mod("core/soapenc")}}, "test imports example.com/m/core/soapenc"},
		{"binding test imports another transport's server", archtest.Package{ImportPath: mod("bindings/smtp"), XTestImports: []string{"github.com/nats-io/nats-server/v2/server"}}, "nats-server"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			vs := archtest.CheckImports(archtest.Table, fakeModule, []archtest.Package{tc.pkg})
			require.Len(t, vs, 1, "%v", vs)
			assert.Equal(t, tc.pkg.ImportPath, vs[0].Package)
			assert.Contains(t, vs[0].Msg, tc.want)
		})
	}
}

func TestRowOf(t *testing.T) {
	for p, want := range map[string]string{
		"core":                     "core",
		"core/internal/xmltok":     "core/internal",
		"core/soapenc":             "core/soapenc",
		"core/soapenc/internal/x":  "core/soapenc",
		"core/coretest":            "core/coretest",
		"bindings/http":            "bindings/http",
		"bindings/http/internal/a": "bindings/http",
		"examples/quickstart":      "examples",
		"internal/archtest":        "internal",
		"core/mime":                "",
		"bindings/grpc":            "",
	} {
		got, ok := archtest.RowOf(archtest.Table, fakeModule.Path, mod(p))
		assert.Equal(t, want, got, p)
		assert.Equal(t, want != "", ok, p)
	}
	_, ok := archtest.RowOf(archtest.Table, fakeModule.Path, "github.com/x/core")
	assert.False(t, ok)
}

func TestInCore(t *testing.T) {
	for p, want := range map[string]bool{
		"core": true, "core/internal/xmltok": true, "core/soapenc": true, "core/rpc": true, "core/wsdl": true,
		"core/coretest": false, "core/coretest/x": false, "document": false, "corex": false, "bindings/http": false,
	} {
		assert.Equal(t, want, archtest.InCore(fakeModule.Path, mod(p)), p)
	}
}

func checkSource(t *testing.T, src string, allow map[string]string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "core/x.go", src, parser.SkipObjectResolution)
	require.NoError(t, err)
	return archtest.CheckGlobalState(fset, f, allow, nil)
}

func TestCheckGlobalStateAccepts(t *testing.T) {
	src := `package core

import (
	"errors"
	"example.com/m/core/internal/xmltok"
)

// sentinels
var ErrClosed = errors.New("closed")

var (
	ErrTooLarge = xmltok.ErrTooLarge
	ErrAlias    = ErrClosed
	errQuiet    = errors.New("quiet")
)

var _ Handler = (*Mux)(nil)

const Max = 10

type T struct{}

func (T) init() {} // a method named init is not an init function

func f() {
	var local = map[string]int{} // not package level
	_ = local
}
`
	assert.Empty(t, checkSource(t, src, nil))
}

func TestCheckGlobalStateRefuses(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"init", "package core\n\nfunc init() {}\n", "core/x.go:3: func init"},
		{"second init", "package core\n\nfunc init() {}\n\nfunc init() {}\n", "core/x.go:5: func init"},
		{"mutable default", "package core\n\nvar DefaultLimits = Limits{}\n", "core/x.go:3: package-level var DefaultLimits"},
		{"registry", "package core\n\nvar handlers = map[string]Handler{}\n", "package-level var handlers"},
		{"uninitialised", "package core\n\nvar count int\n", "package-level var count"},
		{"Err not a sentinel", "package core\n\nvar ErrHandler func(error)\n", "package-level var ErrHandler"},
		{"Err from fmt", "package core\n\nimport \"fmt\"\n\nvar ErrX = fmt.Errorf(\"x\")\n", "package-level var ErrX"},
		{"Err assigned a non-error", "package core\n\nvar ErrCount = count\n", "package-level var ErrCount"},
		{"Errors not a sentinel name", "package core\n\nimport \"errors\"\n\nvar Errors = errors.New(\"x\")\n", "package-level var Errors"},
		{"grouped", "package core\n\nimport \"errors\"\n\nvar (\n\tErrOK = errors.New(\"ok\")\n\tlogger = 1\n)\n", "core/x.go:7: package-level var logger"},
		{"multi-name", "package core\n\nvar a, _ = 1, 2\n", "package-level var a"},
		{"tuple from a call", "package core\n\nvar ErrA, ErrB = pair()\n", "package-level var ErrA"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := checkSource(t, tc.src, nil)
			require.NotEmpty(t, got)
			assert.Contains(t, strings.Join(got, "\n"), tc.want)
		})
	}
}

func TestCheckGlobalStateAllowList(t *testing.T) {
	src := "package soapenc\n\nimport \"sync\"\n\nvar cache sync.Map\n\nvar other int\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "x.go", src, 0)
	require.NoError(t, err)
	used := map[string]bool{}
	got := archtest.CheckGlobalState(fset, f, map[string]string{"cache": "a cache", "gone": "removed"}, used)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "var other")
	assert.Equal(t, map[string]bool{"cache": true}, used)
}

// The table names every row DESIGN.md §2 has, so a folder of the layout is
// never "not in the import table".
func TestTableCoversTheLayout(t *testing.T) {
	for _, row := range []string{"core", "core/internal", "core/soapenc", "core/rpc", "core/wsdl", "core/coretest", "document",
		"bindings/http", "bindings/smtp", "bindings/ftp", "bindings/nats", "examples", "cmd", "internal"} {
		assert.Contains(t, archtest.Table, row)
	}
}
