package buildcheck_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/internal/buildcheck"
)

func TestBuild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		dir     string
		refused bool
		want    string
	}{
		{dir: "testdata/good"},
		{dir: "testdata/bad", refused: true, want: "cannot use 42 (untyped int constant) as string value in argument to strings.ToUpper"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			out, err := buildcheck.Build(t, tt.dir)
			if !tt.refused {
				require.NoError(t, err, out)
				buildcheck.Compiles(t, tt.dir)
				return
			}
			require.Error(t, err)
			assert.Contains(t, out, tt.want)
			assert.Equal(t, out, buildcheck.Refused(t, tt.dir, tt.want))
		})
	}
}

// TestRefusedNeedsTheMessage: Refused fails a test whose program compiles,
// or is refused without the message asked for.
func TestRefusedNeedsTheMessage(t *testing.T) {
	t.Parallel()
	tests := []struct{ dir, want string }{
		{"testdata/good", ""},
		{"testdata/bad", "missing method applySender"},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			t.Parallel()
			rec := &recorder{TB: t}
			func() {
				defer func() { _ = recover() }() // Fatalf ends the goroutine's work as FailNow does
				buildcheck.Refused(rec, tt.dir, tt.want)
			}()
			assert.True(t, rec.failed, "Refused passed on %s", tt.dir)
		})
	}
}

// recorder is a testing.TB that records a failure instead of failing.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true; panic("fatal") }

// TestRefusedNamesPackages: Refused reads a package's quoted import path,
// which the compiler writes when two packages share a name, as the name.
func TestRefusedNamesPackages(t *testing.T) {
	t.Parallel()
	raw, err := buildcheck.Build(t, "testdata/samename")
	require.Error(t, err)
	require.Contains(t, raw, `*"text/template".Template`, "the compiler quotes the paths")
	out := buildcheck.Refused(t, "testdata/samename",
		"cannot use b (variable of type *template.Template) as *template.Template value")
	assert.NotContains(t, out, `"text/template"`)
	buildcheck.Refused(t, "testdata/samename", `cannot use b (variable of type *"text/template".Template)`)
}
