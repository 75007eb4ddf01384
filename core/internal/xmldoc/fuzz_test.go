package xmldoc_test

import (
	"testing"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

// FuzzParse: any input parses or fails with an *Error, within the limits,
// without a panic or a hang; what parses can be walked.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`<r a="x">t</r>`,
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<r a=\"S\xE3o\">Jos\xE9</r>",
		"\n<?xml version='1.0'?><?xml-stylesheet href='x'?><r/>",
		`<!DOCTYPE r [<!ENTITY e 'v'><!ATTLIST r a CDATA "&e;" b (x|y) #IMPLIED>]><r>&e;<![CDATA[&e;]]><!-- &e; --></r>`,
		`<!DOCTYPE r SYSTEM "r.dtd" [<!ENTITY % p "x"> %p;]><r/>`,
		"\xFF\xFE<\x00r\x00/\x00>\x00",
		`<s:schema xmlns:s="urn:s"><s:annotation><s:documentation>a <b>b</b> c</s:documentation></s:annotation></s:schema>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root, err := xmldoc.Parse(data, xmldoc.Limits{MaxBytes: 1 << 20, MaxDepth: 64, MaxEntities: 8})
		if err != nil {
			if _, ok := err.(*xmldoc.Error); !ok {
				t.Fatalf("%T: %v", err, err)
			}
			return
		}
		_ = root.InnerText()
		var walk func(*xmldoc.Node)
		walk = func(n *xmldoc.Node) {
			for _, a := range n.Attrs {
				_, _ = n.ResolveQName(a.Value)
			}
			for _, c := range n.Children {
				walk(c)
			}
		}
		walk(root)
	})
}
