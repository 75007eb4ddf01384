package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestShapesBuild: the contracts of testdata/shapes, written in the styles
// real toolkits produce and covering what the corpus does not (WCF data
// contracts with the serialization schemas, JAX-WS with substitution
// groups, groups, attribute groups, lists and unions, Axis and NuSOAP
// rpc/encoded with arrays of arrays, gSOAP's SOAP 1.2 encoding, names that
// collide every way, deep anonymous nesting and recursion, chameleon
// includes, wsdl:import chains, overloaded operations…; each folder's
// README line says what), are generated twice to the same bytes and build
// and pass go vet, in one module.
func TestShapesBuild(t *testing.T) {
	dirs, err := os.ReadDir(filepath.Join("testdata", "shapes"))
	require.NoError(t, err)
	var contracts []contractDir
	for _, d := range dirs {
		if d.IsDir() {
			contracts = append(contracts, contractDir{pkg: strings.ReplaceAll(d.Name(), "-", ""), dir: filepath.Join("testdata", "shapes", d.Name()), entry: "main.wsdl"})
		}
	}
	require.NotEmpty(t, contracts)
	generateAndBuild(t, contracts)
}
