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

var (
	// a benchmark selection in a command: -bench 'A|B$' or -test.bench X
	benchFlag = regexp.MustCompile(`-(?:test\.)?bench[ =]('[^']*'|"[^"]*"|\S+)`)
	// a program under bench/ or examples/ run with go run
	goRunBench = regexp.MustCompile(`go run (\./(?:bench|examples)/[a-z0-9/_-]+)`)
	// a benchmark function
	benchFunc = regexp.MustCompile(`(?m)^func (Benchmark[A-Za-z0-9_]*)\(`)
)

// benchCommands returns the commands in the fenced code blocks of a page.
func benchCommands(text string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			in = !in
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	return out
}

// benchPatterns returns the benchmark selections (quotes removed) and the
// go run programs the command lines hold.
func benchPatterns(lines []string) (patterns, programs []string) {
	for _, l := range lines {
		for _, m := range benchFlag.FindAllStringSubmatch(l, -1) {
			patterns = append(patterns, strings.Trim(m[1], `'"`))
		}
		for _, m := range goRunBench.FindAllStringSubmatch(l, -1) {
			programs = append(programs, m[1])
		}
	}
	return patterns, programs
}

// TestBenchmarksDocRunAll: every benchmark docs/benchmarks.md gives a
// command for is run by bench/run-all.sh (so "rerun together in one
// session" stays true), and every name in a selection is a benchmark that
// exists, so the page cannot quote a command that measures nothing.
func TestBenchmarksDocRunAll(t *testing.T) {
	_, root := moduleRoot(t)
	page, err := os.ReadFile(filepath.Join(root, "docs", "benchmarks.md"))
	require.NoError(t, err)
	script, err := os.ReadFile(filepath.Join(root, "bench", "run-all.sh"))
	require.NoError(t, err)
	patterns, programs := benchPatterns(benchCommands(string(page)))
	require.NotEmpty(t, patterns, "no -bench command found in docs/benchmarks.md")

	exists := map[string]bool{}
	require.NoError(t, filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return err
		}
		src, err := os.ReadFile(p)
		for _, m := range benchFunc.FindAllStringSubmatch(string(src), -1) {
			exists[m[1]] = true
		}
		return err
	}))
	scriptPatterns, scriptPrograms := benchPatterns(strings.Split(strings.ReplaceAll(string(script), `\$`, `$`), "\n"))
	covered := func(name string) bool { // some selection of the script runs name
		for _, sp := range scriptPatterns {
			if sp == "." && name != "." {
				continue // runs every benchmark, but of one package only
			}
			if ok, err := regexp.MatchString(sp, name); err == nil && ok {
				return true
			}
		}
		return false
	}
	for _, p := range patterns {
		for _, alt := range strings.Split(p, "|") {
			name := strings.Trim(alt, "^$")
			assert.True(t, covered(name), "docs/benchmarks.md runs -bench %q; no selection of bench/run-all.sh runs %s", p, name)
			if name == "." || !strings.HasPrefix(name, "Benchmark") {
				continue // a substring selection such as 'OneWay10k'
			}
			assert.True(t, exists[name], "docs/benchmarks.md selects %s, which no _test.go defines", name)
		}
	}
	for _, p := range programs {
		assert.Contains(t, scriptPrograms, p, "docs/benchmarks.md runs go run %s; bench/run-all.sh does not", p)
		assert.DirExists(t, filepath.Join(root, p))
	}
}

// TestBenchPatterns: the command parser finds quoted, bare and -test.bench
// selections and go run programs.
func TestBenchPatterns(t *testing.T) {
	lines := benchCommands("text -bench X\n```\ngo test -run XXX -bench 'A|B$' ./core/\n/tmp/x.test -test.bench BenchmarkC -test.benchtime 5x\ngo run ./bench/httpload -rounds 6\n```\n-bench Y")
	patterns, programs := benchPatterns(lines)
	assert.Equal(t, []string{"A|B$", "BenchmarkC"}, patterns)
	assert.Equal(t, []string{"./bench/httpload"}, programs)
}
