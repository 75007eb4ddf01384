package wsdl_test

import (
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// contract is a small WSDL with pieces to replace.
func contract(types, messages, portType, binding, service string) string {
	return `<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"
  xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t">
<types><xs:schema targetNamespace="urn:t" elementFormDefault="qualified">` + types + `</xs:schema></types>
` + messages + `
<portType name="P">` + portType + `</portType>
<binding name="B" type="tns:P"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>` + binding + `</binding>
<service name="S"><port name="Q" binding="tns:B"><soap:address location="http://127.0.0.1/"/></port>` + service + `</service>
</definitions>`
}

const (
	okTypes    = `<xs:element name="op"><xs:complexType><xs:sequence><xs:element name="a" type="xs:int"/></xs:sequence></xs:complexType></xs:element>`
	okMessages = `<message name="in"><part name="parameters" element="tns:op"/></message>`
	okPortType = `<operation name="op"><input message="tns:in"/></operation>`
	okBinding  = `<operation name="op"><soap:operation soapAction="a"/><input><soap:body use="literal"/></input></operation>`
)

func TestLoadContractErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		doc  string
		err  string
	}{
		{"unknown message", contract(okTypes, okMessages, `<operation name="op"><input message="tns:nope"/></operation>`, okBinding, ""), "main.wsdl:5: the message {urn:t}nope is not defined"},
		{"unknown port type", strings.Replace(contract(okTypes, okMessages, okPortType, okBinding, ""), `type="tns:P"`, `type="tns:Q"`, 1), "the port type {urn:t}Q of the binding B is not defined"},
		{"unknown binding", contract(okTypes, okMessages, okPortType, okBinding, `<port name="R" binding="tns:Nope"/>`), "the binding {urn:t}Nope of the port R is not defined"},
		{"operation not in the port type", contract(okTypes, okMessages, okPortType, okBinding+`<operation name="other"><input/></operation>`, ""), "the binding B has an operation other its port type P does not have"},
		{"unknown element", contract(okTypes, `<message name="in"><part name="p" element="tns:nope"/></message>`, okPortType, okBinding, ""), "the element {urn:t}nope of the part p of the message in is not defined"},
		{"unknown type", contract(okTypes, `<message name="in"><part name="p" type="tns:Nope"/></message>`, okPortType, okBinding, ""), "the type {urn:t}Nope of the part p of the message in is not defined"},
		{"element and type", contract(okTypes, `<message name="in"><part name="p" element="tns:op" type="xs:int"/></message>`, okPortType, okBinding, ""), "the part p names both an element and a type"},
		{"neither", contract(okTypes, `<message name="in"><part name="p"/></message>`, okPortType, okBinding, ""), "the part p names neither an element nor a type"},
		{"undeclared prefix", contract(okTypes, `<message name="in"><part name="p" element="q:op"/></message>`, okPortType, okBinding, ""), `element: the prefix "q" of "q:op" is not declared`},
		{"body part missing", contract(okTypes, okMessages, okPortType, `<operation name="op"><input><soap:body parts="nope" use="literal"/></input></operation>`, ""), `soap:body names the part "nope", which the message in does not have`},
		{"header part missing", contract(okTypes, okMessages, okPortType, `<operation name="op"><input><soap:body use="literal"/><soap:header message="tns:in" part="nope" use="literal"/></input></operation>`, ""), `the message in has no part "nope" for a soap:header`},
		{"unknown fault", contract(okTypes, okMessages, okPortType, `<operation name="op"><input><soap:body use="literal"/></input><fault name="f"><soap:fault name="f" use="literal"/></fault></operation>`, ""), `the binding's fault "f" is not a fault of the operation op`},
		{"bad use", contract(okTypes, okMessages, okPortType, `<operation name="op"><input><soap:body use="plain"/></input></operation>`, ""), `use="plain" (literal or encoded)`},
		{"bad style", contract(okTypes, okMessages, okPortType, `<operation name="op"><soap:operation style="doc"/><input><soap:body use="literal"/></input></operation>`, ""), `style="doc" (document or rpc)`},
		{"two inputs", contract(okTypes, okMessages, `<operation name="op"><input message="tns:in"/><input message="tns:in"/></operation>`, okBinding, ""), "the operation op has two inputs"},
		{"empty operation", contract(okTypes, okMessages, `<operation name="op"/>`, okBinding, ""), "the operation op has neither an input nor an output"},
		{"required extension", contract(okTypes, okMessages, okPortType, okBinding+`<x:sign xmlns:x="urn:x" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" wsdl:required="true"/>`, ""), "the extension {urn:x}sign in wsdl:binding is marked required and is not supported"},
		{"import without a location", strings.Replace(contract(okTypes, okMessages, okPortType, okBinding, ""), "<types>", `<import namespace="urn:x"/><types>`, 1), `wsdl:import of "urn:x" without a location`},
		{"a schema error", contract(`<xs:element name="x" type="tns:Nope"/>`, okMessages, okPortType, okBinding, ""), "main.wsdl:3: the type {urn:t}Nope of the element x is not defined"},
		{"WSDL 2.0", `<description xmlns="http://www.w3.org/ns/wsdl"/>`, "WSDL 2.0 (http://www.w3.org/ns/wsdl) is not supported"},
		{"not WSDL", `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"/>`, "{http://www.w3.org/2001/XMLSchema}schema is not a WSDL 1.1 document"},
		{"not XML", `<definitions`, "main.wsdl:1: unexpected end of input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wsdl.Load(t.Context(), xsd.MapLoader{"main.wsdl": []byte(tc.doc)}, "main.wsdl")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
		})
	}
}

// wsdlChain returns n WSDL documents, each importing the next.
func wsdlChain(n int) xsd.MapLoader {
	docs := xsd.MapLoader{}
	for i := 0; i < n; i++ {
		imp := ""
		if i+1 < n {
			imp = fmt.Sprintf(`<import namespace="urn:%d" location="w%d.wsdl"/>`, i+1, i+1)
		}
		docs[fmt.Sprintf("w%d.wsdl", i)] = []byte(fmt.Sprintf(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" targetNamespace="urn:%d">%s</definitions>`, i, imp))
	}
	return docs
}

// TestLoadContractLimits: hostile contracts are refused within the limits;
// WSDL documents that import each other are read once each.
func TestLoadContractLimits(t *testing.T) {
	loop := xsd.MapLoader{
		"a.wsdl": []byte(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" targetNamespace="urn:t"><import namespace="urn:t" location="b.wsdl"/></definitions>`),
		"b.wsdl": []byte(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" targetNamespace="urn:t"><import namespace="urn:t" location="a.wsdl"/><import namespace="urn:t" location="./b.wsdl"/></definitions>`),
	}
	c, err := wsdl.Load(t.Context(), loop, "a.wsdl")
	require.NoError(t, err)
	assert.Equal(t, []string{"a.wsdl", "b.wsdl"}, c.Documents)

	for _, tc := range []struct {
		name string
		docs xsd.MapLoader
		lim  xsd.Limits
		err  string
		is   error
	}{
		{"a long chain of imports", wsdlChain(80), xsd.Limits{}, "imports nest deeper than 64 documents", xsd.ErrLimit},
		{"many documents", wsdlChain(20), xsd.Limits{MaxDocuments: 10}, "more than 10 documents", xsd.ErrLimit},
		{"a huge document", xsd.MapLoader{"w0.wsdl": []byte(contract(okTypes, okMessages, okPortType, okBinding, strings.Repeat("<!-- -->", 1000)))}, xsd.Limits{MaxDocumentBytes: 4096}, "larger than 4096 bytes", xsd.ErrTooLarge},
		{"deep nesting", xsd.MapLoader{"w0.wsdl": []byte(contract(okTypes, okMessages, okPortType, okBinding, strings.Repeat("<documentation>", 300)+strings.Repeat("</documentation>", 300)))}, xsd.Limits{}, "nest", xsd.ErrLimit},
		{"a missing import", xsd.MapLoader{"w0.wsdl": []byte(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><import namespace="urn:x" location="x/y.wsdl"/></definitions>`)}, xsd.Limits{}, "open x/y.wsdl: file does not exist (named at w0.wsdl:1)", nil},
		{"an import by URL", xsd.MapLoader{"w0.wsdl": []byte(`<definitions xmlns="http://schemas.xmlsoap.org/wsdl/"><import namespace="urn:x" location="http://example.com/y.wsdl"/></definitions>`)}, xsd.Limits{}, "fetching http://example.com/y.wsdl: not allowed by the loader", xsd.ErrNotAllowed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := wsdl.Load(t.Context(), tc.docs, "w0.wsdl", xsd.WithLimits(tc.lim))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			if tc.is != nil {
				assert.True(t, errors.Is(err, tc.is), "%v", err)
			}
		})
	}
}

// TestLoadDuplicates: a component defined again (here in an imported
// document) is reported where it is, and the first one is used.
func TestLoadDuplicates(t *testing.T) {
	main := strings.Replace(contract(okTypes, okMessages, okPortType, okBinding, ""), "<types>", `<import namespace="urn:t" location="again.wsdl"/><types>`, 1)
	again := `<definitions xmlns="http://schemas.xmlsoap.org/wsdl/" xmlns:tns="urn:t" targetNamespace="urn:t">
<message name="in"><part name="other" type="tns:nope"/></message>
<portType name="P"/>
<binding name="B" type="tns:P"/>
</definitions>`
	c, err := wsdl.Load(t.Context(), xsd.MapLoader{"main.wsdl": []byte(main), "again.wsdl": []byte(again)}, "main.wsdl")
	require.NoError(t, err, "the second definitions are not read further (again.wsdl's part would not resolve)")
	var got []string
	for _, w := range c.Warnings {
		got = append(got, w.String())
	}
	assert.Equal(t, []string{
		"again.wsdl:2: the message in is defined again (the first, at main.wsdl:4, is used)",
		"again.wsdl:3: the port type P is defined again (the first, at main.wsdl:5, is used)",
		"again.wsdl:4: the binding B is defined again (the first, at main.wsdl:6, is used)",
	}, got)
}

// TestSchemaImportedTwice: a schema document that the WSDL imports with
// wsdl:import (as some contracts do) and that is imported again by a schema
// it imports (a.xsd and b.xsd import each other) is read once: no "defined
// again" warnings for its components.
func TestSchemaImportedTwice(t *testing.T) {
	main := strings.Replace(contract(okTypes, okMessages, okPortType, okBinding, ""), "<types>", `<import namespace="urn:a" location="a.xsd"/><types>`, 1)
	a := `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:b="urn:b" targetNamespace="urn:a"><xs:import namespace="urn:b" schemaLocation="b.xsd"/><xs:element name="A" type="b:B"/></xs:schema>`
	b := `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:a="urn:a" targetNamespace="urn:b"><xs:import namespace="urn:a" schemaLocation="a.xsd"/><xs:complexType name="B"><xs:sequence><xs:element ref="a:A" minOccurs="0"/></xs:sequence></xs:complexType></xs:schema>`
	c, err := wsdl.Load(t.Context(), xsd.MapLoader{"main.wsdl": []byte(main), "a.xsd": []byte(a), "b.xsd": []byte(b)}, "main.wsdl")
	require.NoError(t, err)
	assert.NotNil(t, c.Schemas.Element(xml.Name{Space: "urn:a", Local: "A"}))
	assert.Empty(t, c.Warnings)
}
