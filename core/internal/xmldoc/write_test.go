package xmldoc_test

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

// equalTrees compares two trees: names, attributes, declarations, text.
func equalTrees(t *testing.T, a, b *xmldoc.Node) {
	t.Helper()
	require.Equal(t, a.Name, b.Name)
	assert.Equal(t, a.Attrs, b.Attrs, a.Name.Local)
	assert.Equal(t, a.NS, b.NS, a.Name.Local)
	assert.Equal(t, a.Text, b.Text)
	require.Len(t, b.Children, len(a.Children), a.Name.Local)
	for i := range a.Children {
		equalTrees(t, a.Children[i], b.Children[i])
	}
}

// TestWrite: what Write writes reads back as the same tree: prefixes
// bound where the names are (a default namespace, one undeclared, a
// prefix shadowed below, the xml prefix), QName values keep resolving,
// text and attribute values escaped; value rewrites an attribute.
func TestWrite(t *testing.T) {
	docs := []string{
		`<a:root xmlns:a="urn:a" xmlns="urn:d" q="a:x"><child a:attr="1 &lt; 2">t &amp; &lt;u&gt;</child><e xmlns=""><f/></e><a:g xmlns:a="urn:other"><a:h/></a:g><i xml:lang="en"/></a:root>`,
		`<?xml version="1.0" encoding="ISO-8859-1"?><!DOCTYPE r [<!ENTITY e "caf` + "\xe9" + `">]><r xmlns="urn:r"><s>&e;</s></r>`,
		`<wsdl:definitions xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/"><wsdl:service name="S"><wsdl:port name="P"><soap:address location="http://old/"/></wsdl:port></wsdl:service></wsdl:definitions>`,
	}
	for _, doc := range docs {
		root, err := xmldoc.Parse([]byte(doc), xmldoc.Limits{})
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, xmldoc.Write(&b, root, nil))
		assert.True(t, strings.HasPrefix(b.String(), `<?xml version="1.0" encoding="UTF-8"?>`))
		back, err := xmldoc.Parse(b.Bytes(), xmldoc.Limits{})
		require.NoError(t, err, b.String())
		equalTrees(t, root, back)
	}

	root, err := xmldoc.Parse([]byte(docs[2]), xmldoc.Limits{})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, xmldoc.Write(&b, root, func(n *xmldoc.Node, a *xmldoc.Attr) string {
		if n.Name.Local == "address" && a.Name.Local == "location" {
			return "http://new/?a=1&b=2"
		}
		return a.Value
	}))
	assert.Contains(t, b.String(), `<soap:address location="http://new/?a=1&amp;b=2"/>`)

	assert.Error(t, xmldoc.Write(&b, nil, nil))
	orphan := &xmldoc.Node{Name: xmlName("urn:nowhere", "x")}
	assert.ErrorContains(t, xmldoc.Write(&b, orphan, nil), "no prefix is bound to urn:nowhere")
}

func xmlName(space, local string) xml.Name { return xml.Name{Space: space, Local: local} }
