package gen_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/gen"
)

// TestCommittedUpToDate: the generated packages the module holds (the
// test contract's, the interop harness's, the example's and the
// benchmark's) are what the generator makes of their contracts today, so a
// change to the generator shows in them (go generate remakes them).
func TestCommittedUpToDate(t *testing.T) {
	for _, tc := range []struct{ wsdl, dir string }{
		{"testdata/kitchen.wsdl", "internal/kitchen"},
		{"testdata/events.wsdl", "internal/events"},
		{"testdata/swa.wsdl", "../internal/interop/genswa"},
		{"../internal/interop/testdata/contracts/calc-qualified.wsdl", "../internal/interop/gencalc/qualified"},
		{"../internal/interop/testdata/contracts/calc-bare.wsdl", "../internal/interop/gencalc/bare"},
		{"../internal/interop/testdata/contracts/calc-encoded.wsdl", "../internal/interop/gencalc/encoded"},
		{"../examples/contract-first/orders.wsdl", "../examples/contract-first/orders"},
		{"../internal/interop/testdata/contracts/calc-headers.wsdl", "../internal/interop/gencalc/headers"},
		{"../bench/gencodec/echo.wsdl", "../bench/internal/echows"},
		{"../internal/interop/testdata/contracts/mtomdocs.wsdl", "../internal/interop/genmtom/mtomdocs"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			ct, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS(filepath.Dir(tc.wsdl))), filepath.Base(tc.wsdl))
			require.NoError(t, err)
			files, err := gen.Generate(ct, gen.WithPackage(filepath.Base(tc.dir)), gen.WithSource(filepath.Base(tc.wsdl)))
			require.NoError(t, err)
			on, err := filepath.Glob(filepath.Join(tc.dir, "*.go"))
			require.NoError(t, err)
			assert.Len(t, on, len(files), "files in %s", tc.dir)
			for _, f := range files {
				have, err := os.ReadFile(filepath.Join(tc.dir, f.Name))
				require.NoError(t, err, "go generate remakes it")
				assert.Equal(t, string(f.Data), string(have), "%s/%s is not what the generator makes: run go generate", tc.dir, f.Name)
			}
		})
	}
}
