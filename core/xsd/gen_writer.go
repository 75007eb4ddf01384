package xsd

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Encoder writes XML as the codec does (every namespace in a prefix, ns0,
// ns1… in order of first use, declared on the element where it is first
// needed; no default namespace), for code that writes its values itself:
// the codecs soapwire gen generates. Start, Attr, Text and End are the
// element's parts in order; what the schema requires (which elements,
// their order, their forms) is the caller's to know. Errorf names the
// place (the open elements' local names) as the codec's errors do.
type Encoder struct {
	x       writer
	encoded core.Version
	top     bool // the envelope's encodingStyle goes on the next element
	// packaging and attachments: how Binary writes core.Binary values, and
	// the parts it named (binary.go)
	packaging   core.Packaging
	attachments []*core.Attachment
}

// NewEncoder returns an Encoder writing to w. Call Flush at the end.
func NewEncoder(w io.Writer) *Encoder { return &Encoder{x: makeWriter(w)} }

// NewBytesEncoder returns an Encoder that keeps what it writes in memory,
// appended to buf (which may be nil), for a message built whole before it
// is sent: Bytes returns it, without a copy.
func NewBytesEncoder(buf []byte) *Encoder {
	e := &Encoder{x: makeWriter(nil)}
	e.x.buf = buf
	return e
}

// ResetBytes makes w an Encoder as NewBytesEncoder(buf) does, keeping
// the storage its writer has grown (stacks, the prefix map): an Encoder
// kept from one message to the next (a trick: docs/benchmarks.md,
// "Generated code (issue 21)").
func (w *Encoder) ResetBytes(buf []byte) {
	x := w.x
	if len(x.prefix) > keptPrefixes {
		x.prefix = map[string]string{}
	}
	clear(x.prefix)
	w.x = writer{buf: buf, prefix: x.prefix, declared: x.declared[:0], elems: x.elems[:0], decls: x.decls[:0], pending: x.pending[:0]}
	w.encoded, w.top, w.packaging, w.attachments = 0, false, 0, nil
}

// keptPrefixes is the most namespaces whose map ResetBytes keeps.
const keptPrefixes = 64

// Bytes returns what an Encoder made by NewBytesEncoder wrote; nil for
// one that writes to an io.Writer.
func (w *Encoder) Bytes() []byte {
	if w.x.w != nil {
		return nil
	}
	return w.x.buf
}

// SetEncoded makes the Encoder write the SOAP encoding of version v
// (rpc/encoded): generated code then writes every element's xsi:type, and
// the next element carries the envelope's encodingStyle attribute. v == 0
// is literal.
func (w *Encoder) SetEncoded(v core.Version) {
	w.encoded = v
	w.top = v != 0
}

// Encoded returns the SOAP version whose encoding the Encoder writes, 0 for
// literal.
func (w *Encoder) Encoded() core.Version { return w.encoded }

// Start begins the element {space}local; attributes may follow until the
// next content.
func (w *Encoder) Start(space, local string) {
	w.x.start(xml.Name{Space: space, Local: local})
	if w.top {
		w.top = false
		w.x.attr(xml.Name{Space: w.encoded.Namespace(), Local: "encodingStyle"}, encodingURI(w.encoded))
	}
}

// Attr writes an attribute of the start tag being written.
func (w *Encoder) Attr(space, local, value string) {
	w.x.attr(xml.Name{Space: space, Local: local}, value)
}

// Type writes the xsi:type attribute naming {space}local.
func (w *Encoder) Type(space, local string) {
	w.x.attr(xsiName(xsiTypeLocal), w.x.qname(xml.Name{Space: space, Local: local}))
}

// Nil writes xsi:nil="true".
func (w *Encoder) Nil() { w.x.attr(xsiName(xsiNilLocal), "true") }

// QName returns {space}local as a prefixed name for the start tag being
// written (a QName value, an xsi:type), declaring its prefix there.
func (w *Encoder) QName(space, local string) string {
	return w.x.qname(xml.Name{Space: space, Local: local})
}

// QNames returns the QNames of a checked value ("{ns}local" items, as
// Simple.Check returns them) with prefixes, declaring them on the start tag
// being written.
func (w *Encoder) QNames(s string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	items := strings.Fields(s)
	for i, it := range items {
		if n, err := parseQName(it, nil); err == nil {
			items[i] = w.x.qname(n)
		}
	}
	return strings.Join(items, " ")
}

// Text writes character data (escaped).
func (w *Encoder) Text(s string) { w.x.text(s) }

// End closes the element opened last.
func (w *Encoder) End() {
	w.x.end()
}

// Element writes a whole element of simple content: start, text, end.
func (w *Encoder) Element(space, local, text string) {
	w.Start(space, local)
	w.x.text(text)
	w.End()
}

// Raw writes an element held as namespace-complete XML (RawXML) as it is,
// its names in the Encoder's prefixes, as the codec writes what a wildcard
// holds.
func (w *Encoder) Raw(raw RawXML) error {
	v, err := w.rawValue(raw)
	if err != nil {
		return err
	}
	e := &encoder{c: &Codec{}, x: &w.x, path: w.x.path()}
	return e.generic(v, 0)
}

// RawContent writes the attributes, text and child elements of the element
// raw holds into the element being written (Start done, End to come), as
// the codec writes an element of xsd:anyType that a Go value holds as
// RawXML: the element's own name is the caller's.
func (w *Encoder) RawContent(raw RawXML) error {
	v, err := w.rawValue(raw)
	if err != nil {
		return err
	}
	e := &encoder{c: &Codec{}, x: &w.x, path: w.x.path()}
	return e.genericContent(v, 0)
}

// rawValue reads the element raw holds as a generic value.
func (w *Encoder) rawValue(raw RawXML) (*Value, error) {
	d := &decoder{c: &Codec{}, r: BytesReader(raw), path: w.x.path()}
	st, err := d.peek()
	if err != nil {
		return nil, w.Errorf("raw XML: %v", err)
	}
	if st == nil {
		return nil, w.Errorf("raw XML holds no element")
	}
	d.take()
	return d.generic(st)
}

// Errorf returns a *ValueError at the open element.
func (w *Encoder) Errorf(format string, args ...any) error {
	return errorAt(w.x.path(), format, args...)
}

// ErrorfIn returns a *ValueError at the child local of the open element.
func (w *Encoder) ErrorfIn(local string, format string, args ...any) error {
	return &ValueError{Path: strings.Join(append(w.x.path(), local), "/"), Msg: fmt.Sprintf(format, args...)}
}

// Missing is the error for a required element that is absent.
func (w *Encoder) Missing(local string) error {
	return w.Errorf("the required element %s is missing", local)
}

// MissingAttr is the error for a required attribute that is absent.
func (w *Encoder) MissingAttr(local string) error {
	return w.Errorf("the required attribute %s is missing", local)
}

// Flush writes what is buffered; it returns the first write error. An
// Encoder made by NewBytesEncoder keeps what it wrote (Bytes).
func (w *Encoder) Flush() error { return w.x.flush() }

// Marshaler is a value that writes its attributes and content into the
// element an Encoder has open: what soapwire gen's types are.
type Marshaler interface {
	EncodeXSD(e *Encoder) error
}

// TypedMarshaler is a Marshaler that names its schema type: a value of a
// type with derived types, written with its xsi:type.
type TypedMarshaler interface {
	Marshaler
	XSDType() xml.Name
}

// Simple writes the element {space}local holding text, the lexical form of
// a value of t, after checking it against t (an error names the element
// and what is wrong). Writing the SOAP encoding, it carries t's xsi:type.
func (w *Encoder) Simple(space, local string, t *Simple, text string) error {
	norm, err := t.Check(text)
	if err != nil {
		return w.ErrorfIn(local, "%v", err)
	}
	w.SimpleText(space, local, t, norm)
	return nil
}

// SimpleText is Simple for text known to be valid (the Go type makes it
// so: an int32's digits for xsd:int): it writes it without a check.
func (w *Encoder) SimpleText(space, local string, t *Simple, text string) {
	w.Start(space, local)
	if w.encoded != 0 {
		if n := t.typeName(); n.Local != "" {
			w.Type(n.Space, n.Local)
		}
	}
	if t.qname {
		text = w.QNames(text)
	}
	w.x.text(text)
	w.End()
}

// Struct writes the element {space}local holding v, of the type
// {typeSpace}typeLocal (written as its xsi:type in the SOAP encoding;
// "" for an anonymous type).
func (w *Encoder) Struct(space, local string, v Marshaler, typeSpace, typeLocal string) error {
	w.Start(space, local)
	if w.encoded != 0 && typeLocal != "" {
		w.Type(typeSpace, typeLocal)
	}
	if err := v.EncodeXSD(w); err != nil {
		return err
	}
	w.End()
	return nil
}

// Derived writes the element {space}local holding v, a value of the
// element's type {typeSpace}typeLocal or of a type derived from it, whose
// name it writes as xsi:type (always, in the SOAP encoding). abstract says
// the element's type is: a value of it is refused.
func (w *Encoder) Derived(space, local string, v TypedMarshaler, typeSpace, typeLocal string, abstract bool) error {
	t := v.XSDType()
	declared := t.Space == typeSpace && t.Local == typeLocal
	if declared && abstract {
		return w.ErrorfIn(local, "the type %s is abstract: give a value of a type derived from it", qn(t))
	}
	w.Start(space, local)
	if !declared || w.encoded != 0 {
		w.Type(t.Space, t.Local)
	}
	if err := v.EncodeXSD(w); err != nil {
		return err
	}
	w.End()
	return nil
}

// NilElement writes the element {space}local as xsi:nil (with t's xsi:type
// in the SOAP encoding; t may be nil).
func (w *Encoder) NilElement(space, local string, t *Simple) {
	w.Start(space, local)
	if w.encoded != 0 && t != nil {
		if n := t.typeName(); n.Local != "" {
			w.Type(n.Space, n.Local)
		}
	}
	w.Nil()
	w.End()
}
