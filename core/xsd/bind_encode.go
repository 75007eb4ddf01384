package xsd

import (
	"encoding/xml"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/soapwire/soapwire/core/internal/suggest"
)

// ValueOf returns the tree of a Go value as the element el: the form
// Encode writes. v may be a *Value (returned as it is, named el when it
// has no name), a map[string]any (see Encode) or a Go value (see the
// package documentation). A Go field the schema has no place for, when it
// holds something, is an error: nothing given is dropped silently.
func (c *Codec) ValueOf(el *Element, v any) (*Value, error) {
	if tv, ok := v.(*Value); ok && tv != nil {
		if tv.Name.Local == "" {
			cp := *tv
			cp.Name = el.Name
			return &cp, nil
		}
		return tv, nil
	}
	b := &binder{c: c, path: []string{el.Name.Local}}
	val, err := b.element(el, reflect.ValueOf(v), nil)
	if err != nil {
		return nil, err
	}
	if val == nil {
		val = &Value{Name: el.Name, Nil: true}
	}
	return val, nil
}

// binder turns Go values into Value trees and back.
type binder struct {
	c    *Codec
	path []string
}

func (b *binder) errorf(format string, args ...any) *ValueError {
	return errorAt(b.path, format, args...)
}

// element returns the value of rv as an element of decl; nil for a nil
// pointer or interface (the caller decides absent or xsi:nil).
func (b *binder) element(decl *Element, rv reflect.Value, p *Particle) (*Value, error) {
	if len(b.path) > maxValueDepth {
		return nil, b.errorf("values nest deeper than %d (a cyclic value?)", maxValueDepth)
	}
	for rv.IsValid() && (rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface) {
		if rv.IsNil() {
			return nil, nil
		}
		if tv, ok := rv.Interface().(*Value); ok {
			if tv.Name.Local == "" {
				cp := *tv
				cp.Name = decl.Name
				return &cp, nil
			}
			return tv, nil
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return nil, nil
	}
	if rv.Type() == reflect.TypeFor[Value]() {
		v := rv.Interface().(Value)
		return &v, nil
	}
	if isNillable(rv.Type()) {
		n := addressable(rv).Addr().Interface().(nillable)
		if *n.nilFlag() {
			return &Value{Name: decl.Name, Nil: true}, nil
		}
		return b.element(decl, reflect.ValueOf(n.valuePtr()).Elem(), p)
	}
	v := &Value{Name: decl.Name, repeated: p != nil && p.Repeated()}
	t := decl.Type
	if t == nil {
		t = b.c.set.AnyType()
	}
	if rv.Type() == reflect.TypeFor[RawXML]() {
		return b.raw(rv.Bytes(), decl)
	}
	switch t := t.(type) {
	case *SimpleType:
		s, err := b.simpleText(rv, t)
		if err != nil {
			return nil, err
		}
		v.Text = s
		return v, nil
	case *ComplexType:
		if t.IsAnyType() {
			return b.anyTyped(rv, v)
		}
		if d := b.derived(t, rv.Type()); d != nil {
			v.Type, t = d.Name, d
		}
		return v, b.complex(t, rv, v)
	}
	return v, nil
}

// addressable returns rv, or a settable copy of it.
func addressable(rv reflect.Value) reflect.Value {
	if rv.CanAddr() {
		return rv
	}
	cp := reflect.New(rv.Type()).Elem()
	cp.Set(rv)
	return cp
}

// derived returns the type derived from t that a Go struct type stands
// for: the one whose name is the Go type's name; nil for t itself or none.
func (b *binder) derived(t *ComplexType, gt reflect.Type) *ComplexType {
	if gt.Kind() != reflect.Struct || gt.Name() == "" || gt.Name() == t.Name.Local || len(t.Derived) == 0 {
		return nil
	}
	for _, d := range b.c.set.DerivedTypes(t) {
		if d.Name.Local == gt.Name() && !d.Abstract {
			return d
		}
	}
	return nil
}

// simpleText formats a Go value as a simple value of t.
func (b *binder) simpleText(rv reflect.Value, t *SimpleType) (string, error) {
	s, err := format(rv, t)
	if err != nil {
		return "", b.errorf("a Go %s as %s: %v", rv.Type(), typeLabel(t), err)
	}
	return s, nil
}

// raw reads RawXML as a value of decl (it must be that element).
func (b *binder) raw(data []byte, decl *Element) (*Value, error) {
	d := &decoder{c: b.c, r: BytesReader(data), path: append([]string(nil), b.path[:len(b.path)-1]...)}
	st, err := d.peek()
	if err != nil {
		return nil, b.errorf("raw XML: %v", err)
	}
	if st == nil {
		return nil, b.errorf("raw XML holds no element")
	}
	d.take()
	return d.generic(st)
}

// anyTyped is a Go value held by an element of anyType: a simple value as
// its text, a struct or map as children by their own names.
func (b *binder) anyTyped(rv reflect.Value, v *Value) (*Value, error) {
	switch rv.Kind() {
	case reflect.Struct, reflect.Map:
		if rv.Type() != timeType() && !isBig(rv.Type()) {
			return nil, b.errorf("a Go %s in an element of xsd:anyType: give a *xsd.Value, RawXML or a simple value", rv.Type())
		}
	}
	s, err := format(rv, nil)
	if err != nil {
		return nil, b.errorf("a Go %s in an element of xsd:anyType: %v", rv.Type(), err)
	}
	v.Text = s
	return v, nil
}

func isBig(t reflect.Type) bool { return t == bigIntType() || t == bigRatType() || t == bigFloatType() }

// complex fills v (of complex type t) from a struct or a map.
func (b *binder) complex(t *ComplexType, rv reflect.Value, v *Value) error {
	switch rv.Kind() {
	case reflect.Struct:
		return b.fromStruct(t, rv, v)
	case reflect.Slice, reflect.Array:
		if t.Array != nil && rv.Type().Elem().Kind() != reflect.Uint8 {
			return b.arrayItems(t.Array, rv, v)
		}
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return b.errorf("a Go %s for %s: a map's keys are names (strings)", rv.Type(), typeLabel(t))
		}
		return b.fromMap(t, rv, v)
	}
	if t.Content == SimpleContent {
		st := t.SimpleType
		s, err := b.simpleText(rv, st)
		v.Text = s
		return err
	}
	return b.errorf("a Go %s for a value of %s (want a struct, a map or a *xsd.Value)", rv.Type(), typeLabel(t))
}

// contentDecls lists a content model's element particles in order.
func contentDecls(p *Particle) []*Particle {
	var out []*Particle
	seen := map[*Element]bool{}
	var walk func(p *Particle, depth int)
	walk = func(p *Particle, depth int) {
		if p == nil || depth > maxChain || p.Max == 0 {
			return
		}
		if p.Element != nil && !seen[p.Element] {
			seen[p.Element] = true
			out = append(out, p)
		}
		if p.Group != nil {
			for _, q := range p.Group.Particles {
				walk(q, depth+1)
			}
		}
	}
	walk(p, 0)
	return out
}

// fromStruct fills v from a struct's fields.
func (b *binder) fromStruct(t *ComplexType, rv reflect.Value, v *Value) error {
	plan := b.c.plan(rv.Type())
	used := map[*fieldInfo]bool{}
	for _, u := range t.EffectiveAttributes() {
		f := plan.attribute(u.Attribute.Name)
		if f == nil {
			continue
		}
		used[f] = true
		fv := fieldOf(rv, f.index, false)
		if !fv.IsValid() || isAbsent(fv, f.omitEmpty) {
			continue
		}
		s, err := b.simpleText(fv, u.Attribute.Type)
		if err != nil {
			return b.errorf("attribute %s: %v", u.Attribute.Name.Local, err)
		}
		v.Attrs = append(v.Attrs, &Value{Name: u.Attribute.Name, Text: s})
	}
	if t.Content == SimpleContent || t.Content == MixedContent {
		if f := plan.text(); f != nil {
			used[f] = true
			fv := fieldOf(rv, f.index, false)
			if fv.IsValid() {
				s, err := b.simpleText(fv, t.SimpleType)
				if err != nil {
					return err
				}
				v.Text = s
			}
		}
	}
	for _, p := range contentDecls(t.EffectiveParticle()) {
		for _, decl := range append([]*Element{p.Element}, b.c.members(p.Element)...) {
			f := plan.element(decl.Name)
			if f == nil || used[f] {
				continue
			}
			used[f] = true
			if err := b.occurrences(decl, p, fieldOf(rv, f.index, false), f, v); err != nil {
				return err
			}
		}
	}
	if f := plan.wildcard(); f != nil && !used[f] {
		used[f] = true
		if err := b.wildcards(fieldOf(rv, f.index, false), v); err != nil {
			return err
		}
	}
	for _, f := range plan.fields {
		if used[f] || b.c.lenient {
			continue
		}
		if fv := fieldOf(rv, f.index, false); fv.IsValid() && !fv.IsZero() {
			return b.errorf("the Go field %s matches nothing in %s (%s)", f.goName, typeLabel(t), expectedNames(t, b.c))
		}
	}
	return nil
}

// names lists the local names of a type's attributes and elements.
func names(t *ComplexType, c *Codec) []string {
	var out []string
	for _, u := range t.EffectiveAttributes() {
		out = append(out, u.Attribute.Name.Local)
	}
	for n, els := range c.contentElements(t.EffectiveParticle()) {
		if len(els) > 0 && !(len(els) == 1 && els[0].Abstract) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// expectedNames lists a type's attributes and elements, for messages.
func expectedNames(t *ComplexType, c *Codec) string {
	var names []string
	for _, u := range t.EffectiveAttributes() {
		names = append(names, "@"+u.Attribute.Name.Local)
	}
	for n, els := range c.contentElements(t.EffectiveParticle()) {
		if !(len(els) == 1 && els[0].Abstract) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "it has no attributes or elements"
	}
	return "it has " + strings.Join(names, ", ")
}

// isAbsent reports whether a field leaves its attribute or element out: a
// nil pointer, slice or interface, or an empty value with omitempty.
func isAbsent(fv reflect.Value, omitEmpty bool) bool {
	switch fv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map:
		return fv.IsNil()
	case reflect.Slice:
		if fv.IsNil() {
			return true
		}
	}
	return omitEmpty && fv.IsZero()
}

// occurrences adds the elements a field holds: each item of a slice (but
// []byte and RawXML), or the one value.
func (b *binder) occurrences(decl *Element, p *Particle, fv reflect.Value, f *fieldInfo, v *Value) error {
	if !fv.IsValid() {
		return nil
	}
	b.path = append(b.path, decl.Name.Local)
	defer func() { b.path = b.path[:len(b.path)-1] }()
	if isRepeat(fv, decl) {
		return b.items(decl, p, fv, v)
	}
	if isAbsent(fv, f != nil && f.omitEmpty) {
		if (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface) && decl.Nillable && p.Min > 0 {
			v.Elems = append(v.Elems, &Value{Name: decl.Name, Nil: true})
		}
		return nil
	}
	it, err := b.element(decl, fv, p)
	if err != nil {
		return err
	}
	if it == nil {
		if !decl.Nillable || p.Min == 0 {
			return nil
		}
		it = &Value{Name: decl.Name, Nil: true}
	}
	v.Elems = append(v.Elems, it)
	return nil
}

// holdsSlice reports whether a value of t is a list: a simple type whose
// values are lists, or a SOAP-encoded array (a Go slice is then one
// element's value, not several elements).
func holdsSlice(t Type) bool {
	switch t := t.(type) {
	case *SimpleType:
		return t.Variety == List || t.Builtin() != nil && t.Builtin().Kind.Item() != KindNone
	case *ComplexType:
		return t.Array != nil
	}
	return false
}

// wildcards adds the elements of an ,any field: RawXML, []RawXML, *Value
// or []*Value.
func (b *binder) wildcards(fv reflect.Value, v *Value) error {
	if !fv.IsValid() || isAbsent(fv, false) {
		return nil
	}
	add := func(x reflect.Value) error {
		switch it := x.Interface().(type) {
		case RawXML:
			val, err := b.raw(it, nil)
			if err != nil {
				return err
			}
			v.Elems = append(v.Elems, val)
		case *Value:
			if it != nil {
				v.Elems = append(v.Elems, it)
			}
		default:
			return b.errorf("an ,any field holds RawXML or *xsd.Value, not a Go %s", x.Type())
		}
		return nil
	}
	if fv.Kind() == reflect.Slice && fv.Type() != reflect.TypeFor[RawXML]() {
		for i := 0; i < fv.Len(); i++ {
			if err := add(fv.Index(i)); err != nil {
				return err
			}
		}
		return nil
	}
	return add(fv)
}

// fromMap fills v from a map of local names: attributes ("name" or
// "@name"), elements (a []any for several), the text of simple content
// ("" or "#text").
func (b *binder) fromMap(t *ComplexType, rv reflect.Value, v *Value) error {
	used := map[string]bool{}
	get := func(keys ...string) (reflect.Value, string, bool) {
		for _, k := range keys {
			if x := rv.MapIndex(reflect.ValueOf(k).Convert(rv.Type().Key())); x.IsValid() {
				return x, k, true
			}
		}
		return reflect.Value{}, "", false
	}
	for _, u := range t.EffectiveAttributes() {
		x, k, ok := get("@"+u.Attribute.Name.Local, u.Attribute.Name.Local)
		if !ok {
			continue
		}
		used[k] = true
		if isNilish(x) {
			continue
		}
		s, err := b.simpleText(x, u.Attribute.Type)
		if err != nil {
			return b.errorf("attribute %s: %v", u.Attribute.Name.Local, err)
		}
		v.Attrs = append(v.Attrs, &Value{Name: u.Attribute.Name, Text: s})
	}
	if t.Content == SimpleContent || t.Content == MixedContent {
		if x, k, ok := get("", "#text"); ok {
			used[k] = true
			s, err := b.simpleText(x, t.SimpleType)
			if err != nil {
				return err
			}
			v.Text = s
		}
	}
	for _, p := range contentDecls(t.EffectiveParticle()) {
		for _, decl := range append([]*Element{p.Element}, b.c.members(p.Element)...) {
			x, k, ok := get(decl.Name.Local)
			if !ok || used[k] {
				continue
			}
			used[k] = true
			if err := b.mapOccurrences(decl, p, x, v); err != nil {
				return err
			}
		}
	}
	var unknown []string
	for _, k := range rv.MapKeys() {
		if !used[k.String()] {
			unknown = append(unknown, k.String())
		}
	}
	if len(unknown) > 0 && !b.c.lenient {
		sort.Strings(unknown)
		where := ""
		if t.Name != (xml.Name{}) {
			where = " in " + typeLabel(t)
		}
		msg := fmt.Sprintf("no element or attribute %s%s (%s)", strings.Join(unknown, ", "), where, expectedNames(t, b.c))
		if s := suggest.Closest(unknown[0], names(t, b.c)); s != "" {
			msg += "; did you mean " + s + "?"
		}
		return b.errorf("%s", msg)
	}
	return nil
}

// isNilish reports whether a map value is nil.
func isNilish(x reflect.Value) bool {
	for x.Kind() == reflect.Interface || x.Kind() == reflect.Pointer {
		if x.IsNil() {
			return true
		}
		x = x.Elem()
	}
	return false
}

// isRepeat reports whether a Go value holds several occurrences of decl:
// a slice (but []byte) where decl's values are not themselves lists.
func isRepeat(x reflect.Value, decl *Element) bool {
	return x.Kind() == reflect.Slice && x.Type().Elem().Kind() != reflect.Uint8 && !holdsSlice(decl.Type)
}

// items adds one element per item of a slice (a nil item is xsi:nil).
func (b *binder) items(decl *Element, p *Particle, x reflect.Value, v *Value) error {
	for i := 0; i < x.Len(); i++ {
		it, err := b.element(decl, x.Index(i), p)
		if err != nil {
			return err
		}
		if it == nil {
			it = &Value{Name: decl.Name, Nil: true}
		}
		it.repeated = p.Repeated()
		v.Elems = append(v.Elems, it)
	}
	return nil
}

// mapOccurrences adds the elements a map value holds: each item of a
// []any, else one; nil is xsi:nil.
func (b *binder) mapOccurrences(decl *Element, p *Particle, x reflect.Value, v *Value) error {
	b.path = append(b.path, decl.Name.Local)
	defer func() { b.path = b.path[:len(b.path)-1] }()
	for x.Kind() == reflect.Interface && !x.IsNil() {
		x = x.Elem()
	}
	if isRepeat(x, decl) {
		return b.items(decl, p, x, v)
	}
	it, err := b.element(decl, x, p)
	if err != nil {
		return err
	}
	if it == nil {
		it = &Value{Name: decl.Name, Nil: true}
	}
	v.Elems = append(v.Elems, it)
	return nil
}

// arrayItems adds the items of a SOAP-encoded array from a Go slice.
func (b *binder) arrayItems(a *ArrayInfo, rv reflect.Value, v *Value) error {
	decl := a.ItemElement
	if decl == nil {
		decl = &Element{Name: xml.Name{Local: "item"}, Type: a.ItemType, Nillable: true}
	}
	p := &Particle{Min: 0, Max: Unbounded, Element: decl}
	for i := 0; i < rv.Len(); i++ {
		b.path = append(b.path, fmt.Sprintf("item[%d]", i))
		it, err := b.element(decl, rv.Index(i), p)
		b.path = b.path[:len(b.path)-1]
		if err != nil {
			return err
		}
		if it == nil {
			it = &Value{Name: decl.Name, Nil: true}
		}
		it.repeated = true
		v.Elems = append(v.Elems, it)
	}
	return nil
}
