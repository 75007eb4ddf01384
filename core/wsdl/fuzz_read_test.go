package wsdl_test

import (
	"io"
	"os"
	"testing"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// FuzzLoadWSDL: any WSDL document, with a second document it may import
// (as b.wsdl or b.xsd), loads or fails within small limits, without a panic
// or a hang; what loads can be described and its endpoints walked.
func FuzzLoadWSDL(f *testing.F) {
	for _, seed := range [][2]string{
		{"testdata/read/rpc.wsdl", "testdata/read/shapes.wsdl"},
		{"testdata/read/shapes.wsdl", "testdata/read/types/calc.xsd"},
		{"testdata/read/abstract/calc-abstract.wsdl", "testdata/read/types/calc.xsd"},
	} {
		a, err := os.ReadFile(seed[0])
		if err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(seed[1])
		if err != nil {
			f.Fatal(err)
		}
		f.Add(a, b)
	}
	f.Add([]byte(contract(okTypes, okMessages, okPortType, okBinding, "")), []byte(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><import location="main.wsdl"/></definitions>`))
	f.Add([]byte(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><import location="b.wsdl"/><types><xs:import xmlns:xs="http://www.w3.org/2001/XMLSchema" schemaLocation="b.xsd"/></types></definitions>`), []byte(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><import location="main.wsdl"/></definitions>`))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		c, err := wsdl.Load(t.Context(), xsd.MapLoader{"main.wsdl": a, "b.wsdl": b, "b.xsd": b}, "main.wsdl",
			xsd.WithLimits(xsd.Limits{MaxBytes: 1 << 20, MaxDocuments: 8, MaxImportDepth: 4, MaxDepth: 64}))
		if err != nil {
			return
		}
		if err := c.Describe(io.Discard); err != nil {
			t.Fatal(err)
		}
		for _, e := range c.Endpoints() {
			for _, s := range e.Operations {
				_ = s.Input.Params
			}
		}
	})
}
