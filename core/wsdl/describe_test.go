package wsdl_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDescribe: the text summary of soapwire's own test contracts (every
// notation of Describe's doc appears), pinned in testdata/read/*.txt.
func TestDescribe(t *testing.T) {
	for _, name := range []string{"calc.wsdl", "rpc.wsdl", "shapes.wsdl"} {
		t.Run(name, func(t *testing.T) {
			c := loadRead(t, name)
			var got bytes.Buffer
			require.NoError(t, c.Describe(&got))
			golden := filepath.Join("testdata", "read", name[:len(name)-len(".wsdl")]+".txt")
			if *update {
				require.NoError(t, os.WriteFile(golden, got.Bytes(), 0o644))
				return
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./core/wsdl -run TestDescribe -update to create it")
			assert.Equal(t, string(want), got.String())
		})
	}
}
