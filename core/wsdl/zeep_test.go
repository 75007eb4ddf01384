package wsdl_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/core/rpc"
)

func TestMain(m *testing.M) { os.Exit(coretest.RunWithPeerSummary(m)) }

const python = "/usr/bin/python3" // Debian's, which sees python3-zeep

// TestZeepLoadsWSDL: zeep, a real WSDL client, parses the WSDL of each
// style (schema types with nested structs and arrays, messages, portType,
// both bindings, the service) and sees the types and operations we wrote.
func TestZeepLoadsWSDL(t *testing.T) {
	if err := exec.Command(python, "-c", "import zeep").Run(); err != nil {
		coretest.RequirePeer(t, "zeep", fmt.Errorf("not installed for %s (apt install python3-zeep): %w", python, err))
	}
	tests := []struct {
		style rpc.Style
		types map[string]string
	}{
		{rpc.DocumentLiteral, map[string]string{
			"Outer": "ns0:Outer(id: xsd:long, name: xsd:string, inner: ns0:Inner, opt: ns0:Inner, inners: ns0:Inner[], grid: ns0:ArrayOfInt[], attrs: None, note: xsd:string)",
			"Inner": "ns0:Inner(values: xsd:double[], kind: xsd:QName, hex: xsd:base64Binary)",
		}},
		{rpc.RPCLiteral, map[string]string{
			"Outer":        "ns0:Outer(id: xsd:long, name: xsd:string, inner: ns0:Inner, opt: ns0:Inner, inners: ns0:Inner[], grid: ns0:ArrayOfInt[], attrs: None, note: xsd:string)",
			"ArrayOfOuter": "ns0:ArrayOfOuter(item: ns0:Outer[])",
		}},
		{rpc.RPCEncoded, map[string]string{
			"Outer":             "ns0:Outer(id: xsd:long, name: xsd:string, inner: ns0:Inner, opt: ns0:Inner, inners: ns0:ArrayOfInner, grid: ns0:ArrayOfArrayOfInt, attrs: None, note: xsd:string)",
			"Inner":             "ns0:Inner(values: ns0:ArrayOfDouble, kind: xsd:QName, hex: xsd:base64Binary)",
			"ArrayOfArrayOfInt": "ns0:ArrayOfArrayOfInt(_value_1: ArrayOfInt[], arrayType: xsd:string, offset: ns1:arrayCoordinate, id: xsd:ID, href: xsd:anyURI, _attr_1: {})",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.style.String(), func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "shapes.wsdl")
			f, err := os.Create(file)
			require.NoError(t, err)
			require.NoError(t, newService(tt.style).WSDL(f, "http://127.0.0.1:8080/shapes"))
			require.NoError(t, f.Close())
			cmd := exec.CommandContext(t.Context(), python, "testdata/zeep_load.py", file,
				"../rpc/testdata/soap-encoding.xsd", "urn:soapwire:shapes")
			out, err := cmd.Output()
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			require.NoError(t, err, "zeep could not load the WSDL:\n%s", stderr)
			var got struct {
				Ports map[string]struct {
					Address    string            `json:"address"`
					Operations map[string]string `json:"operations"`
				} `json:"ports"`
				Types map[string]string `json:"types"`
			}
			require.NoError(t, json.Unmarshal(out, &got), "%s", out)
			require.Len(t, got.Ports, 2)
			for _, port := range []string{"ShapesSoap11", "ShapesSoap12"} {
				p := got.Ports[port]
				assert.Equal(t, "http://127.0.0.1:8080/shapes", p.Address, port)
				assert.Equal(t, "outer: ns0:Outer", p.Operations["nest"], port)
				assert.Equal(t, "s: xsd:string", p.Operations["echo"], port)
				assert.Contains(t, p.Operations, "measure", port)
			}
			for name, sig := range tt.types {
				assert.Equal(t, sig, got.Types[name], name)
			}
		})
	}
}
