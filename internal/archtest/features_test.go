package archtest_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// proof is one test a row of docs/features.md names: `pkg`: `TestX`.
type proof struct {
	pkg, name string
	line      int
}

var (
	// a package reference opens a run of test names: `core/rpc`: …
	pkgRef = regexp.MustCompile("`((?:core|bindings|document|examples|internal|cmd|bench|gen)(?:/[a-z0-9._-]+)*)`:")
	// a test, fuzz target, benchmark or example, maybe with a subtest path
	testRef = regexp.MustCompile("`((?:Test|Fuzz|Benchmark|Example)[A-Za-z0-9_]*)(?:/[^`]*)?`")
)

// featureProofs returns the tests the "proven by" cells of a features page
// name, each with the package it was named for (the last `pkg`: before it in
// the cell).
func featureProofs(text string) []proof {
	var out []proof
	for i, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(line, "|")
		cell := cells[len(cells)-2] // the last cell: "proven by"
		pkg := ""
		for len(cell) > 0 {
			p := pkgRef.FindStringSubmatchIndex(cell)
			t := testRef.FindStringSubmatchIndex(cell)
			switch {
			case p != nil && (t == nil || p[0] < t[0]):
				pkg = cell[p[2]:p[3]]
				cell = cell[p[1]:]
			case t != nil:
				if pkg != "" {
					out = append(out, proof{pkg: pkg, name: cell[t[2]:t[3]], line: i + 1})
				}
				cell = cell[t[1]:]
			default:
				cell = ""
			}
		}
	}
	return out
}

// TestFeaturesNameRealTests: every test docs/features.md gives as proof is
// a function of that name in a _test.go file of the package it names, so
// the table cannot point at tests that were renamed or never written.
func TestFeaturesNameRealTests(t *testing.T) {
	_, root := moduleRoot(t)
	text, err := os.ReadFile(filepath.Join(root, "docs", "features.md"))
	require.NoError(t, err)
	proofs := featureProofs(string(text))
	require.Greater(t, len(proofs), 100, "the parser found too few proofs; has the table's format changed?")
	funcs := map[string]string{} // package dir → its test files' text
	for _, p := range proofs {
		src, ok := funcs[p.pkg]
		if !ok {
			files, err := filepath.Glob(filepath.Join(root, p.pkg, "*_test.go"))
			require.NoError(t, err)
			var b strings.Builder
			for _, f := range files {
				data, err := os.ReadFile(f)
				require.NoError(t, err)
				b.Write(data)
			}
			src = b.String()
			funcs[p.pkg] = src
		}
		found := regexp.MustCompile(`(?m)^func ` + regexp.QuoteMeta(p.name) + `\(`).MatchString(src)
		assert.True(t, found, "docs/features.md:%d names %s in %s, which has no such test", p.line, p.name, p.pkg)
	}
}

// TestFeatureProofsParser: the parser attributes each test to the package
// named before it in the cell, keeps subtest paths off, and skips rows with
// no package.
func TestFeatureProofsParser(t *testing.T) {
	page := "| a | b | done | `core`: `TestA`, `TestB/sub case`; `core/rpc`: `ExampleC` (note) |\n" +
		"| header | — |\n" +
		"| x | done | `docs/writing-a-binding.md` (tested above) |\n"
	assert.Equal(t, []proof{
		{"core", "TestA", 1}, {"core", "TestB", 1}, {"core/rpc", "ExampleC", 1},
	}, featureProofs(page))
}
