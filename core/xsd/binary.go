package xsd

import (
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"io"
	"net/url"

	"github.com/soapwire/soapwire/core"
)

// NamespaceXMLMime is the namespace of xmime:expectedContentTypes and
// xmime:contentType (Describing Media Content of Binary Data in XML).
const NamespaceXMLMime = core.NamespaceXMLMime

// IsBase64 reports whether the values of t are xs:base64Binary: a simple
// type whose primitive is base64Binary, or a complex type of simple
// content over one (xmime:base64Binary).
func IsBase64(t Type) bool {
	switch t := t.(type) {
	case *SimpleType:
		return t != nil && t.Variety == Atomic && kindOf(t).Primitive() == KindBase64Binary
	case *ComplexType:
		return t != nil && t.Content == SimpleContent && t.SimpleType != nil && IsBase64(t.SimpleType)
	}
	return false
}

// ContentTypeAttribute returns the use of the xmime:contentType attribute
// among the attributes of t (a complex type; xmime:base64Binary has it),
// nil when it has none.
func ContentTypeAttribute(t Type) *AttributeUse {
	ct, ok := t.(*ComplexType)
	if !ok || ct == nil {
		return nil
	}
	for _, u := range ct.EffectiveAttributes() {
		if u.Attribute != nil && u.Attribute.Name == (xml.Name{Space: NamespaceXMLMime, Local: "contentType"}) {
			return u
		}
	}
	return nil
}

// MIMEBinary reports whether the element holds binary content that the
// schema marks as such: a base64Binary value (IsBase64) with
// xmime:expectedContentTypes on the declaration or an xmime:contentType
// attribute on its type. Such a value can travel as an MTOM part (XOP):
// soapwire gen holds it as a core.Binary.
func (e *Element) MIMEBinary() bool {
	if e == nil || !IsBase64(e.Type) {
		return false
	}
	return e.ExpectedContentTypes != "" || ContentTypeAttribute(e.Type) != nil
}

// binaryTaker is a token reader that reads a binary value itself
// (core.Body: an xop:Include is taken as its part, not expanded).
type binaryTaker interface {
	DecodeBinary() (core.Binary, error)
}

// Binary reads the element just taken (st), which is not nillable, as an
// xs:base64Binary value of the simple type t held as a core.Binary.
// Reading a core.Body, the value is taken by core.Body.DecodeBinary: an
// xop:Include of an MTOM message is its part itself, neither read nor
// copied; base64 text is decoded into an attachment of its own (spooled
// within the message's limits). From another reader the text is decoded
// into memory. An xmime:contentType attribute becomes the value's
// ContentType; other attributes are refused as on any simple value. The
// facets of t are not checked on a part (it is not read).
func (r *Decoder) Binary(st *Start, t *Simple) (core.Binary, error) {
	if st.Nil {
		return core.Binary{}, r.NotNillable()
	}
	return r.binary(st, t)
}

// BinaryNillable is Binary for a nillable element: isNil reports xsi:nil.
func (r *Decoder) BinaryNillable(st *Start, t *Simple) (b core.Binary, isNil bool, err error) {
	if st.Nil {
		return core.Binary{}, true, r.Empty()
	}
	b, err = r.binary(st, t)
	return b, false, err
}

func (r *Decoder) binary(st *Start, t *Simple) (core.Binary, error) {
	n := t.t.Name
	if err := r.Type(st, n.Space, n.Local); err != nil {
		return core.Binary{}, err
	}
	contentType := ""
	for i := range st.t.Attr {
		a := &st.t.Attr[i]
		if string(a.Name.Space) == NamespaceXMLMime && string(a.Name.Local) == "contentType" {
			contentType = string(a.Value)
		}
	}
	if err := r.noAttrsBut(st, NamespaceXMLMime, "contentType"); err != nil {
		return core.Binary{}, err
	}
	if bt, ok := r.r.(binaryTaker); ok && r.peeked == nil && !r.ended {
		b, err := bt.DecodeBinary()
		if err != nil {
			return core.Binary{}, r.wrap(err)
		}
		r.depth-- // its end tag was read
		r.finish()
		b.ContentType = contentType
		return b, nil
	}
	s, err := r.value(t, nil, false)
	if err != nil {
		return core.Binary{}, err
	}
	data, err := decodeBase64(s)
	if err != nil {
		return core.Binary{}, r.ErrorIn(st.Local(), fmt.Errorf("%q is not base64Binary", clip(s)))
	}
	b := core.NewBinary(core.BytesAttachment("", data))
	b.ContentType = contentType
	return b, nil
}

// noAttrsBut is NoAttrs allowing the attribute {space}local too.
func (r *Decoder) noAttrsBut(st *Start, space, local string) error {
	if len(st.t.Attr) == 0 {
		return nil
	}
	keep := st.t.Attr
	var rest []core.TokenAttr
	for _, a := range keep {
		if string(a.Name.Space) == space && string(a.Name.Local) == local {
			continue
		}
		rest = append(rest, a)
	}
	st.t.Attr = rest
	err := r.NoAttrs(st)
	st.t.Attr = keep
	return err
}

// SetPackaging says how Binary writes core.Binary values: under core.MTOM
// each as an xop:Include naming its attachment, which Attachments then
// lists (the message written must carry them: core.Message.AttachBinary);
// under any other packaging (the default, core.Inline) as base64 text, the
// attachment's bytes read as they are written.
func (w *Encoder) SetPackaging(p core.Packaging) { w.packaging = p }

// Attachments returns the attachments of the core.Binary values written
// as xop:Include elements, in order.
func (w *Encoder) Attachments() []*core.Attachment { return w.attachments }

// Binary writes the element {space}local holding b, an xs:base64Binary
// value of the simple type t: as SetPackaging says, an xop:Include or
// base64 text. Its ContentType, when set, is written as the
// xmime:contentType attribute. A zero Binary is an empty value.
func (w *Encoder) Binary(space, local string, t *Simple, b core.Binary) error {
	w.Start(space, local)
	if w.encoded != 0 {
		if n := t.typeName(); n.Local != "" {
			w.Type(n.Space, n.Local)
		}
	}
	if b.ContentType != "" {
		w.Attr(NamespaceXMLMime, "contentType", b.ContentType)
	}
	a := b.Attachment()
	switch {
	case a == nil:
	case w.packaging == core.MTOM:
		w.Start(core.NamespaceXOP, "Include")
		w.Attr("", "href", "cid:"+url.PathEscape(a.ID))
		w.End()
		w.attachments = append(w.attachments, a)
	default:
		if err := w.base64Of(a); err != nil {
			return w.Errorf("%v", err)
		}
	}
	w.End()
	return nil
}

// base64Of writes an attachment's bytes as base64 text, a chunk at a time.
func (w *Encoder) base64Of(a *core.Attachment) error {
	rc, err := a.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	raw := make([]byte, 48<<10)
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	for {
		n, err := io.ReadFull(rc, raw)
		if n > 0 {
			base64.StdEncoding.Encode(enc, raw[:n])
			w.x.text(string(enc[:base64.StdEncoding.EncodedLen(n)]))
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
