package wsdl_test

import (
	"encoding/xml"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

func loadRead(t *testing.T, name string) *wsdl.Contract {
	t.Helper()
	c, err := wsdl.Load(t.Context(), xsd.FSLoader(os.DirFS("testdata/read")), name)
	require.NoError(t, err)
	return c
}

func q(space, local string) xml.Name { return xml.Name{Space: space, Local: local} }

func endpoint(t *testing.T, c *wsdl.Contract, service, port string) *wsdl.Endpoint {
	t.Helper()
	for _, e := range c.Endpoints() {
		if e.Service != nil && e.Service.Name.Local == service && e.Port.Name == port {
			return e
		}
	}
	t.Fatalf("no endpoint %s/%s", service, port)
	return nil
}

func op(t *testing.T, e *wsdl.Endpoint, name string) *wsdl.Signature {
	t.Helper()
	for _, s := range e.Operations {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no operation %s", name)
	return nil
}

func paramNames(ps []*xsd.Particle) []string {
	var out []string
	for _, p := range ps {
		n := p.Element.Name
		if n.Space != "" {
			out = append(out, "{"+n.Space+"}"+n.Local)
		} else {
			out = append(out, n.Local)
		}
	}
	return out
}

// TestLoadContract: a contract spread over documents (a port type behind a
// wsdl:import, a schema imported directly under wsdl:types, ISO-8859-1 with
// a blank line before the declaration) with two services, SOAP 1.1, 1.2 and
// HTTP bindings, documentation everywhere.
func TestLoadContract(t *testing.T) {
	c := loadRead(t, "calc.wsdl")
	assert.Equal(t, "Calc", c.Name)
	assert.Equal(t, "urn:calc", c.TargetNamespace)
	assert.Equal(t, "A calculator (café edition).", c.Doc)
	assert.Equal(t, []string{"calc.wsdl", "types/calc.xsd", "abstract/calc-abstract.wsdl"}, c.Documents, "a document's own content, then what it imports")
	require.Len(t, c.Services, 2)
	assert.Equal(t, "The calculator service.", c.Services[0].Doc)
	require.Len(t, c.Bindings, 4)
	kinds := map[string]wsdl.Kind{}
	for _, b := range c.Bindings {
		kinds[b.Name.Local] = b.Kind
	}
	assert.Equal(t, map[string]wsdl.Kind{"CalcSoap11": wsdl.SOAP11, "CalcSoap12": wsdl.SOAP12, "CalcHttpGet": wsdl.HTTP, "CalcSpare": wsdl.SOAP11}, kinds)
	get := c.Binding(q("urn:calc", "CalcHttpGet"))
	assert.Equal(t, "GET", get.Verb)
	assert.Equal(t, "/square", get.Operations[0].HTTPLocation)

	pt := c.PortType(q("urn:calc", "CalcPort"))
	require.NotNil(t, pt)
	assert.Equal(t, "What the calculator does.", pt.Doc)
	assert.Equal(t, xsd.Loc{File: "abstract/calc-abstract.wsdl", Line: 22}, pt.Loc)
	add := pt.Operations[0]
	assert.Equal(t, "Adds two integers.", add.Doc)
	assert.Equal(t, "urn:calc#add", add.Input.Action)
	assert.Equal(t, "addRequest", add.Input.Name, "named after the operation (WSDL 1.1 §2.4.5)")
	assert.Equal(t, "addResponse", add.Output.Name)
	assert.Equal(t, "too big", add.Faults[0].Message.Doc)

	// Endpoints: the SOAP ports of each service, then the SOAP binding no
	// port uses; not the HTTP port.
	var eps []string
	for _, e := range c.Endpoints() {
		if e.Port != nil {
			eps = append(eps, e.Service.Name.Local+"/"+e.Port.Name+" "+e.Address)
		} else {
			eps = append(eps, e.Binding.Name.Local+" (no port)")
		}
	}
	assert.Equal(t, []string{
		"Calc/CalcSoap11 http://127.0.0.1:8080/calc/soap11",
		"Calc/CalcSoap12 http://127.0.0.1:8080/calc/soap12",
		"CalcBackup/CalcSoap11 http://backup.example/calc",
		"CalcSpare (no port)",
	}, eps)

	var warnings []string
	for _, w := range c.Warnings {
		warnings = append(warnings, w.String())
	}
	assert.Equal(t, []string{
		"calc.wsdl:18: {http://schemas.xmlsoap.org/ws/2004/09/policy}Policy in wsdl:definitions is not applied: a WS-Policy assertion (security and reliability policies must be set up by hand)",
		"calc.wsdl:22: {http://schemas.xmlsoap.org/ws/2004/09/policy}PolicyReference in wsdl:binding is not applied: a WS-Policy assertion (security and reliability policies must be set up by hand)",
		"abstract/calc-abstract.wsdl:45: the operation ticks starts with its output (notification or solicit-response): not callable, left out of the endpoints",
		"abstract/calc-abstract.wsdl:19: the part data of a document-style message names a type: it is read as an element data of that type, in no namespace",
	}, warnings)
}

// TestSignatures: wrapped and bare document/literal, headers, faults with
// their detail element, one-way, attachments, version, action, address.
func TestSignatures(t *testing.T) {
	c := loadRead(t, "calc.wsdl")
	e11 := endpoint(t, c, "Calc", "CalcSoap11")
	e12 := endpoint(t, c, "Calc", "CalcSoap12")
	assert.Equal(t, core.V11, e11.Version)
	assert.Equal(t, core.V12, e12.Version)
	assert.Equal(t, []string{"add", "echoStruct", "square", "log", "upload"}, func() (n []string) {
		for _, s := range e11.Operations {
			n = append(n, s.Name)
		}
		return
	}())

	add := op(t, e11, "add")
	assert.Equal(t, wsdl.Document, add.Style)
	assert.Equal(t, "urn:calc#add", add.Action)
	assert.Equal(t, "http://127.0.0.1:8080/calc/soap11", add.Address)
	assert.Equal(t, core.V11, add.Version)
	assert.Equal(t, "Adds two integers.", add.Doc)
	assert.True(t, add.Input.Wrapped)
	assert.Equal(t, q("urn:calc:types", "add"), add.Input.Element)
	assert.Equal(t, []string{"{urn:calc:types}a", "{urn:calc:types}b"}, paramNames(add.Input.Params), "qualified children")
	assert.True(t, add.Output.Wrapped)
	assert.Equal(t, []string{"{urn:calc:types}result"}, paramNames(add.Output.Params))
	require.Len(t, add.Input.Headers, 1)
	h := add.Input.Headers[0]
	assert.Equal(t, q("urn:calc", "auth"), h.Element.Name)
	assert.True(t, h.Required)
	require.Len(t, add.Faults, 1)
	assert.Equal(t, "overflow", add.Faults[0].Name)
	assert.Equal(t, q("urn:calc:types", "overflow"), add.Faults[0].Element.Name)
	assert.Equal(t, q("urn:calc:types", "Overflow"), add.Faults[0].Element.Type.TypeName())
	assert.Equal(t, "urn:calc#add", op(t, e12, "add").Action)
	assert.False(t, *op(t, e12, "add").Binding.ActionRequired)

	echo := op(t, e11, "echoStruct")
	assert.True(t, echo.Input.Wrapped)
	person := echo.Input.Params[0]
	assert.True(t, person.Element.Nillable)
	assert.Equal(t, 1, person.Min, "required and nillable at once")
	assert.Equal(t, 0, echo.Output.Params[0].Min)

	sq := op(t, e11, "square")
	assert.False(t, sq.Input.Wrapped, "a part element not named as the operation: bare")
	assert.Equal(t, q("urn:calc:types", "x"), sq.Input.Element)
	assert.Equal(t, []string{"{urn:calc:types}x"}, paramNames(sq.Input.Params))
	assert.Equal(t, "", sq.Action)

	log := op(t, e11, "log")
	assert.True(t, log.OneWay)
	assert.Nil(t, log.Output)
	assert.True(t, log.Input.Wrapped)

	up := op(t, e11, "upload")
	assert.Equal(t, []string{"{urn:calc:types}meta"}, paramNames(up.Input.Params), "soap:body parts=")
	require.Len(t, up.Input.Attachments, 1)
	assert.Equal(t, "data", up.Input.Attachments[0].Name)
	up12 := op(t, e12, "upload")
	assert.Equal(t, []string{"{urn:calc:types}meta", "data"}, paramNames(up12.Input.Params), "no MIME in 1.2: every part in the body")
	assert.Equal(t, xml.Name{}, up12.Input.Element, "several parts: no one body element")

	spare := c.Endpoints()[3]
	assert.Nil(t, spare.Service)
	assert.Equal(t, "", spare.Address)
	assert.Equal(t, "urn:calc#square", spare.Operations[0].Action)
}

// TestRPCSignatures: rpc/encoded and rpc/literal accessors, the body
// namespace, SOAP-encoded arrays, an encoded header, an empty input.
func TestRPCSignatures(t *testing.T) {
	c := loadRead(t, "rpc.wsdl")
	enc := endpoint(t, c, "Items", "Encoded")
	list := op(t, enc, "list")
	assert.Equal(t, wsdl.RPC, list.Style)
	assert.Equal(t, wsdl.Encoded, list.Input.Use)
	assert.Equal(t, "http://schemas.xmlsoap.org/soap/encoding/", list.Input.EncodingStyle)
	assert.Equal(t, q("urn:rpc:ops", "list"), list.Input.Element)
	assert.Equal(t, q("urn:rpc:ops", "listResponse"), list.Output.Element)
	assert.Equal(t, []string{"filter", "limit"}, paramNames(list.Input.Params), "accessors in no namespace, in the message's order")
	assert.Equal(t, xsd.KindInt, list.Input.Params[1].Element.Type.(*xsd.SimpleType).Kind)
	items := list.Output.Params[0].Element.Type.(*xsd.ComplexType)
	require.NotNil(t, items.Array)
	assert.Equal(t, q("urn:rpc", "Item"), items.Array.ItemType.TypeName())
	assert.Equal(t, []string{"limit", "filter"}, list.Operation.ParameterOrder)
	require.Len(t, list.Input.Headers, 1)
	assert.Equal(t, q("urn:rpc:hdr", "id"), list.Input.Headers[0].Element.Name)
	assert.Equal(t, wsdl.Encoded, list.Input.Headers[0].Use)

	ping := op(t, enc, "ping")
	assert.Empty(t, ping.Input.Params)
	assert.Equal(t, q("urn:rpc:ops", "ping"), ping.Input.Element)
	assert.Equal(t, q(xsd.NamespaceSOAPEnc, "string"), ping.Output.Params[0].Element.Type.TypeName())

	lit := op(t, endpoint(t, c, "Items", "Literal"), "list")
	assert.Equal(t, wsdl.Literal, lit.Input.Use)
	assert.Equal(t, []string{"filter"}, paramNames(lit.Input.Params), "soap:body parts=")
	assert.Equal(t, q("urn:rpc:lit", "list"), lit.Input.Element)
}
