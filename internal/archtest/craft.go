package archtest

import (
	"fmt"
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// CraftSeams lists the packages (relative to the module) where word-at-a-time
// scanning may sit: word loads (binary.*.Uint64), unsafe, and the repeated-byte
// constants of SWAR tricks (0x0101010101010101, 0x8080808080808080, …). A
// package gets a row only with the end-to-end figure that shows the trick
// worth 5% (docs/benchmarks.md) and an exhaustive test of the primitive
// (DESIGN.md §1.11). None has one: issue 18 measured the three word scans the
// module had and replaced them with plain loops.
var CraftSeams = map[string]string{}

// ValueSeam is the package that holds core's reading and writing of Go
// values without encoding/xml (Body.Decode's and ValueBody's fast paths):
// package core itself does not import reflect.
const ValueSeam = "core/internal/xmlvalue"

// CheckCraft reports the craft in one non-test file of the package at rel
// (relative to the module) that sits outside its seam: an import of unsafe,
// a binary.*Endian.Uint64 word load, a repeated-byte constant of a word
// scan, a //go:noinline directive (the stack budget they kept was measured
// and removed), or, in package core itself, an import of reflect (Go
// values are ValueSeam's). seams lists the packages where word scans may
// sit (CraftSeams).
func CheckCraft(fset *token.FileSet, f *ast.File, rel string, seams map[string]string) []string {
	var out []string
	at := func(pos token.Pos, msg string) {
		p := fset.Position(pos)
		out = append(out, fmt.Sprintf("%s:%d: %s", p.Filename, p.Line, msg))
	}
	_, seam := seams[rel]
	const why = "word-at-a-time code sits only in a package of archtest.CraftSeams, with its 5% figure (DESIGN.md §1.11)"
	for _, imp := range f.Imports {
		switch path, _ := strconv.Unquote(imp.Path.Value); {
		case path == "unsafe" && !seam:
			at(imp.Pos(), "imports unsafe: "+why)
		case path == "reflect" && rel == "core":
			at(imp.Pos(), "package core imports reflect: reading and writing Go values is "+ValueSeam+"'s")
		}
	}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:noinline") {
				at(c.Pos(), "//go:noinline: the 4 KiB stack budget it served was worth under 5% and removed (docs/benchmarks.md, issue 18)")
			}
		}
	}
	if seam {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if n.Sel.Name != "Uint64" {
				return true
			}
			if x, ok := n.X.(*ast.SelectorExpr); ok && strings.HasSuffix(x.Sel.Name, "Endian") {
				if pkg, ok := x.X.(*ast.Ident); ok && pkg.Name == "binary" {
					at(n.Pos(), "binary."+x.Sel.Name+".Uint64, a word load: "+why)
				}
			}
		case *ast.BasicLit:
			if n.Kind != token.INT {
				return true
			}
			if v, err := strconv.ParseUint(n.Value, 0, 64); err == nil && wordConstant(v) {
				at(n.Pos(), "the constant "+n.Value+" of a word scan: "+why)
			}
		}
		return true
	})
	return out
}

// wordConstant reports whether v is a 4- or 8-byte word of one repeated
// byte 0x01, 0x7f or 0x80: the constants of SWAR byte tests.
func wordConstant(v uint64) bool {
	for _, width := range []int{4, 8} {
		if width == 4 && v>>32 != 0 {
			continue
		}
		b := v & 0xff
		if b != 0x01 && b != 0x7f && b != 0x80 {
			continue
		}
		same := true
		for i := 1; i < width; i++ {
			same = same && v>>(8*i)&0xff == b
		}
		if same {
			return true
		}
	}
	return false
}
