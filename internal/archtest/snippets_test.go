package archtest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// snippet is a ```go block of a documentation page that says which file it
// was copied from.
type snippet struct {
	page  string
	line  int    // where the block starts in page
	from  string // the file it names, relative to the module root
	lines []string
}

// docSnippets returns the ```go blocks of a page that a following
// "*From [path](link)" line attributes to a file: the line attributes every
// block since the previous attribution or heading. Blocks nothing attributes
// are illustrations and are not returned.
func docSnippets(page, text string) []snippet {
	var out, pending []snippet
	var cur *snippet
	for i, l := range strings.Split(text, "\n") {
		switch {
		case cur != nil:
			if strings.TrimSpace(l) == "```" {
				pending = append(pending, *cur)
				cur = nil
				continue
			}
			cur.lines = append(cur.lines, l)
		case strings.TrimSpace(l) == "```go":
			cur = &snippet{page: page, line: i + 1}
		case strings.HasPrefix(l, "#"):
			pending = nil
		case strings.HasPrefix(l, "*From ["):
			name, _, ok := strings.Cut(strings.TrimPrefix(l, "*From ["), "]")
			if !ok {
				continue
			}
			for _, s := range pending {
				s.from = name
				out = append(out, s)
			}
			pending = nil
		}
	}
	return out
}

// missingLine returns the first line of the snippet that the file does not
// have, in order (each snippet line, trimmed, must equal a later line of the
// file, trimmed); "" when all are there. Blank lines and "…" elisions are
// skipped.
func missingLine(snippetLines []string, file string) string {
	src := strings.Split(file, "\n")
	j := 0
	for _, l := range snippetLines {
		l = strings.TrimSpace(l)
		if l == "" || l == "…" || l == "..." || l == "// …" || l == "// ..." {
			continue
		}
		for j < len(src) && strings.TrimSpace(src[j]) != l {
			j++
		}
		if j == len(src) {
			return l
		}
		j++
	}
	return ""
}

// TestDocSnippets: code README.md or a docs/ page shows as copied from a tested
// file ("*From [examples/x/main.go](…)") is still in that file, line by line
// and in order, so the docs cannot drift from the code the tests run.
func TestDocSnippets(t *testing.T) {
	_, root := moduleRoot(t)
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	pages = append(pages, filepath.Join(root, "README.md"))
	checked := 0
	for _, page := range pages {
		text, err := os.ReadFile(page)
		require.NoError(t, err)
		rel, _ := filepath.Rel(root, page)
		for _, s := range docSnippets(rel, string(text)) {
			t.Run(fmt.Sprintf("%s:%d", rel, s.line), func(t *testing.T) {
				src, err := os.ReadFile(filepath.Join(root, s.from))
				require.NoError(t, err, "%s:%d names %s", rel, s.line, s.from)
				assert.Empty(t, missingLine(s.lines, string(src)), "%s:%d: this line of the snippet is not in %s (in order)", rel, s.line, s.from)
			})
			checked++
		}
	}
	require.NotZero(t, checked, "no attributed snippet found in README.md or docs/")
}

// TestDocSnippetsCheck: the check itself refuses a changed line, a line out
// of order and a missing file attribution, and reads attributions as the
// pages write them.
func TestDocSnippetsCheck(t *testing.T) {
	file := "func f() {\n\ta := 1\n\tb := 2\n\treturn\n}\n"
	assert.Empty(t, missingLine([]string{"a := 1", "", "b := 2"}, file))
	assert.Equal(t, "a := 3", missingLine([]string{"a := 3"}, file))
	assert.Equal(t, "a := 1", missingLine([]string{"b := 2", "a := 1"}, file), "order matters")

	page := "## A\n\n```go\nx := 1\n```\n\n```go\ny := 2\n```\n\n*From [a/b.go](../a/b.go) (`f`).*\n\n" +
		"```go\nillustration()\n```\n\n## B\n\n*From [c.go](../c.go).*\n"
	got := docSnippets("p.md", page)
	require.Len(t, got, 2, "the heading drops the unattributed block")
	assert.Equal(t, "a/b.go", got[0].from)
	assert.Equal(t, []string{"x := 1"}, got[0].lines)
	assert.Equal(t, []string{"y := 2"}, got[1].lines)
}
