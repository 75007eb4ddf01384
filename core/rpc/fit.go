package rpc

import (
	"encoding"
	"encoding/xml"
	"fmt"
	"math/big"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/soapwire/soapwire/core/xsd"
)

// This file checks, when an operation is registered on a Service bound to
// a contract (or first called by a bound Client), that its Go types can
// hold what the contract's messages carry, as core/xsd's codec maps Go
// values: xml tags name elements (`xml:"name"`, `xml:"ns name"`) and
// attributes (`xml:"name,attr"`), `xml:",chardata"` simple content and
// `xml:",any"` a wildcard; an untagged field matches by its name in any
// case. A required element or attribute with no field, a Go field that
// matches nothing, a list element in a field that is not a slice, a
// required nillable element in a field that cannot be nil, and a simple
// type a Go type cannot hold are each an error naming the place.

// goField is a struct field as the codec maps it.
type goField struct {
	index    []int
	goName   string
	name     string
	space    string
	tagged   bool
	attr     bool
	chardata bool
	any      bool
	header   bool // rpc's tag option: a header part, not in the body
	typ      reflect.Type
}

// goFields lists the fields of struct type t as the codec maps them.
func goFields(t reflect.Type) []*goField {
	var out []*goField
	var add func(t reflect.Type, index []int, depth int)
	add = func(t reflect.Type, index []int, depth int) {
		if depth > 16 {
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag, hasTag := f.Tag.Lookup("xml")
			if tag == "-" || f.Name == "XMLName" && f.Type == reflect.TypeFor[xml.Name]() {
				continue
			}
			idx := append(append([]int(nil), index...), i)
			if f.Anonymous && !hasTag {
				ft := f.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct && !isNillableType(ft) {
					add(ft, idx, depth+1)
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			g := &goField{index: idx, goName: f.Name, name: f.Name, typ: f.Type}
			if hasTag {
				name, opts, _ := strings.Cut(tag, ",")
				if sp, local, ok := strings.Cut(name, " "); ok {
					g.space, name = sp, local
				}
				if name != "" {
					g.name, g.tagged = name, true
				}
				for _, o := range strings.Split(opts, ",") {
					switch o {
					case "attr":
						g.attr = true
					case "chardata", "innerxml", "cdata":
						g.chardata = true
					case "any":
						g.any = true
					case "header":
						g.header = true
					}
				}
			}
			if soap, ok := f.Tag.Lookup("soap"); ok {
				_, opts, _ := strings.Cut(soap, ",")
				for _, o := range strings.Split(opts, ",") {
					if o == "header" {
						g.header = true
					}
				}
			}
			out = append(out, g)
		}
	}
	add(t, nil, 0)
	return out
}

// elementField returns the field that holds the element n.
func elementField(fs []*goField, n xml.Name) *goField {
	for _, f := range fs {
		if f.tagged && !f.attr && !f.chardata && !f.any && !f.header && f.name == n.Local && (f.space == "" || f.space == n.Space) {
			return f
		}
	}
	for _, f := range fs {
		if !f.tagged && !f.header && strings.EqualFold(f.name, n.Local) {
			return f
		}
	}
	return nil
}

// attributeField returns the field that holds the attribute n.
func attributeField(fs []*goField, n xml.Name) *goField {
	for _, f := range fs {
		if f.attr && f.tagged && f.name == n.Local && (f.space == "" || f.space == n.Space) {
			return f
		}
	}
	for _, f := range fs {
		if !f.tagged && !f.header && strings.EqualFold(f.name, n.Local) {
			return f
		}
	}
	return nil
}

// isNillableType reports whether t is an xsd.Nillable[T].
func isNillableType(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && t.PkgPath() == reflect.TypeFor[xsd.Set]().PkgPath() && strings.HasPrefix(t.Name(), "Nillable[")
}

// fitter checks Go types against schema types, each pair once.
type fitter struct {
	seen map[fitKey]bool
}

type fitKey struct {
	t reflect.Type
	x xsd.Type
}

func newFitter() *fitter { return &fitter{seen: map[fitKey]bool{}} }

// element checks that a field of Go type t can hold the element decl,
// which occurs min to max times (max -1: unbounded).
func (f *fitter) element(path string, t reflect.Type, decl *xsd.Element, min, max int) error {
	if t == reflect.TypeFor[*xsd.Value]() || t.Kind() == reflect.Interface {
		return nil
	}
	if max < 0 || max > 1 {
		if t.Kind() != reflect.Slice || t == reflect.TypeFor[xsd.RawXML]() || t.Elem().Kind() == reflect.Uint8 {
			return fmt.Errorf("%s: the element %s occurs up to %s times: its Go field (%v) must be a slice", path, decl.Name.Local, occurs(max), t)
		}
		t = t.Elem()
	}
	canNil := false
	for t.Kind() == reflect.Pointer {
		t, canNil = t.Elem(), true
	}
	if isNillableType(t) {
		t, canNil = t.Field(0).Type, true
	}
	if t.Kind() == reflect.Interface || t == reflect.TypeFor[xsd.Value]() {
		return nil
	}
	if decl.Nillable && min >= 1 && !canNil && t.Kind() != reflect.Slice && t.Kind() != reflect.Map {
		return fmt.Errorf("%s: the element %s is required and nillable: its Go field (%v) cannot be nil (use a pointer or xsd.Nillable)", path, decl.Name.Local, t)
	}
	return f.typ(path, t, decl.Type)
}

func occurs(max int) string {
	if max < 0 {
		return "unbounded"
	}
	return fmt.Sprint(max)
}

// typ checks that Go type t (no pointer) can hold values of the schema
// type x.
func (f *fitter) typ(path string, t reflect.Type, x xsd.Type) error {
	k := fitKey{t, x}
	if f.seen[k] {
		return nil
	}
	f.seen[k] = true
	switch x := x.(type) {
	case *xsd.SimpleType:
		if !simpleFits(t, x) {
			return fmt.Errorf("%s: the Go type %v cannot hold %s", path, t, typeLabel(x))
		}
		return nil
	case *xsd.ComplexType:
		return f.complex(path, t, x)
	}
	return nil
}

func typeLabel(x xsd.Type) string {
	if n := x.TypeName(); n.Local != "" {
		return "the type " + n.Local
	}
	if st, ok := x.(*xsd.SimpleType); ok && st.Builtin() != nil {
		return "a restriction of " + st.Builtin().Kind.String()
	}
	return "an anonymous type"
}

func (f *fitter) complex(path string, t reflect.Type, x *xsd.ComplexType) error {
	switch {
	case x.IsAnyType() || t == reflect.TypeFor[xsd.RawXML]():
		return nil
	case x.Array != nil:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return fmt.Errorf("%s: %s is a SOAP-encoded array: its Go type (%v) must be a slice", path, typeLabel(x), t)
		}
		et := t.Elem()
		for et.Kind() == reflect.Pointer {
			et = et.Elem()
		}
		if x.Array.ItemType == nil || strings.Count(x.Array.Dimensions, "[") > 1 {
			return nil
		}
		return f.typ(path+"/item", et, x.Array.ItemType)
	case t.Kind() == reflect.Map:
		return nil
	case t.Kind() != reflect.Struct || t == reflect.TypeFor[time.Time]() || t == reflect.TypeFor[big.Int]() || t == reflect.TypeFor[big.Rat]() || t == reflect.TypeFor[big.Float]():
		if x.Content == xsd.SimpleContent && x.SimpleType != nil && len(requiredAttrs(x)) == 0 {
			return f.typ(path, t, x.SimpleType)
		}
		return fmt.Errorf("%s: %s is a complex type (%s): its Go type (%v) must be a struct", path, typeLabel(x), x.Content, t)
	}
	fs := goFields(t)
	used := map[*goField]bool{}
	for _, u := range x.EffectiveAttributes() {
		if u.Use == xsd.Prohibited {
			continue
		}
		gf := attributeField(fs, u.Attribute.Name)
		if gf == nil {
			if u.Use == xsd.Required {
				return fmt.Errorf("%s: the required attribute %s has no Go field in %v", path, u.Attribute.Name.Local, t)
			}
			continue
		}
		used[gf] = true
		at := gf.typ
		for at.Kind() == reflect.Pointer {
			at = at.Elem()
		}
		if !simpleFits(at, u.Attribute.Type) {
			return fmt.Errorf("%s/@%s: the Go type %v cannot hold %s", path, u.Attribute.Name.Local, at, typeLabel(u.Attribute.Type))
		}
	}
	if x.Content == xsd.SimpleContent || x.Content == xsd.MixedContent {
		for _, gf := range fs {
			if gf.chardata {
				used[gf] = true
				if x.SimpleType != nil && !simpleFits(gf.typ, x.SimpleType) {
					return fmt.Errorf("%s: the Go type %v cannot hold the content, %s", path, gf.typ, typeLabel(x.SimpleType))
				}
			}
		}
	}
	var err error
	walkContent(x.EffectiveParticle(), false, false, func(p *xsd.Particle, optional, many bool) {
		if err != nil {
			return
		}
		if p.Any != nil {
			for _, gf := range fs {
				if gf.any {
					used[gf] = true
				}
			}
			return
		}
		decl := p.Element
		gf := elementField(fs, decl.Name)
		if gf == nil {
			if !optional && !decl.Abstract {
				err = fmt.Errorf("%s: the required element %s has no Go field in %v", path, decl.Name.Local, t)
			}
			return
		}
		used[gf] = true
		min, max := p.Min, p.Max
		if optional {
			min = 0
		}
		if many {
			max = xsd.Unbounded
		}
		err = f.element(path+"/"+decl.Name.Local, gf.typ, decl, min, max)
	})
	if err != nil {
		return err
	}
	for _, gf := range fs {
		if !used[gf] && !gf.header {
			return fmt.Errorf("%s: the Go field %s of %v matches nothing in %s (%s)", path, gf.goName, t, typeLabel(x), contentNames(x))
		}
	}
	return nil
}

// walkContent calls fn for each element and wildcard particle of a content
// model, saying whether it may be absent (min 0, or in a choice or an
// optional group) and whether it may repeat (in a repeated group).
func walkContent(p *xsd.Particle, optional, many bool, fn func(p *xsd.Particle, optional, many bool)) {
	var walk func(p *xsd.Particle, optional, many bool, depth int)
	walk = func(p *xsd.Particle, optional, many bool, depth int) {
		if p == nil || depth > 64 {
			return
		}
		optional = optional || p.Min == 0
		switch {
		case p.Element != nil || p.Any != nil:
			fn(p, optional, many)
		case p.Group != nil:
			many = many || p.Max < 0 || p.Max > 1
			choice := p.Group.Compositor == xsd.Choice && len(p.Group.Particles) > 1
			for _, c := range p.Group.Particles {
				walk(c, optional || choice, many, depth+1)
			}
		}
	}
	walk(p, optional, many, 0)
}

// requiredAttrs lists a type's required attributes.
func requiredAttrs(x *xsd.ComplexType) []string {
	var out []string
	for _, u := range x.EffectiveAttributes() {
		if u.Use == xsd.Required {
			out = append(out, u.Attribute.Name.Local)
		}
	}
	return out
}

// contentNames lists a type's attributes and elements, for messages.
func contentNames(x *xsd.ComplexType) string {
	var names []string
	for _, u := range x.EffectiveAttributes() {
		names = append(names, "@"+u.Attribute.Name.Local)
	}
	walkContent(x.EffectiveParticle(), false, false, func(p *xsd.Particle, _, _ bool) {
		if p.Element != nil {
			names = append(names, p.Element.Name.Local)
		}
	})
	sort.Strings(names)
	if len(names) == 0 {
		return "it has no attributes or elements"
	}
	return "it has " + strings.Join(names, ", ")
}

// simpleFits reports whether Go type t can hold values of simple type x,
// as the codec reads them.
func simpleFits(t reflect.Type, x *xsd.SimpleType) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || t == reflect.TypeFor[xsd.Value]() || reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) && t != reflect.TypeFor[time.Time]() {
		return true
	}
	if t.Kind() == reflect.String {
		return true // any simple value as its text
	}
	switch x.Variety {
	case xsd.List:
		return t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 && x.Item != nil && simpleFits(t.Elem(), x.Item)
	case xsd.Union:
		return false
	}
	b := x.Builtin()
	if b == nil {
		return false
	}
	kind, prim := b.Kind, b.Kind.Primitive()
	switch {
	case t == reflect.TypeFor[time.Time]():
		switch prim {
		case xsd.KindDateTime, xsd.KindDate, xsd.KindTime, xsd.KindGYear, xsd.KindGYearMonth, xsd.KindGMonth, xsd.KindGMonthDay, xsd.KindGDay:
			return true
		}
		return false
	case t == reflect.TypeFor[time.Duration]():
		return prim == xsd.KindDuration
	case t == reflect.TypeFor[xml.Name]():
		return prim == xsd.KindQName
	case t == reflect.TypeFor[big.Int]():
		return kind.IsInteger()
	case t == reflect.TypeFor[big.Rat](), t == reflect.TypeFor[big.Float]():
		return prim == xsd.KindDecimal || prim == xsd.KindFloat || prim == xsd.KindDouble
	}
	switch t.Kind() {
	case reflect.Bool:
		return prim == xsd.KindBoolean
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kind.IsInteger()
	case reflect.Float32, reflect.Float64:
		return prim == xsd.KindDecimal || prim == xsd.KindFloat || prim == xsd.KindDouble
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return prim == xsd.KindBase64Binary || prim == xsd.KindHexBinary
		}
	}
	return false
}
