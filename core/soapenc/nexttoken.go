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

// interner shares the strings of a body's repeated names, namespace URIs
// and short attribute values (xsi:type="xsd:string"): a small cache indexed
// by a hash of a few bytes, so a lookup costs a comparison, not a map
// access, and a collision only costs an allocation.
type interner [128]string

// str returns b as a string, shared with an earlier equal one when short.
func (in *interner) str(b []byte) string {
	n := len(b)
	if n == 0 || n > 64 {
		return string(b)
	}
	h := (uint(n)*131 ^ uint(b[0])*7 ^ uint(b[n-1])*31 ^ uint(b[n/2])*17) % uint(len(in))
	if s := in[h]; s == string(b) { // no allocation for the comparison
		return s
	}
	s := string(b)
	in[h] = s
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
			attrs = append(attrs, xml.Attr{Name: xml.Name{Local: "xmlns"}, Value: b.strs.str(ns.URI)})
		} else {
			attrs = append(attrs, xml.Attr{Name: xml.Name{Space: "xmlns", Local: b.strs.str(ns.Prefix)}, Value: b.strs.str(ns.URI)})
		}
	}
	for _, a := range t.Attr {
		attrs = append(attrs, xml.Attr{Name: xml.Name{Space: b.strs.str(a.Name.Space), Local: b.strs.str(a.Name.Local)}, Value: b.strs.str(a.Value)})
	}
	b.attrs = attrs
	return xml.StartElement{Name: xml.Name{Space: b.strs.str(t.Name.Space), Local: b.strs.str(t.Name.Local)}, Attr: attrs}
}
