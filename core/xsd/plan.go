package xsd

import (
	"encoding/xml"
	"reflect"
	"strings"
)

// Nillable holds the value of an element that may be xsi:nil, so that nil
// and absent stay apart: a Nillable field is always written (nil when Nil
// is set), a *Nillable field is absent when the pointer is nil. A plain
// pointer field cannot tell them apart on an element that is both
// optional and nillable (a nil pointer is left out there).
type Nillable[T any] struct {
	Value T
	Nil   bool
}

// NilValue returns a Nillable that is xsi:nil.
func NilValue[T any]() Nillable[T] { return Nillable[T]{Nil: true} }

// Some returns a Nillable holding v.
func Some[T any](v T) Nillable[T] { return Nillable[T]{Value: v} }

func (n *Nillable[T]) nilFlag() *bool          { return &n.Nil }
func (n *Nillable[T]) valuePtr() any           { return &n.Value }
func (n *Nillable[T]) valueType() reflect.Type { return reflect.TypeFor[T]() }

// nillable is what every *Nillable[T] is.
type nillable interface {
	nilFlag() *bool
	valuePtr() any
	valueType() reflect.Type
}

// isNillable reports whether t is a Nillable[T].
func isNillable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && reflect.PointerTo(t).Implements(reflect.TypeFor[nillable]())
}

// RawXML is one element as namespace-complete XML: what an xs:any
// wildcard, or an element of xsd:anyType, holds in a Go value.
type RawXML []byte

// fieldInfo is one field of a struct as the codec maps it.
type fieldInfo struct {
	index     []int
	goName    string
	name      string // the tag's name, else the field's
	space     string // the tag's namespace, "" for any
	tagged    bool   // the tag names it
	attr      bool   // ,attr
	chardata  bool   // ,chardata
	any       bool   // ,any
	omitEmpty bool
	typ       reflect.Type
}

// structPlan is a struct type's fields.
type structPlan struct {
	fields []*fieldInfo
}

// plan returns the fields of struct type t (memoized).
func (c *Codec) plan(t reflect.Type) *structPlan {
	if p, ok := c.plans.Load(t); ok {
		return p.(*structPlan)
	}
	p := &structPlan{}
	addFields(p, t, nil, 0)
	c.plans.Store(t, p)
	return p
}

func addFields(p *structPlan, t reflect.Type, index []int, depth int) {
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
			if ft.Kind() == reflect.Struct && !isNillable(ft) {
				addFields(p, ft, idx, depth+1)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		fi := &fieldInfo{index: idx, goName: f.Name, name: f.Name, typ: f.Type}
		if hasTag {
			name, opts, _ := strings.Cut(tag, ",")
			if sp, local, ok := strings.Cut(name, " "); ok {
				fi.space, name = sp, local
			}
			if name != "" {
				fi.name, fi.tagged = name, true
			}
			for _, o := range strings.Split(opts, ",") {
				switch o {
				case "attr":
					fi.attr = true
				case "chardata", "innerxml", "cdata":
					fi.chardata = true
				case "any":
					fi.any = true
				case "omitempty":
					fi.omitEmpty = true
				}
			}
		}
		p.fields = append(p.fields, fi)
	}
}

// element returns the field that holds the element named n, nil if none:
// a tag naming it (with its namespace, or none), else an untagged field of
// that name in any case.
func (p *structPlan) element(n xml.Name) *fieldInfo {
	for _, f := range p.fields {
		if f.tagged && !f.attr && !f.chardata && !f.any && f.name == n.Local && (f.space == "" || f.space == n.Space) {
			return f
		}
	}
	for _, f := range p.fields {
		if !f.tagged && !f.attr && !f.chardata && !f.any && strings.EqualFold(f.name, n.Local) {
			return f
		}
	}
	return nil
}

// attribute returns the field that holds the attribute named n.
func (p *structPlan) attribute(n xml.Name) *fieldInfo {
	for _, f := range p.fields {
		if f.attr && f.tagged && f.name == n.Local && (f.space == "" || f.space == n.Space) {
			return f
		}
	}
	for _, f := range p.fields {
		if !f.tagged && !f.chardata && !f.any && strings.EqualFold(f.name, n.Local) {
			return f
		}
	}
	return nil
}

// text returns the ,chardata field.
func (p *structPlan) text() *fieldInfo {
	for _, f := range p.fields {
		if f.chardata {
			return f
		}
	}
	return nil
}

// wildcard returns the ,any field.
func (p *structPlan) wildcard() *fieldInfo {
	for _, f := range p.fields {
		if f.any {
			return f
		}
	}
	return nil
}

// fieldOf returns the field of struct value v at index, allocating nil
// embedded pointers when alloc is set (else the zero Value when one is
// nil).
func fieldOf(v reflect.Value, index []int, alloc bool) reflect.Value {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				if !alloc {
					return reflect.Value{}
				}
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v
}
