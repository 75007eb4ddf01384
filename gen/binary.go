package gen

import (
	"github.com/soapwire/soapwire/core/xsd"
)

// WithBinary makes every element of xs:base64Binary a core.Binary (a value
// that travels as an MTOM part), not only those the schema marks
// (xmime:expectedContentTypes on the element, or an xmime:contentType
// attribute on its type). Other base64Binary values (attributes, list
// items, simple content) stay []byte.
func WithBinary() Option { return optionFunc(func(c *config) { c.binary = true }) }

// binaryRep returns the rep of an element's values: a core.Binary for a
// base64Binary element the schema marks as binary content (or any, with
// WithBinary), else r.
func (m *model) binaryRep(e *xsd.Element, r *rep) *rep {
	if r == nil || !xsd.IsBase64(e.Type) {
		return r
	}
	switch {
	case r.kind == repBinary && (m.binary || e.MIMEBinary()):
		return &rep{goType: "core.Binary", kind: repAttachment, xkind: xsd.KindBase64Binary, simple: r.simple, typeName: r.typeName}
	case r.kind == repStruct && onlyContentType(e.Type):
		// xmime:base64Binary (or a type like it): its xmime:contentType
		// is the Binary's ContentType
		return &rep{goType: "core.Binary", kind: repAttachment, xkind: xsd.KindBase64Binary, simple: m.builtinSimple(xsd.KindBase64Binary), typeName: r.typeName}
	}
	return r
}

// emitWriteBinary writes the element decl holding expr, a core.Binary.
func (g *generator) emitWriteBinary(f *file, in string, decl *xsd.Element, r *rep, expr string) {
	f.p("%sif err := e.Binary(%s, %s, %s, %s); err != nil {", in, goString(decl.Name.Space), goString(decl.Name.Local), r.simple, expr)
	f.p("%s\treturn err", in)
	f.p("%s}", in)
}

// emitReadBinary reads the element just taken (st) as decl, a core.Binary.
func (g *generator) emitReadBinary(f *file, in string, nillable bool, r *rep, assign func(val string) string, assignNil string) {
	f.use(assign("x"))
	f.use(assignNil)
	if !nillable {
		f.p("%sx, err := d.Binary(st, %s)", in, r.simple)
		f.p("%sif err != nil {", in)
		f.p("%s\treturn err", in)
		f.p("%s}", in)
		f.p("%s%s", in, assign("x"))
		return
	}
	f.p("%sx, isNil, err := d.BinaryNillable(st, %s)", in, r.simple)
	f.p("%sif err != nil {", in)
	f.p("%s\treturn err", in)
	f.p("%s}", in)
	f.p("%sif isNil {", in)
	f.p("%s\t%s", in, assignNil)
	f.p("%s} else {", in)
	f.p("%s\t%s", in, assign("x"))
	f.p("%s}", in)
}

// onlyContentType reports whether t is a complex type of base64Binary
// content whose one attribute is xmime:contentType.
func onlyContentType(t xsd.Type) bool {
	ct, ok := t.(*xsd.ComplexType)
	if !ok || ct.EffectiveAnyAttribute() != nil {
		return false
	}
	return len(ct.EffectiveAttributes()) == 1 && xsd.ContentTypeAttribute(ct) != nil
}
