package xmlvalue

import (
	"encoding"
	"encoding/xml"
	"reflect"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmlesc"
)

// Append writes a value without encoding/xml when its type has a common
// shape, with what xml.Marshal writes for it byte for byte (the
// mirror of Decode's fast path, decodeplan.go): structs with element,
// attribute (no namespace), text and omitempty fields, namespaces in
// element tags, nested structs, pointers, slices, the basic types and
// []byte. Anything else — embedded fields, a>b paths, cdata, innerxml,
// comments, any, interfaces, namespaced attributes, arrays, xml.Name or
// xml.Attr values, Marshalers and TextMarshalers — goes to xml.Marshal, and
// so does a value the fast path finds it cannot name as xml.Marshal would.

// eplan is how to write values of one Go type.
type eplan struct {
	kind  dkind // dText (basic), dBytes, dStruct, dSlice, dPtr
	typ   reflect.Type
	elem  *eplan // dSlice, dPtr
	name  string // the type's name (generics cut), for an element with no other
	xname *efield
	// dStruct: attributes first, then elements and text, in field order
	attrs  []efield
	fields []efield
}

// efield is a struct field in an eplan.
type efield struct {
	index       int
	name, xmlns string
	omit        bool
	text        bool // the element's text (chardata)
	dynamic     bool // XMLName of type xml.Name with no name in the tag
	plan        *eplan
}

func typeMarshaler() reflect.Type     { return reflect.TypeFor[xml.Marshaler]() }
func typeAttrMarshaler() reflect.Type { return reflect.TypeFor[xml.MarshalerAttr]() }
func typeTextMarshaler() reflect.Type { return reflect.TypeFor[encoding.TextMarshaler]() }

// encodePlan returns the plan for writing values of type t, nil when the
// fast path leaves t to xml.Marshal. cache keeps plans between calls.
func encodePlan(cache map[reflect.Type]*eplan, t reflect.Type) *eplan {
	return cachedPlan(cache, t, func(t reflect.Type) *eplan {
		b := encodeBuilder{done: map[reflect.Type]*eplan{}}
		if p := b.value(t); !b.failed {
			return p
		}
		return nil
	})
}

type encodeBuilder struct {
	done   map[reflect.Type]*eplan
	failed bool
}

func (b *encodeBuilder) fail() *eplan {
	b.failed = true
	return nil
}

// value is marshalValue's view of t: pointers followed, then slices of
// elements, structs and basic values.
func (b *encodeBuilder) value(t reflect.Type) *eplan {
	if t.Kind() == reflect.Pointer {
		e := b.value(t.Elem())
		if e == nil {
			return b.fail()
		}
		return &eplan{kind: dPtr, typ: t, elem: e}
	}
	if implements(t, typeMarshaler()) || implements(t, typeTextMarshaler()) {
		return b.fail()
	}
	name := t.Name()
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.String:
		return &eplan{kind: dText, typ: t, name: name}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &eplan{kind: dBytes, typ: t, name: name}
		}
		e := b.value(t.Elem())
		if e == nil {
			return b.fail()
		}
		return &eplan{kind: dSlice, typ: t, elem: e}
	case reflect.Struct:
		if t == typeName() || t == typeAttr() {
			return b.fail()
		}
		return b.structPlan(t, name)
	}
	return b.fail()
}

func (b *encodeBuilder) structPlan(t reflect.Type, name string) *eplan {
	if p, ok := b.done[t]; ok {
		return p
	}
	p := &eplan{kind: dStruct, typ: t, name: name}
	b.done[t] = p
	var seen []finfo
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return b.fail()
		}
		if !f.IsExported() || f.Tag.Get("xml") == "-" {
			continue
		}
		fi, ok := fieldInfo(t, &f)
		if !ok || fi.cdata {
			return b.fail()
		}
		if f.Name == "XMLName" {
			if fi.name == "" && f.Type != typeName() {
				return b.fail() // named by the type or the field: a rare shape
			}
			p.xname = &efield{index: i, name: fi.name, xmlns: fi.xmlns, dynamic: fi.name == ""}
			continue
		}
		for _, o := range seen {
			if o.mode == fi.mode && o.name == fi.name && o.xmlns == fi.xmlns {
				return b.fail()
			}
		}
		seen = append(seen, fi)
		ef := efield{index: i, name: fi.name, xmlns: fi.xmlns, omit: fi.omit}
		switch fi.mode {
		case "attr":
			if fi.xmlns != "" || !attrWritable(f.Type) {
				return b.fail()
			}
			p.attrs = append(p.attrs, ef)
		case "chardata":
			if !textWritable(f.Type) {
				return b.fail()
			}
			ef.text = true
			p.fields = append(p.fields, ef)
		default:
			if ef.plan = b.value(f.Type); ef.plan == nil {
				return b.fail()
			}
			p.fields = append(p.fields, ef)
		}
	}
	return p
}

// attrWritable reports whether marshalAttr writes a value of type t as the
// fast path does: one pointer followed, slices of such values, basic values
// and []byte.
func attrWritable(t reflect.Type) bool {
	if implements(t, typeAttrMarshaler()) || implements(t, typeTextMarshaler()) {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		return attrWritable(t.Elem())
	}
	return t != typeAttr() && copyOK(t)
}

// textWritable reports whether a chardata field of type t is written as the
// fast path does: a basic value or []byte itself (xml.Marshal writes
// nothing for a named byte slice), or a pointer to one.
func textWritable(t reflect.Type) bool {
	if implements(t, typeTextMarshaler()) {
		return false
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
		if implements(t, typeTextMarshaler()) {
			return false
		}
	}
	if t.Kind() == reflect.Slice {
		return t == reflect.TypeFor[[]byte]()
	}
	return copyOK(t)
}

// encoder writes values as xml.Marshal does; ok turns false when it meets
// what it does not write like xml.Marshal (the caller then uses it).
type encoder struct {
	buf    []byte
	spaces []string // the namespace of each open element
	ok     bool
}

// Append appends v as xml.Marshal writes it. ok is false when it leaves v
// to xml.Marshal (its type, or a value in it, is not one the fast path
// writes as xml.Marshal does); dst's length is then what it was.
func Append(dst []byte, v any, c *Cache) (_ []byte, ok bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return dst, false
	}
	p := c.encodePlan(rv.Type())
	if p == nil {
		return dst, false
	}
	e := encoder{buf: dst, ok: true}
	e.value(rv, p, nil)
	if !e.ok {
		return dst, false
	}
	return e.buf, true
}

// value is marshalValue.
func (e *encoder) value(v reflect.Value, p *eplan, f *efield) {
	if f != nil && f.omit && isEmptyValue(v) {
		return
	}
	for p.kind == dPtr {
		if v.IsNil() {
			return
		}
		v, p = v.Elem(), p.elem
	}
	if p.kind == dSlice {
		for i := range v.Len() {
			e.value(v.Index(i), p.elem, f)
		}
		return
	}
	var space, local string
	if x := p.xname; x != nil {
		if !x.dynamic {
			space, local = x.xmlns, x.name
		} else if n := v.Field(x.index); n.Field(1).Len() > 0 { // xml.Name{Space, Local}
			space, local = n.Field(0).String(), n.Field(1).String()
		}
	}
	if local == "" && f != nil {
		space, local = f.xmlns, f.name
	}
	if local == "" {
		if local = p.name; local == "" {
			e.ok = false // xml.Marshal's UnsupportedTypeError
			return
		}
	}
	e.buf = append(e.buf, '<')
	e.buf = append(e.buf, local...)
	if space != "" {
		e.buf = append(e.buf, ` xmlns="`...)
		e.buf = xmlesc.Append(e.buf, space, xmlesc.Marshal)
		e.buf = append(e.buf, '"')
	}
	if p.kind == dStruct {
		for i := range p.attrs {
			a := &p.attrs[i]
			fv := v.Field(a.index)
			if a.omit && isEmptyValue(fv) {
				continue
			}
			e.attr(a.name, fv)
		}
		if x := p.xname; x != nil && space == "" && x.xmlns == "" && x.name == "" && len(e.spaces) > 0 && e.spaces[len(e.spaces)-1] != "" {
			e.buf = append(e.buf, ` xmlns=""`...)
		}
	}
	e.buf = append(e.buf, '>')
	switch p.kind {
	case dStruct:
		e.spaces = append(e.spaces, space)
		for i := range p.fields {
			f := &p.fields[i]
			fv := v.Field(f.index)
			if f.text {
				e.text(fv)
				continue
			}
			e.value(fv, f.plan, f)
			if !e.ok {
				return
			}
		}
		e.spaces = e.spaces[:len(e.spaces)-1]
	case dBytes:
		e.buf = xmlesc.Append(e.buf, v.Bytes(), xmlesc.Marshal)
	default:
		e.buf = appendSimple(e.buf, v)
	}
	e.buf = append(e.buf, "</"...)
	e.buf = append(e.buf, local...)
	e.buf = append(e.buf, '>')
}

// attr is marshalAttr for the types attrWritable allows.
func (e *encoder) attr(name string, v reflect.Value) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() != reflect.Uint8 {
		for i := range v.Len() {
			e.attr(name, v.Index(i))
		}
		return
	}
	e.buf = append(e.buf, ' ')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, `="`...)
	if v.Kind() == reflect.Slice {
		e.buf = xmlesc.Append(e.buf, v.Bytes(), xmlesc.Marshal)
	} else {
		e.buf = appendSimple(e.buf, v)
	}
	e.buf = append(e.buf, '"')
}

// text writes a chardata field (marshalStruct's fCharData case).
func (e *encoder) text(v reflect.Value) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Slice {
		e.buf = xmlesc.Append(e.buf, v.Bytes(), xmlesc.Marshal)
		return
	}
	e.buf = appendSimple(e.buf, v)
}

// appendSimple is marshalSimple for a basic value, escaped.
func appendSimple(dst []byte, v reflect.Value) []byte {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(dst, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(dst, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return strconv.AppendFloat(dst, v.Float(), 'g', -1, v.Type().Bits())
	case reflect.Bool:
		return strconv.AppendBool(dst, v.Bool())
	}
	return xmlesc.Append(dst, v.String(), xmlesc.Marshal)
}

// isEmptyValue is encoding/xml's, for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
