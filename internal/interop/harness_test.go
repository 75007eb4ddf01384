package interop_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/internal/interop"
)

func TestMain(m *testing.M) { os.Exit(coretest.RunWithPeerSummary(m)) }

// peerTest skips a test that runs peers with -short, unless
// SOAPWIRE_REQUIRE_PEERS=1 asks for every peer.
func peerTest(t *testing.T) {
	t.Helper()
	if testing.Short() && os.Getenv(coretest.RequirePeersEnv) != "1" {
		t.Skip("runs interop peers (-short)")
	}
}

func TestParseValues(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []interop.Values
		wantErr string
	}{
		{"one call", "return=\"héllo <&>\"\nresult=\"42\"\n", []interop.Values{{"return": "héllo <&>", "result": "42"}}, ""},
		{"nil and empty", "note=nil\nname=\"\"\n", []interop.Values{{"note": interop.Nil, "name": ""}}, ""},
		{"escapes", `s="a\"b\\c\nd\u0001"` + "\n", []interop.Values{{"s": "a\"b\\c\nd\x01"}}, ""},
		{"the string nil", "s=\"nil\"\n", []interop.Values{{"s": "nil"}}, ""},
		{"calls", "a=\"1\"\n--\n--\nb=\"2\"\n", []interop.Values{{"a": "1"}, {}, {"b": "2"}}, ""},
		{"nothing", "", []interop.Values{{}}, ""},
		{"no equals", "return\n", nil, `line 1: "return" is not PATH=VALUE`},
		{"no path", "=\"x\"\n", nil, "is not PATH=VALUE"},
		{"not JSON", "a=\"1\"\nb=x\n", nil, "line 2: b:"},
		{"twice", "a=\"1\"\na=\"2\"\n", nil, "line 2: a printed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := interop.ParseValues([]byte(tt.in))
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestValues(t *testing.T) {
	v := interop.Values{
		"return.name": "Ada", "return.note": interop.Nil, "returned": "x",
		"fault.code": "SOAP-ENV:Client", "fault.subcode": "{urn:x}Deep", "fault.string": "a:b",
	}
	assert.Equal(t, interop.Values{"name": "Ada", "note": interop.Nil}, v.Sub("return"))
	assert.True(t, v.Fault())
	assert.Empty(t, v.Err())
	assert.False(t, interop.Values{"error": "boom"}.Fault())
	assert.Equal(t, "boom", interop.Values{"error": "boom"}.Err())

	n := v.Normalized()
	assert.Equal(t, "Client", n["fault.code"])
	assert.Equal(t, "Deep", n["fault.subcode"])
	assert.Equal(t, "a:b", n["fault.string"], "only the codes are reduced")
	assert.Equal(t, "SOAP-ENV:Client", v["fault.code"], "Normalized copies")
	assert.NotContains(t, v.WithoutNil(), "return.note")
	assert.Contains(t, v.WithoutNil(), "return.name")

	// String writes the text form ParseValues reads.
	back, err := interop.ParseValues([]byte(v.String()))
	require.NoError(t, err)
	assert.Equal(t, []interop.Values{v}, back)
	assert.True(t, strings.HasPrefix(v.String(), "fault.code=\"SOAP-ENV:Client\"\n"), "sorted by path:\n%s", v)
}

// wsdlDoc is what the contract tests read of a WSDL.
type wsdlDoc struct {
	TargetNamespace string `xml:"targetNamespace,attr"`
	Schemas         []struct {
		TargetNamespace    string `xml:"targetNamespace,attr"`
		ElementFormDefault string `xml:"elementFormDefault,attr"`
	} `xml:"types>schema"`
	Bindings []struct {
		Name string `xml:"name,attr"`
		SOAP []struct {
			Style string `xml:"style,attr"`
		} `xml:"http://schemas.xmlsoap.org/wsdl/soap/ binding"`
		SOAP2 []struct {
			Style string `xml:"style,attr"`
		} `xml:"http://schemas.xmlsoap.org/wsdl/soap12/ binding"`
		Ops []struct {
			Name string `xml:"name,attr"`
			Use  []struct {
				Use string `xml:"use,attr"`
			} `xml:"input>body"`
		} `xml:"operation"`
	} `xml:"binding"`
	Addresses []struct {
		Location string `xml:"location,attr"`
	} `xml:"service>port>address"`
}

func readWSDL(t *testing.T, path string) wsdlDoc {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var d wsdlDoc
	require.NoError(t, xml.Unmarshal(b, &d), path)
	return d
}

// TestContracts: each contract is well-formed and is what its constant
// says: namespace, style, use, element form, ports of each version.
func TestContracts(t *testing.T) {
	tests := []struct {
		c        interop.Contract
		style    string
		use      string
		form     string
		versions []core.Version
		ops      int
	}{
		{interop.Qualified, "document", "literal", "qualified", []core.Version{core.V11, core.V12}, 4},
		{interop.Bare, "document", "literal", "qualified", []core.Version{core.V11, core.V12}, 4},
		{interop.Encoded, "rpc", "encoded", "", []core.Version{core.V11}, 5},
	}
	require.Len(t, interop.Contracts(), len(tests))
	for i, tt := range tests {
		t.Run(string(tt.c), func(t *testing.T) {
			assert.Equal(t, tt.c, interop.Contracts()[i])
			d := readWSDL(t, tt.c.Path())
			assert.Equal(t, tt.c.Namespace(), d.TargetNamespace)
			require.Len(t, d.Schemas, 1)
			assert.Equal(t, tt.c.Namespace(), d.Schemas[0].TargetNamespace)
			assert.Equal(t, tt.form, d.Schemas[0].ElementFormDefault)
			assert.Equal(t, tt.versions, tt.c.Versions())
			require.Len(t, d.Bindings, len(tt.versions))
			for j, b := range d.Bindings {
				if tt.versions[j] == core.V11 {
					require.Len(t, b.SOAP, 1, b.Name)
					assert.Equal(t, tt.style, b.SOAP[0].Style)
				} else {
					require.Len(t, b.SOAP2, 1, b.Name)
					assert.Equal(t, tt.style, b.SOAP2[0].Style)
				}
				require.Len(t, b.Ops, tt.ops)
				for _, op := range b.Ops {
					require.Len(t, op.Use, 1, op.Name)
					assert.Equal(t, tt.use, op.Use[0].Use, op.Name)
				}
			}
			assert.Equal(t, tt.c.Namespace()+"#add", tt.c.Action("add"))
		})
	}
}

// TestContractAt: the copy has every port's address, and nothing else
// changed.
func TestContractAt(t *testing.T) {
	for _, c := range interop.Contracts() {
		path := interop.ContractAt(t, c, "http://127.0.0.1:9/x?a=1&b=$1")
		d := readWSDL(t, path)
		require.Len(t, d.Addresses, len(c.Versions()))
		for _, a := range d.Addresses {
			assert.Equal(t, "http://127.0.0.1:9/x?a=1&b=$1", a.Location)
		}
		orig, err := os.ReadFile(c.Path())
		require.NoError(t, err)
		got, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, strings.Count(string(orig), "\n"), strings.Count(string(got), "\n"))
	}
}

// TestCases: every case's call names an operation of its contract, and the
// fault case wants the version's code.
func TestCases(t *testing.T) {
	for _, c := range append(interop.Contracts(), interop.Headers) {
		for _, v := range c.Versions() {
			cases := interop.Cases(c, v)
			require.NotEmpty(t, cases)
			wsdl, err := os.ReadFile(c.Path())
			require.NoError(t, err)
			for i, cs := range cases {
				assert.Equal(t, v, cs.Version)
				assert.Contains(t, string(wsdl), `<wsdl:operation name="`+cs.Op+`">`, cs.Name)
				assert.Equal(t, cs.Call, interop.Calls(cases)[i])
			}
			last := cases[len(cases)-1]
			assert.Equal(t, map[core.Version]string{core.V11: "Client", core.V12: "Sender"}[v], last.Want["fault.code"])
		}
	}
}

// TestZeepOperations: what zeep derives from each contract, pinned: one
// entry per operation and port, wrapped operations by their wrapper's
// children, bare ones by their element's content (zeep's view of bare),
// the soapAction of each.
func TestZeepOperations(t *testing.T) {
	t.Parallel()
	peerTest(t)
	want := map[interop.Contract][]string{
		interop.Qualified: {
			"add(a: xsd:int, b: xsd:int) -> result: xsd:int",
			"echoString(s: xsd:string) -> return: xsd:string",
			"echoStruct(person: ns0:Person) -> return: ns0:Person",
			"fail(code: xsd:string) -> ",
		},
		interop.Bare: {
			"add(a: xsd:int, b: xsd:int) -> xsd:int",
			"echoString(xsd:string) -> xsd:string",
			"echoStruct(name: xsd:string, age: xsd:int, address: ns0:Address, tags: xsd:string[], nickname: xsd:string, note: xsd:string, id: xsd:int)" +
				" -> name: xsd:string, age: xsd:int, address: ns0:Address, tags: xsd:string[], nickname: xsd:string, note: xsd:string, id: xsd:int",
			"fail(xsd:string) -> xsd:string",
		},
		interop.Encoded: {
			"add(a: xsd:int, b: xsd:int) -> result: xsd:int",
			"echoString(s: xsd:string) -> return: xsd:string",
			"echoStruct(person: ns0:Person) -> return: ns0:Person",
			"fail(code: xsd:string) -> None", // zeep prints an rpc output without parts so
			"sumArray(values: ns0:ArrayOfInt) -> result: xsd:int",
		},
	}
	for _, c := range interop.Contracts() {
		ops, err := interop.ZeepOperations(t, c.Path())
		require.NoError(t, err)
		require.Len(t, ops, len(want[c])*len(c.Versions()), "%s: %+v", c, ops)
		for i, op := range ops {
			v := c.Versions()[i/len(want[c])]
			assert.Equal(t, map[core.Version]string{core.V11: "soap11", core.V12: "soap12"}[v], op.Binding)
			assert.Equal(t, want[c][i%len(want[c])], op.Signature, "%s %s", c, op.Name)
			assert.Equal(t, c.Action(op.Name), op.Action)
			assert.NotEmpty(t, op.Service)
			assert.NotEmpty(t, op.Port)
		}
	}
	_, err := interop.ZeepOperations(t, filepath.Join(t.TempDir(), "missing.wsdl"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "No such file")
}
