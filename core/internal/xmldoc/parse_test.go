package xmldoc_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

func utf16LE(s string, bom bool) []byte {
	var out []byte
	if bom {
		out = append(out, 0xFF, 0xFE)
	}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u), byte(u>>8))
	}
	return out
}

func utf16BE(s string) []byte {
	out := []byte{0xFE, 0xFF}
	for _, u := range utf16.Encode([]rune(s)) {
		out = append(out, byte(u>>8), byte(u))
	}
	return out
}

// TestParseAccepts: what real contract files hold beside plain UTF-8 is
// read, with the text and attribute values it means.
func TestParseAccepts(t *testing.T) {
	for _, tc := range []struct {
		name       string
		doc        []byte
		text, attr string // the root's inner text and its attribute a
	}{
		{"plain", []byte(`<r a="x">é</r>`), "é", "x"},
		{"UTF-8 byte order mark", []byte("\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?><r a=\"x\">é</r>"), "é", "x"},
		{"ISO-8859-1", []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<r a=\"S\xE3o\">Jos\xE9</r>"), "José", "São"},
		{"latin1 label in single quotes", []byte("<?xml version='1.0' encoding='latin1'?><r a=\"\xE7\">\xFC</r>"), "ü", "ç"},
		{"ISO-8859-15 euro", []byte("<?xml version=\"1.0\" encoding=\"ISO-8859-15\"?><r a=\"\xA4\">\xBD</r>"), "œ", "€"},
		{"windows-1252 quotes", []byte("<?xml version=\"1.0\" encoding=\"windows-1252\"?><r a=\"\x80\">\x93q\x94</r>"), "\u201cq\u201d", "€"},
		{"blank line before the declaration", []byte("\n\n<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<r a=\"x\">t</r>"), "t", "x"},
		{"stylesheet instruction", []byte("<?xml version='1.0'?>\n<?xml-stylesheet href=\"x.xsl\" type=\"text/xsl\"?>\n<r a=\"x\">t</r>"), "t", "x"},
		{"instruction inside", []byte("<r a=\"x\">t<?keep me?>u<![CDATA[<?not?>]]></r>"), "tu<?not?>", "x"},
		{"UTF-16LE with a byte order mark", utf16LE(`<?xml version="1.0" encoding="UTF-16"?><r a="é">€</r>`, true), "€", "é"},
		{"UTF-16BE with a byte order mark", utf16BE(`<?xml version="1.0"?><r a="é">€</r>`), "€", "é"},
		{"UTF-16LE without a byte order mark", utf16LE(`<?xml version="1.0" encoding="utf-16"?><r a="é">€</r>`, false), "€", "é"},
		{"internal entities", []byte("<?xml version=\"1.0\"?>\n<!DOCTYPE r [\n <!-- a comment -->\n <!ENTITY ns 'urn:x#'>\n <!ENTITY q '\"quoted\"'>\n <!ENTITY % p ''>\n <!ELEMENT r ANY>\n]>\n<r a=\"&ns;&q;\">&ns;<!-- &nope; --><![CDATA[&nope;]]></r>"), "urn:x#&nope;", `urn:x#"quoted"`},
		{"attribute default", []byte("<!DOCTYPE r PUBLIC \"-//W3C//DTD XMLSCHEMA 200102//EN\" \"XMLSchema.dtd\" [\n<!ATTLIST r a CDATA #FIXED \"&d;\" b CDATA #IMPLIED>\n<!ENTITY d 'late'>\n]><r>t</r>"), "t", "&d;"},
		{"attribute default applied", []byte("<!DOCTYPE r [<!ENTITY d 'v'><!ATTLIST r a CDATA \"&d;-1\" c (x|y) 'x'>]><r>t</r>"), "t", "v-1"},
		{"attribute default not over a given one", []byte("<!DOCTYPE r [<!ATTLIST r a CDATA 'dflt'>]><r a='given'>t</r>"), "t", "given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := xmldoc.Parse(tc.doc, xmldoc.Limits{})
			if tc.name == "attribute default" {
				// A default value may only name entities declared before it.
				require.Error(t, err)
				assert.Contains(t, err.Error(), `the entity "d" is not declared`)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.text, root.InnerText())
			a, _ := root.Attr("a")
			assert.Equal(t, tc.attr, a)
		})
	}
}

// TestParseNamespaceDefault: a #FIXED namespace declaration in the internal
// subset (as the W3C XML Signature schema has) declares the prefix.
func TestParseNamespaceDefault(t *testing.T) {
	doc := `<!DOCTYPE schema [<!ATTLIST schema xmlns:ds CDATA #FIXED "urn:dsig">]><schema><e type="ds:T"/></schema>`
	root, err := xmldoc.Parse([]byte(doc), xmldoc.Limits{})
	require.NoError(t, err)
	v, _ := root.Elements()[0].Attr("type")
	n, err := root.Elements()[0].ResolveQName(v)
	require.NoError(t, err)
	assert.Equal(t, "urn:dsig", n.Space)
	assert.Equal(t, "T", n.Local)
}

// TestParseRefuses: each refusal says why, at the right line.
func TestParseRefuses(t *testing.T) {
	deep := strings.Repeat("<a>", 300) + strings.Repeat("</a>", 300)
	for _, tc := range []struct {
		name string
		doc  string
		lim  xmldoc.Limits
		err  string
		line int
		is   error
	}{
		{"external entity", "<!DOCTYPE r [\n<!ENTITY x SYSTEM \"file:///etc/passwd\">\n]><r>&x;</r>", xmldoc.Limits{}, `external entity "x" is refused`, 2, nil},
		{"public external entity", "<!DOCTYPE r [<!ENTITY x PUBLIC \"p\" \"http://e/x\">]><r/>", xmldoc.Limits{}, `external entity "x" is refused`, 1, nil},
		{"parameter entity reference", "<!DOCTYPE r [<!ENTITY % p '<!ENTITY x \"y\">'> %p;]><r/>", xmldoc.Limits{}, "parameter entity references are not supported", 1, nil},
		{"entity holding references", "<!DOCTYPE r [<!ENTITY a 'x'><!ENTITY b '&a;&a;'>]><r>&b;</r>", xmldoc.Limits{}, `"b" holds markup or references`, 1, nil},
		{"entity holding markup", "<!DOCTYPE r [<!ENTITY a '<x/>'>]><r>&a;</r>", xmldoc.Limits{}, `"a" holds markup`, 1, nil},
		{"undeclared entity", "<!DOCTYPE r SYSTEM \"r.dtd\" [<!ENTITY a 'x'>]>\n<r>\n&b;</r>", xmldoc.Limits{}, "the entity &b; is not declared", 3, nil},
		{"entity without a DTD", "<r>\n&b;</r>", xmldoc.Limits{}, "&b;", 2, nil},
		{"too many entities", "<!DOCTYPE r [<!ENTITY a 'x'><!ENTITY b 'x'><!ENTITY c 'x'>]><r/>", xmldoc.Limits{MaxEntities: 2}, "more than 2 entities", 1, xmldoc.ErrLimit},
		{"expansion beyond the size", "<!DOCTYPE r [<!ENTITY a '" + strings.Repeat("x", 60000) + "'>]><r>" + strings.Repeat("&a;", 20) + "</r>", xmldoc.Limits{MaxBytes: 200000}, "with its entities expanded is larger than 200000 bytes", 1, xmldoc.ErrTooLarge},
		{"too large", "<r>" + strings.Repeat("x", 100) + "</r>", xmldoc.Limits{MaxBytes: 50}, "larger than 50 bytes", 1, xmldoc.ErrTooLarge},
		{"too deep", deep, xmldoc.Limits{}, "nest", 1, xmldoc.ErrLimit},
		{"unknown encoding", "<?xml version=\"1.0\" encoding=\"EBCDIC-037\"?><r/>", xmldoc.Limits{}, `unsupported encoding "EBCDIC-037"`, 1, nil},
		{"XML 1.1", "<?xml version=\"1.1\"?><r/>", xmldoc.Limits{}, `unsupported XML version "1.1"`, 1, nil},
		{"UTF-16 declared in UTF-8", "<?xml version=\"1.0\" encoding=\"UTF-16\"?><r/>", xmldoc.Limits{}, "UTF-16", 1, nil},
		{"UTF-32", "\x00\x00\xFE\xFF", xmldoc.Limits{}, "UTF-32 is not supported", 1, nil},
		{"windows-1252 hole", "<?xml version=\"1.0\" encoding=\"cp1252\"?><r>\x81</r>", xmldoc.Limits{}, "not defined in windows-1252", 1, nil},
		{"Latin-1 bytes undeclared", "<r>Jos\xE9</r>", xmldoc.Limits{}, "UTF-8", 1, nil},
		{"not well-formed", "<r>\n<a></b></r>", xmldoc.Limits{}, "", 2, nil},
		{"two roots", "<r/><s/>", xmldoc.Limits{}, "", 1, nil},
		{"unclosed doctype", "<!DOCTYPE r [<!ENTITY a 'x'>", xmldoc.Limits{}, "not closed", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := xmldoc.Parse([]byte(tc.doc), tc.lim)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.err)
			var e *xmldoc.Error
			require.True(t, errors.As(err, &e), "%T", err)
			assert.Equal(t, tc.line, e.Line, err.Error())
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
}

// TestParseTree: lines, namespaces, QName resolution, text kept only where
// it means something.
func TestParseTree(t *testing.T) {
	doc := "<?xml version=\"1.0\"?>\n<s:schema xmlns:s=\"urn:s\" xmlns=\"urn:d\"\n  xmlns:t=\"urn:t\">\n  <s:element name=\"a\"\n    type=\"t:T\"/>\n  <s:annotation><s:documentation>one <b>two</b> <i>three</i></s:documentation></s:annotation>\n  <x xmlns=\"\" ref=\"U\"/>\n</s:schema>"
	root, err := xmldoc.Parse([]byte(doc), xmldoc.Limits{})
	require.NoError(t, err)
	assert.True(t, root.Is("urn:s", "schema"))
	assert.Equal(t, 2, root.Line)
	els := root.Elements()
	require.Len(t, els, 3)
	assert.Len(t, root.Children, 3, "white space between elements is dropped")
	assert.Equal(t, 4, els[0].Line)
	v, ok := els[0].Attr("type")
	require.True(t, ok)
	n, err := els[0].ResolveQName(v)
	require.NoError(t, err)
	assert.Equal(t, "urn:t", n.Space)
	n, err = els[0].ResolveQName("U")
	require.NoError(t, err)
	assert.Equal(t, "urn:d", n.Space, "an unprefixed QName is in the default namespace")
	n, err = els[2].ResolveQName("U")
	require.NoError(t, err)
	assert.Equal(t, "", n.Space, "undeclared default namespace")
	_, err = els[0].ResolveQName("q:U")
	assert.ErrorContains(t, err, `prefix "q"`)
	_, err = els[0].ResolveQName("a b")
	assert.ErrorContains(t, err, "not a QName")
	assert.Equal(t, "one two three", els[1].InnerText())
	assert.Equal(t, map[string]string{"s": "urn:s", "": "urn:d", "t": "urn:t"}, els[0].InScope())
	x, ok := root.Lookup("xml")
	assert.True(t, ok)
	assert.Equal(t, xmldoc.XMLNamespace, x)
}
