package xsd

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// Simples makes the simple types that code checks values against without a
// schema loaded: what soapwire gen's generated code builds once (a
// package-level value) for every simple type it uses. Its Simple values
// check a value exactly as the codec does for the type they describe.
// Build them before use (at package initialization); Check is then safe
// for use by several goroutines at once.
type Simples struct {
	b *builtinSet
	c *simpleChecker
}

// NewSimples returns an empty set of simple types, with the built-in ones.
func NewSimples() *Simples {
	return &Simples{b: newBuiltins(), c: &simpleChecker{lex: newLexicon()}}
}

// Simple is a simple type: a built-in one, a restriction, a list or a
// union. Check normalizes a value and checks it against the type.
type Simple struct {
	t *SimpleType
	c *simpleChecker
	// plain: a built-in string type without facets, whose values need only
	// be characters XML carries
	plain bool
	qname bool // its values are (lists of) QNames
}

// Builtin returns the built-in simple type k.
func (s *Simples) Builtin(k Kind) *Simple {
	if k <= KindNone || int(k) >= len(s.b.simple) {
		k = KindAnySimpleType
	}
	return s.wrap(s.b.simple[k])
}

// Restrict returns a restriction of base with the facets f; name is the
// type's name (zero for an anonymous type), used in messages.
func (s *Simples) Restrict(name xml.Name, base *Simple, f Facets) *Simple {
	bt := base.t
	t := &SimpleType{Name: name, Base: bt, BaseName: bt.Name, Facets: f, Variety: bt.Variety, Item: bt.Item, Members: bt.Members, state: 2}
	return s.wrap(t)
}

// List returns a list type of items of item.
func (s *Simples) List(name xml.Name, item *Simple) *Simple {
	any := s.b.simple[KindAnySimpleType]
	return s.wrap(&SimpleType{Name: name, Base: any, BaseName: any.Name, Variety: List, Item: item.t, state: 2})
}

// Union returns a union of the member types.
func (s *Simples) Union(name xml.Name, members ...*Simple) *Simple {
	any := s.b.simple[KindAnySimpleType]
	t := &SimpleType{Name: name, Base: any, BaseName: any.Name, Variety: Union, state: 2}
	for _, m := range members {
		t.Members = append(t.Members, m.t)
	}
	return s.wrap(t)
}

func (s *Simples) wrap(t *SimpleType) *Simple {
	out := &Simple{t: t, c: s.c}
	if t.Variety == Atomic && t.Kind != KindNone {
		switch t.Kind {
		case KindString, KindAnySimpleType, KindAnyAtomicType, KindAnyURI:
			out.plain = true
		}
	}
	k := t.Primitive()
	if t.Variety == List && t.Item != nil {
		k = t.Item.Primitive()
	}
	out.qname = k == KindQName || k == KindNOTATION
	return out
}

// Kind returns the built-in type the simple type is or derives from
// (KindAnySimpleType for a list or a union).
func (s *Simple) Kind() Kind { return kindOf(s.t) }

// Check normalizes raw as the type's white space facet says and checks it
// against the type (lexical space, list items, union members, facets), as
// the codec does: it returns the normalized value, or an error saying what
// is wrong. A QName value is written {namespace}local (Encoder.QNames gives
// it its prefix).
func (s *Simple) Check(raw string) (string, error) {
	return s.check(raw, nil, true)
}

// check is Check in the scope res; chars says whether raw's characters
// are to be checked (false: core's tokenizer read them, and refuses what
// XML cannot carry).
func (s *Simple) check(raw string, res resolver, chars bool) (string, error) {
	if chars {
		if err := checkChars(raw); err != nil {
			return "", fmt.Errorf("%q is not a valid %s: %w", clip(raw), typeLabel(s.t), err)
		}
	}
	if s.plain {
		return raw, nil
	}
	norm, err := s.c.checkDepth(s.t, raw, res, 0)
	if err != nil {
		return "", fmt.Errorf("%q is not a valid %s: %w", clip(raw), typeLabel(s.t), err)
	}
	return norm, nil
}

// normalize applies the type's white space facet alone.
func (s *Simple) normalize(v string) string { return normalize(v, whiteSpace(s.t)) }

// clarkQNames writes the QNames of a value read in the scope res as
// {namespace}local.
func (s *Simple) clarkQNames(v string, res resolver) string {
	if !s.qname {
		return v
	}
	items := strings.Fields(v)
	for i, it := range items {
		if n, err := parseQName(it, res); err == nil && n.Space != "" {
			items[i] = "{" + n.Space + "}" + n.Local
		}
	}
	return strings.Join(items, " ")
}

// IntFacet returns &n: a Facets length or digits value, for literals.
func IntFacet(n int) *int { return &n }

// StringFacet returns &s: a Facets bound, for literals.
func StringFacet(s string) *string { return &s }

// typeName is the name the SOAP encoding writes as the xsi:type of a value
// of the type: its own, or its nearest named base's.
func (s *Simple) typeName() xml.Name {
	for t, i := s.t, 0; t != nil && i < maxChain; t, i = t.Base, i+1 {
		if t.Name != (xml.Name{}) {
			return t.Name
		}
	}
	return xml.Name{}
}
