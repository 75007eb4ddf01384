package xsd

import (
	"encoding/xml"
	"sort"
	"strconv"
	"strings"
)

// Value is a generic value tree the codec reads and writes without Go
// types: one element (or attribute) with what it holds, names resolved.
// The codec decodes into it as the wire has it (what was written, in
// order, checked against the schema) and encodes from it in the order the
// schema says (children are taken by name, so a tree built by hand need not
// be in order).
//
// An element of a simple type (or of a complex type with simple content)
// has its value in Text, in its lexical form (white space normalized as
// its type says); one of element content has its children in Elems; Attrs
// are its attributes, Text an attribute's value. Nil is xsi:nil. Type is
// the xsi:type the element carries (a type derived from the declared one,
// or the declared one written explicitly); zero when none is written.
// An element matched by a wildcard (xs:any) or of xsd:anyType without an
// xsi:type is held generically: its names, attributes, text and children
// as written, with no declaration.
type Value struct {
	Name  xml.Name
	Type  xml.Name
	Nil   bool
	Text  string
	Attrs []*Value
	Elems []*Value

	decl     *Element // the element's declaration (nil for a generic value and an attribute)
	typ      Type     // the type it was read as (the declared type, or the xsi:type's)
	repeated bool     // its particle may occur more than once
}

// Decl returns the element declaration a decoded value was read by; nil
// for an attribute, a value matched by a wildcard and one built by hand.
func (v *Value) Decl() *Element { return v.decl }

// Repeated reports whether a decoded value's particle may occur more than
// once (a list of one is still a list).
func (v *Value) Repeated() bool { return v.repeated }

// SchemaType returns the type a decoded value was read as: its xsi:type's,
// else its declaration's; nil for a value built by hand or held
// generically.
func (v *Value) SchemaType() Type { return v.typ }

// Elem returns the first child element with local name local, nil if there
// is none.
func (v *Value) Elem(local string) *Value {
	if v == nil {
		return nil
	}
	for _, e := range v.Elems {
		if e.Name.Local == local {
			return e
		}
	}
	return nil
}

// All returns the child elements with local name local, in order.
func (v *Value) All(local string) []*Value {
	if v == nil {
		return nil
	}
	var out []*Value
	for _, e := range v.Elems {
		if e.Name.Local == local {
			out = append(out, e)
		}
	}
	return out
}

// Attr returns the attribute with local name local, nil if there is none.
func (v *Value) Attr(local string) *Value {
	if v == nil {
		return nil
	}
	for _, a := range v.Attrs {
		if a.Name.Local == local {
			return a
		}
	}
	return nil
}

// Get returns the value at a dotted path of local names below v:
// "address.city", "tags.1" (the second tags element), "id" (an attribute
// when no element has that name). Nil when there is none.
func (v *Value) Get(path string) *Value {
	cur := v
	parts := strings.Split(path, ".")
	for i := 0; i < len(parts) && cur != nil; i++ {
		name := parts[i]
		all := cur.All(name)
		if len(all) == 0 {
			cur = cur.Attr(name)
			continue
		}
		idx := 0
		if i+1 < len(parts) {
			if n, err := strconv.Atoi(parts[i+1]); err == nil && n >= 0 {
				idx = n
				i++
			}
		}
		if idx >= len(all) {
			return nil
		}
		cur = all[idx]
	}
	return cur
}

// Paths returns every leaf of v as dotted paths of local names below v
// with their text ("name", "address.city", "tags.0", "tags.1"; an
// attribute as a child of its element: "id"), sorted. A name that occurs
// more than once among its siblings has the index of each occurrence; a
// nil element's value is nil (the map holds a nil pointer); an element
// with neither children nor attributes is a leaf with its text.
func (v *Value) Paths() map[string]*string {
	out := map[string]*string{}
	v.paths("", out, 0)
	return out
}

func (v *Value) paths(prefix string, out map[string]*string, depth int) {
	if depth > maxValueDepth {
		return
	}
	join := func(name string) string {
		if prefix == "" {
			return name
		}
		return prefix + "." + name
	}
	for _, a := range v.Attrs {
		t := a.Text
		out[join(a.Name.Local)] = &t
	}
	if isArray(v) {
		for i, e := range v.Elems {
			e.leaf(join(strconv.Itoa(i)), out, depth)
		}
		return
	}
	count := map[string]int{}
	for _, e := range v.Elems {
		count[e.Name.Local]++
	}
	index := map[string]int{}
	for _, e := range v.Elems {
		p := join(e.Name.Local)
		if count[e.Name.Local] > 1 || isList(e) {
			p += "." + strconv.Itoa(index[e.Name.Local])
			index[e.Name.Local]++
		}
		e.leaf(p, out, depth)
	}
}

// leaf adds a child's paths under p.
func (v *Value) leaf(p string, out map[string]*string, depth int) {
	switch {
	case v.Nil:
		out[p] = nil
	case len(v.Elems) == 0 && len(v.Attrs) == 0 && !isArray(v):
		t := v.Text
		out[p] = &t
	default:
		if v.Text != "" && len(v.Elems) == 0 {
			t := v.Text
			out[p] = &t // simple content with attributes: the value under the element's own path
		}
		v.paths(p, out, depth+1)
	}
}

// isArray reports whether a value was read as a SOAP-encoded array: its
// items are indexed under its own path.
func isArray(v *Value) bool {
	ct, ok := v.typ.(*ComplexType)
	return ok && ct.Array != nil
}

// isList reports whether a value's declaration may repeat: its paths are
// indexed even when it occurs once.
func isList(v *Value) bool { return v.repeated }

// maxValueDepth bounds the walks over a Value tree (a tree built by hand
// may be cyclic).
const maxValueDepth = 512

// String returns the tree as indented lines of "path = text", sorted, for
// debugging and examples.
func (v *Value) String() string {
	if v == nil {
		return "<nil>"
	}
	ps := v.Paths()
	keys := make([]string, 0, len(ps))
	for k := range ps {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		if ps[k] == nil {
			b.WriteString(k + " = nil\n")
			continue
		}
		b.WriteString(k + " = " + strconv.Quote(*ps[k]) + "\n")
	}
	return b.String()
}

// Interface returns v as plain Go values, as encoding/json writes them:
// a string for a simple value, nil for a nil element, and for an element
// with attributes or children a map[string]any of their local names
// (repeated elements, and those whose declaration may repeat, as []any).
// An element with simple content and attributes has its text under "".
func (v *Value) Interface() any { return v.iface(0) }

func (v *Value) iface(depth int) any {
	if v == nil || v.Nil {
		return nil
	}
	if depth > maxValueDepth {
		return nil
	}
	if isArray(v) {
		items := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			items[i] = e.iface(depth + 1)
		}
		return items
	}
	if len(v.Elems) == 0 && len(v.Attrs) == 0 {
		return v.Text
	}
	m := map[string]any{}
	for _, a := range v.Attrs {
		m[a.Name.Local] = a.Text
	}
	if len(v.Elems) == 0 {
		m[""] = v.Text
	}
	for _, e := range v.Elems {
		x := e.iface(depth + 1)
		if prev, ok := m[e.Name.Local]; ok {
			if l, ok := prev.([]any); ok {
				m[e.Name.Local] = append(l, x)
				continue
			}
			m[e.Name.Local] = []any{prev, x}
			continue
		}
		if e.repeated {
			m[e.Name.Local] = []any{x}
			continue
		}
		m[e.Name.Local] = x
	}
	return m
}
