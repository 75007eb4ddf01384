package archtest_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/internal/archtest"
)

// docExamples pairs each documentation page whose program is shown in full
// with the Example that compiles and runs it.
var docExamples = []struct {
	page, file, example string
}{
	{"README.md", "readme_example_test.go", "Example_readme"},
	{"docs/processing-model.md", "docs_example_test.go", "Example_processingModel"},
}

// TestDocExamples checks that the first ```go block of each page that is a
// whole program (package main) is the program its Example runs: the same
// declarations, and main's body equal to the example's. So the code the
// documentation shows compiles and prints what the page says.
func TestDocExamples(t *testing.T) {
	_, root := moduleRoot(t)
	for _, tc := range docExamples {
		t.Run(tc.page, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join(root, tc.page))
			require.NoError(t, err)
			_, block, ok := strings.Cut(string(page), "```go\npackage main\n")
			require.True(t, ok, "%s has no ```go block holding a package main", tc.page)
			block, _, ok = strings.Cut(block, "```")
			require.True(t, ok, "%s: the ```go block is not closed", tc.page)

			fset := token.NewFileSet()
			doc, err := parser.ParseFile(fset, tc.page, "package main\n"+block, parser.SkipObjectResolution)
			require.NoError(t, err, "the program of %s does not parse", tc.page)
			ex, err := parser.ParseFile(fset, tc.file, nil, parser.SkipObjectResolution)
			require.NoError(t, err)

			pageDecls, exampleDecls := declsOf(t, fset, doc), declsOf(t, fset, ex)
			require.Contains(t, pageDecls, "func main")
			require.Contains(t, exampleDecls, "func "+tc.example)
			assert.Equal(t, exampleDecls["func "+tc.example], pageDecls["func main"], "main's body in %s differs from %s's", tc.page, tc.example)
			for name, src := range pageDecls {
				if name != "func main" {
					assert.Equal(t, src, exampleDecls[name], "%s differs between %s and %s", name, tc.page, tc.file)
				}
			}
			for name := range exampleDecls {
				if name != "func "+tc.example {
					assert.Contains(t, pageDecls, name, "%s declares %s, %s does not", tc.file, name, tc.page)
				}
			}
		})
	}
}

// declsOf prints each top-level declaration but the imports, without
// comments: types by name, functions by their body.
func declsOf(t *testing.T, fset *token.FileSet, f *ast.File) map[string]string {
	t.Helper()
	out := map[string]string{}
	print := func(n any) string {
		var b bytes.Buffer
		require.NoError(t, printer.Fprint(&b, fset, n))
		return b.String()
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			out["func "+d.Name.Name] = print(d.Body.List)
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					out["type "+s.Name.Name] = print(s)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						out[d.Tok.String()+" "+n.Name] = print(s)
					}
				}
			}
		}
	}
	return out
}

// TestArchitectureDocMirrorsTable checks that docs/architecture.md's import
// rules name every row of Table, so the page and the map move together.
func TestArchitectureDocMirrorsTable(t *testing.T) {
	_, root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(page), "## Import rules")
	require.True(t, ok, "docs/architecture.md has no Import rules section")
	section, _, _ = strings.Cut(section, "\n## ")
	for row := range archtest.Table {
		assert.True(t, strings.Contains(section, "| `"+row+"`") || strings.Contains(section, "| `"+row+"/"),
			"docs/architecture.md's import table has no row for %s", row)
	}
}
