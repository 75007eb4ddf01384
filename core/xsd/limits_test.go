package xsd_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/xsd"
)

// chain returns n schema documents, each importing the next.
func chain(n int) xsd.MapLoader {
	docs := xsd.MapLoader{}
	for i := 0; i < n; i++ {
		imp := ""
		if i+1 < n {
			imp = fmt.Sprintf(`<xs:import namespace="urn:%d" schemaLocation="s%d.xsd"/>`, i+1, i+1)
		}
		docs[fmt.Sprintf("s%d.xsd", i)] = []byte(fmt.Sprintf(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:%d">%s<xs:element name="e%d" type="xs:int"/></xs:schema>`, i, imp, i))
	}
	return docs
}

// TestLimits: hostile schemas are refused within the limits, each with an
// error that says which limit.
func TestLimits(t *testing.T) {
	deep := `<xs:complexType name="T">` + strings.Repeat("<xs:sequence>", 300) + strings.Repeat("</xs:sequence>", 300) + `</xs:complexType>`
	big := schemaDoc(`<xs:element name="a" type="xs:int"/>` + strings.Repeat("<!-- padding -->", 200))
	three := xsd.MapLoader{
		"a.xsd":  []byte(schemaDoc(`<xs:import namespace="urn:1" schemaLocation="s1.xsd"/><xs:import namespace="urn:2" schemaLocation="s2.xsd"/>` + strings.Repeat(" ", 1000))),
		"s1.xsd": chain(3)["s1.xsd"], "s2.xsd": []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:2">` + strings.Repeat(" ", 1000) + `</xs:schema>`),
	}
	for _, tc := range []struct {
		name string
		docs xsd.MapLoader
		lim  xsd.Limits
		err  string
		is   error
	}{
		{"nesting in a document", xsd.MapLoader{"s0.xsd": []byte(schemaDoc(deep))}, xsd.Limits{}, "nest", xsd.ErrLimit},
		{"nesting under a lower limit", xsd.MapLoader{"s0.xsd": []byte(schemaDoc(`<xs:complexType name="T"><xs:sequence><xs:element name="a"/></xs:sequence></xs:complexType>`))}, xsd.Limits{MaxDepth: 3}, "nest", xsd.ErrLimit},
		{"a long chain of imports", chain(70), xsd.Limits{}, "imports nest deeper than 64 documents", xsd.ErrLimit},
		{"many documents", chain(10), xsd.Limits{MaxDocuments: 5}, "more than 5 documents", xsd.ErrLimit},
		{"a huge document", xsd.MapLoader{"s0.xsd": []byte(big)}, xsd.Limits{MaxDocumentBytes: 2048}, "s0.xsd: larger than 2048 bytes", xsd.ErrTooLarge},
		{"huge documents together", three, xsd.Limits{MaxBytes: 2000}, "the documents together are larger than 2000 bytes", xsd.ErrTooLarge},
		{"entities expanded beyond the size", xsd.MapLoader{"s0.xsd": []byte(`<!DOCTYPE xs:schema [<!ENTITY a "` + strings.Repeat("x", 60000) + `">]>` + schemaDoc(`<xs:annotation><xs:documentation>`+strings.Repeat("&a;", 40)+`</xs:documentation></xs:annotation>`))}, xsd.Limits{MaxDocumentBytes: 1 << 20}, "with its entities expanded is larger", xsd.ErrTooLarge},
		{"an entity holding entities", xsd.MapLoader{"s0.xsd": []byte(`<!DOCTYPE xs:schema [<!ENTITY a "x"><!ENTITY b "&a;&a;&a;">]>` + schemaDoc(`<xs:element name="a"/>`))}, xsd.Limits{}, `the entity "b" holds markup or references`, nil},
		{"an external entity", xsd.MapLoader{"s0.xsd": []byte(`<!DOCTYPE xs:schema [<!ENTITY a SYSTEM "file:///etc/passwd">]>` + schemaDoc(`<xs:element name="a"/>`))}, xsd.Limits{}, `the external entity "a" is refused`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := xsd.Load(t.Context(), tc.docs, "s0.xsd", xsd.WithLimits(tc.lim))
			if tc.name == "huge documents together" {
				_, err = xsd.Load(t.Context(), tc.docs, "a.xsd", xsd.WithLimits(tc.lim))
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
}

// TestImportCycles: documents that import each other are each read once;
// a chain within the limit loads.
func TestImportCycles(t *testing.T) {
	docs := xsd.MapLoader{
		"a.xsd": []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:b="urn:b" targetNamespace="urn:a">
<xs:import namespace="urn:b" schemaLocation="b.xsd"/><xs:element name="a" type="b:B"/><xs:complexType name="A"/></xs:schema>`),
		"b.xsd": []byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:a="urn:a" targetNamespace="urn:b">
<xs:import namespace="urn:a" schemaLocation="./a.xsd"/><xs:include schemaLocation="b.xsd"/><xs:complexType name="B"><xs:sequence><xs:element name="x" type="a:A"/></xs:sequence></xs:complexType></xs:schema>`),
	}
	set, err := xsd.Load(t.Context(), docs, "a.xsd")
	require.NoError(t, err)
	assert.Len(t, set.Schemas(), 2)
	set, err = xsd.Load(t.Context(), chain(60), "s0.xsd")
	require.NoError(t, err)
	assert.Len(t, set.Schemas(), 60)
	assert.NotNil(t, set.Element(q("urn:59", "e59")))
}
