package soapenc

import (
	"encoding/xml"
	"reflect"
	"sort"
	"strconv"
)

// This file writes the literal form (Encoder.Literal): the values of the
// SOAP encoding without its markup, as WSDL's use="literal" describes them.

// litMode says how a literal accessor writes an absent value and a list.
type litMode uint8

const (
	litField litMode = iota // a struct field or part: nil is left out, a list repeats the element
	litItem                 // a list item or a top-level element: nil is xsi:nil, a list is a wrapper of items
	litPart                 // an rpc/literal part (WrapLists): nil is left out, a list is a wrapper of items
)

const xsiNil = ` xsi:nil="true" xmlns:xsi="` + NamespaceXSI + `"/>`

func (s *encState) literalAny(open, close string, v reflect.Value, mode litMode) error {
	if !v.IsValid() {
		return s.literalNil(open, litItem)
	}
	return s.literal(open, close, v, infoOf(v.Type()), mode)
}

// literalNil writes an absent value: nothing (a nil pointer or slice field,
// which the WSDL makes optional), or xsi:nil="true" (an array item; a nil
// interface or map). A nil []byte is the empty binary value.
func (s *encState) literalNil(open string, mode litMode) error {
	if mode == litItem {
		s.buf = append(s.buf, open...)
		s.buf = append(s.buf, xsiNil...)
	}
	return nil
}

// literal writes v as the element(s) open…close.
func (s *encState) literal(open, close string, v reflect.Value, ti *typeInfo, mode litMode) error {
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
			return s.literalNil(open, mode)
		}
		k := ptrKey{p: v.Pointer(), t: ti.t}
		tracked, err := s.enter(k)
		if err == nil {
			err = s.literal(open, close, v.Elem(), ti.elem, mode)
		}
		s.leave(k, tracked)
		return err
	case kIface:
		if v.IsNil() {
			return s.literalNil(open, litItem) // no schema says it may be absent
		}
		e := v.Elem()
		return s.literal(open, close, e, infoOf(e.Type()), mode)
	case kSlice, kArray:
		return s.literalList(open, close, v, ti, mode)
	case kMap:
		if v.IsNil() {
			return s.literalNil(open, litItem)
		}
	case kBigInt, kRat:
		if ti.isPtr && v.IsNil() {
			return s.literalNil(open, mode)
		}
	case kQName:
		return s.literalQName(open, close, v)
	}
	s.buf = append(s.buf, open...)
	var err error
	switch ti.kind {
	case kStruct:
		s.buf = append(s.buf, '>')
		err = s.literalFields(v, ti)
	case kMap:
		err = s.literalMap(v, ti)
	default:
		s.buf = append(s.buf, '>')
		s.buf, err = appendSimple(s.buf, v, ti)
	}
	s.buf = append(s.buf, close...)
	return err
}

func (s *encState) literalList(open, close string, v reflect.Value, ti *typeInfo, mode litMode) error {
	if ti.kind == kSlice {
		if v.IsNil() {
			return s.literalNil(open, mode)
		}
		k := ptrKey{p: v.Pointer(), t: ti.t, n: v.Len()}
		tracked, err := s.enter(k)
		defer s.leave(k, tracked)
		if err != nil {
			return err
		}
	}
	if mode == litField { // repeated elements, each an item
		for i := 0; i < v.Len(); i++ {
			if err := s.literal(open, close, v.Index(i), ti.elem, litItem); err != nil {
				return withPath(err, "["+strconv.Itoa(i+1)+"]")
			}
		}
		return nil
	}
	s.buf = append(s.buf, open...)
	s.buf = append(s.buf, '>')
	iopen, iclose := "<item", "</item>"
	if s.fieldPre != "" {
		iopen, iclose = "<"+s.fieldPre+"item", "</"+s.fieldPre+"item>"
	}
	for i := 0; i < v.Len(); i++ {
		if err := s.literal(iopen, iclose, v.Index(i), ti.elem, litItem); err != nil {
			return withPath(err, "item["+strconv.Itoa(i+1)+"]")
		}
	}
	s.buf = append(s.buf, close...)
	return nil
}

func (s *encState) literalFields(v reflect.Value, ti *typeInfo) error {
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
		if err != nil {
			return withPath(err, f.name)
		}
		if f.nillable && !f.problem && fv.IsNil() { // required and nillable: nil is written, never left out
			s.buf = append(s.buf, open...)
			s.buf = append(s.buf, xsiNil...)
			continue
		}
		if err := s.literal(open, close, fv, f.ti, litField); err != nil {
			return withPath(err, f.name)
		}
	}
	return nil
}

func (s *encState) literalMap(v reflect.Value, ti *typeInfo) error {
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
		if err := s.literal("<"+name, "</"+name+">", v.MapIndex(key), ti.elem, litField); err != nil {
			return withPath(err, name)
		}
	}
	return nil
}

// literalQName writes an xsd:QName value with its prefix declared on the
// element.
func (s *encState) literalQName(open, close string, v reflect.Value) error {
	n := valueOf[xml.Name](v)
	if n == (xml.Name{}) {
		return s.literalNil(open, litItem)
	}
	if !validNCName(n.Local) {
		return errorf(SubcodeBadValue, "QName local part %q is not a valid XML name", n.Local)
	}
	s.buf = append(s.buf, open...)
	if n.Space == "" {
		s.buf = append(s.buf, ` xmlns="">`...)
	} else {
		s.buf = append(s.buf, ` xmlns:q="`...)
		var err error
		if s.buf, err = appendEscaped(s.buf, n.Space, true); err != nil {
			return &Error{Subcode: SubcodeBadValue, Msg: "QName namespace: " + err.Error()}
		}
		s.buf = append(s.buf, `">q:`...)
	}
	s.buf = append(s.buf, n.Local...)
	s.buf = append(s.buf, close...)
	return nil
}
