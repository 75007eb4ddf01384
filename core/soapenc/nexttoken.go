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

func internSlot(n int, first, mid, last byte) uint {
	return (uint(n)*131 ^ uint(first)*7 ^ uint(last)*31 ^ uint(mid)*17) % 128
}

// str returns b as a string, shared with an earlier equal one when short.
func (in *interner) str(b []byte) string {
	n := len(b)
	if n == 0 || n > 64 {
		return string(b)
	}
	h := internSlot(n, b[0], b[n/2], b[n-1])
	if s := in[h]; s == string(b) { // no allocation for the comparison
		return s
	}
	s := string(b)
	in[h] = s
	return s
}

// seed fills the cache with the strings nearly every SOAP body has, so that
// even a small body allocates none of them.
func (in *interner) seed() {
	for _, s := range [...]string{
		NamespaceXSI, NamespaceXSD, NamespaceV11, NamespaceV12, nsEnvV11, nsEnvV12,
		"xsi", "xsd", "soapenc", "SOAP-ENC", "enc", "type", "nil", "id", "href", "ref", "item",
		"arrayType", "itemType", "arraySize", "encodingStyle", "root", "multiRef",
		"xsd:string", "xsd:int", "xsd:long", "xsd:short", "xsd:boolean", "xsd:double", "xsd:float",
		"xsd:dateTime", "xsd:base64Binary", "xsd:decimal", "soapenc:Array", "SOAP-ENC:Array", "enc:Array",
		"true", "false", "0", "1",
	} {
		in[internSlot(len(s), s[0], s[len(s)/2], s[len(s)-1])] = s
	}
}

func (b *builder) readNext(r nextReader) error {
	b.strs.seed()
	var attrBuf [8]xml.Attr // on the stack: writing to it needs no write barriers
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
			name, attrs := b.startElement(t, attrBuf[:0])
			if err := b.start(name, attrs); err != nil {
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
// declarations as xmlns attributes first), into buf (start does not keep
// it).
func (b *builder) startElement(t *core.Token, buf []xml.Attr) (xml.Name, []xml.Attr) {
	attrs := buf[:0]
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
	return xml.Name{Space: b.strs.str(t.Name.Space), Local: b.strs.str(t.Name.Local)}, attrs
}
