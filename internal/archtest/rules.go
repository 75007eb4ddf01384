package archtest

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
	"strings"
)

// Rule says what the packages of one row of the table may import.
//
// A pattern is one of:
//   - "std": the standard library (an import path whose first element has no dot);
//   - "module": any package of the module;
//   - "go.mod": any package of a module required in go.mod;
//   - a path inside the module, relative to the module path ("core",
//     "core/rpc"), whose first element has no dot;
//   - an external import path ("github.com/nats-io/nats.go").
//
// A pattern ending in "/..." also matches every package below it. A package
// may always import the packages of its own row (core/internal/xmltok is in
// the core row, bindings/http/internal/x in the bindings/http row).
type Rule struct {
	Imports []string // allowed in non-test files (go list's Imports)
	Tests   []string // further imports allowed in _test.go files (TestImports, XTestImports)
	Exact   bool     // the row is the package itself, not the folders below it
}

// The core family: core (with core/internal/...) and its stdlib-only siblings.
var (
	coreOnly   = []string{"core", "core/internal/..."}
	coreFamily = []string{"core", "core/internal/...", "core/soapenc/...", "core/rpc/...", "core/wsdl/...", "core/xsd/..."}
	testOnly   = []string{"github.com/stretchr/testify/...", "core/coretest/...", "internal/buildcheck", "internal/interop", "internal/benchstat"}
)

func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Table is the import table of DESIGN.md §2, one row per package folder
// (relative to the module path). A package belongs to the row of the longest
// key that is its path or a folder above it; a package in no row is a
// violation, so a new top-level folder needs a row here first.
//
// Keep it in step with DESIGN.md §2 and docs/architecture.md ("Import rules").
var Table = map[string]Rule{
	// stdlib only; core imports none of its siblings. core/internal/... is
	// core; any other new folder under core/ needs a row of its own.
	"core":          {Imports: []string{"std", "core/internal/..."}, Tests: testOnly, Exact: true},
	"core/internal": {Imports: []string{"std"}, Tests: testOnly},
	"core/soapenc":  {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	"core/rpc":      {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	"core/wsdl":     {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	"core/xsd":      {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	// the generator (WSDL to Go source): core packages and stdlib; the code it
	// writes imports core packages only.
	"gen": {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	// conformance suites and Pipe: core, stdlib, testify.
	"core/coretest": {Imports: join([]string{"std", "github.com/stretchr/testify/..."}, coreOnly), Tests: testOnly},
	// document-style conversations: core packages and stdlib, never a binding.
	"document": {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	// bindings: core packages, stdlib and their own transport library; never
	// document/, core/coretest (outside tests) or another binding.
	"bindings/http": {Imports: join([]string{"std", "bindings/internal/ratelog"}, coreFamily), Tests: testOnly},
	"bindings/smtp": {
		Imports: join([]string{"std", "github.com/emersion/go-smtp/...", "github.com/emersion/go-sasl/...", "bindings/internal/mail", "bindings/internal/ratelog"}, coreFamily),
		Tests:   testOnly,
	},
	"bindings/imap": {
		Imports: join([]string{"std", "github.com/emersion/go-imap/v2/...", "github.com/emersion/go-sasl/...", "bindings/internal/mail"}, coreFamily),
		Tests:   testOnly,
	},
	// the mail format the mail bindings share (SOAP in RFC 5322/MIME):
	// stdlib and core packages.
	"bindings/internal/mail": {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	"bindings/ftp": {
		Imports: join([]string{"std", "bindings/internal/drop", "github.com/jlaffaye/ftp/...", "goftp.io/server/v2/..."}, coreFamily),
		Tests:   join(testOnly, []string{"bindings/ftp/ftptest"}),
	},
	// the file-drop engine the file-drop bindings share (claim, lease,
	// settle, park over a small file-system interface): core packages and
	// stdlib; it knows no transport.
	"bindings/internal/drop": {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	// the bound on the log lines a flood of refusals makes, which the HTTP
	// handler and the SMTP server share: stdlib only.
	"bindings/internal/ratelog": {Imports: []string{"std"}, Tests: testOnly},
	"bindings/file":             {Imports: join([]string{"std", "bindings/internal/drop"}, coreFamily), Tests: testOnly},
	"bindings/sftp": {
		Imports: join([]string{"std", "bindings/internal/drop", "github.com/pkg/sftp/...", "golang.org/x/crypto/ssh/..."}, coreFamily),
		Tests:   join(testOnly, []string{"bindings/sftp/sftptest"}),
	},
	// a test helper (OpenSSH's sshd on loopback), imported only from tests.
	"bindings/sftp/sftptest": {Imports: []string{"std", "core/coretest", "golang.org/x/crypto/ssh/..."}, Tests: testOnly, Exact: true},
	"bindings/nats":          {Imports: join([]string{"std", "github.com/nats-io/..."}, coreFamily), Tests: testOnly},
	// a test helper (vsftpd on loopback), imported only from tests: it
	// skips through coretest.RequirePeer like every interop test.
	"bindings/ftp/ftptest": {Imports: []string{"std", "core/coretest"}, Tests: testOnly, Exact: true},
	// runnable programs: anything in the module or in go.mod.
	"examples": {Imports: []string{"std", "module", "go.mod"}, Tests: []string{"module", "go.mod"}},
	"cmd":      {Imports: []string{"std", "module", "go.mod"}, Tests: []string{"module", "go.mod"}},
	// load and measurement programs: like examples.
	"bench": {Imports: []string{"std", "module", "go.mod"}, Tests: []string{"module", "go.mod"}},
	// the module's own tooling (this package): stdlib and core packages.
	"internal": {Imports: join([]string{"std"}, coreFamily), Tests: testOnly},
	// end-to-end tests that cross packages a binding may not import (a
	// binding with document/, two bindings in one conversation): test files
	// only, which may import anything in the module or in go.mod.
	"internal/e2e": {Imports: []string{"std"}, Tests: []string{"module", "go.mod"}},
	// the contract interop harness (contracts, real peers as test helpers):
	// stdlib, core packages and core/coretest (RequirePeer); its tests put any of the module's code
	// against the peers (a binding's transport, cmd/soapwire).
	"internal/interop": {Imports: join([]string{"std", "core/coretest"}, coreFamily), Tests: []string{"module", "go.mod"}},
}

// Package is what the checks need of one package, with go list's field names.
type Package struct {
	ImportPath   string
	Dir          string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// Violation is one broken rule.
type Violation struct {
	Package string // the import path of the package that breaks the rule
	Msg     string
}

func (v Violation) String() string { return v.Package + ": " + v.Msg }

// Module is what CheckImports knows of the module.
type Module struct {
	Path     string   // the module path
	Requires []string // module paths required in go.mod
}

// RowOf returns the table key of the package at import path p, or "" (and
// false) when p is outside the module or in no row.
func RowOf(table map[string]Rule, module, p string) (string, bool) {
	rel, ok := relative(module, p)
	if !ok {
		return "", false
	}
	best := ""
	found := false
	for key := range table {
		if (rel == key || !table[key].Exact && strings.HasPrefix(rel, key+"/")) && len(key) >= len(best) {
			best, found = key, true
		}
	}
	return best, found
}

// relative returns p relative to the module path ("" for the module root).
func relative(module, p string) (string, bool) {
	if p == module {
		return "", true
	}
	if rest, ok := strings.CutPrefix(p, module+"/"); ok {
		return rest, true
	}
	return "", false
}

// IsStd reports whether p is a standard library path: its first element has
// no dot (the go command's own test).
func IsStd(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// allowed reports whether import p matches one of the patterns.
func allowed(m Module, patterns []string, p string) bool {
	_, inModule := relative(m.Path, p)
	for _, pat := range patterns {
		switch pat {
		case "std":
			if !inModule && IsStd(p) {
				return true
			}
			continue
		case "module":
			if inModule {
				return true
			}
			continue
		case "go.mod":
			for _, r := range m.Requires {
				if p == r || strings.HasPrefix(p, r+"/") {
					return true
				}
			}
			continue
		}
		full := pat
		if IsStd(pat) { // module-relative
			full = m.Path + "/" + pat
		}
		if base, ok := strings.CutSuffix(full, "/..."); ok {
			if p == base || strings.HasPrefix(p, base+"/") {
				return true
			}
		} else if p == full {
			return true
		}
	}
	return false
}

// CheckImports checks every package of the module against table: its
// non-test imports against the row's Imports, its test imports against
// Imports and Tests together. Packages outside the module are ignored.
func CheckImports(table map[string]Rule, m Module, pkgs []Package) []Violation {
	var out []Violation
	for _, pkg := range pkgs {
		if _, in := relative(m.Path, pkg.ImportPath); !in {
			continue
		}
		row, ok := RowOf(table, m.Path, pkg.ImportPath)
		if !ok {
			out = append(out, Violation{pkg.ImportPath, "not in the import table (add a row to archtest.Table, DESIGN.md §2 and docs/architecture.md)"})
			continue
		}
		rule := table[row]
		check := func(imports []string, patterns []string, kind string) {
			for _, imp := range imports {
				if imp == pkg.ImportPath || imp == "C" {
					continue
				}
				if r, ok := RowOf(table, m.Path, imp); ok && r == row {
					continue
				}
				if !allowed(m, patterns, imp) {
					out = append(out, Violation{pkg.ImportPath, fmt.Sprintf("%s %s breaks the import table (row %q, DESIGN.md §2)", kind, imp, row)})
				}
			}
		}
		check(pkg.Imports, rule.Imports, "imports")
		tests := join(rule.Imports, rule.Tests)
		check(pkg.TestImports, tests, "test imports")
		check(pkg.XTestImports, tests, "external test imports")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// InCore reports whether the package at import path p is bound by the
// no-global-state rule: core and every package under core/ except
// core/coretest.
func InCore(module, p string) bool {
	rel, ok := relative(module, p)
	if !ok {
		return false
	}
	if rel == "core/coretest" || strings.HasPrefix(rel, "core/coretest/") {
		return false
	}
	return rel == "core" || strings.HasPrefix(rel, "core/")
}

// CheckGlobalState reports, in one file of a core package, every init
// function and every package-level variable that is not "_" or an error
// sentinel: a name ErrX (or errX) whose value is errors.New(…) or another
// ErrX / errX (xmltok.ErrLimit). allow lists variables accepted for now, by
// name, with the reason; used reports the allowed names met.
func CheckGlobalState(fset *token.FileSet, f *ast.File, allow map[string]string, used map[string]bool) []string {
	var out []string
	at := func(pos token.Pos) string {
		p := fset.Position(pos)
		return fmt.Sprintf("%s:%d", p.Filename, p.Line)
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" {
				out = append(out, at(d.Pos())+": func init (core registers nothing at init time, DESIGN.md §1.7)")
			}
		case *ast.GenDecl:
			if d.Tok != token.VAR {
				continue
			}
			for _, spec := range d.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if name.Name == "_" {
						continue
					}
					var value ast.Expr
					if i < len(vs.Values) && len(vs.Values) == len(vs.Names) {
						value = vs.Values[i]
					}
					if isErrName(name.Name) && isSentinelValue(value) {
						continue
					}
					if _, ok := allow[name.Name]; ok {
						if used != nil {
							used[name.Name] = true
						}
						continue
					}
					out = append(out, at(name.Pos())+": package-level var "+name.Name+" (core keeps no mutable package state, DESIGN.md §1.7; only _ and ErrX = errors.New(…) sentinels)")
				}
			}
		}
	}
	return out
}

// isErrName reports whether name is ErrX or errX.
func isErrName(name string) bool {
	for _, p := range []string{"Err", "err"} {
		if rest, ok := strings.CutPrefix(name, p); ok && rest != "" && rest[0] >= 'A' && rest[0] <= 'Z' {
			return true
		}
	}
	return false
}

// isSentinelValue reports whether e is errors.New(…) or another error
// sentinel (ErrX, pkg.ErrX).
func isSentinelValue(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.CallExpr:
		sel, ok := e.Fun.(*ast.SelectorExpr)
		if !ok {
			return false
		}
		pkg, ok := sel.X.(*ast.Ident)
		return ok && pkg.Name == "errors" && sel.Sel.Name == "New"
	case *ast.Ident:
		return isErrName(e.Name)
	case *ast.SelectorExpr:
		_, ok := e.X.(*ast.Ident)
		return ok && isErrName(e.Sel.Name)
	}
	return false
}
