package xsd

import (
	"encoding/xml"
	"sort"
)

// qstr writes a name as {namespace}local, or local alone in no namespace.
func qstr(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// Set resolves every reference among the schemas loaded (loading from the
// catalog the namespaces referred to that no schema loaded describes) and
// returns the set of them. The error is an *Error listing every problem, or
// the first failure to load a document.
func (r *Reader) Set() (*Set, error) {
	r.loadWanted()
	s := r.index()
	r.resolveRefs(s)
	r.derive(s)
	if r.Failed() {
		return nil, r.Err()
	}
	s.warnings = r.Warnings()
	return s, nil
}

// loadWanted loads from the catalog the namespaces imported without a
// location or referred to, that no schema loaded has as its target.
func (r *Reader) loadWanted() {
	tried := map[string]bool{}
	for {
		var todo []string
		for ns := range r.wanted {
			if !r.nsSeen[ns] && !tried[ns] {
				todo = append(todo, ns)
			}
		}
		if len(todo) == 0 {
			return
		}
		sort.Strings(todo)
		for _, ns := range todo {
			tried[ns] = true
			if u, ok := r.catalog.byNamespace(ns); ok {
				r.LoadSchemaAt(u, r.wanted[ns], 1, "", false, ns)
			}
		}
	}
}

// index makes the set's tables of global components; a second definition of
// a name is reported and the first kept.
func (r *Reader) index() *Set {
	s := &Set{
		schemas:         r.schemas,
		elements:        map[xml.Name]*Element{},
		types:           map[xml.Name]Type{},
		attributes:      map[xml.Name]*Attribute{},
		groups:          map[xml.Name]*Group{},
		attributeGroups: map[xml.Name]*AttributeGroup{},
		builtins:        r.blt,
	}
	dup := func(what string, n xml.Name, first, again Loc) {
		r.Warn(again, "the %s %s is defined again (the first definition, at %s, is used)", what, qstr(n), first)
	}
	for _, sc := range r.schemas {
		for _, e := range sc.Elements {
			if f, ok := s.elements[e.Name]; ok {
				dup("element", e.Name, f.Loc, e.Loc)
				continue
			}
			s.elements[e.Name] = e
		}
		for _, t := range sc.Types {
			n := t.TypeName()
			if isXSDNamespace(n.Space) {
				r.Warn(t.Location(), "a definition of the built-in type %s (the built-in is used)", qstr(n))
				continue
			}
			if f, ok := s.types[n]; ok {
				dup("type", n, f.Location(), t.Location())
				continue
			}
			s.types[n] = t
		}
		for _, a := range sc.Attributes {
			if f, ok := s.attributes[a.Name]; ok {
				dup("attribute", a.Name, f.Loc, a.Loc)
				continue
			}
			s.attributes[a.Name] = a
		}
		for _, g := range sc.Groups {
			if f, ok := s.groups[g.Name]; ok {
				dup("group", g.Name, f.Loc, g.Loc)
				continue
			}
			s.groups[g.Name] = g
		}
		for _, g := range sc.AttributeGroups {
			if f, ok := s.attributeGroups[g.Name]; ok {
				dup("attribute group", g.Name, f.Loc, g.Loc)
				continue
			}
			s.attributeGroups[g.Name] = g
		}
	}
	return s
}

// resolveRefs replaces every reference by name with the component named.
func (r *Reader) resolveRefs(s *Set) {
	simple := func(n xml.Name, loc Loc, what string) *SimpleType {
		switch t := s.Type(n).(type) {
		case *SimpleType:
			return t
		case *ComplexType:
			r.Fail(loc, "%s %s is a complex type, not a simple one", what, qstr(n))
		default:
			r.Fail(loc, "%s %s is not defined", what, qstr(n))
		}
		return nil
	}
	for _, e := range r.elements {
		if e.TypeName != (xml.Name{}) {
			if e.Type = s.Type(e.TypeName); e.Type == nil {
				r.Fail(e.Loc, "the type %s of the element %s is not defined", qstr(e.TypeName), e.Name.Local)
			}
		}
		if e.SubstitutionGroupName != (xml.Name{}) {
			if e.SubstitutionGroup = s.Element(e.SubstitutionGroupName); e.SubstitutionGroup == nil {
				r.Fail(e.Loc, "the substitution group head %s of the element %s is not defined", qstr(e.SubstitutionGroupName), e.Name.Local)
			}
		}
	}
	for _, a := range r.attributes {
		if a.TypeName != (xml.Name{}) {
			a.Type = simple(a.TypeName, a.Loc, "the type of the attribute "+a.Name.Local+",")
		}
		if a.Type == nil {
			a.Type = s.Builtin(KindAnySimpleType)
		}
	}
	for _, u := range r.uses {
		if u.Ref {
			if u.Attribute = s.Attribute(u.ref); u.Attribute == nil {
				r.Fail(u.Loc, "the attribute %s is not defined", qstr(u.ref))
				u.Attribute = &Attribute{Name: u.ref, Loc: u.Loc, Global: true, Qualified: true, Type: s.Builtin(KindAnySimpleType)}
			}
		}
	}
	for _, p := range r.particles {
		switch p.ref.kind {
		case refElement:
			if p.Element = s.Element(p.ref.name); p.Element == nil {
				r.Fail(p.Loc, "the element %s is not defined", qstr(p.ref.name))
			}
		case refGroup:
			if p.GroupRef = s.Group(p.ref.name); p.GroupRef == nil {
				r.Fail(p.Loc, "the group %s is not defined", qstr(p.ref.name))
			} else {
				p.Group = p.GroupRef.Model
			}
		}
	}
	attrGroups := func(refs []ref) []*AttributeGroup {
		var out []*AttributeGroup
		for _, g := range refs {
			if ag := s.AttributeGroup(g.name); ag != nil {
				out = append(out, ag)
			} else {
				r.Fail(g.loc, "the attribute group %s is not defined", qstr(g.name))
			}
		}
		return out
	}
	for _, g := range r.attrGroups {
		g.Groups = attrGroups(g.groupRefs)
	}
	for _, t := range r.complexes {
		t.AttributeGroups = attrGroups(t.groupRefs)
		if t.BaseName != (xml.Name{}) {
			if t.Base = s.Type(t.BaseName); t.Base == nil {
				r.Fail(t.Loc, "the base type %s is not defined", qstr(t.BaseName))
			}
		}
		if t.Base == nil {
			t.Base = s.AnyType()
		}
	}
	for _, t := range r.simples {
		if t.BaseName != (xml.Name{}) {
			t.Base = simple(t.BaseName, t.Loc, "the base type")
		}
		if t.ItemName != (xml.Name{}) {
			t.Item = simple(t.ItemName, t.Loc, "the list item type")
		}
		if len(t.MemberNames) > 0 {
			var named []*SimpleType // memberTypes come before the inline members
			for _, m := range t.MemberNames {
				if mt := simple(m, t.Loc, "the union member type"); mt != nil {
					named = append(named, mt)
				}
			}
			t.Members = append(named, t.Members...)
		}
	}
}
