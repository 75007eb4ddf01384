package soapenc

import (
	"encoding/xml"
	"io"

	"github.com/soapwire/soapwire/core"
)

// nextReader is core.Body's token stream without copies: a Decoder over a
// core.Body reads it instead of Token, and copies only what it keeps.
type nextReader interface {
	Next() (*core.Token, error)
}

// maxInterned bounds the strings a builder interns (names, namespace URIs,
// short attribute values such as xsi:type="xsd:string"), which repeat
// throughout a body.
const maxInterned = 1024

// str returns b as a string, shared with earlier equal ones when short.
func (bl *builder) str(b []byte) string {
	if len(b) > 64 {
		return string(b)
	}
	if s, ok := bl.strs[string(b)]; ok { // no allocation for the lookup
		return s
	}
	s := string(b)
	if bl.strs == nil {
		bl.strs = make(map[string]string, 32)
	}
	if len(bl.strs) < maxInterned {
		bl.strs[s] = s
	}
	return s
}

func (b *builder) readNext(r nextReader) error {
	for {
		t, err := r.Next()
		if err == io.EOF {
			return b.eof()
		}
		if err != nil {
			return err
		}
		switch t.Kind {
		case core.StartElement:
			if err := b.start(b.startElement(t)); err != nil {
				return err
			}
		case core.EndElement:
			if b.cur == nil {
				return errorf(SubcodeBadValue, "unexpected end element %s", t.Name.Local)
			}
			b.end()
		case core.CharData:
			if err := b.chars(t.Text); err != nil {
				return err
			}
		}
	}
}

// startElement converts a start tag to the form Token returns (namespace
// declarations as xmlns attributes first), reusing one attribute slice.
func (b *builder) startElement(t *core.Token) xml.StartElement {
	attrs := b.attrs[:0]
	for _, ns := range t.NS {
		if len(ns.Prefix) == 0 {
			attrs = append(attrs, xml.Attr{Name: xml.Name{Local: "xmlns"}, Value: b.str(ns.URI)})
		} else {
			attrs = append(attrs, xml.Attr{Name: xml.Name{Space: "xmlns", Local: b.str(ns.Prefix)}, Value: b.str(ns.URI)})
		}
	}
	for _, a := range t.Attr {
		attrs = append(attrs, xml.Attr{Name: xml.Name{Space: b.str(a.Name.Space), Local: b.str(a.Name.Local)}, Value: b.str(a.Value)})
	}
	b.attrs = attrs
	return xml.StartElement{Name: xml.Name{Space: b.str(t.Name.Space), Local: b.str(t.Name.Local)}, Attr: attrs}
}
