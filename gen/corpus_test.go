package gen_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/gen"
	"github.com/soapwire/soapwire/internal/buildcheck"
)

// corpusDir finds the contract corpus: $SOAPWIRE_WSDL_CORPUS, else
// ../shared/wsdl-corpus from the module's root (or ../../shared, from a
// worktree one folder deeper). A missing corpus skips the test, or fails it
// with SOAPWIRE_REQUIRE_PEERS=1.
func corpusDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("SOAPWIRE_WSDL_CORPUS"); d != "" {
		return d
	}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	for _, c := range []string{"../shared/wsdl-corpus", "../../shared/wsdl-corpus"} {
		d := filepath.Join(root, c)
		if _, err := os.Stat(filepath.Join(d, "index.json")); err == nil {
			return d
		}
	}
	coretest.RequirePeer(t, "wsdl-corpus", errors.New("no ../shared/wsdl-corpus beside the repository (set SOAPWIRE_WSDL_CORPUS to its folder)"))
	return ""
}

type corpusCase struct {
	ID    string
	Entry string `json:"entry"`
}

func corpusCases(t testing.TB, dir string) []corpusCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	require.NoError(t, err)
	var idx struct {
		Cases map[string]corpusCase `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(b, &idx))
	var out []corpusCase
	for id, c := range idx.Cases {
		c.ID = id
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	require.NotEmpty(t, out)
	return out
}

// packageOf is a corpus case's package name.
func packageOf(id string) string { return strings.ReplaceAll(id, "-", "") }

// TestCorpusBuilds: soapwire gen's package of every contract of the corpus
// (loaded offline: its files and the standard schemas soapwire ships) is
// generated twice to the same bytes, and all of them build and pass go vet,
// in one module that refers to this one (one go build and one go vet for
// all).
func TestCorpusBuilds(t *testing.T) {
	dir := corpusDir(t)
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	mod := t.TempDir()
	goMod := "module corpusgen\n\ngo 1.26\n\nrequire github.com/soapwire/soapwire v0.0.0\n\nreplace github.com/soapwire/soapwire => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte(goMod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644))
	cases := corpusCases(t, dir)
	for _, c := range cases {
		ct, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS(filepath.Join(dir, "cases", c.ID))), c.Entry)
		require.NoError(t, err, c.ID)
		files, err := gen.Generate(ct, gen.WithPackage(packageOf(c.ID)))
		require.NoError(t, err, c.ID)
		again, err := gen.Generate(ct, gen.WithPackage(packageOf(c.ID)))
		require.NoError(t, err, c.ID)
		require.Equal(t, len(files), len(again), c.ID)
		for i := range files {
			assert.True(t, bytes.Equal(files[i].Data, again[i].Data), "%s: %s differs between two runs", c.ID, files[i].Name)
		}
		pkgDir := filepath.Join(mod, packageOf(c.ID))
		require.NoError(t, os.MkdirAll(pkgDir, 0o755))
		for _, f := range files {
			require.NoError(t, os.WriteFile(filepath.Join(pkgDir, f.Name), f.Data, 0o644))
		}
	}
	env := []string{"GOFLAGS=-mod=mod -trimpath", "GOPROXY=off", "GOWORK=off"}
	if out, err := buildcheck.Go(t, mod, env, "build", "./..."); err != nil {
		t.Fatalf("go build of the generated packages: %v\n%s", err, out)
	}
	if out, err := buildcheck.Go(t, mod, env, "vet", "./..."); err != nil {
		t.Fatalf("go vet of the generated packages: %v\n%s", err, out)
	}
	t.Logf("%d contracts generated, built and vetted", len(cases))
}
