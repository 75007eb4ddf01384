package xmlvalue

import (
	"encoding"
	"encoding/xml"
	"reflect"
	"strings"
)

// Decode reads the common shapes of Go values straight from the tokenizer
// (decode.go), with what encoding/xml would do for them, and leaves
// everything else to encoding/xml. A decoding plan says, for one Go type,
// how: it is built once per type from the same rules as encoding/xml's (its
// typeinfo.go) and is nil for a type anything of which the fast path does
// not do (then the caller uses encoding/xml for the whole value): embedded
// fields, `a>b` paths, innerxml, any, comments, interfaces, maps and other
// kinds encoding/xml refuses, xml.Attr fields, pointers to pointers,
// anything implementing xml.Unmarshaler, xml.UnmarshalerAttr or
// encoding.TextUnmarshaler, and tags encoding/xml reports as errors.

// dkind is what a plan decodes.
type dkind uint8

const (
	dText   dkind = iota + 1 // a bool, number or string: the element's text
	dBytes                   // []byte: the element's text
	dName                    // xml.Name: the element's name
	dStruct                  // fields from attributes, child elements and text
	dSlice                   // one more element of a slice per element
	dPtr                     // a pointer to one of the above, allocated when nil
)

// dplan is the plan for one Go type.
type dplan struct {
	kind  dkind
	elem  *dplan // dSlice, dPtr
	typ   reflect.Type
	name  *dfield  // dStruct: the XMLName field, if any
	elems []dfield // dStruct: the fields read from child elements, in field order
	attrs []dfield // dStruct: the fields read from attributes, in field order
	text  int      // dStruct: the field the text goes into, -1 for none
}

// dfield is a struct field in a plan.
type dfield struct {
	index       int
	name, xmlns string
	plan        *dplan // elements
	setName     bool   // XMLName of type xml.Name: set to the element's name
}

// The types encoding/xml looks for (functions: the core keeps no package
// state).
func typeName() reflect.Type        { return reflect.TypeFor[xml.Name]() }
func typeAttr() reflect.Type        { return reflect.TypeFor[xml.Attr]() }
func typeUnmarshaler() reflect.Type { return reflect.TypeFor[xml.Unmarshaler]() }
func typeAttrUnmarsh() reflect.Type { return reflect.TypeFor[xml.UnmarshalerAttr]() }
func typeTextUnmarsh() reflect.Type { return reflect.TypeFor[encoding.TextUnmarshaler]() }
func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || t.Kind() != reflect.Interface && reflect.PointerTo(t).Implements(iface)
}

// maxPlans bounds the plans a Cache keeps of each kind (a program has few
// body types; this only stops one that makes types at run time from growing
// it).
const maxPlans = 256

// Cache keeps the plans made for Go types from one call to the next: the
// core keeps one with each recycled tokenizer (decoding) and writer
// (encoding), never in package state. The zero Cache is ready; a nil
// *Cache keeps nothing.
type Cache struct {
	dec map[reflect.Type]*dplan
	enc map[reflect.Type]*eplan
}

// decodePlan is planFor with c's plans.
func (c *Cache) decodePlan(t reflect.Type) *dplan {
	if c == nil {
		return planFor(nil, t)
	}
	if c.dec == nil {
		c.dec = make(map[reflect.Type]*dplan)
	}
	return planFor(c.dec, t)
}

// encodePlan is encodePlan with c's plans.
func (c *Cache) encodePlan(t reflect.Type) *eplan {
	if c == nil {
		return encodePlan(nil, t)
	}
	if c.enc == nil {
		c.enc = make(map[reflect.Type]*eplan)
	}
	return encodePlan(c.enc, t)
}

// planFor returns the plan for decoding into a value of type t (the
// element v points to), nil when the fast path does not do t. cache, when
// not nil, keeps plans from one Decode to the next.
func planFor(cache map[reflect.Type]*dplan, t reflect.Type) *dplan {
	return cachedPlan(cache, t, func(t reflect.Type) *dplan {
		b := planBuilder{done: map[reflect.Type]*dplan{}}
		if p := b.value(t); !b.failed {
			return p
		}
		return nil
	})
}

// cachedPlan returns cache[t] (nil: not for the fast path), built with
// build and kept in cache (when not nil) on a miss. Decoding and encoding
// plans share it.
func cachedPlan[P any](cache map[reflect.Type]*P, t reflect.Type, build func(reflect.Type) *P) *P {
	if p, ok := cache[t]; ok {
		return p
	}
	p := build(t)
	if cache != nil {
		if len(cache) >= maxPlans {
			clear(cache)
		}
		cache[t] = p
	}
	return p
}

// planBuilder builds the plans of one type and those it reaches; one type
// the fast path does not do fails them all.
type planBuilder struct {
	done   map[reflect.Type]*dplan // struct plans, made or being made
	failed bool
}

func (b *planBuilder) fail() *dplan {
	b.failed = true
	return nil
}

// value is unmarshal's view of t: one pointer allocated and followed, then
// t's kind.
func (b *planBuilder) value(t reflect.Type) *dplan {
	if t.Kind() == reflect.Pointer {
		e := t.Elem()
		if e.Kind() == reflect.Pointer || e.Kind() == reflect.Interface {
			return b.fail()
		}
		inner := b.direct(e)
		if inner == nil {
			return nil
		}
		return &dplan{kind: dPtr, elem: inner, typ: t}
	}
	return b.direct(t)
}

// direct is the plan for a value of type t that is not a pointer.
func (b *planBuilder) direct(t reflect.Type) *dplan {
	if implements(t, typeUnmarshaler()) || implements(t, typeTextUnmarsh()) {
		return b.fail()
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.String:
		return &dplan{kind: dText, typ: t}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return &dplan{kind: dBytes, typ: t}
		}
		e := b.value(t.Elem())
		if e == nil {
			return b.fail()
		}
		return &dplan{kind: dSlice, elem: e, typ: t}
	case reflect.Struct:
		if t == typeName() {
			return &dplan{kind: dName, typ: t}
		}
		return b.structPlan(t)
	}
	return b.fail()
}

// finfo is a field's tag as encoding/xml reads it (structFieldInfo).
type finfo struct {
	name, xmlns string
	mode        string // "element", "attr", "chardata" (chardata and cdata)
	omit        bool   // omitempty
	cdata       bool   // cdata (written as a CDATA section)
}

// structPlan follows encoding/xml's getTypeInfo for a struct with no
// embedded fields.
func (b *planBuilder) structPlan(t reflect.Type) *dplan {
	if p, ok := b.done[t]; ok {
		return p
	}
	p := &dplan{kind: dStruct, typ: t, text: -1}
	b.done[t] = p
	var seen []finfo // for encoding/xml's conflicts (addFieldInfo)
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			return b.fail()
		}
		if !f.IsExported() || f.Tag.Get("xml") == "-" {
			continue
		}
		fi, ok := fieldInfo(t, &f)
		if !ok {
			return b.fail()
		}
		if f.Name == "XMLName" {
			p.name = &dfield{index: i, name: fi.name, xmlns: fi.xmlns, setName: f.Type == typeName()}
			continue
		}
		for _, o := range seen {
			if o.mode == fi.mode && o.name == fi.name && o.xmlns == fi.xmlns {
				return b.fail() // encoding/xml: a TagPathError
			}
		}
		seen = append(seen, fi)
		df := dfield{index: i, name: fi.name, xmlns: fi.xmlns}
		switch fi.mode {
		case "element":
			if df.plan = b.value(f.Type); df.plan == nil {
				return b.fail()
			}
			p.elems = append(p.elems, df)
		case "attr":
			if !attrOK(f.Type) {
				return b.fail()
			}
			p.attrs = append(p.attrs, df)
		case "chardata":
			if !textOK(f.Type) {
				return b.fail()
			}
			if p.text < 0 {
				p.text = i
			}
		}
	}
	return p
}

// fieldInfo reads a field's tag as encoding/xml's structFieldInfo does; ok
// is false for what the fast path leaves to encoding/xml (innerxml,
// comment, any, a>b paths) and for the tags it refuses.
func fieldInfo(t reflect.Type, f *reflect.StructField) (finfo, bool) {
	var fi finfo
	tag := f.Tag.Get("xml")
	if ns, rest, ok := strings.Cut(tag, " "); ok {
		fi.xmlns, tag = ns, rest
	}
	tokens := strings.Split(tag, ",")
	fi.mode = "element"
	if len(tokens) > 1 {
		tag = tokens[0]
		var attr, chardata, omit, other bool
		modes := 0
		for _, flag := range tokens[1:] {
			switch flag {
			case "attr":
				attr = true
				modes++
			case "cdata", "chardata":
				chardata = true
				fi.cdata = flag == "cdata"
				modes++
			case "innerxml", "comment", "any":
				other = true
				modes++
			case "omitempty":
				omit = true
			}
		}
		fi.omit = omit
		switch {
		case other, modes > 1:
			return fi, false
		case attr:
			fi.mode = "attr"
		case chardata:
			if f.Name == "XMLName" || tag != "" || omit {
				return fi, false // invalid for encoding/xml
			}
			fi.mode = "chardata"
		}
		if attr && f.Name == "XMLName" {
			return fi, false
		}
	}
	if fi.xmlns != "" && tag == "" {
		return fi, false // namespace without a name
	}
	if f.Name == "XMLName" {
		fi.name = tag
		return fi, true
	}
	if tag == "" {
		if fi.mode == "chardata" {
			return fi, true
		}
		if xn, ok := xmlNameTag(f.Type); ok {
			fi.xmlns, fi.name = xn.xmlns, xn.name
		} else {
			fi.name = f.Name
		}
		return fi, true
	}
	if strings.Contains(tag, ">") {
		return fi, false // a path: encoding/xml's
	}
	fi.name = tag
	if fi.mode == "element" {
		if xn, ok := xmlNameTag(f.Type); ok && xn.name != fi.name {
			return fi, false // conflicts with the type's XMLName
		}
	}
	return fi, true
}

// xmlNameTag is encoding/xml's lookupXMLName: the name in the XMLName tag
// of t (a struct, or pointers to one), when it has a valid one with a name.
func xmlNameTag(t reflect.Type) (finfo, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return finfo{}, false
	}
	for i := range t.NumField() {
		if f := t.Field(i); f.Name == "XMLName" {
			fi, valid := xmlNameInfo(&f)
			if !valid || fi.name == "" {
				return finfo{}, false
			}
			return fi, true
		}
	}
	return finfo{}, false
}

// xmlNameInfo is structFieldInfo for an XMLName field: its tag's namespace
// and name, and whether encoding/xml accepts the tag.
func xmlNameInfo(f *reflect.StructField) (finfo, bool) {
	var fi finfo
	tag := f.Tag.Get("xml")
	if ns, rest, ok := strings.Cut(tag, " "); ok {
		fi.xmlns, tag = ns, rest
	}
	tokens := strings.Split(tag, ",")
	if len(tokens) > 1 {
		tag = tokens[0]
		for _, flag := range tokens[1:] {
			switch flag {
			case "attr", "cdata", "chardata", "innerxml", "comment", "any":
				return fi, false // no mode is valid on XMLName
			}
		}
	}
	if fi.xmlns != "" && tag == "" {
		return fi, false
	}
	fi.name = tag
	return fi, true
}

// attrOK reports whether the fast path sets an attribute field of type t as
// encoding/xml's unmarshalAttr does, by copyValue.
func attrOK(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if implements(t, typeAttrUnmarsh()) || implements(t, typeTextUnmarsh()) {
		return false
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8 {
		return attrOK(t.Elem())
	}
	return t != typeAttr() && copyOK(t)
}

// textOK reports whether the text of an element goes into a field of type
// t as encoding/xml's copyValue puts it (no TextUnmarshaler).
func textOK(t reflect.Type) bool {
	if implements(t, typeTextUnmarsh()) {
		return false
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return copyOK(t)
}

// copyOK reports whether copyValue fills a value of type t (not a pointer).
func copyOK(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Bool, reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr, reflect.String:
		return true
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Uint8
	}
	return false
}
