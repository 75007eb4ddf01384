package wsdl_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
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
	root, err := filepath.Abs("../..")
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
	require.Len(t, out, 38)
	return out
}

// loadCase loads a corpus contract offline: its files, and the catalog of
// standard schemas soapwire ships (not the corpus's own catalog).
func loadCase(t testing.TB, dir string, c corpusCase) (*wsdl.Contract, error) {
	return wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS(filepath.Join(dir, "cases", c.ID))), c.Entry)
}

// TestCorpus: every contract of the corpus loads offline, and what it
// yields (services, ports, addresses, each operation's style, action,
// input, output, headers and faults, the types they use, the warnings) is
// what testdata/corpus/ID.txt pins (go test ./core/wsdl -run TestCorpus
// -update rewrites them).
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	for _, c := range corpusCases(t, dir) {
		t.Run(c.ID, func(t *testing.T) {
			ct, err := loadCase(t, dir, c)
			require.NoError(t, err)
			assert.NotEmpty(t, ct.Bindings)
			var got bytes.Buffer
			require.NoError(t, ct.Describe(&got))
			golden := filepath.Join("testdata", "corpus", c.ID+".txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, got.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./core/wsdl -run TestCorpus -update to create it")
			assert.Equal(t, string(want), got.String())
		})
	}
}

// zeepDiffers lists the corpus contracts whose operations zeep derives
// differently, and why; the test fails if one of them comes to agree.
var zeepDiffers = map[string]string{
	"gsoap-rpc-soap12":               "zeep cannot load it: gSOAP imports the SOAP 1.2 encoding namespace without a location, and zeep has no schema for it (soapwire ships one)",
	"lnp-number-mgmt":                "zeep finds no operation: it does not read the xsd:import placed directly under wsdl:types, so the parts' types do not resolve for it",
	"wcf-secureconversation-interop": "zeep finds no port: it takes services only from the first document, and this contract's service is in the WSDL it imports",
}

type portOps struct {
	Kind       string   `json:"kind"`
	Operations []string `json:"operations"`
}

// TestCorpusZeep compares, for every corpus contract, each service port's
// binding kind and set of operations with what zeep derives from the same
// files (offline, through the corpus catalog). Ports of bindings zeep does
// not know (CXF's XML binding) are left out.
func TestCorpusZeep(t *testing.T) {
	dir := corpusDir(t)
	coretest.RequirePeer(t, "zeep", exec.Command(python, "-c", "import zeep").Run())
	cmd := exec.CommandContext(t.Context(), python, "testdata/zeep/corpus_ops.py", dir, "../xsd/standard")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())
	var zeep map[string]struct {
		Error string             `json:"error"`
		Ports map[string]portOps `json:"ports"`
	}
	require.NoError(t, json.Unmarshal(out, &zeep))
	for _, c := range corpusCases(t, dir) {
		t.Run(c.ID, func(t *testing.T) {
			ct, err := loadCase(t, dir, c)
			require.NoError(t, err)
			ours := map[string]portOps{}
			for _, s := range ct.Services {
				for _, p := range s.Ports {
					if p.Binding == nil || p.Binding.Kind == wsdl.OtherBinding {
						continue
					}
					var ops []string
					for _, op := range p.Binding.Operations {
						ops = append(ops, op.Name)
					}
					slices.Sort(ops)
					ops = slices.Compact(ops) // a name bound twice is one operation (and a warning)
					ours[s.Name.Local+"/"+p.Name] = portOps{Kind: p.Binding.Kind.String(), Operations: ops}
				}
			}
			z := zeep[c.ID]
			if why, ok := zeepDiffers[c.ID]; ok {
				t.Logf("zeep differs: %s (zeep: %v %s)", why, z.Ports, z.Error)
				assert.False(t, z.Error == "" && assert.ObjectsAreEqual(nonNil(ours), nonNil(z.Ports)),
					"zeep now agrees: drop %s from zeepDiffers", c.ID)
				return
			}
			require.Empty(t, z.Error)
			assert.Equal(t, nonNil(z.Ports), nonNil(ours))
		})
	}
}

// nonNil makes a port without operations compare equal however it was
// decoded.
func nonNil(m map[string]portOps) map[string]portOps {
	out := map[string]portOps{}
	for k, v := range m {
		if v.Operations == nil {
			v.Operations = []string{}
		}
		out[k] = v
	}
	return out
}
