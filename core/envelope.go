package core

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// Envelope is a SOAP envelope: header blocks parsed and bounded, the body a
// stream read lazily from the transport.
type Envelope struct {
	Version Version
	Headers []HeaderBlock
	Body    Body
}

// HeaderBlock is one child of the SOAP Header.
//
// XML holds the element, namespace-complete: every prefix in scope where it
// was read is declared on it, so it can be moved into another envelope as is.
// When writing, the fields win: if Role, MustUnderstand, Relay or
// EncodingStyle differ from what XML says (or XML is nil), the start tag is
// rewritten with the SOAP attributes of the envelope's version.
//
// A block read from an MTOM package may hold xop:Include elements, checked
// when the package is read (ReadPackage) and kept in XML as they were:
// Decode takes a Binary holding one as its part, and the block can be
// written only into an MTOM package (any message's: the parts it names are
// carried with it). Outside an MTOM package, a block with an xop:Include is
// refused when read (ReadMessage, ReadPackage).
type HeaderBlock struct {
	Name           xml.Name // namespace URI and local name, never a prefix
	Role           string   // 1.1 actor / 1.2 role; "" = the ultimate receiver
	MustUnderstand bool
	Relay          bool   // 1.2 relay
	EncodingStyle  string // encodingStyle attribute, if any
	XML            []byte

	as  blockAttrs // what XML's SOAP attributes say, when read
	xop *headerXOP // the block was read with an xop:Include in it
}

type blockAttrs struct {
	role, enc      string
	v              Version
	mu, relay, set bool
}

func (b *HeaderBlock) verbatim(v Version) bool {
	a := &b.as
	return b.XML != nil && a.set && (a.v == v || a.v == 0) && a.role == b.Role && a.mu == b.MustUnderstand &&
		a.relay == b.Relay && a.enc == b.EncodingStyle
}

// Decode unmarshals the block's XML into v with encoding/xml. In a block
// read from an MTOM message, a Binary holding an xop:Include is its part
// (as in the body).
func (b *HeaderBlock) Decode(v any) error {
	var err error
	if b.xop != nil && b.xop.msg != nil {
		d := xml.NewDecoder(bytes.NewReader(b.XML))
		d.CharsetReader = b.xop.contextReader()
		err = d.Decode(v)
	} else {
		err = xml.Unmarshal(b.XML, v)
	}
	if err != nil {
		return &Fault{Code: CodeSender, Reason: fmt.Sprintf("header block %s: %v", qnameString(b.Name), err), Cause: err}
	}
	return nil
}

// NewHeaderBlock marshals v with encoding/xml into a header block. The
// element must be namespace-qualified.
func NewHeaderBlock(v any) (HeaderBlock, error) {
	raw, err := xml.Marshal(v)
	if err != nil {
		return HeaderBlock{}, fmt.Errorf("core: header block: %w", err)
	}
	return ParseHeaderBlock(raw)
}

// TextHeaderBlock returns a header block that is one element, name, holding
// text (escaped as the writer escapes it): <h:Local xmlns:h="Space">text</h:Local>.
// Set Role, MustUnderstand, Relay or EncodingStyle on it as on any block.
// The name must be namespace-qualified and its Local a name without a
// colon; otherwise the block carries no XML and writing it fails.
func TextHeaderBlock(name xml.Name, text string) HeaderBlock {
	b := HeaderBlock{Name: name}
	if name.Space == "" || !xmltok.IsNCName(name.Local) {
		return b
	}
	x := make([]byte, 0, 2*len(name.Local)+len(name.Space)+len(text)+22)
	x = append(x, "<h:"...)
	x = append(x, name.Local...)
	x = append(x, ` xmlns:h="`...)
	x = appendEscaped(x, name.Space, true)
	x = append(x, `">`...)
	x = appendEscaped(x, text, false)
	x = append(x, "</h:"...)
	x = append(x, name.Local...)
	x = append(x, '>')
	b.XML = x
	b.as = blockAttrs{set: true} // no SOAP attributes: right in either version
	return b
}

// ParseHeaderBlock reads one element as a header block: its name and SOAP
// attributes (either version's) are taken from the XML.
func ParseHeaderBlock(raw []byte) (HeaderBlock, error) {
	r := xmltok.NewReader(bytes.NewReader(raw), DefaultLimits().tokenizer())
	defer r.Release()
	var t *xmltok.Token
	var err error
	for {
		if t, err = r.Next(); err != nil {
			return HeaderBlock{}, fmt.Errorf("core: header block: %w", err)
		}
		if t.Kind == xmltok.StartElement {
			break
		}
	}
	if len(t.Name.Space) == 0 {
		return HeaderBlock{}, fmt.Errorf("core: header block <%s> is not namespace-qualified", t.Name.Local)
	}
	b := HeaderBlock{Name: xml.Name{Space: string(t.Name.Space), Local: string(t.Name.Local)}}
	var found []Version
	for _, v := range []Version{V11, V12} {
		if err := b.soapAttrs(v, t.Attr); err != nil {
			return HeaderBlock{}, err
		}
		for _, a := range t.Attr {
			if string(a.Name.Space) == v.Namespace() && isSOAPAttr(string(a.Name.Local)) {
				found = append(found, v)
				break
			}
		}
	}
	switch len(found) {
	case 0:
		b.as.v = 0 // no SOAP attributes: the XML is right in either version
	case 1:
		// the XML says what the fields say only in the version whose
		// attributes it carries: in the other one the start tag is rewritten
		b.as.v = found[0]
	}
	for {
		if _, err = r.Next(); err != nil {
			break
		}
	}
	if err != io.EOF {
		return HeaderBlock{}, fmt.Errorf("core: header block: %w", err)
	}
	b.XML = raw
	return b, nil
}

// soapAttrs reads the SOAP attributes of version v from a block's start tag.
func (b *HeaderBlock) soapAttrs(v Version, attrs []xmltok.Attr) error {
	ns := v.Namespace()
	for _, a := range attrs {
		if string(a.Name.Space) != ns {
			continue
		}
		switch string(a.Name.Local) {
		case "actor":
			if v == V11 {
				b.Role = known(a.Value)
			}
		case "role":
			if v == V12 {
				b.Role = known(a.Value)
			}
		case "mustUnderstand":
			mu, ok := parseBool(v, a.Value)
			if !ok {
				return &Fault{Code: CodeSender, Version: v, Reason: fmt.Sprintf("mustUnderstand=%q on header block %s is not a boolean (%s)", a.Value, qnameString(b.Name), boolForms(v))}
			}
			b.MustUnderstand = mu
		case "relay":
			if v == V12 {
				relay, ok := parseBool(v, a.Value)
				if !ok {
					return &Fault{Code: CodeSender, Version: v, Reason: fmt.Sprintf("relay=%q on header block %s is not a boolean", a.Value, qnameString(b.Name))}
				}
				b.Relay = relay
			}
		case "encodingStyle":
			b.EncodingStyle = known(a.Value)
		}
	}
	b.as = blockAttrs{v: v, role: b.Role, enc: b.EncodingStyle, mu: b.MustUnderstand, relay: b.Relay, set: true}
	return nil
}

func parseBool(v Version, s []byte) (value, ok bool) {
	switch string(trimSpace(s)) {
	case "1":
		return true, true
	case "0":
		return false, true
	case "true":
		return true, v == V12
	case "false":
		return false, v == V12
	}
	return false, false
}

func boolForms(v Version) string {
	if v == V12 {
		return `"true", "false", "1" or "0"`
	}
	return `SOAP 1.1 allows "1" or "0"`
}

func trimSpace[S string | []byte](s S) S {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '\n' || s[0] == '\r') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t' || s[len(s)-1] == '\n' || s[len(s)-1] == '\r') {
		s = s[:len(s)-1]
	}
	return s
}

func qnameString(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// WriteOptions tune how an envelope is written.
type WriteOptions struct {
	Prefix         string // envelope prefix; default "soap"
	XMLDeclaration bool   // write <?xml version="1.0" encoding="utf-8"?> first
}

// WriteTo writes the envelope with the default options. An inbound body is
// consumed by it.
func (e *Envelope) WriteTo(w io.Writer) (int64, error) {
	return e.Write(w, WriteOptions{})
}

// Write writes the envelope as well-formed XML in its version.
func (e *Envelope) Write(w io.Writer, o WriteOptions) (int64, error) {
	x := newXMLWriter(w)
	defer x.release()
	err := writeEnvelope(x, e, o, nil)
	if ferr := x.flush(); err == nil {
		err = ferr
	}
	return x.n, err
}

// writeEnvelope writes e; head, when not nil, writes extra header blocks
// (addressing) before e's own, given the envelope prefix.
func writeEnvelope(x *xmlWriter, e *Envelope, o WriteOptions, head *headerExtra) error {
	v := e.Version.orV11()
	p := o.Prefix
	if p == "" {
		p = defaultEnvelopePrefix
	}
	if o.XMLDeclaration {
		x.raw(`<?xml version="1.0" encoding="utf-8"?>`)
	}
	x.open(p, "Envelope")
	x.declPlain(p, v.Namespace())
	if head != nil && head.prefix != "" {
		x.decl(head.prefix, head.space)
	}
	f := e.Body.faultOf()
	extra := head != nil && head.write != nil
	if len(e.Headers) > 0 || extra || (f != nil && faultHeaders(f, v)) {
		x.open(p, "Header")
		if extra {
			head.write(x)
		}
		for i := range e.Headers {
			if err := writeBlock(x, &e.Headers[i], v, p); err != nil {
				return err
			}
		}
		if f != nil {
			writeFaultHeaders(x, f, v, p)
		}
		x.close(p, "Header")
	}
	x.open(p, "Body")
	if err := e.Body.write(x, v, p); err != nil {
		return err
	}
	x.close(p, "Body")
	x.close(p, "Envelope")
	return x.err
}

type headerExtra struct {
	prefix, space string
	write         func(x *xmlWriter)
}

func writeBlock(x *xmlWriter, b *HeaderBlock, v Version, envPrefix string) error {
	if b.xop != nil && b.xop.msg != nil {
		if err := x.blockIncludes(b); err != nil {
			return err
		}
	}
	if b.verbatim(v) {
		x.Write(b.XML)
		return x.err
	}
	if b.Name.Space == "" {
		return fmt.Errorf("core: header block <%s> is not namespace-qualified", b.Name.Local)
	}
	if b.XML == nil {
		if !xmltok.IsNCName(b.Name.Local) {
			return fmt.Errorf("core: header block %s: %q is not an XML name", qnameString(b.Name), b.Name.Local)
		}
		x.open("h", b.Name.Local)
		x.decl("h", b.Name.Space)
		writeSOAPAttrs(x, b, v, envPrefix)
		x.close("h", b.Name.Local)
		return x.err
	}
	// Rewrite the start tag: keep its declarations and other attributes,
	// replace the SOAP ones, copy the rest verbatim.
	r := xmltok.NewReader(bytes.NewReader(b.XML), DefaultLimits().tokenizer())
	defer r.Release()
	var t *xmltok.Token
	var err error
	for {
		if t, err = r.Next(); err != nil {
			return fmt.Errorf("core: header block %s: %w", qnameString(b.Name), err)
		}
		if t.Kind == xmltok.StartElement {
			break
		}
	}
	end := r.Offset()
	wOpen(x, t.Name.Prefix, t.Name.Local)
	prefix := envPrefix
	for i := 0; ; i++ {
		if uri, ok := r.Lookup([]byte(prefix)); !ok || string(uri) == v.Namespace() {
			break
		}
		prefix = fmt.Sprintf("%s%d", envPrefix, i)
	}
	for _, d := range t.NS {
		wDecl(x, d.Prefix, d.URI)
	}
	for _, a := range t.Attr {
		if (string(a.Name.Space) == NamespaceV11 || string(a.Name.Space) == NamespaceV12) && isSOAPAttr(string(a.Name.Local)) {
			continue
		}
		wAttr(x, a.Name.Prefix, a.Name.Local, a.Value)
	}
	if prefix != envPrefix {
		x.decl(prefix, v.Namespace())
	} else if uri, ok := r.Lookup([]byte(prefix)); !ok || string(uri) != v.Namespace() {
		x.decl(prefix, v.Namespace())
	}
	writeSOAPAttrs(x, b, v, prefix)
	rest := b.XML[end:]
	if end >= 2 && string(b.XML[end-2:end]) == "/>" {
		wClose(x, t.Name.Prefix, t.Name.Local)
		return x.err
	}
	x.closeStart()
	x.Write(rest)
	return x.err
}

func isSOAPAttr(local string) bool {
	switch local {
	case "actor", "role", "mustUnderstand", "relay", "encodingStyle":
		return true
	}
	return false
}

func writeSOAPAttrs(x *xmlWriter, b *HeaderBlock, v Version, p string) {
	if b.Role != "" {
		if v == V12 {
			x.attr(p, "role", b.Role)
		} else {
			x.attr(p, "actor", b.Role)
		}
	}
	if b.MustUnderstand {
		if v == V12 {
			x.attr(p, "mustUnderstand", "true")
		} else {
			x.attr(p, "mustUnderstand", "1")
		}
	}
	if b.Relay && v == V12 {
		x.attr(p, "relay", "true")
	}
	if b.EncodingStyle != "" {
		x.attr(p, "encodingStyle", b.EncodingStyle)
	}
}
