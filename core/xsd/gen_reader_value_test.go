package xsd_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core/xsd"
)

// TestDecoderValueAsEncodingXML: Decoder.Value reads a simple element's
// text as encoding/xml (the plain reference) gathers it, whether it comes
// in one piece or in several (comments, CDATA sections, character
// references between pieces), and refuses a child element inside it and a
// text over the limit.
func TestDecoderValueAsEncodingXML(t *testing.T) {
	str := xsd.NewSimples().Builtin(xsd.KindString)
	for _, body := range []string{
		"", "plain", "  spaced out  ", "a<!--c-->b", "<!--c-->ab", "ab<!--c-->", "x<![CDATA[<y>]]>z",
		"<![CDATA[only]]>", "a&amp;b&#x20;c&lt;", "line\nbreak\r\nhere", "grüße 日本",
		strings.Repeat("long text ", 2000),
	} {
		doc := `<v xmlns="urn:t">` + body + `</v>`
		var want strings.Builder
		dec := xml.NewDecoder(strings.NewReader(doc))
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if cd, ok := tok.(xml.CharData); ok {
				want.Write(cd)
			}
		}
		d := xsd.NewDecoder(xsd.BytesReader([]byte(doc)))
		st, err := d.Element("urn:t", "v")
		if err != nil {
			t.Fatal(err)
		}
		got, err := d.Text(st, str)
		if err != nil {
			t.Fatalf("%.40q: %v", body, err)
		}
		// the text is normalized as the type says (xsd:string keeps it);
		// encoding/xml turns CR LF into LF as XML says
		if got != want.String() {
			t.Errorf("%.40q: read %.60q, encoding/xml %.60q", body, got, want.String())
		}
		if err := d.Rest(); err != nil {
			t.Errorf("%.40q: %v", body, err)
		}
	}
	for _, body := range []string{"<x/>", "text<x/>", "<!--c--><x/>", "a<!--c-->b<x/>"} {
		d := xsd.NewDecoder(xsd.BytesReader([]byte(`<v xmlns="urn:t">` + body + `</v>`)))
		st, err := d.Element("urn:t", "v")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.Text(st, str); err == nil || !strings.Contains(err.Error(), "not allowed inside a simple value") {
			t.Errorf("%q: %v", body, err)
		}
	}
	var big bytes.Buffer
	big.WriteString(`<v xmlns="urn:t">`)
	big.WriteString(strings.Repeat("x", 64<<20+1))
	big.WriteString(`</v>`)
	d := xsd.NewDecoder(xsd.BytesReader(big.Bytes()))
	st, err := d.Element("urn:t", "v")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Text(st, str); err == nil {
		t.Error("a text over the limit is read")
	}
}
