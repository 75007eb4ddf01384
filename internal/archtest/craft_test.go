package archtest_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/internal/archtest"
)

// TestNoCraftOutsideSeams: no word-scan or fast-path code sits outside the
// internal packages chosen for it (archtest.CraftSeams, ValueSeam), in any
// non-test file of the module.
func TestNoCraftOutsideSeams(t *testing.T) {
	_, root := moduleRoot(t)
	fset := token.NewFileSet()
	checked := 0
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(p))
		require.NoError(t, err)
		for _, msg := range archtest.CheckCraft(fset, f, filepath.ToSlash(rel), archtest.CraftSeams) {
			if r, err := filepath.Rel(root, msg); err == nil && !strings.HasPrefix(r, "..") {
				msg = r
			}
			t.Error(msg)
		}
		checked++
		return nil
	}))
	require.Greater(t, checked, 200, "too few files checked")
}

// craftFixture is a file that has every kind of craft the rule refuses.
const craftFixture = `package scan

import (
	"encoding/binary"
	"reflect"
	"unsafe"
)

var _ = reflect.TypeOf(0)

//go:noinline
func plain(b []byte) bool {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	v := binary.LittleEndian.Uint64(b)
	w := binary.BigEndian.Uint64(b)
	_ = unsafe.Pointer(&b)
	return (v-lo)&^v&hi == 0 && w&0x7f7f7f7f == 0
}
`

// TestCheckCraft: the rule finds each kind of craft in a file outside the
// seams (so TestNoCraftOutsideSeams can fail), leaves a seam's word scans
// alone, refuses reflect in package core only, and passes ordinary code.
func TestCheckCraft(t *testing.T) {
	check := func(rel, src string, seams map[string]string) []string {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "x.go", src, parser.ParseComments)
		require.NoError(t, err)
		return archtest.CheckCraft(fset, f, rel, seams)
	}
	got := strings.Join(check("core/internal/scan", craftFixture, nil), "\n")
	for _, want := range []string{
		"x.go:6: imports unsafe",
		"x.go:11: //go:noinline",
		"x.go:13: the constant 0x0101010101010101",
		"x.go:13: the constant 0x8080808080808080",
		"x.go:14: binary.LittleEndian.Uint64, a word load",
		"x.go:15: binary.BigEndian.Uint64, a word load",
		"x.go:17: the constant 0x7f7f7f7f",
	} {
		assert.Contains(t, got, want)
	}
	assert.NotContains(t, got, "reflect", "reflect is refused in package core only")
	assert.Len(t, strings.Split(got, "\n"), 7, got)

	inCore := check("core", craftFixture, nil)
	assert.Contains(t, strings.Join(inCore, "\n"), "x.go:5: package core imports reflect")

	seams := map[string]string{"core/internal/scan": "figures in docs/benchmarks.md"}
	assert.Equal(t, []string{"x.go:11: //go:noinline: the 4 KiB stack budget it served was worth under 5% and removed (docs/benchmarks.md, issue 18)"},
		check("core/internal/scan", craftFixture, seams), "a seam keeps its word scans, not a stack trick")

	assert.Empty(t, check("bindings/smtp", `package smtp

import "encoding/binary"

func crc(h []byte) uint32 { return binary.LittleEndian.Uint32(h[6:]) & 0xffffffff | 0x01010100 }
`, nil), "4-byte fields and other constants are not word scans")
}
