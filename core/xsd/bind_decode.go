package xsd

import (
	"bytes"
	"fmt"
	"reflect"
)

// Assign stores a tree into the Go value v points to (a **Value takes the
// tree itself): the Go side of Decode. A value the Go type cannot hold is
// a *ValueError: an element or attribute the struct has no field for
// (unless the codec is lenient), xsi:nil into a type that cannot be nil,
// a number out of the Go type's range, a second element into a field that
// holds one.
func (c *Codec) Assign(val *Value, v any) error {
	if pv, ok := v.(**Value); ok {
		*pv = val
		return nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &ValueError{Msg: fmt.Sprintf("decoding into a Go %T: want a non-nil pointer", v)}
	}
	b := &binder{c: c, path: []string{val.Name.Local}}
	return b.assign(val, rv.Elem())
}

func valueType() reflect.Type    { return reflect.TypeFor[Value]() }
func valuePtrType() reflect.Type { return reflect.TypeFor[*Value]() }
func rawType() reflect.Type      { return reflect.TypeFor[RawXML]() }

// assign stores val into the settable rv.
func (b *binder) assign(val *Value, rv reflect.Value) error {
	if len(b.path) > maxValueDepth {
		return b.errorf("values nest deeper than %d", maxValueDepth)
	}
	switch {
	case rv.Type() == valuePtrType():
		rv.Set(reflect.ValueOf(val))
		return nil
	case rv.Type() == valueType():
		rv.Set(reflect.ValueOf(*val))
		return nil
	case rv.Kind() == reflect.Interface && rv.NumMethod() == 0:
		rv.Set(reflect.ValueOf(val))
		return nil
	case isNillable(rv.Type()):
		n := rv.Addr().Interface().(nillable)
		inner := reflect.ValueOf(n.valuePtr()).Elem()
		inner.Set(reflect.Zero(inner.Type()))
		*n.nilFlag() = val.Nil
		if val.Nil {
			return nil
		}
		return b.assign(val, inner)
	case rv.Kind() == reflect.Pointer:
		if val.Nil && !isNillable(rv.Type().Elem()) {
			rv.Set(reflect.Zero(rv.Type()))
			return nil
		}
		if rv.IsNil() {
			rv.Set(reflect.New(rv.Type().Elem()))
		}
		return b.assign(val, rv.Elem())
	case rv.Type() == rawType():
		raw, err := b.rawOf(val)
		if err != nil {
			return err
		}
		rv.SetBytes(raw)
		return nil
	}
	if val.Nil {
		return b.errorf("the element is nil, which a Go %s cannot hold (use a pointer or xsd.Nillable)", rv.Type())
	}
	var st *SimpleType
	ct, _ := val.typ.(*ComplexType)
	switch t := val.typ.(type) {
	case *SimpleType:
		st = t
	case *ComplexType:
		if t.Content == SimpleContent && rv.Kind() != reflect.Struct {
			st = t.SimpleType
		}
	}
	if st != nil || val.typ == nil && len(val.Elems) == 0 && len(val.Attrs) == 0 && rv.Kind() != reflect.Struct && rv.Kind() != reflect.Map {
		if len(val.Attrs) > 0 {
			return b.errorf("a Go %s cannot hold the attributes of the value (use a struct)", rv.Type())
		}
		if err := parse(rv, val.Text, st); err != nil {
			return b.errorf("%v", err)
		}
		return nil
	}
	switch rv.Kind() {
	case reflect.Struct:
		return b.toStruct(val, ct, rv)
	case reflect.Map:
		m := val.Interface()
		mv := reflect.ValueOf(m)
		if !mv.IsValid() || !mv.Type().AssignableTo(rv.Type()) {
			return b.errorf("a Go %s cannot hold the value (use map[string]any, a struct or *xsd.Value)", rv.Type())
		}
		rv.Set(mv)
		return nil
	case reflect.Slice:
		if ct != nil && ct.Array != nil {
			out := reflect.MakeSlice(rv.Type(), len(val.Elems), len(val.Elems))
			for i, it := range val.Elems {
				b.path = append(b.path, fmt.Sprintf("%s[%d]", it.Name.Local, i))
				err := b.assign(it, out.Index(i))
				b.path = b.path[:len(b.path)-1]
				if err != nil {
					return err
				}
			}
			rv.Set(out)
			return nil
		}
	}
	return b.errorf("a Go %s cannot hold a value of %s", rv.Type(), typeLabel(val.typ))
}

// rawOf writes a value as XML.
func (b *binder) rawOf(val *Value) (RawXML, error) {
	var buf bytes.Buffer
	e := &encoder{c: b.c, x: newWriter(&buf), path: b.path}
	if err := e.generic(val, 0); err != nil {
		return nil, err
	}
	if err := e.x.flush(); err != nil {
		return nil, err
	}
	return RawXML(buf.Bytes()), nil
}

// toStruct stores a complex value into a struct.
func (b *binder) toStruct(val *Value, ct *ComplexType, rv reflect.Value) error {
	plan := b.c.plan(rv.Type())
	var uses []*AttributeUse
	if ct != nil {
		uses = ct.EffectiveAttributes()
	}
	seen := map[*fieldInfo]bool{}
	for _, a := range val.Attrs {
		f := plan.attribute(a.Name)
		if f == nil {
			if b.c.lenient {
				continue
			}
			return b.errorf("the Go type %s has no field for the attribute %s", rv.Type(), a.Name.Local)
		}
		seen[f] = true
		var at *SimpleType
		for _, u := range uses {
			if u.Attribute.Name == a.Name {
				at = u.Attribute.Type
			}
		}
		if err := parse(fieldOf(rv, f.index, true), a.Text, at); err != nil {
			return b.errorf("attribute %s: %v", a.Name.Local, err)
		}
	}
	for _, u := range uses {
		def := u.ValueDefault()
		if fx := u.ValueFixed(); fx != nil {
			def = fx
		}
		if def == nil {
			continue
		}
		if f := plan.attribute(u.Attribute.Name); f != nil && !seen[f] {
			fv := fieldOf(rv, f.index, true)
			if fv.IsZero() {
				if err := parse(fv, normalize(*def, whiteSpace(u.Attribute.Type)), u.Attribute.Type); err != nil {
					return b.errorf("attribute %s's default: %v", u.Attribute.Name.Local, err)
				}
			}
		}
	}
	if ct != nil && (ct.Content == SimpleContent || ct.Content == MixedContent) || ct == nil && val.Text != "" {
		f := plan.text()
		switch {
		case f != nil:
			var st *SimpleType
			if ct != nil {
				st = ct.SimpleType
			}
			if err := parse(fieldOf(rv, f.index, true), val.Text, st); err != nil {
				return b.errorf("%v", err)
			}
		case val.Text != "" && !b.c.lenient && (ct == nil || ct.Content == SimpleContent):
			return b.errorf("the Go type %s has no ,chardata field for the value's text", rv.Type())
		}
	}
	count := map[*fieldInfo]int{}
	for _, child := range val.Elems {
		f := b.fieldFor(plan, child)
		if f == nil {
			if w := plan.wildcard(); w != nil && child.decl == nil {
				if err := b.addWildcard(fieldOf(rv, w.index, true), child); err != nil {
					return err
				}
				continue
			}
			if b.c.lenient {
				continue
			}
			return b.errorf("the Go type %s has no field for the element %s", rv.Type(), child.Name.Local)
		}
		fv := fieldOf(rv, f.index, true)
		b.path = append(b.path, child.Name.Local)
		err := b.store(child, fv, f, count)
		b.path = b.path[:len(b.path)-1]
		if err != nil {
			return err
		}
	}
	return nil
}

// fieldFor returns the field an element goes into: by its name, else by
// the name of the head of its substitution group.
func (b *binder) fieldFor(plan *structPlan, child *Value) *fieldInfo {
	if f := plan.element(child.Name); f != nil {
		return f
	}
	if child.decl != nil {
		for h, n := child.decl.SubstitutionGroup, 0; h != nil && n < maxChain; h, n = h.SubstitutionGroup, n+1 {
			if f := plan.element(h.Name); f != nil {
				return f
			}
		}
	}
	return nil
}

// store puts one element into its field: appended to a slice, set once in
// any other field.
func (b *binder) store(child *Value, fv reflect.Value, f *fieldInfo, count map[*fieldInfo]int) error {
	count[f]++
	if fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() != reflect.Uint8 && !(child.typ != nil && holdsSlice(child.typ)) {
		item := reflect.New(fv.Type().Elem()).Elem()
		if err := b.assign(child, item); err != nil {
			return err
		}
		fv.Set(reflect.Append(fv, item))
		return nil
	}
	if count[f] > 1 {
		return b.errorf("the Go field %s holds one value; the message has more (use a slice)", f.goName)
	}
	return b.assign(child, fv)
}

// addWildcard stores an element a wildcard took into an ,any field.
func (b *binder) addWildcard(fv reflect.Value, child *Value) error {
	switch {
	case fv.Type() == rawType() || fv.Type() == valuePtrType() || fv.Kind() == reflect.Interface:
		return b.assign(child, fv)
	case fv.Kind() == reflect.Slice:
		item := reflect.New(fv.Type().Elem()).Elem()
		if err := b.assign(child, item); err != nil {
			return err
		}
		fv.Set(reflect.Append(fv, item))
		return nil
	}
	return b.errorf("an ,any field is RawXML, []RawXML, *xsd.Value or []*xsd.Value, not a Go %s", fv.Type())
}
