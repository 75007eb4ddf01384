package xsd

import (
	"cmp"
	"encoding/xml"
	"slices"
)

// Set is every schema a load read, with their global components looked up
// by name across all of them (a component's name is its target namespace
// and local name: which schema document holds it does not matter).
type Set struct {
	schemas         []*Schema
	elements        map[xml.Name]*Element
	types           map[xml.Name]Type
	attributes      map[xml.Name]*Attribute
	groups          map[xml.Name]*Group
	attributeGroups map[xml.Name]*AttributeGroup
	builtins        *builtinSet
	warnings        []Problem
}

// Schemas returns the schemas, in the order they were read.
func (s *Set) Schemas() []*Schema { return s.schemas }

// Warnings returns what the reader ignored or does not support, with where.
func (s *Set) Warnings() []Problem { return s.warnings }

// Element returns the global element named n, nil if there is none. The
// XML Schema namespace's schema element (which .NET DataSet contracts refer
// to) is one, of type anyType.
func (s *Set) Element(n xml.Name) *Element {
	if isXSDNamespace(n.Space) && n.Local == "schema" {
		return s.builtins.schema
	}
	return s.elements[n]
}

// Type returns the type named n: a built-in type (in the XML Schema
// namespace, or its 1999 and 2000 drafts'), or a named type of a schema;
// nil if there is none.
func (s *Set) Type(n xml.Name) Type {
	if t := s.builtins.lookup(n); t != nil {
		return t
	}
	if t, ok := s.types[n]; ok {
		return t
	}
	return nil
}

// Attribute returns the global attribute named n.
func (s *Set) Attribute(n xml.Name) *Attribute { return s.attributes[n] }

// Group returns the named model group n.
func (s *Set) Group(n xml.Name) *Group { return s.groups[n] }

// AttributeGroup returns the attribute group n.
func (s *Set) AttributeGroup(n xml.Name) *AttributeGroup { return s.attributeGroups[n] }

// Builtin returns the set's built-in simple type k.
func (s *Set) Builtin(k Kind) *SimpleType {
	if k == KindNone || k >= numKinds {
		return nil
	}
	return s.builtins.simple[k]
}

// AnyType returns xsd:anyType.
func (s *Set) AnyType() *ComplexType { return s.builtins.anyType }

func byName(a, b xml.Name) int {
	if c := cmp.Compare(a.Space, b.Space); c != 0 {
		return c
	}
	return cmp.Compare(a.Local, b.Local)
}

// Elements returns the global elements, by namespace then local name.
func (s *Set) Elements() []*Element {
	out := make([]*Element, 0, len(s.elements))
	for _, e := range s.elements {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *Element) int { return byName(a.Name, b.Name) })
	return out
}

// Types returns the named types of the schemas (not the built-in ones), by
// namespace then local name.
func (s *Set) Types() []Type {
	out := make([]Type, 0, len(s.types))
	for _, t := range s.types {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b Type) int { return byName(a.TypeName(), b.TypeName()) })
	return out
}

// Namespaces returns the target namespaces of the schemas, sorted.
func (s *Set) Namespaces() []string {
	var out []string
	for _, sc := range s.schemas {
		if !slices.Contains(out, sc.TargetNamespace) {
			out = append(out, sc.TargetNamespace)
		}
	}
	slices.Sort(out)
	return out
}

// DerivedTypes returns the complex types derived from t, directly or not,
// in a stable order (each before the types derived from it): the types an
// xsi:type may name where t is expected.
func (s *Set) DerivedTypes(t *ComplexType) []*ComplexType {
	var out []*ComplexType
	seen := map[*ComplexType]bool{t: true}
	queue := []*ComplexType{t}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for _, d := range c.Derived {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
				queue = append(queue, d)
			}
		}
	}
	return out
}

// SubstitutionGroup returns the elements that may stand for head, directly
// or not (head itself excluded; abstract ones included, which cannot appear
// themselves).
func (s *Set) SubstitutionGroup(head *Element) []*Element {
	var out []*Element
	seen := map[*Element]bool{head: true}
	queue := []*Element{head}
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		for _, m := range e.Substitutes {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
				queue = append(queue, m)
			}
		}
	}
	return out
}

// QName returns the name {space}local.
func QName(space, local string) xml.Name { return xml.Name{Space: space, Local: local} }
