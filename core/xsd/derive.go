package xsd

import (
	"encoding/xml"
	"strings"
)

// derive computes what follows from the references: varieties, element
// types, content models and attributes with their inheritance, the lists
// of derived types and substitutes, SOAP-encoded arrays; and refuses
// cycles.
func (r *Reader) derive(s *Set) {
	for _, t := range r.simples {
		if !t.fromComplex {
			r.finishSimple(s, t)
		}
	}
	for _, e := range r.elements {
		r.elementType(s, e, map[*Element]bool{})
	}
	for _, t := range r.complexes {
		r.finishComplex(s, t)
	}
	for _, t := range r.complexes {
		if b, ok := t.Base.(*ComplexType); ok && t.Name != (xml.Name{}) && !b.anyAll {
			b.Derived = append(b.Derived, t)
		}
	}
	for _, t := range r.simples {
		if t.Base != nil && t.Name != (xml.Name{}) && t.Base.Schema != nil {
			t.Base.Derived = append(t.Base.Derived, t)
		}
	}
	for _, e := range r.elements {
		if e.SubstitutionGroup != nil {
			if !e.Global {
				r.Fail(e.Loc, "a local element in a substitution group")
				continue
			}
			e.SubstitutionGroup.Substitutes = append(e.SubstitutionGroup.Substitutes, e)
		}
	}
	for _, g := range r.groups {
		r.groupCycles(g.Model, map[*Group]bool{g: true}, g)
	}
	for _, t := range r.complexes {
		r.array(s, t)
	}
}

// finishSimple settles a simple type's variety (and a restriction's item or
// members) after its base's, refusing a type that derives from itself.
func (r *Reader) finishSimple(s *Set, t *SimpleType) {
	switch t.state {
	case 2:
		return
	case 1:
		r.Fail(t.Loc, "the simple type %s derives from itself", qstr(t.Name))
		t.Base, t.Item, t.Members = s.Builtin(KindAnySimpleType), nil, nil
		return
	}
	t.state = 1
	if t.Base != nil {
		r.finishSimple(s, t.Base)
	}
	if t.Item != nil {
		r.finishSimple(s, t.Item)
	}
	for _, m := range t.Members {
		r.finishSimple(s, m)
	}
	if t.state == 2 { // a cycle through it was cut while its parts were finished
		return
	}
	switch {
	case t.Base == nil && t.Item != nil:
		t.Variety, t.Base = List, s.Builtin(KindAnySimpleType)
	case t.Base == nil && len(t.Members) > 0:
		t.Variety, t.Base = Union, s.Builtin(KindAnySimpleType)
	case t.Base == nil:
		t.Base = s.Builtin(KindAnySimpleType) // an error was recorded
	default:
		t.Variety = t.Base.Variety
		if t.Variety == List {
			t.Item = t.Base.Item
		}
		if t.Variety == Union {
			t.Members = t.Base.Members
		}
	}
	t.state = 2
}

// elementType gives an element without a type of its own its substitution
// group head's type, or anyType.
func (r *Reader) elementType(s *Set, e *Element, seen map[*Element]bool) Type {
	if e.Type != nil {
		return e.Type
	}
	if seen[e] {
		r.Fail(e.Loc, "the element %s is in its own substitution group", e.Name.Local)
		e.SubstitutionGroup = nil
		e.Type = s.AnyType()
		return e.Type
	}
	seen[e] = true
	if e.SubstitutionGroup != nil && e.TypeName == (xml.Name{}) {
		e.Type = r.elementType(s, e.SubstitutionGroup, seen)
	}
	if e.Type == nil {
		e.Type = s.AnyType()
	}
	return e.Type
}

// finishComplex computes a complex type's content and attributes after its
// base's.
func (r *Reader) finishComplex(s *Set, t *ComplexType) {
	switch t.state {
	case 2:
		return
	case 1:
		r.Fail(t.Loc, "the complex type %s derives from itself", qstr(t.Name))
		t.Base = s.AnyType()
		return
	}
	t.state = 1
	base, _ := t.Base.(*ComplexType)
	if base != nil {
		r.finishComplex(s, base)
	}
	if t.state == 2 {
		return
	}
	if t.Content == SimpleContent {
		r.simpleValue(s, t, base)
	} else {
		r.contentModel(t, base)
	}
	r.effectiveAttributes(t, base)
	t.state = 2
}

// simpleValue settles a simple content type's value type.
func (r *Reader) simpleValue(s *Set, t, base *ComplexType) {
	var value *SimpleType
	switch b := t.Base.(type) {
	case *SimpleType:
		value = b
		if t.Derivation == Restricted {
			r.Fail(t.Loc, "a simple content restriction of the simple type %s (an extension derives from a simple type)", qstr(b.Name))
		}
	case *ComplexType:
		switch {
		case b.Content == SimpleContent:
			value = b.SimpleType
		case b.anyAll || b.Content == MixedContent && t.Derivation == Restricted && emptiable(b.effective):
			// a restriction of anyType or of a mixed type whose elements may
			// be absent: the value is the restriction's own simple type
		default:
			r.Fail(t.Loc, "simple content derived from %s, which has no simple content", qstr(b.Name))
		}
	}
	if value == nil {
		value = s.Builtin(KindAnySimpleType)
	}
	if t.Derivation == Extended || t.SimpleType == nil {
		t.SimpleType = value
		return
	}
	st := t.SimpleType
	if st.Base == nil {
		if isZeroFacets(st.Facets) {
			t.SimpleType = value // a restriction of attributes only
			return
		}
		st.Base = value
	}
	r.finishSimple(s, st)
}

func isZeroFacets(f Facets) bool {
	return f.Enumeration == nil && f.Patterns == nil && f.Length == nil && f.MinLength == nil && f.MaxLength == nil &&
		f.MinInclusive == nil && f.MaxInclusive == nil && f.MinExclusive == nil && f.MaxExclusive == nil &&
		f.TotalDigits == nil && f.FractionDigits == nil && f.WhiteSpace == ""
}

// contentModel computes an element-content type's whole content model.
func (r *Reader) contentModel(t, base *ComplexType) {
	eff := t.Particle
	if t.Derivation == Extended && base != nil {
		if base.Content == SimpleContent {
			r.Fail(t.Loc, "a complex content extension of %s, which has simple content", qstr(base.Name))
		}
		t.Mixed = t.Mixed || base.Mixed && (!base.anyAll || isEmpty(eff))
		switch be := base.effective; {
		case base.anyAll && isEmpty(eff):
			eff = be // attributes added to anyType: any content still
		case base.anyAll:
			r.Warn(t.Loc, "an extension of anyType is read as what it adds (the open content of anyType before it is not)")
		case emptiable(be) && isEmpty(be):
		case isEmpty(eff):
			eff = be
		default:
			eff = &Particle{Min: 1, Max: 1, Loc: t.Loc, Group: &ModelGroup{Compositor: Sequence, Loc: t.Loc, Particles: []*Particle{be, eff}}}
		}
	}
	t.effective = eff
	switch {
	case t.Mixed:
		t.Content = MixedContent
	case isEmpty(eff):
		t.Content = EmptyContent
	default:
		t.Content = ElementContent
	}
}

// isEmpty reports whether a particle can hold no element at all.
func isEmpty(p *Particle) bool {
	return isEmptyDepth(p, 0)
}

func isEmptyDepth(p *Particle, depth int) bool {
	if p == nil || p.Max == 0 {
		return true
	}
	if p.Element != nil || p.Any != nil || depth > maxChain {
		return false
	}
	if p.Group == nil {
		return true
	}
	for _, c := range p.Group.Particles {
		if !isEmptyDepth(c, depth+1) {
			return false
		}
	}
	return true
}

// emptiable reports whether a particle may match nothing.
func emptiable(p *Particle) bool {
	return emptiableDepth(p, 0)
}

func emptiableDepth(p *Particle, depth int) bool {
	if p == nil || p.Min == 0 {
		return true
	}
	if p.Group == nil || depth > maxChain {
		return false
	}
	if p.Group.Compositor == Choice {
		for _, c := range p.Group.Particles {
			if emptiableDepth(c, depth+1) {
				return true
			}
		}
		return len(p.Group.Particles) == 0
	}
	for _, c := range p.Group.Particles {
		if !emptiableDepth(c, depth+1) {
			return false
		}
	}
	return true
}

// effectiveAttributes computes a complex type's effective attributes and wildcard.
func (r *Reader) effectiveAttributes(t, base *ComplexType) {
	own := append([]*AttributeUse(nil), t.Attributes...)
	wild := t.AnyAttribute
	for _, g := range t.AttributeGroups {
		uses, w := r.flattenGroup(g, map[*AttributeGroup]bool{})
		own = append(own, uses...)
		if wild == nil {
			wild = w
		}
	}
	var attrs []*AttributeUse
	if base != nil && !base.anyAll {
		attrs = append(attrs, base.attrs...)
	}
	for _, u := range own {
		if u.Attribute == nil {
			continue
		}
		replaced := false
		for i, b := range attrs {
			if b.Attribute != nil && b.Attribute.Name == u.Attribute.Name {
				attrs[i], replaced = u, true
				break
			}
		}
		if !replaced {
			attrs = append(attrs, u)
		}
	}
	out := attrs[:0]
	for _, u := range attrs {
		if u.Use != Prohibited {
			out = append(out, u)
		}
	}
	t.attrs = out
	if t.Derivation == Extended && wild == nil && base != nil && !base.anyAll {
		wild = base.anyAttr
	}
	t.anyAttr = wild
}

// flattenGroup returns an attribute group's attributes, those of the groups
// it refers to included, and its wildcard.
func (r *Reader) flattenGroup(g *AttributeGroup, seen map[*AttributeGroup]bool) ([]*AttributeUse, *Wildcard) {
	if seen[g] {
		r.Fail(g.Loc, "the attribute group %s refers to itself", qstr(g.Name))
		return nil, nil
	}
	seen[g] = true
	defer delete(seen, g)
	uses := append([]*AttributeUse(nil), g.Attributes...)
	w := g.AnyAttribute
	for _, sub := range g.Groups {
		u, sw := r.flattenGroup(sub, seen)
		uses = append(uses, u...)
		if w == nil {
			w = sw
		}
	}
	return uses, w
}

// groupCycles refuses a named group that contains itself, cutting the
// reference so that nothing walks it forever.
func (r *Reader) groupCycles(m *ModelGroup, path map[*Group]bool, top *Group) {
	if m == nil || len(path) > maxChain {
		return
	}
	for _, p := range m.Particles {
		if p.GroupRef != nil {
			if path[p.GroupRef] {
				r.Fail(p.Loc, "the group %s contains itself", qstr(p.GroupRef.Name))
				p.GroupRef, p.Group = nil, &ModelGroup{Loc: p.Loc}
				continue
			}
			path[p.GroupRef] = true
			r.groupCycles(p.Group, path, top)
			delete(path, p.GroupRef)
			continue
		}
		if p.Group != nil {
			r.groupCycles(p.Group, path, top)
		}
	}
}

// array describes a SOAP-encoded array type: a restriction (or extension)
// of SOAP 1.1's or 1.2's encoding Array.
func (r *Reader) array(s *Set, t *ComplexType) {
	enc := ""
	for b, n := Type(t), 0; b != nil && n < maxChain; b, n = b.BaseType(), n+1 {
		if c, ok := b.(*ComplexType); ok && c != t && c.Name.Local == "Array" && (c.Name.Space == NamespaceSOAPEnc || c.Name.Space == NamespaceSOAP12Enc) {
			enc = c.Name.Space
			break
		}
	}
	if enc == "" {
		return
	}
	a := &ArrayInfo{Encoding: enc, Dimensions: "[]"}
	for _, u := range t.Attributes {
		if u.arrayValid {
			a.ItemTypeName, a.Dimensions = u.arrayItem, u.arrayDims
			if a.ItemType = s.Type(u.arrayItem); a.ItemType == nil {
				r.Fail(u.Loc, "the array item type %s is not defined", qstr(u.arrayItem))
			}
		}
	}
	if p := t.effective; a.ItemType == nil && p != nil && p.Group != nil && len(p.Group.Particles) == 1 {
		if e := p.Group.Particles[0].Element; e != nil {
			a.ItemElement, a.ItemType, a.ItemTypeName = e, e.Type, e.TypeName
		}
	}
	if a.ItemType == nil {
		a.ItemType = s.AnyType()
	}
	t.Array = a
	if groups := rankGroups(a.Dimensions); len(groups) > 1 {
		a.ItemType = nestedArray(t, a, groups[:len(groups)-1])
	}
}

// nestedArray is the anonymous array type of the items of an array of
// arrays ("xsd:int[][]": items that are int[]; "xsd:int[][,]": items that
// are int[,]): a copy of the outer type t whose items are a's item type and
// whose rank is the groups before the last.
func nestedArray(t *ComplexType, a *ArrayInfo, groups []string) *ComplexType {
	inner := *t
	inner.Name, inner.Doc, inner.Derived, inner.Context = xml.Name{}, "", nil, t
	ia := &ArrayInfo{ItemType: a.ItemType, ItemTypeName: a.ItemTypeName, Dimensions: strings.Join(groups, ""), Encoding: a.Encoding}
	inner.Array = ia
	if len(groups) > 1 {
		ia.ItemType = nestedArray(&inner, ia, groups[:len(groups)-1])
	}
	return &inner
}

// rankGroups splits an arrayType's rank part into its bracketed groups:
// "[][,]" is "[]" and "[,]".
func rankGroups(dims string) []string {
	var out []string
	for dims != "" {
		i := strings.IndexByte(dims, ']')
		if dims[0] != '[' || i < 0 {
			return out
		}
		out = append(out, dims[:i+1])
		dims = dims[i+1:]
	}
	return out
}

// ItemTypePrefix is what an array's arrayType writes between the item
// type's name and the array's size: the rank groups of its items when they
// are arrays themselves ("[]" for an int[][] written "xsd:int[][2]"), else
// nothing.
func (a *ArrayInfo) ItemTypePrefix() string {
	groups := rankGroups(a.Dimensions)
	if len(groups) < 2 {
		return ""
	}
	return strings.Join(groups[:len(groups)-1], "")
}
