package gen

import (
	"encoding/xml"

	"github.com/soapwire/soapwire/core/xsd"
)

// goStruct is a Go struct the generator writes for a complex type.
type goStruct struct {
	name   string
	ct     *xsd.ComplexType
	doc    string
	embed  *goStruct // an extension's base
	fields []*field  // its own fields (the embedded base's are the base's)
	// the fields by what they hold, the embedded base's included
	elems   map[xml.Name]*field
	attrs   map[xml.Name]*field
	text    *field
	any     *field
	anyAttr *field
	// iface is the interface of a type with derived types (AnyShape): a
	// field of an element of the type holds any of them
	iface  string
	family []*goStruct // the named types an iface holds: itself and its derived types
	bases  []*goStruct // the types with an iface this one is in the family of
	array  *rep        // a SOAP-encoded array: the items' rep (the struct is a named slice)
	done   bool
	names  *namer // its field names
	// message says what a struct made for a message is ("the input of add")
	message  string
	dispatch string // the function reading an iface's value
}

type fieldKind uint8

const (
	fieldElem fieldKind = iota
	fieldAttr
	fieldText
	fieldAny
	fieldAnyAttr
)

// field is one field of a goStruct.
type field struct {
	name     string
	kind     fieldKind
	el       *xsd.Element // the element (the first declaration of its name)
	use      *xsd.AttributeUse
	rep      *rep
	repeated bool
	optional bool
	nillable bool
	ptr      bool // held by pointer though required (a type that contains itself)
	doc      string
	owner    *goStruct
}

// reservedFields are the method names every struct has.
var reservedFields = []string{"EncodeXSD", "DecodeXSD", "XSDType"}

// structOf returns the struct of ct, making it (and its fields) once.
func (m *model) structOf(ct *xsd.ComplexType, ctx string) *goStruct {
	if st := m.structs[ct]; st != nil {
		return st
	}
	name := m.typeNames[ct]
	if name == "" {
		if ct.Name != (xml.Name{}) {
			name = goName(ct.Name.Local)
		} else {
			name = ctx
		}
		if name == "" {
			name = "Type"
		}
		name = m.names.name(name)
		m.typeNames[ct] = name
	}
	st := &goStruct{name: name, ct: ct, doc: typeDoc(ct.Documentation(), ct.Context),
		elems: map[xml.Name]*field{}, attrs: map[xml.Name]*field{}, names: newNamer(reservedFields...)}
	st.names.reserve(name)
	m.structs[ct] = st
	m.goStructs = append(m.goStructs, st)
	if len(m.derived(ct)) > 0 {
		st.iface = m.names.name("Any" + name)
	}
	m.fill(st)
	return st
}

// derived returns the named complex types derived from ct that the
// generated package has.
func (m *model) derived(ct *xsd.ComplexType) []*xsd.ComplexType {
	if ct.Name == (xml.Name{}) {
		return nil
	}
	var out []*xsd.ComplexType
	for _, d := range m.set.DerivedTypes(ct) {
		if d.Name != (xml.Name{}) && !isStandardNS(d.Name.Space) {
			out = append(out, d)
		}
	}
	return out
}

// fill makes the fields of st.
func (m *model) fill(st *goStruct) {
	ct := st.ct
	if ct.Array != nil {
		item := m.arrayItemRep(ct, st.name)
		st.array = item
		st.done = true
		return
	}
	if ct.Derivation == xsd.Extended {
		if base, ok := ct.Base.(*xsd.ComplexType); ok && !base.IsAnyType() && m.encodingRep(base) == nil && base.Array == nil {
			st.embed = m.structOf(base, m.typeNames[base])
			st.names.reserve(st.embed.name)
			m.inherit(st, st.embed)
		}
	}
	for _, u := range ct.EffectiveAttributes() {
		n := u.Attribute.Name
		if st.attrs[n] != nil {
			continue
		}
		r := m.simpleRep(u.Attribute.Type, st.name+goName(n.Local))
		f := &field{kind: fieldAttr, use: u, rep: r, optional: u.Use != xsd.Required, doc: u.Attribute.Documentation(), owner: st}
		st.attrs[n] = f
		st.fields = append(st.fields, f)
	}
	switch ct.Content {
	case xsd.SimpleContent:
		if st.text == nil {
			vt := ct.SimpleType
			if vt == nil {
				vt = m.set.Builtin(xsd.KindAnySimpleType)
			}
			st.text = &field{kind: fieldText, rep: m.simpleRep(vt, st.name+"Value"), owner: st}
			st.fields = append(st.fields, st.text)
		}
	case xsd.MixedContent:
		if st.text == nil {
			st.text = &field{kind: fieldText, rep: m.builtinRepOf(xsd.KindString), owner: st}
			st.fields = append(st.fields, st.text)
		}
	}
	if p := ct.EffectiveParticle(); p != nil {
		bounds := map[xml.Name]*occurs{}
		var order []*xsd.Element
		m.collect(p, 1, 1, bounds, &order)
		for _, el := range order {
			if st.elems[el.Name] != nil {
				continue
			}
			b := bounds[el.Name]
			f := &field{kind: fieldElem, el: el, doc: el.Documentation(), owner: st, nillable: el.Nillable,
				repeated: b.max < 0 || b.max > 1, optional: b.min == 0}
			st.elems[el.Name] = f
			st.fields = append(st.fields, f)
		}
		if hasWildcard(p) && st.any == nil {
			st.any = &field{kind: fieldAny, owner: st, rep: &rep{goType: "xsd.RawXML", kind: repRaw}, repeated: true}
			st.fields = append(st.fields, st.any)
		}
	}
	if w := ct.EffectiveAnyAttribute(); w != nil && st.anyAttr == nil {
		st.anyAttr = &field{kind: fieldAnyAttr, owner: st}
		st.fields = append(st.fields, st.anyAttr)
	}
	m.nameFields(st)
	st.done = true
	// the elements' types last: a type that refers back to this one finds
	// it complete
	for _, f := range st.fields {
		if f.kind == fieldElem && f.owner == st {
			f.rep = m.binaryRep(f.el, m.typeRep(f.el.Type, st.name+goName(f.el.Name.Local), true))
		}
	}
}

// inherit gives st the fields of its base (the embedded struct's).
func (m *model) inherit(st, base *goStruct) {
	for n, f := range base.elems {
		st.elems[n] = f
	}
	for n, f := range base.attrs {
		st.attrs[n] = f
	}
	st.text, st.any, st.anyAttr = base.text, base.any, base.anyAttr
	for b := base; b != nil; b = b.embed {
		st.names.reserve(b.name)
		for _, f := range b.fields {
			st.names.reserve(f.name)
		}
	}
}

// nameFields names st's own fields: elements first, then attributes
// (with an Attr suffix when an element has the name), the text and the
// wildcards.
func (m *model) nameFields(st *goStruct) {
	for _, f := range st.fields {
		if f.kind == fieldElem && f.owner == st {
			f.name = st.names.name(goName(f.el.Name.Local))
		}
	}
	for _, f := range st.fields {
		if f.kind == fieldAttr && f.owner == st {
			n := goName(f.use.Attribute.Name.Local)
			if st.names.taken[n] {
				n += "Attr"
			}
			f.name = st.names.name(n)
		}
	}
	for _, f := range st.fields {
		switch {
		case f.kind == fieldText && f.owner == st:
			if st.ct.Content == xsd.MixedContent {
				f.name = st.names.name("Text")
			} else {
				f.name = st.names.name("Value")
			}
		case f.kind == fieldAny && f.owner == st:
			f.name = st.names.name("Any")
		case f.kind == fieldAnyAttr && f.owner == st:
			f.name = st.names.name("AnyAttrs")
		}
	}
}

// occurs are an element name's occurrence bounds in a content model
// (max -1: unbounded).
type occurs struct{ min, max int }

// collect adds the elements of p (with the members of their substitution
// groups) to bounds, in order, p occurring between minMul and maxMul
// times (-1: unbounded).
func (m *model) collect(p *xsd.Particle, minMul, maxMul int, bounds map[xml.Name]*occurs, order *[]*xsd.Element) {
	if p == nil || p.Max == 0 {
		return
	}
	lo, hi := minMul*p.Min, mulMax(maxMul, p.Max)
	switch {
	case p.Element != nil:
		for i, e := range m.members(p.Element) {
			min := 0
			if i == 0 && e == p.Element {
				min = lo
			}
			b := bounds[e.Name]
			if b == nil {
				b = &occurs{}
				bounds[e.Name] = b
				*order = append(*order, e)
			}
			b.min += min
			b.max = addMax(b.max, hi)
		}
	case p.Group != nil:
		for _, q := range p.Group.Particles {
			if p.Group.Compositor == xsd.Choice && len(p.Group.Particles) > 1 {
				m.collect(q, 0, hi, bounds, order)
			} else {
				m.collect(q, lo, hi, bounds, order)
			}
		}
	}
}

func mulMax(a, b int) int {
	if a == 0 || b == 0 {
		return 0
	}
	if a < 0 || b < 0 {
		return -1
	}
	return a * b
}

func addMax(a, b int) int {
	if a < 0 || b < 0 {
		return -1
	}
	return a + b
}

// members returns the elements that may stand where e is declared: e
// unless abstract, then its substitution group's members that are not.
func (m *model) members(e *xsd.Element) []*xsd.Element {
	var out []*xsd.Element
	if !e.Abstract {
		out = append(out, e)
	}
	if e.Global {
		for _, s := range m.set.SubstitutionGroup(e) {
			if !s.Abstract {
				out = append(out, s)
			}
		}
	}
	return out
}

// hasWildcard reports whether a content model has an xs:any.
func hasWildcard(p *xsd.Particle) bool {
	if p == nil {
		return false
	}
	if p.Any != nil {
		return true
	}
	if p.Group != nil {
		for _, q := range p.Group.Particles {
			if hasWildcard(q) {
				return true
			}
		}
	}
	return false
}

// arrayItemRep returns the rep of a SOAP-encoded array type's items.
func (m *model) arrayItemRep(ct *xsd.ComplexType, name string) *rep {
	a := ct.Array
	if a.ItemType == nil {
		return &rep{goType: "xsd.RawXML", kind: repRaw}
	}
	return m.typeRep(a.ItemType, name+"Item", true)
}

// typeDoc is a type's documentation: its own, or for an anonymous type
// without any, that of the element or attribute it is written in (a
// global element's annotation documents its anonymous type).
func typeDoc(doc string, ctx xsd.Component) string {
	if doc != "" {
		return doc
	}
	switch c := ctx.(type) {
	case *xsd.Element:
		return c.Documentation()
	case *xsd.Attribute:
		return c.Documentation()
	}
	return ""
}
