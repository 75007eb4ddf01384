package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
	"github.com/soapwire/soapwire/gen"
	"github.com/soapwire/soapwire/internal/buildcheck"
)

// fileOf returns the generated file named name.
func fileOf(t *testing.T, files []gen.File, name string) string {
	t.Helper()
	for _, f := range files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	t.Fatalf("no file %s", name)
	return ""
}

// TestBinaryMapping: a base64Binary element is []byte unless its
// declaration carries xmime:expectedContentTypes or its type is
// xmime:base64Binary (then core.Binary, read and written with
// Decoder.Binary and Encoder.Binary); with WithBinary every base64Binary
// element is a core.Binary (hexBinary stays []byte), and the package
// builds. A client of a port whose policy requires MTOM passes
// wsdl.WithPackaging(core.MTOM) first; one without does not.
func TestBinaryMapping(t *testing.T) {
	ct, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS("../internal/interop/testdata/contracts")), "mtomdocs.wsdl")
	require.NoError(t, err)
	files, err := gen.Generate(ct)
	require.NoError(t, err)
	types := fileOf(t, files, "types.go")
	for _, want := range []string{"Doc      core.Binary ", "Thumb    *core.Binary ", "Photo    *core.Binary ", "Checksum []byte ", "Copy xsd.Nillable[core.Binary] "} {
		assert.Contains(t, types, want)
	}
	client := fileOf(t, files, "client.go")
	assert.Equal(t, 1, strings.Count(client, "wsdl.WithPackaging(core.MTOM)"), "the MTOM port's constructor only")
	i := strings.Index(client, "func NewDocsMTOMClient")
	require.GreaterOrEqual(t, i, 0)
	assert.Contains(t, client[i:i+300], "wsdl.WithPackaging(core.MTOM)")

	kc, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS("testdata")), "kitchen.wsdl")
	require.NoError(t, err)
	files, err = gen.Generate(kc, gen.WithBinary(), gen.WithPackage("kitchenbin"))
	require.NoError(t, err)
	types = fileOf(t, files, "types.go")
	assert.Contains(t, types, "B64    core.Binary ")
	assert.Contains(t, types, "Hex    []byte ")
	assert.Contains(t, fileOf(t, files, "codec.go"), `d.Binary(st, simpleBase64Binary)`)

	root, err := filepath.Abs("..")
	require.NoError(t, err)
	mod := t.TempDir()
	goMod := "module binarygen\n\ngo 1.26\n\nrequire github.com/soapwire/soapwire v0.0.0\n\nreplace github.com/soapwire/soapwire => " + root + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte(goMod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644))
	for _, f := range files {
		require.NoError(t, os.WriteFile(filepath.Join(mod, f.Name), f.Data, 0o644))
	}
	env := []string{"GOFLAGS=-mod=mod -trimpath", "GOPROXY=off", "GOWORK=off"}
	if out, err := buildcheck.Go(t, mod, env, "vet", "."); err != nil {
		t.Fatalf("go vet of the package made WithBinary: %v\n%s", err, out)
	}
}
