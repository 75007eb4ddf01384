package xmltok_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// laxities are what encoding/xml's Decoder.Token accepts and the tokenizer
// refuses on purpose: the messages of those refusals.
var laxities = []string{
	"unbound namespace prefix", "the prefix xmlns is reserved", // unbound prefixes
	"duplicate attribute",                                                                // duplicate attributes
	"content after the root element", "text outside the root element", "no root element", // trailing content, no root
	"document type declarations", "processing instruction", "XML declaration not at the start", // DOCTYPE and PIs
	"duplicate namespace declaration", "cannot be undeclared", "cannot be declared", "cannot be bound", // namespace declaration rules
	"the default namespace cannot be", "more than one colon", "empty local name",
}

// stdTokens renders what encoding/xml's Token returns, in the tokenizer's
// terms: whitespace outside the root and the XML declaration dropped,
// namespace declarations apart from attributes.
func stdTokens(in []byte) ([]string, error) {
	d := xml.NewDecoder(bytes.NewReader(in))
	d.Strict = true
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if l := strings.ToLower(label); l == "us-ascii" || l == "ascii" {
			return r, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q", label)
	}
	var out []string
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			var as []string
			for _, a := range tok.Attr {
				if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
					continue
				}
				as = append(as, fmt.Sprintf("{%s}%s=%q", a.Name.Space, a.Name.Local, a.Value))
			}
			out = append(out, fmt.Sprintf("<{%s}%s %v", tok.Name.Space, tok.Name.Local, as))
		case xml.EndElement:
			depth--
			out = append(out, fmt.Sprintf("</{%s}%s", tok.Name.Space, tok.Name.Local))
		case xml.CharData:
			if depth > 0 {
				out = append(out, fmt.Sprintf("T%q", []byte(tok)))
			}
		case xml.Comment:
			out = append(out, fmt.Sprintf("C%q", []byte(tok)))
		}
	}
}

func ourTokens(in []byte) ([]string, error) {
	r := xmltok.NewReader(bytes.NewReader(in), xmltok.Limits{})
	var out []string
	for {
		t, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		switch t.Kind {
		case xmltok.StartElement:
			var as []string
			for _, a := range t.Attr {
				as = append(as, fmt.Sprintf("{%s}%s=%q", a.Name.Space, a.Name.Local, a.Value))
			}
			out = append(out, fmt.Sprintf("<{%s}%s %v", t.Name.Space, t.Name.Local, as))
		case xmltok.EndElement:
			out = append(out, fmt.Sprintf("</{%s}%s", t.Name.Space, t.Name.Local))
		case xmltok.CharData:
			out = append(out, fmt.Sprintf("T%q", t.Text))
		case xmltok.Comment:
			out = append(out, fmt.Sprintf("C%q", t.Text))
		}
	}
}

func FuzzTokenizer(f *testing.F) {
	for _, s := range []string{
		`<a/>`, `<?xml version="1.0" encoding="UTF-8"?><a xmlns="urn:a" b="1"><b>t&amp;</b><!--c--></a>`,
		`<p:a xmlns:p="urn:p" p:x="1" xml:lang="en"><![CDATA[x]]></p:a>`, `<a><?pi?></a>`, `<!DOCTYPE a><a/>`,
		`<a/><b/>`, `<p:a/>`, `<a b="1" b="2"/>`, `<a xmlns:p="urn:x" xmlns:q="urn:x" p:b="1" q:b="2"/>`, `<a></b>`,
		`<a xmlns:p=""/>`, `<a:/>`, "<a>\x01</a>", "<a>\xff</a>", `<a xmlns="urn:a"><b xmlns=""/></a>`, "\xEF\xBB\xBF<a/>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 64<<10 {
			return
		}
		ours, ourErr := ourTokens(in)
		if bytes.HasPrefix(in, []byte{0xFE, 0xFF}) || bytes.HasPrefix(in, []byte{0xFF, 0xFE}) || bytes.HasPrefix(in, []byte{0xEF, 0xBB, 0xBF}) {
			return // byte order marks: encoding/xml does not read them
		}
		std, stdErr := stdTokens(in)
		switch {
		case ourErr == nil && stdErr != nil:
			t.Fatalf("accepted what encoding/xml refuses (%v): %q", stdErr, in)
		case ourErr == nil:
			if !slices.Equal(ours, std) {
				t.Fatalf("tokens differ for %q:\nours %q\nstd  %q", in, ours, std)
			}
		case stdErr == nil:
			msg := ourErr.Error()
			for _, l := range laxities {
				if strings.Contains(msg, l) {
					return
				}
			}
			t.Fatalf("refused what encoding/xml accepts, for no known laxity: %v: %q", ourErr, in)
		}
	})
}
