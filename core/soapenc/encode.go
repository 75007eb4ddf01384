package soapenc

import (
	"encoding/xml"
	"io"
	"reflect"
	"sort"
	"strconv"
	"sync"
)

// Encoder writes Go values in the SOAP encoding. The zero Encoder writes
// SOAP 1.1 without multi-refs. An Encoder is not changed by encoding and may
// be used by several goroutines at once.
type Encoder struct {
	// Version selects the 1.1 or the 1.2 form of arrays, nil and references.
	Version Version
	// MultiRefs writes a pointer reached more than once (shared, or cyclic)
	// once, and refers to it elsewhere: 1.1 writes href="#idN" accessors and
	// the value in an independent multiRef element after the top-level
	// element; 1.2 writes enc:id on its first occurrence and enc:ref on the
	// others. Without MultiRefs a shared pointer is written at each place and a
	// cyclic value is an error (SubcodeCycle).
	MultiRefs bool
	// TypeNamespace is the namespace of the xsi:type written for named
	// struct types ({TypeNamespace}GoTypeName). When it is empty structs are
	// written without xsi:type.
	TypeNamespace string
	// EncodingStyle writes the envelope's encodingStyle attribute, naming
	// this encoding, on every top-level element.
	EncodingStyle bool
	// Literal writes the form that WSDL's use="literal" describes instead
	// of the SOAP encoding: no xsi:type, no encodingStyle, no SOAP arrays
	// and no multi-refs (MultiRefs, TypeNamespace and EncodingStyle are
	// ignored, and a cyclic value is an error). A slice or Go array that is
	// a struct field or a part is written as repeated elements of the
	// accessor's name; an array inside an array, or the element Encode
	// writes, is one element with an "item" child per item. A nil pointer
	// or slice field or part is left out (minOccurs="0"); a nil array item,
	// interface or map is written xsi:nil="true", so that items keep their
	// positions; a nil []byte is the empty binary value. A map is one child
	// element per key, in key order. Values are in the lexical forms of the
	// encoded ones.
	Literal bool
	// WrapLists, with Literal, writes a part of EncodeParts that is a slice
	// as one element of "item" children instead of repeated elements: the
	// rpc/literal form of an array parameter (an ArrayOfX part type).
	WrapLists bool
	// FieldNamespace, when not "", qualifies the elements of struct fields
	// (and the "item" elements of literal lists) with that namespace, as a
	// schema with elementFormDefault="qualified" wants them: the target
	// namespace of the schema that declares the types. A field whose tag
	// names a namespace ("urn:x name") is in that namespace whatever
	// FieldNamespace says. Parts are qualified by their Space.
	FieldNamespace string
}

// Part is one accessor (an RPC parameter or result) of an EncodeParts wrapper.
type Part struct {
	Name  string // element name, unqualified unless Space is set
	Value any    // nil is written as xsi:nil="true"
	// Space qualifies the accessor with a namespace, as the SOAP 1.2
	// rpc:result accessor and the children of a document/literal wrapper
	// whose schema says elementFormDefault="qualified" are; rpc accessors
	// are unqualified.
	Space string
}

// Encode writes v as one element named name, with xsi:type on every value,
// declaring every namespace prefix it uses. With MultiRefs in SOAP 1.1 the
// multiRef elements of shared values follow it as siblings.
func (e *Encoder) Encode(w io.Writer, name xml.Name, v any) error {
	s := e.newState(w)
	defer s.release()
	open, close, decls, err := s.topName(name)
	if err != nil {
		return err
	}
	rv := reflect.ValueOf(v)
	if s.lit {
		if err := s.literalAny(open+decls, close, rv, litItem); err != nil {
			return withPath(err, name.Local)
		}
		return s.flush()
	}
	if s.multi {
		s.scanRoots(rv)
	}
	if err := s.any(open, close, decls, rv); err != nil {
		return withPath(err, name.Local)
	}
	return s.finish()
}

// EncodeParts writes an RPC wrapper element (which carries no xsi:type) with
// one child accessor per part, in order; with MultiRefs in SOAP 1.1 the
// multiRef elements of values shared by any of the parts follow the wrapper.
func (e *Encoder) EncodeParts(w io.Writer, wrapper xml.Name, parts ...Part) error {
	s := e.newState(w)
	defer s.release()
	open, close, decls, err := s.topName(wrapper)
	if err != nil {
		return err
	}
	if s.multi {
		roots := make([]reflect.Value, len(parts))
		for i, p := range parts {
			roots[i] = reflect.ValueOf(p.Value)
		}
		s.scanRoots(roots...)
	}
	s.buf = append(s.buf, open...)
	s.buf = append(s.buf, decls...)
	s.buf = append(s.buf, '>')
	mode := litField
	if s.wrapLists {
		mode = litPart
	}
	for _, p := range parts {
		if !validNCName(p.Name) {
			return errorf(SubcodeUnsupported, "part name %q is not a valid XML element name", p.Name)
		}
		open, close, err := s.tags(p.Name, p.Space, true)
		if err != nil {
			return withPath(err, p.Name)
		}
		if s.lit {
			err = s.literalAny(open, close, reflect.ValueOf(p.Value), mode)
		} else {
			err = s.any(open, close, "", reflect.ValueOf(p.Value))
		}
		if err != nil {
			return withPath(withPath(err, p.Name), wrapper.Local)
		}
	}
	s.buf = append(s.buf, close...)
	return s.finish()
}

type ptrKey struct {
	p uintptr
	t reflect.Type
	n int
}

// sharedRef is a pointer written once and referred to elsewhere.
type sharedRef struct {
	id      string
	v       reflect.Value
	ti      *typeInfo
	started bool
}

type encState struct {
	buf       []byte
	w         io.Writer
	err       error
	v12       bool
	multi     bool
	tns       bool
	lit       bool   // Literal
	wrapLists bool   // WrapLists
	decls     string // namespace declarations of every top-level element
	fieldNS   string // FieldNamespace
	fieldPre  string // the prefix of fieldNS with its colon ("m:" or "f:"), "" when fieldNS is ""
	mSpace    string // the namespace bound to m on the top-level element (literal)
	counts    map[ptrKey]int
	shared    map[ptrKey]*sharedRef
	queue     []*sharedRef
	ids       int
	depth     int
	onPath    map[ptrKey]struct{}
}

var statePool = sync.Pool{New: func() any { return &encState{buf: make([]byte, 0, 4096)} }}

// cycleDepth is the nesting of references after which the encoder starts
// remembering the references on the path, to find cycles.
const cycleDepth = 64

func (e *Encoder) newState(w io.Writer) *encState {
	s := statePool.Get().(*encState)
	s.w, s.v12, s.multi, s.tns = w, e.Version == V12, e.MultiRefs, e.TypeNamespace != ""
	s.fieldNS = e.FieldNamespace
	if e.Literal {
		s.lit, s.wrapLists, s.multi, s.tns = true, e.WrapLists, false, false
		return s // a literal element declares only the prefixes it uses
	}
	s.decls = declsFor(e)
	if s.fieldNS != "" { // declared on every top-level element, multiRefs included
		b, _ := appendEscaped(nil, s.fieldNS, true)
		s.decls += ` xmlns:f="` + string(b) + `"`
		s.fieldPre = "f:"
	}
	return s
}

func (s *encState) release() {
	if cap(s.buf) > 1<<20 {
		s.buf = nil
	}
	*s = encState{buf: s.buf[:0]}
	statePool.Put(s)
}

func declsFor(e *Encoder) string {
	enc := ` xmlns:soapenc="` + NamespaceV11 + `"`
	if e.Version == V12 {
		enc = ` xmlns:enc="` + NamespaceV12 + `"`
	}
	d := ` xmlns:xsi="` + NamespaceXSI + `" xmlns:xsd="` + NamespaceXSD + `"` + enc
	if e.TypeNamespace != "" {
		b, _ := appendEscaped(nil, e.TypeNamespace, true)
		d += ` xmlns:tns="` + string(b) + `"`
	}
	if e.EncodingStyle {
		d += ` xmlns:soapenv="` + e.Version.envNamespace() + `" soapenv:encodingStyle="` + e.Version.Namespace() + `"`
	}
	return d
}

func (s *encState) topName(name xml.Name) (open, close, decls string, err error) {
	if !validNCName(name.Local) {
		return "", "", "", errorf(SubcodeUnsupported, "element name %q is not a valid XML name", name.Local)
	}
	decls = s.decls
	if s.lit && s.fieldNS != "" { // literal: one top-level element, which declares the fields' prefix
		if name.Space == s.fieldNS {
			s.fieldPre = "m:"
		} else {
			b, err := appendEscaped(nil, s.fieldNS, true)
			if err != nil {
				return "", "", "", errorf(SubcodeUnsupported, "namespace %q: %v", s.fieldNS, err)
			}
			decls += ` xmlns:f="` + string(b) + `"`
			s.fieldPre = "f:"
		}
	}
	if name.Space == "" {
		return "<" + name.Local, "</" + name.Local + ">", decls, nil
	}
	ns, err := appendEscaped(nil, name.Space, true)
	if err != nil {
		return "", "", "", errorf(SubcodeUnsupported, "namespace %q: %v", name.Space, err)
	}
	s.mSpace = name.Space
	return "<m:" + name.Local, "</m:" + name.Local + ">", ` xmlns:m="` + string(ns) + `"` + decls, nil
}

// tags returns the start ("<p:name", with a declaration if needed) and end
// tags of an element local in namespace space: the prefix of the top-level
// element (m, where it is in scope: a part, or a literal value) or of
// FieldNamespace (f) when one is bound to space, else p declared on the
// element itself. An empty space is no namespace: no prefix.
func (s *encState) tags(local, space string, part bool) (open, close string, err error) {
	switch {
	case space == "":
		return "<" + local, "</" + local + ">", nil
	case space == s.mSpace && (part || s.lit):
		return "<m:" + local, "</m:" + local + ">", nil
	case space == s.fieldNS:
		return "<" + s.fieldPre + local, "</" + s.fieldPre + local + ">", nil
	}
	ns, err := appendEscaped(nil, space, true)
	if err != nil {
		return "", "", errorf(SubcodeUnsupported, "namespace %q: %v", space, err)
	}
	return "<p:" + local + ` xmlns:p="` + string(ns) + `"`, "</p:" + local + ">", nil
}

// fieldTags returns the start and end tags of a struct field's element.
func (s *encState) fieldTags(f *fieldInfo) (open, close string, err error) {
	switch {
	case f.space != "":
		return s.tags(f.name, f.space, false)
	case s.fieldPre != "":
		return "<" + s.fieldPre + f.name, "</" + s.fieldPre + f.name + ">", nil
	}
	return f.open, f.close, nil
}

// finish writes the 1.1 multiRef elements and flushes.
func (s *encState) finish() error {
	for i := 0; i < len(s.queue); i++ {
		r := s.queue[i]
		extra := s.decls + ` id="` + r.id + `" soapenc:root="0"`
		if err := s.value("<multiRef", "</multiRef>", extra, r.v.Elem(), r.ti.elem); err != nil {
			return withPath(err, "multiRef#"+r.id)
		}
	}
	return s.flush()
}

func (s *encState) flush() error {
	if s.err == nil && len(s.buf) > 0 {
		_, s.err = s.w.Write(s.buf)
		s.buf = s.buf[:0]
	}
	return s.err
}

func (s *encState) any(open, close, extra string, v reflect.Value) error {
	if !v.IsValid() {
		s.nilElem(open, extra)
		return nil
	}
	return s.value(open, close, extra, v, infoOf(v.Type()))
}

func (s *encState) nilElem(open, extra string) {
	s.buf = append(s.buf, open...)
	s.buf = append(s.buf, extra...)
	s.buf = append(s.buf, ` xsi:nil="true"/>`...)
}

// enter notes one more level of references and, past cycleDepth, fails on a
// reference already on the path.
func (s *encState) enter(k ptrKey) (bool, error) {
	s.depth++
	if s.depth <= cycleDepth {
		return false, nil
	}
	if s.onPath == nil {
		s.onPath = map[ptrKey]struct{}{}
	}
	if _, ok := s.onPath[k]; ok {
		return false, errorf(SubcodeCycle, "cyclic value of type %s (set MultiRefs to encode shared and cyclic pointers)", k.t)
	}
	s.onPath[k] = struct{}{}
	return true, nil
}

func (s *encState) leave(k ptrKey, tracked bool) {
	s.depth--
	if tracked {
		delete(s.onPath, k)
	}
}

// value writes one element: open ("<name"), extra attributes, the value, close.
func (s *encState) value(open, close, extra string, v reflect.Value, ti *typeInfo) error {
	if len(s.buf) > 32<<10 {
		if err := s.flush(); err != nil {
			return err
		}
	}
	switch ti.kind {
	case kInvalid:
		return &Error{Subcode: SubcodeUnsupported, Msg: ti.err}
	case kPtr:
		if v.IsNil() {
			s.nilElem(open, extra)
			return nil
		}
		k := ptrKey{p: v.Pointer(), t: ti.t}
		if r := s.sharedFor(k, v, ti); r != nil {
			return s.ref(open, close, extra, v, ti, r)
		}
		tracked, err := s.enter(k)
		if err == nil {
			err = s.value(open, close, extra, v.Elem(), ti.elem)
		}
		s.leave(k, tracked)
		return err
	case kIface:
		if v.IsNil() {
			s.nilElem(open, extra)
			return nil
		}
		e := v.Elem()
		return s.value(open, close, extra, e, infoOf(e.Type()))
	case kSlice, kMap, kBase64, kHex:
		if v.IsNil() {
			s.nilElem(open, extra)
			return nil
		}
	case kBigInt, kRat:
		if ti.isPtr && v.IsNil() {
			s.nilElem(open, extra)
			return nil
		}
	case kQName:
		return s.qname(open, close, extra, v)
	}
	s.buf = append(s.buf, open...)
	s.buf = append(s.buf, extra...)
	var err error
	switch ti.kind {
	case kStruct:
		err = s.structValue(v, ti)
	case kSlice, kArray:
		err = s.array(v, ti)
	case kMap:
		err = s.mapValue(v, ti)
	default:
		s.buf = append(s.buf, ti.xsiType...)
		s.buf = append(s.buf, '>')
		err = s.simple(v, ti)
	}
	s.buf = append(s.buf, close...)
	return err
}

// ref writes an accessor of a shared pointer.
func (s *encState) ref(open, close, extra string, v reflect.Value, ti *typeInfo, r *sharedRef) error {
	if r.id == "" {
		s.ids++
		r.id = "id" + strconv.Itoa(s.ids)
		if !s.v12 {
			s.queue = append(s.queue, r)
		}
	}
	if s.v12 && !r.started { // 1.2: the first occurrence carries the value
		r.started = true
		return s.value(open, close, extra+` enc:id="`+r.id+`"`, v.Elem(), ti.elem)
	}
	s.buf = append(s.buf, open...)
	s.buf = append(s.buf, extra...)
	if s.v12 {
		s.buf = append(s.buf, ` enc:ref="`...)
	} else {
		s.buf = append(s.buf, ` href="#`...)
	}
	s.buf = append(s.buf, r.id...)
	s.buf = append(s.buf, `"/>`...)
	return nil
}

func (s *encState) structValue(v reflect.Value, ti *typeInfo) error {
	if s.tns && ti.typeName != "" {
		s.buf = append(s.buf, ` xsi:type="tns:`...)
		s.buf = append(s.buf, ti.typeName...)
		s.buf = append(s.buf, '"')
	}
	s.buf = append(s.buf, '>')
	for i := range ti.fields {
		f := &ti.fields[i]
		var fv reflect.Value
		if len(f.index) == 1 {
			fv = v.Field(f.index[0])
		} else {
			fv = v.FieldByIndex(f.index)
		}
		if f.omitEmpty && isEmpty(fv) {
			continue
		}
		open, close, err := s.fieldTags(f)
		if err == nil {
			err = s.value(open, close, "", fv, f.ti)
		}
		if err != nil {
			return withPath(err, f.name)
		}
	}
	return nil
}

func isEmpty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return v.IsZero()
}

func (s *encState) mapValue(v reflect.Value, ti *typeInfo) error {
	k := ptrKey{p: v.Pointer(), t: ti.t}
	tracked, err := s.enter(k)
	defer s.leave(k, tracked)
	if err != nil {
		return err
	}
	s.buf = append(s.buf, '>')
	keys := v.MapKeys()
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, key := range keys {
		name := key.String()
		if !validNCName(name) {
			return errorf(SubcodeUnsupported, "map key %q is not a valid XML element name", name)
		}
		if err := s.value("<"+name, "</"+name+">", "", v.MapIndex(key), ti.elem); err != nil {
			return withPath(err, name)
		}
	}
	return nil
}

func (s *encState) qname(open, close, extra string, v reflect.Value) error {
	n := valueOf[xml.Name](v)
	if n == (xml.Name{}) { // no QName: nil rather than an invalid value
		s.nilElem(open, extra)
		return nil
	}
	if !validNCName(n.Local) {
		return errorf(SubcodeBadValue, "QName local part %q is not a valid XML name", n.Local)
	}
	s.buf = append(s.buf, open...)
	s.buf = append(s.buf, extra...)
	s.buf = append(s.buf, ` xsi:type="xsd:QName"`...)
	prefix := ""
	switch n.Space {
	case "":
		s.buf = append(s.buf, ` xmlns=""`...)
	case NamespaceXSD:
		prefix = "xsd"
	case NamespaceXSI:
		prefix = "xsi"
	default:
		prefix = "q"
		s.buf = append(s.buf, ` xmlns:q="`...)
		var err error
		if s.buf, err = appendEscaped(s.buf, n.Space, true); err != nil {
			return &Error{Subcode: SubcodeBadValue, Msg: "QName namespace: " + err.Error()}
		}
		s.buf = append(s.buf, '"')
	}
	s.buf = append(s.buf, '>')
	if prefix != "" {
		s.buf = append(s.buf, prefix...)
		s.buf = append(s.buf, ':')
	}
	s.buf = append(s.buf, n.Local...)
	s.buf = append(s.buf, close...)
	return nil
}

// withPath prefixes err's path with one step.
func withPath(err error, step string) error {
	if e, ok := err.(*Error); ok {
		if e.Path == "" {
			e.Path = "/" + step
		} else {
			e.Path = "/" + step + e.Path
		}
	}
	return err
}
