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
	var contracts []contractDir
	for _, c := range corpusCases(t, dir) {
		contracts = append(contracts, contractDir{pkg: packageOf(c.ID), dir: filepath.Join(dir, "cases", c.ID), entry: c.Entry})
	}
	generateAndBuild(t, contracts)
}

// contractDir is a contract to generate: its folder, its entry file there,
// and the package name to generate.
type contractDir struct{ pkg, dir, entry string }

// generateAndBuild generates each contract's package twice (the same bytes
// both times), then builds and vets them all in one module
// (buildGenerated: one go build and one go vet for all).
func generateAndBuild(t *testing.T, contracts []contractDir) {
	t.Helper()
	pkgs := map[string]map[string]string{}
	for _, c := range contracts {
		ct, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS(c.dir)), c.entry)
		require.NoError(t, err, c.pkg)
		files, err := gen.Generate(ct, gen.WithPackage(c.pkg))
		require.NoError(t, err, c.pkg)
		again, err := gen.Generate(ct, gen.WithPackage(c.pkg))
		require.NoError(t, err, c.pkg)
		require.Equal(t, len(files), len(again), c.pkg)
		pkgs[c.pkg] = map[string]string{}
		for i, f := range files {
			assert.True(t, bytes.Equal(f.Data, again[i].Data), "%s: %s differs between two runs", c.pkg, f.Name)
			pkgs[c.pkg][f.Name] = string(f.Data)
		}
	}
	buildGenerated(t, pkgs)
	t.Logf("%d contracts generated, built and vetted", len(contracts))
}
