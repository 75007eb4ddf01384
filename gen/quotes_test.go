package gen_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTextStaysText: a contract's text (a namespace, documentation, a
// default value, a SOAPAction) holding quotes, a backquote, a backslash, a
// percent sign, a comment's end and a line break is written into the
// generated code as Go strings and comments, never as code: no call of
// the contract's panic(...) is in the syntax tree of any generated file,
// and the package builds and passes go vet (a percent sign in a message is
// not taken for a verb).
func TestTextStaysText(t *testing.T) {
	files := generated(t, "quotes.wsdl", "quotes")
	require.NotEmpty(t, files)
	for name, src := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
		require.NoError(t, err, name)
		ast.Inspect(f, func(n ast.Node) bool {
			if c, ok := n.(*ast.CallExpr); ok {
				if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
					t.Errorf("%s: the contract's text became code: a call of panic", name)
				}
			}
			return true
		})
	}
	buildGenerated(t, map[string]map[string]string{"quotes": files})
}
