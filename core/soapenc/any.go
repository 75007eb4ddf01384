package soapenc

import (
	"encoding/xml"
	"reflect"
)

// This file decodes into any: each value gets its natural Go type.

func (d *decodeState) iface(el *Element, dst reflect.Value) error {
	v, err := d.natural(el)
	if err != nil {
		return err
	}
	if !v.Type().AssignableTo(dst.Type()) {
		return errorf(SubcodeBadValue, "a %s value does not fit in %s", v.Type(), dst.Type())
	}
	dst.Set(v)
	return nil
}

// registered returns the Go type Decoder.Types gives el's xsi:type, or nil.
func (d *decodeState) registered(n xml.Name) reflect.Type {
	if n.Local == "" || d.t.d.Types == nil {
		return nil
	}
	return d.t.d.Types[n]
}

// naturalMap reports whether el's natural value is a map[string]any.
func (d *decodeState) naturalMap(el *Element) bool {
	typ := d.t.types[el.typ]
	return d.registered(typ) == nil && !el.isArray() && el.tkind == kInvalid &&
		(el.first != nil || typ.Local != "" && !isXSD(typ.Space))
}

// natural decodes el (not nil) into its natural Go type: the type
// Decoder.Types names for its xsi:type; a slice for an array; the Go type of
// a simple xsi:type; map[string]any for a structure; else its text.
func (d *decodeState) natural(el *Element) (reflect.Value, error) {
	if t := d.registered(d.t.types[el.typ]); t != nil {
		v := reflect.New(t).Elem()
		return v, d.direct(el, v, infoOf(t))
	}
	switch {
	case el.isArray():
		return d.naturalArray(el)
	case el.tkind != kInvalid:
		t := naturalTypes[el.tkind]
		v := reflect.New(t).Elem()
		return v, d.direct(el, v, infoOf(t))
	case d.naturalMap(el):
		m := reflect.MakeMapWithSize(typeMapAny, int(el.nkids))
		return m, d.fillMap(el, m, infoOf(typeMapAny))
	}
	return reflect.ValueOf(el.text), nil
}

// naturalArray decodes an array into a slice of its declared item type's
// natural Go type ([]any when unknown), one slice level per dimension.
func (d *decodeState) naturalArray(el *Element) (reflect.Value, error) {
	info, err := d.arrayInfo(el)
	if err != nil {
		return reflect.Value{}, err
	}
	items, err := d.arrayItems(el, info)
	if err != nil {
		return reflect.Value{}, err
	}
	t := typeAny
	if !info.itemArray {
		if rt := d.registered(info.item); rt != nil {
			t = rt
		} else if isXSD(info.item.Space) || info.item.Space == NamespaceV11 {
			if k := xsdKinds[info.item.Local]; k != kInvalid {
				t = naturalTypes[k]
			}
		}
	}
	for range max(len(info.dims), 1) {
		t = reflect.SliceOf(t)
	}
	v := reflect.New(t).Elem()
	if items == nil {
		return v, d.fillChildren(v, infoOf(t), el, info.dims)
	}
	return v, d.fill(v, infoOf(t), items, info.dims)
}
