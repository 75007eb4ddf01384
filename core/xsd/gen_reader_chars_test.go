package xsd_test

import (
	"io"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/xsd"
)

// tokenList is a TokenReader of one's own: tokens built by hand, which no
// tokenizer has checked.
type tokenList struct{ toks []core.Token }

func (l *tokenList) Next() (*core.Token, error) {
	if len(l.toks) == 0 {
		return nil, io.EOF
	}
	t := &l.toks[0]
	l.toks = l.toks[1:]
	return t, nil
}

func (l *tokenList) Lookup(prefix []byte) ([]byte, bool) { return nil, len(prefix) == 0 }

// TestDecoderRefusesCharsXMLCannotCarry: a value or an attribute holding a
// character XML cannot carry (a C0 control, invalid UTF-8, U+FFFF) is
// refused whatever the Decoder reads: over a TokenReader of one's own the
// Decoder checks it; over core's tokenizer (BytesReader, a core.Body),
// whose text the Decoder does not check again, the tokenizer refuses it.
func TestDecoderRefusesCharsXMLCannotCarry(t *testing.T) {
	str := xsd.NewSimples().Builtin(xsd.KindString)
	for _, bad := range []string{"a\x01b", "a\xffb", "\uffff", "\x00"} {
		start := core.Token{Kind: core.StartElement, Name: core.TokenName{Space: []byte("urn:t"), Local: []byte("v")}}
		end := core.Token{Kind: core.EndElement, Name: start.Name}
		d := xsd.NewDecoder(&tokenList{toks: []core.Token{start, {Kind: core.CharData, Text: []byte(bad)}, end}})
		st, err := d.Element("urn:t", "v")
		if err != nil {
			t.Fatal(err)
		}
		if v, err := d.Text(st, str); err == nil {
			t.Errorf("own TokenReader: %q read as %q", bad, v)
		}
		attr := start
		attr.Attr = []core.TokenAttr{{Name: core.TokenName{Local: []byte("a")}, Value: []byte(bad)}}
		d = xsd.NewDecoder(&tokenList{toks: []core.Token{attr, end}})
		if st, err = d.Element("urn:t", "v"); err != nil {
			t.Fatal(err)
		}
		if v, err := d.Attr(&st.Attrs()[0], str); err == nil {
			t.Errorf("own TokenReader: attribute %q read as %q", bad, v)
		}
	}
	for _, bad := range []string{"a\x01b", "a&#1;b", "a\xffb", "\uffff", "&#xFFFF;", "<![CDATA[\x02]]>"} {
		d := xsd.NewDecoder(xsd.BytesReader([]byte(`<v xmlns="urn:t">` + bad + `</v>`)))
		if st, err := d.Element("urn:t", "v"); err == nil {
			if v, err := d.Text(st, str); err == nil {
				t.Errorf("BytesReader: %q read as %q", bad, v)
			}
		}
		d = xsd.NewDecoder(xsd.BytesReader([]byte(`<v xmlns="urn:t" a="` + bad + `"/>`)))
		if st, err := d.Element("urn:t", "v"); err == nil {
			if v, err := d.Attr(&st.Attrs()[0], str); err == nil {
				t.Errorf("BytesReader: attribute %q read as %q", bad, v)
			}
		}
		env := `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"><s:Body><v xmlns="urn:t">` + bad + `</v></s:Body></s:Envelope>`
		m, err := core.ReadMessage(strings.NewReader(env), core.DefaultLimits())
		if err != nil {
			continue
		}
		d = xsd.NewDecoder(m.Body())
		if st, err := d.Element("urn:t", "v"); err == nil {
			if v, err := d.Text(st, str); err == nil {
				t.Errorf("core.Body: %q read as %q", bad, v)
			}
		}
	}
}
