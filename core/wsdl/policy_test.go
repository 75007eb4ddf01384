package wsdl_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// policyContract is a contract whose binding B holds bindingExtra, whose
// port holds portExtra, with defs in wsdl:definitions.
func policyContract(t *testing.T, defs, bindingExtra, portExtra string) *wsdl.Contract {
	t.Helper()
	doc := fmt.Sprintf(`<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
  xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:p" targetNamespace="urn:p"
  xmlns:wsp="http://schemas.xmlsoap.org/ws/2004/09/policy" xmlns:wsp15="http://www.w3.org/ns/ws-policy"
  xmlns:wsoma="http://schemas.xmlsoap.org/ws/2004/09/policy/optimizedmimeserialization"
  xmlns:sp="http://docs.oasis-open.org/ws-sx/ws-securitypolicy/200702"
  xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd">
  %s
  <wsdl:types><xsd:schema targetNamespace="urn:p"><xsd:element name="e" type="xsd:base64Binary"/></xsd:schema></wsdl:types>
  <wsdl:message name="m"><wsdl:part name="p" element="tns:e"/></wsdl:message>
  <wsdl:portType name="PT"><wsdl:operation name="op"><wsdl:input message="tns:m"/><wsdl:output message="tns:m"/></wsdl:operation></wsdl:portType>
  <wsdl:binding name="B" type="tns:PT">%s
    <soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
    <wsdl:operation name="op"><soap:operation soapAction="op"/><wsdl:input><soap:body use="literal"/></wsdl:input><wsdl:output><soap:body use="literal"/></wsdl:output></wsdl:operation>
  </wsdl:binding>
  <wsdl:service name="S"><wsdl:port name="P" binding="tns:B"><soap:address location="http://localhost/p"/>%s</wsdl:port></wsdl:service>
</wsdl:definitions>`, defs, bindingExtra, portExtra)
	c, err := wsdl.Load(t.Context(), xsd.MapLoader{"p.wsdl": []byte(doc)}, "p.wsdl")
	require.NoError(t, err)
	return c
}

// TestPolicyMTOM: the MTOM assertion (wsoma:OptimizedMimeSerialization)
// is found in a wsp:Policy inline in the binding, through a
// wsp:PolicyReference to a policy of wsdl:definitions (by wsu:Id, xml:id
// or, in WS-Policy 1.5, its Name), through wsp:PolicyURIs, and in a
// policy attached to the port; it is not required when marked
// wsp:Optional, when an alternative of wsp:ExactlyOne lacks it, when the
// reference names no policy, or when there is no policy. A policy of MTOM
// alone is applied without a warning; one with other assertions is still
// reported as not applied.
func TestPolicyMTOM(t *testing.T) {
	const mtom = `<wsoma:OptimizedMimeSerialization/>`
	named := func(id string, body string) string {
		return `<wsp:Policy wsu:Id="` + id + `"><wsp:ExactlyOne><wsp:All>` + body + `</wsp:All></wsp:ExactlyOne></wsp:Policy>`
	}
	for _, c := range []struct {
		name                      string
		defs, binding, port       string
		binds, ports, warnsPolicy bool
	}{
		{name: "inline", binding: `<wsp:Policy>` + mtom + `</wsp:Policy>`, binds: true},
		{name: "reference", defs: named("M", mtom), binding: `<wsp:PolicyReference URI="#M"/>`, binds: true},
		{name: "xml:id", defs: `<wsp:Policy xml:id="X">` + mtom + `</wsp:Policy>`, binding: `<wsp:PolicyReference URI="#X"/>`, binds: true},
		{name: "wsp15 Name", defs: `<wsp15:Policy Name="urn:policy:mtom"><wsp15:All>` + mtom + `</wsp15:All></wsp15:Policy>`,
			binding: `<wsp15:PolicyReference URI="urn:policy:mtom"/>`, binds: true},
		{name: "nested reference", defs: named("M", mtom) + `<wsp:Policy wsu:Id="Outer"><wsp:PolicyReference URI="#M"/></wsp:Policy>`,
			binding: `<wsp:PolicyReference URI="#Outer"/>`, binds: true},
		{name: "port", defs: named("M", mtom), port: `<wsp:PolicyReference URI="#M"/>`, ports: true},
		{name: "with security", defs: named("M", mtom+`<sp:TransportBinding/>`), binding: `<wsp:PolicyReference URI="#M"/>`, binds: true, warnsPolicy: true},
		{name: "optional", binding: `<wsp:Policy><wsoma:OptimizedMimeSerialization wsp:Optional="true"/></wsp:Policy>`},
		{name: "one alternative", binding: `<wsp:Policy><wsp:ExactlyOne><wsp:All>` + mtom + `</wsp:All><wsp:All/></wsp:ExactlyOne></wsp:Policy>`},
		{name: "dangling", binding: `<wsp:PolicyReference URI="#Nothing"/>`, warnsPolicy: true},
		{name: "security only", defs: named("S", `<sp:TransportBinding/>`), binding: `<wsp:PolicyReference URI="#S"/>`, warnsPolicy: true},
		{name: "empty policy", binding: `<wsp:Policy/>`, warnsPolicy: true},
		{name: "none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ct := policyContract(t, c.defs, c.binding, c.port)
			e := endpoint(t, ct, "S", "P")
			assert.Equal(t, c.binds, e.Binding.MTOM, "binding")
			assert.Equal(t, c.ports, e.Port.MTOM, "port")
			assert.Equal(t, c.binds || c.ports, e.MTOM, "endpoint")
			policyWarning := false
			for _, w := range ct.Warnings {
				if strings.Contains(w.String(), "ws/2004/09/policy}") || strings.Contains(w.String(), "ns/ws-policy}") {
					policyWarning = true
				}
			}
			assert.Equal(t, c.warnsPolicy, policyWarning, "a WS-Policy warning: %v", ct.Warnings)
		})
	}
}

// TestPolicyReferencesBounded: policies that each name the next twice, 40
// deep (2^40 paths), are walked within a bound: the load ends, and a
// policy it cannot judge within it does not ask for MTOM.
func TestPolicyReferencesBounded(t *testing.T) {
	var defs strings.Builder
	defs.WriteString(`<wsp:Policy wsu:Id="P40"><wsoma:OptimizedMimeSerialization/><sp:TransportBinding/></wsp:Policy>`)
	for i := 39; i >= 0; i-- {
		fmt.Fprintf(&defs, `<wsp:Policy wsu:Id="P%d"><wsp:ExactlyOne><wsp:PolicyReference URI="#P%d"/><wsp:PolicyReference URI="#P%d"/></wsp:ExactlyOne></wsp:Policy>`, i, i+1, i+1)
	}
	ct := policyContract(t, defs.String(), `<wsp:PolicyReference URI="#P0"/>`, "")
	assert.False(t, endpoint(t, ct, "S", "P").MTOM)
}

// TestClientPackaging: the run-time client sends its requests in an MTOM
// package when the port's policy requires MTOM (its binary values inline,
// as the reflective codec writes them), in a plain envelope otherwise;
// WithPackaging on NewClient or on the call decides instead.
func TestClientPackaging(t *testing.T) {
	mtom := policyContract(t, "", `<wsp:Policy><wsoma:OptimizedMimeSerialization/></wsp:Policy>`, "")
	plain := policyContract(t, "", "", "")
	for _, c := range []struct {
		name string
		ct   *wsdl.Contract
		opts []wsdl.ClientOption
		call []wsdl.CallOption
		want core.Packaging
	}{
		{"policy", mtom, nil, nil, core.MTOM},
		{"no policy", plain, nil, nil, core.Inline},
		{"client option", mtom, []wsdl.ClientOption{wsdl.WithPackaging(core.Inline)}, nil, core.Inline},
		{"call option", plain, nil, []wsdl.CallOption{wsdl.WithPackaging(core.MTOM)}, core.MTOM},
	} {
		cl, err := wsdl.NewClient(c.ct, nil, c.opts...)
		require.NoError(t, err, c.name)
		m, err := cl.Request("op", []byte("hi"), c.call...)
		require.NoError(t, err, c.name)
		assert.Equal(t, c.want, m.Packaging, c.name)
		var buf bytes.Buffer
		_, err = m.WriteTo(&buf)
		require.NoError(t, err, c.name)
		assert.Contains(t, buf.String(), ">aGk=<", c.name)
	}
}
