package soapenc

import (
	"encoding/xml"
	"reflect"
	"strings"
)

var typeElement = reflect.TypeFor[*Element]()

// Decode stores the value e stands for in the value v points to. The Go
// type leads: a value without xsi:type is read as the target's type, and a
// value whose text does not fit the target (or whose xsi:type cannot be read
// as it) is an *Error with SubcodeBadValue. An any target receives the value's
// natural Go type (see the package documentation). A *Element target (or
// field) receives the element itself, undecoded.
//
// References are followed; a value referred to from several places is
// decoded once per Go type, so shared pointers stay shared and cycles become
// pointer cycles. A cycle through a type that is not a pointer, map or any
// is an error (SubcodeCycle).
func (e *Element) Decode(v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return errorf(SubcodeUnsupported, "Decode needs a non-nil pointer, not %T", v)
	}
	t := e.tree()
	d := newDecodeState(t)
	err := d.element(e, rv.Elem(), infoOf(rv.Type().Elem()))
	if err != nil {
		t.memo = nil // no half-decoded value is shared with a later Decode
	}
	return err
}

// DecodeItems decodes elements as the items of the slice or Go array that
// v points to, one item each: the form of an array sent as repeated sibling
// elements without a SOAP array (document/literal, node-soap). A Go array
// takes at most its length of items; the rest of it is zeroed.
func DecodeItems(items []*Element, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Slice && rv.Elem().Kind() != reflect.Array {
		return errorf(SubcodeUnsupported, "DecodeItems needs a pointer to a slice or an array, not %T", v)
	}
	var s reflect.Value
	if dst := rv.Elem(); dst.Kind() == reflect.Array {
		if len(items) > dst.Len() {
			return errorf(SubcodeArraySize, "%d items do not fit in %s", len(items), dst.Type())
		}
		s = reflect.New(dst.Type()).Elem()
	} else {
		s = reflect.MakeSlice(dst.Type(), len(items), len(items))
	}
	if len(items) == 0 {
		rv.Elem().Set(s)
		return nil
	}
	t := items[0].tree()
	d := newDecodeState(t)
	ti := infoOf(s.Type().Elem())
	for i, it := range items {
		if err := d.element(it, s.Index(i), ti); err != nil {
			t.memo = nil
			return err
		}
	}
	rv.Elem().Set(s)
	return nil
}

type decodeState struct {
	t        *tree
	depth    int
	maxDepth int
	strict   bool   // Decoder.Strict
	forms    bool   // Decoder.CheckForms
	fieldNS  string // Decoder.FieldNamespace
}

func newDecodeState(t *tree) decodeState {
	return decodeState{t: t, maxDepth: limit(t.d.MaxDepth, DefaultMaxDepth),
		strict: t.d.Strict, forms: t.d.CheckForms, fieldNS: t.d.FieldNamespace}
}

// element decodes the accessor el into dst.
func (d *decodeState) element(el *Element, dst reflect.Value, ti *typeInfo) error {
	if d.depth++; d.depth > d.maxDepth {
		d.depth--
		return withElemPath(errorf(SubcodeLimit, "values nest deeper than %d", d.maxDepth), el)
	}
	var err error
	switch v := el.value(); {
	case v.x != nil && (v.x.bad != nil || v.x.target == nil && v.x.ref != ""):
		err = spoiled(v) // an element of a header block the body cannot use
	case ti.t == typeElement:
		dst.Set(reflect.ValueOf(el))
	case v != el || v.x != nil && v.x.id != "":
		err = d.shared(v, dst, ti)
	default:
		err = d.direct(el, dst, ti)
	}
	d.depth--
	if err != nil {
		return withElemPath(err, el)
	}
	return nil
}

// direct decodes the content of the value element el into dst.
func (d *decodeState) direct(el *Element, dst reflect.Value, ti *typeInfo) error {
	if el.isNil {
		if d.strict && !nilOK(ti) {
			return errorf(SubcodeBadValue, "xsi:nil for a %s, which cannot be nil", ti.t)
		}
		dst.SetZero()
		return nil
	}
	switch ti.kind {
	case kInvalid:
		return &Error{Subcode: SubcodeUnsupported, Msg: ti.err}
	case kPtr:
		if dst.IsNil() {
			dst.Set(reflect.New(ti.t.Elem()))
		}
		return d.direct(el, dst.Elem(), ti.elem)
	case kIface:
		return d.iface(el, dst)
	case kStruct:
		return d.structValue(el, dst, ti)
	case kSlice, kArray:
		return d.array(el, dst, ti)
	case kMap:
		return d.mapValue(el, dst, ti)
	}
	var err *Error
	switch {
	case el.first != nil:
		err = errorf(SubcodeBadValue, "expected a %s value, found child elements", ti.t)
	case el.isArray():
		err = errorf(SubcodeBadValue, "expected a %s value, found an array", ti.t)
	default:
		if e := setSimple(dst, ti, el); e != nil {
			x, ok := e.(*Error)
			if !ok {
				return e
			}
			err = x
		}
	}
	if err == nil {
		return nil
	}
	if n := d.t.types[el.typ]; n.Local != "" { // say what the sender said it was
		err.Msg += " (its xsi:type is " + typeString(n) + ")"
	}
	return err
}

// typeString writes an xsi:type for a message: xsd:int, or {ns}local.
func typeString(n xml.Name) string {
	if isXSD(n.Space) {
		return "xsd:" + n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

func (d *decodeState) structValue(el *Element, dst reflect.Value, ti *typeInfo) error {
	if el.first == nil && trimSpace(el.text) != "" {
		return errorf(SubcodeBadValue, "expected a %s structure, found text", ti.t)
	}
	if el.isArray() {
		return errorf(SubcodeBadValue, "expected a %s structure, found an array", ti.t)
	}
	var repeated []int // per field: 1 + the items read of a list field sent as repeated elements
	var seenBuf [32]bool
	var seen []bool // per field, when strict: its element was read
	if d.strict {
		if len(ti.fields) <= len(seenBuf) {
			seen = seenBuf[:len(ti.fields)]
		} else {
			seen = make([]bool, len(ti.fields))
		}
	}
	hint := 0
	for c := el.first; c != nil; c = c.next {
		i := d.fieldIndex(ti, c.Name.Local, hint)
		if i < 0 {
			if d.strict {
				return withElemPath(errorf(SubcodeBadValue, "unexpected element %s: %s has no such field", nameString(c.Name), ti.t), c)
			}
			continue
		}
		hint = i + 1
		f := &ti.fields[i]
		if err := d.checkForm(c, f.name, f.space); err != nil {
			return err
		}
		if seen != nil {
			seen[i] = true
		}
		fv := dst.Field(f.index[0])
		if len(f.index) > 1 {
			fv = dst.FieldByIndex(f.index)
		}
		if f.ti.kind == kSlice || f.ti.kind == kArray {
			if repeated == nil {
				repeated = make([]int, len(ti.fields))
			}
			if repeated[i] == 0 && hasSibling(c) {
				repeated[i] = 1
				if f.ti.kind == kSlice {
					fv.Set(reflect.MakeSlice(f.ti.t, 0, 4))
				} else {
					fv.SetZero()
				}
			}
			if n := repeated[i] - 1; n >= 0 {
				repeated[i]++
				if f.ti.kind == kSlice {
					fv.Set(reflect.Append(fv, reflect.Zero(f.ti.elem.t)))
				} else if n >= f.ti.arrayLen {
					return withElemPath(arrayError("more than %d items for %s", f.ti.arrayLen, f.ti.t), c)
				}
				if err := d.element(c, fv.Index(n), f.ti.elem); err != nil {
					return err
				}
				continue
			}
		}
		if err := d.element(c, fv, f.ti); err != nil {
			return err
		}
	}
	for i, ok := range seen {
		if f := &ti.fields[i]; !ok && f.required {
			return errorf(SubcodeBadValue, "missing element %s (field %s of %s)", f.name, ti.t.FieldByIndex(f.index).Name, ti.t)
		}
	}
	return nil
}

// checkForm checks the namespace of a field's element c: the tag's (space)
// always, else FieldNamespace with CheckForms.
func (d *decodeState) checkForm(c *Element, local, space string) error {
	want := space
	if want == "" {
		if !d.forms {
			return nil
		}
		want = d.fieldNS
	}
	if c.Name.Space == want {
		return nil
	}
	msg := "the element " + local + " is in no namespace, but must be in " + want + " (qualified)"
	switch {
	case want == "":
		msg = "the element " + local + " is in the namespace " + c.Name.Space + ", but must be in none (unqualified)"
	case c.Name.Space != "":
		msg = "the element " + local + " is in the namespace " + c.Name.Space + ", but must be in " + want
	}
	return withElemPath(&Error{Subcode: SubcodeBadValue, Msg: msg}, c)
}

// nameString writes an element name for a message: local, or {ns}local.
func nameString(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// nilOK reports whether a value of ti may be xsi:nil when reading strictly:
// what the Encoder writes nil.
func nilOK(ti *typeInfo) bool {
	switch ti.kind {
	case kPtr, kIface, kMap, kSlice, kBase64, kHex, kQName, kInvalid:
		return true
	case kBigInt, kRat:
		return ti.isPtr
	}
	return false
}

// hasSibling reports whether a later sibling of c has c's local name.
func hasSibling(c *Element) bool {
	for s := c.next; s != nil; s = s.next {
		if s.Name.Local == c.Name.Local {
			return true
		}
	}
	return false
}

// fieldIndex finds the field for an element name: the field after the last
// one matched, then by name, then (unless strict) ignoring case.
func (d *decodeState) fieldIndex(ti *typeInfo, local string, hint int) int {
	if hint < len(ti.fields) && ti.fields[hint].name == local {
		return hint
	}
	if i, ok := ti.byName[local]; ok {
		return i
	}
	if d.strict {
		return -1
	}
	return foldedField(ti, local)
}

func foldedField(ti *typeInfo, local string) int {
	for i := range ti.fields {
		if strings.EqualFold(ti.fields[i].name, local) {
			return i
		}
	}
	return -1
}

// matchesStruct reports whether el looks like one value of struct type ti
// rather than a wrapper of items: one of its children names a field.
func matchesStruct(el *Element, ti *typeInfo) bool {
	for ti.kind == kPtr {
		ti = ti.elem
	}
	if ti.kind != kStruct {
		return false
	}
	for c := el.first; c != nil; c = c.next {
		if _, ok := ti.byName[c.Name.Local]; ok || foldedField(ti, c.Name.Local) >= 0 {
			return true
		}
	}
	return false
}

func (d *decodeState) mapValue(el *Element, dst reflect.Value, ti *typeInfo) error {
	if el.first == nil && trimSpace(el.text) != "" {
		return errorf(SubcodeBadValue, "expected a %s structure, found text", ti.t)
	}
	if dst.IsNil() {
		dst.Set(reflect.MakeMapWithSize(ti.t, int(el.nkids)))
	}
	return d.fillMap(el, dst, ti)
}

func (d *decodeState) fillMap(el *Element, m reflect.Value, ti *typeInfo) error {
	kt := ti.t.Key()
	var lists map[string]bool // names seen more than once, whose value is a []any
	for c := el.first; c != nil; c = c.next {
		v := reflect.New(ti.elem.t).Elem()
		if err := d.element(c, v, ti.elem); err != nil {
			return err
		}
		k := reflect.ValueOf(c.Name.Local).Convert(kt)
		if ti.elem.t == typeAny { // repeated names collect into a []any
			if old := m.MapIndex(k); old.IsValid() {
				if lists[c.Name.Local] {
					v = reflect.ValueOf(append(old.Interface().([]any), v.Interface()))
				} else {
					if lists == nil {
						lists = map[string]bool{}
					}
					lists[c.Name.Local] = true
					v = reflect.ValueOf([]any{old.Interface(), v.Interface()})
				}
			}
		}
		m.SetMapIndex(k, v)
	}
	return nil
}
