package xsd_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/xsd"
)

func schemaDoc(body string) string {
	return `<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:tns="urn:t" targetNamespace="urn:t">` + "\n" + body + "\n</xs:schema>"
}

// TestLoadErrors: what a schema says wrong is an *Error naming each problem
// at its line, never a model with a hole in it.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		body string
		err  string
	}{
		{"unknown type", `<xs:element name="a" type="tns:Nope"/>`, "a.xsd:2: the type {urn:t}Nope of the element a is not defined"},
		{"unknown built-in", `<xs:element name="a" type="xs:integr"/>`, "the type {http://www.w3.org/2001/XMLSchema}integr of the element a is not defined"},
		{"unknown element ref", `<xs:complexType name="T"><xs:sequence><xs:element ref="tns:b"/></xs:sequence></xs:complexType>`, "a.xsd:2: the element {urn:t}b is not defined"},
		{"unknown group", `<xs:complexType name="T"><xs:group ref="tns:G"/></xs:complexType>`, "the group {urn:t}G is not defined"},
		{"unknown attribute group", `<xs:complexType name="T"><xs:attributeGroup ref="tns:G"/></xs:complexType>`, "the attribute group {urn:t}G is not defined"},
		{"unknown attribute", `<xs:complexType name="T"><xs:attribute ref="tns:a"/></xs:complexType>`, "the attribute {urn:t}a is not defined"},
		{"unknown base", `<xs:complexType name="T"><xs:complexContent><xs:extension base="tns:B"/></xs:complexContent></xs:complexType>`, "the base type {urn:t}B is not defined"},
		{"unknown head", `<xs:element name="a" substitutionGroup="tns:h"/>`, "the substitution group head {urn:t}h of the element a is not defined"},
		{"undeclared prefix", `<xs:element name="a" type="q:T"/>`, `type: the prefix "q" of "q:T" is not declared`},
		{"complex type as attribute type", `<xs:complexType name="T"/><xs:attribute name="a" type="tns:T"/>`, "the type of the attribute a, {urn:t}T is a complex type"},
		{"complex base of a simple type", `<xs:complexType name="T"/><xs:simpleType name="S"><xs:restriction base="tns:T"/></xs:simpleType>`, "the base type {urn:t}T is a complex type"},
		{"complex type cycle", `<xs:complexType name="A"><xs:complexContent><xs:extension base="tns:B"/></xs:complexContent></xs:complexType>
			<xs:complexType name="B"><xs:complexContent><xs:extension base="tns:A"/></xs:complexContent></xs:complexType>`, "derives from itself"},
		{"simple type cycle", `<xs:simpleType name="A"><xs:restriction base="tns:B"/></xs:simpleType><xs:simpleType name="B"><xs:restriction base="tns:A"/></xs:simpleType>`, "derives from itself"},
		{"group in itself", `<xs:group name="G"><xs:sequence><xs:element name="a" type="xs:int"/><xs:group ref="tns:G" minOccurs="0"/></xs:sequence></xs:group>`, "the group {urn:t}G contains itself"},
		{"attribute group in itself", `<xs:attributeGroup name="G"><xs:attributeGroup ref="tns:G"/></xs:attributeGroup><xs:complexType name="T"><xs:attributeGroup ref="tns:G"/></xs:complexType>`, "the attribute group {urn:t}G refers to itself"},
		{"substitution group cycle", `<xs:element name="a" substitutionGroup="tns:b"/><xs:element name="b" substitutionGroup="tns:a"/>`, "in its own substitution group"},
		{"redefine", `<xs:redefine schemaLocation="b.xsd"/>`, "xs:redefine is not supported"},
		{"bad minOccurs", `<xs:complexType name="T"><xs:sequence><xs:element name="a" minOccurs="-1"/></xs:sequence></xs:complexType>`, `minOccurs="-1"`},
		{"min over max", `<xs:complexType name="T"><xs:sequence minOccurs="3" maxOccurs="2"/></xs:complexType>`, "minOccurs 3 is more than maxOccurs 2"},
		{"default and fixed", `<xs:element name="a" type="xs:int" default="1" fixed="1"/>`, "both a default and a fixed value"},
		{"two types", `<xs:element name="a" type="xs:int"><xs:simpleType><xs:restriction base="xs:int"/></xs:simpleType></xs:element>`, "the element a has two types"},
		{"bad form", `<xs:complexType name="T"><xs:sequence><xs:element name="a" form="yes"/></xs:sequence></xs:complexType>`, `form="yes"`},
		{"bad boolean", `<xs:element name="a" nillable="yes"/>`, `nillable="yes" is not a boolean`},
		{"import of itself", `<xs:import namespace="urn:t" schemaLocation="b.xsd"/>`, "xs:import of the schema's own namespace"},
		{"no name", `<xs:element type="xs:int"/>`, "an element declaration without a name"},
		{"bad facet", `<xs:simpleType name="S"><xs:restriction base="xs:string"><xs:maxLength value="many"/></xs:restriction></xs:simpleType>`, `xs:maxLength="many" is not a non-negative integer`},
		{"bad array type", `<xs:attribute name="a" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" wsdl:arrayType="xs:string"/>`, `wsdl:arrayType="xs:string" is not a type followed by its dimensions`},
		{"unknown array item", `<xs:complexType name="A" xmlns:enc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/"><xs:complexContent><xs:restriction base="enc:Array"><xs:attribute ref="enc:arrayType" wsdl:arrayType="tns:Nope[]"/></xs:restriction></xs:complexContent></xs:complexType>`, "the array item type {urn:t}Nope is not defined"},
		{"simple content from element content", `<xs:complexType name="E"><xs:sequence><xs:element name="a"/></xs:sequence></xs:complexType>
			<xs:complexType name="T"><xs:simpleContent><xs:extension base="tns:E"/></xs:simpleContent></xs:complexType>`, "simple content derived from {urn:t}E, which has no simple content"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := xsd.Load(t.Context(), xsd.MapLoader{"a.xsd": []byte(schemaDoc(tc.body)), "b.xsd": []byte(schemaDoc(""))}, "a.xsd")
			require.Error(t, err)
			var xe *xsd.Error
			require.True(t, errors.As(err, &xe), "%T %v", err, err)
			assert.Contains(t, err.Error(), tc.err)
			for _, p := range xe.Problems {
				assert.Equal(t, "a.xsd", p.Loc.File)
				assert.Positive(t, p.Loc.Line)
			}
		})
	}
}

// TestLoadWarnings: what is read but not applied is reported where it is.
func TestLoadWarnings(t *testing.T) {
	body := `<xs:element name="a" type="xs:int" color="red"/>
<xs:complexType name="T"><xs:sequence><xs:element name="b" type="xs:int"/></xs:sequence><xs:assert test="b > 0"/></xs:complexType>
<foo:bar xmlns:foo="urn:foo"/>
<xs:simpleType name="S"><xs:restriction base="xs:int"><xs:assertion test="$value > 0"/></xs:restriction></xs:simpleType>
<xs:element name="c" type="xs:int" color="blue"/>`
	set, err := xsd.Load(t.Context(), xsd.MapLoader{"a.xsd": []byte(schemaDoc(body))}, "a.xsd")
	require.NoError(t, err)
	var got []string
	for _, w := range set.Warnings() {
		got = append(got, w.String())
	}
	assert.Equal(t, []string{
		"a.xsd:4: {urn:foo}bar in xs:schema is not XML Schema (ignored)",
		"a.xsd:2: the attribute color of xs:element is not understood (ignored) (2 times in this document)",
		"a.xsd:3: xs:assert (XML Schema 1.1) is not supported (ignored)",
		"a.xsd:5: the facet xs:assertion (XML Schema 1.1) is not supported (not checked)",
	}, got)
}

// TestLoadFailsOnDocuments: a document that cannot be read stops the load
// with an error that says which and where it was named.
func TestLoadFailsOnDocuments(t *testing.T) {
	for _, tc := range []struct {
		name string
		docs xsd.MapLoader
		err  string
		is   error
	}{
		{"missing import", xsd.MapLoader{"a.xsd": []byte(schemaDoc(`<xs:import namespace="urn:b" schemaLocation="b.xsd"/>`))}, "open b.xsd: file does not exist (named at a.xsd:2)", nil},
		{"not XML", xsd.MapLoader{"a.xsd": []byte(schemaDoc(`<xs:include schemaLocation="b.xsd"/>`)), "b.xsd": []byte("<xs:schema")}, "xsd: b.xsd:1: unexpected end of input", nil},
		{"not a schema", xsd.MapLoader{"a.xsd": []byte(`<schema/>`)}, "a.xsd:1: {}schema is not an XML Schema", nil},
		{"a draft schema", xsd.MapLoader{"a.xsd": []byte(`<schema xmlns="http://www.w3.org/2000/10/XMLSchema"/>`)}, "a schema of the XML Schema draft namespace", nil},
		{"URL without HTTP", xsd.MapLoader{"a.xsd": []byte(schemaDoc(`<xs:import namespace="urn:b" schemaLocation="http://example.com/b.xsd"/>`))}, "fetching http://example.com/b.xsd: not allowed by the loader", xsd.ErrNotAllowed},
		{"include of another namespace", xsd.MapLoader{"a.xsd": []byte(schemaDoc(`<xs:include schemaLocation="b.xsd"/>`)), "b.xsd": []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:b"/>`)}, `an included schema's target namespace "urn:b" is not its includer's "urn:t"`, nil},
		{"import of the wrong namespace", xsd.MapLoader{"a.xsd": []byte(schemaDoc(`<xs:import namespace="urn:c" schemaLocation="b.xsd"/>`)), "b.xsd": []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:b"/>`)}, `the schema imported for namespace "urn:c" has the target namespace "urn:b"`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := xsd.Load(t.Context(), tc.docs, "a.xsd")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
}

// TestDuplicateDefinitions: a global component defined again (here by an
// included document) is reported where it is; the first, the including
// schema's, is used.
func TestDuplicateDefinitions(t *testing.T) {
	a := schemaDoc(`<xs:include schemaLocation="b.xsd"/><xs:element name="e" type="xs:int"/><xs:complexType name="T"/>`)
	b := schemaDoc(`<xs:element name="e" type="xs:string"/><xs:complexType name="T"/><xs:simpleType name="string"><xs:restriction base="xs:int"/></xs:simpleType>`)
	set, err := xsd.Load(t.Context(), xsd.MapLoader{"a.xsd": []byte(a), "b.xsd": []byte(b)}, "a.xsd")
	require.NoError(t, err)
	assert.Equal(t, xsd.KindInt, set.Element(q("urn:t", "e")).Type.(*xsd.SimpleType).Kind)
	var got []string
	for _, w := range set.Warnings() {
		got = append(got, w.String())
	}
	assert.Equal(t, []string{
		"b.xsd:2: the element {urn:t}e is defined again (the first definition, at a.xsd:2, is used)",
		"b.xsd:2: the type {urn:t}T is defined again (the first definition, at a.xsd:2, is used)",
	}, got)
}
