package wsdl_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/rpc"
	"github.com/soapwire/soapwire/core/wsdl"
)

var update = flag.Bool("update", false, "rewrite the golden files")

type Point struct {
	X, Y float64
}

type ShapeReq struct {
	Name    string    `soap:"name"`
	Points  []Point   `soap:"points"`
	Created time.Time `soap:"created"`
	Data    []byte    `soap:"data"`
	Note    *string   `soap:"note"`
	Scale   int32     `soap:"scale,inout"`
}

type ShapeResp struct {
	Area  float64 `soap:"area"`
	Scale int32   `soap:"scale,inout"`
	OK    bool    `soap:"ok"`
}

// Base is embedded in Outer: its fields are promoted.
type Base struct {
	ID int64 `soap:"id"`
}

// Outer nests structs and arrays in every way the schema has to describe.
type Outer struct {
	Base
	Name   string            `soap:"name"`
	Inner  Inner             `soap:"inner"`
	Opt    *Inner            `soap:"opt"`
	Inners []Inner           `soap:"inners"`
	Grid   [][]int32         `soap:"grid"`
	Attrs  map[string]string `soap:"attrs"`
	Note   string            `soap:"note,omitempty"`
	Skip   string            `soap:"-"`
}

type Inner struct {
	Values []float64 `soap:"values"`
	Kind   xml.Name  `soap:"kind"`
	Hex    []byte    `soap:"hex"`
}

type NestReq struct {
	Outer Outer `soap:"outer"`
}

type NestResp struct {
	Return []Outer `soap:"return"`
}

type EchoReq struct {
	S string `soap:"s"`
}

type EchoResp struct {
	Return string `soap:"return"`
}

func newService(style rpc.Style) *rpc.Service {
	s := rpc.NewService("urn:soapwire:shapes", "Shapes", rpc.WithStyle(style))
	rpc.Register(s, "echo", func(_ context.Context, r *EchoReq) (*EchoResp, error) {
		return &EchoResp{Return: r.S}, nil
	}, rpc.WithDoc("echo returns s."))
	rpc.Register(s, "measure", func(_ context.Context, r *ShapeReq) (*ShapeResp, error) {
		return &ShapeResp{}, nil
	}, rpc.WithAction("urn:measure"))
	rpc.Register(s, "nest", func(_ context.Context, r *NestReq) (*NestResp, error) {
		return &NestResp{Return: []Outer{r.Outer}}, nil
	})
	return s
}

// definitions is what the test reads back from a WSDL.
type definitions struct {
	XMLName  xml.Name `xml:"http://schemas.xmlsoap.org/wsdl/ definitions"`
	TNS      string   `xml:"targetNamespace,attr"`
	Messages []struct {
		Name string `xml:"name,attr"`
	} `xml:"message"`
	PortTypes []struct {
		Ops []struct {
			Name string `xml:"name,attr"`
		} `xml:"operation"`
	} `xml:"portType"`
	Bindings []struct {
		Name string `xml:"name,attr"`
		Ops  []struct {
			Name string `xml:"name,attr"`
		} `xml:"operation"`
	} `xml:"binding"`
	Ports []struct {
		Name string `xml:"name,attr"`
		SOAP []struct {
			Location string `xml:"location,attr"`
		} `xml:"address"`
	} `xml:"service>port"`
}

func TestWSDLGolden(t *testing.T) {
	tests := []struct {
		style rpc.Style
		file  string
		has   []string
	}{
		{rpc.DocumentLiteral, "document-literal.wsdl", []string{`style="document"`, `<wsdl:part name="parameters" element="tns:measure"/>`,
			`<xsd:element name="points" type="tns:Point" minOccurs="0" maxOccurs="unbounded"/>`, `use="literal"/>`}},
		{rpc.RPCLiteral, "rpc-literal.wsdl", []string{`style="rpc"`, `<wsdl:part name="points" type="tns:ArrayOfPoint"/>`,
			`use="literal" namespace="urn:soapwire:shapes"`}},
		{rpc.RPCEncoded, "rpc-encoded.wsdl", []string{`base="soapenc:Array"`, `wsdl:arrayType="tns:Point[]"`,
			`use="encoded" namespace="urn:soapwire:shapes" encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"`,
			`encodingStyle="http://www.w3.org/2003/05/soap-encoding"`}},
	}
	for _, tt := range tests {
		t.Run(tt.style.String(), func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, newService(tt.style).WSDL(&b, "http://localhost:8080/shapes"))
			out := b.String()
			for _, s := range append(tt.has, `type="xsd:dateTime"`, `type="xsd:base64Binary"`, `soapAction="urn:measure"`,
				`soapAction="urn:soapwire:shapes#echo"`, `<soap:address location="http://localhost:8080/shapes"/>`,
				`<soap12:address location="http://localhost:8080/shapes"/>`) {
				assert.Contains(t, out, s)
			}

			var d definitions
			require.NoError(t, xml.Unmarshal(b.Bytes(), &d))
			assert.Equal(t, "urn:soapwire:shapes", d.TNS)
			require.Len(t, d.PortTypes, 1)
			require.Len(t, d.Bindings, 2)
			for _, op := range []string{"echo", "measure", "nest"} {
				assert.True(t, hasOp(d.PortTypes[0].Ops, op), op)
				for _, bd := range d.Bindings {
					assert.True(t, hasOp(bd.Ops, op), "%s in %s", op, bd.Name)
				}
			}
			assert.Len(t, d.Messages, 6)
			require.Len(t, d.Ports, 2)

			golden := filepath.Join("testdata", tt.file)
			if *update {
				require.NoError(t, os.WriteFile(golden, b.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./core/wsdl -update to create it")
			assert.Equal(t, string(want), out)
		})
	}
}

func hasOp(ops []struct {
	Name string `xml:"name,attr"`
}, name string) bool {
	for _, o := range ops {
		if o.Name == name {
			return true
		}
	}
	return false
}

func TestWSDLErrors(t *testing.T) {
	tests := []struct {
		name string
		def  wsdl.Definition
		want string
	}{
		{"document/encoded", wsdl.Definition{Name: "x", Encoded: true}, "document/encoded"},
		{"channel type", wsdl.Definition{Name: "x", Operations: []wsdl.Operation{{Name: "op",
			Input: []wsdl.Part{{Name: "c", Type: reflect.TypeFor[chan int]()}}}}}, "no XML Schema type"},
		{"anonymous struct", wsdl.Definition{Name: "x", Operations: []wsdl.Operation{{Name: "op",
			Input: []wsdl.Part{{Name: "c", Type: reflect.TypeFor[struct{ A int }]()}}}}}, "anonymous struct"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.def.Write(&strings.Builder{}, "http://x")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
