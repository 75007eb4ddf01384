package soapenc

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// This file writes and reads the simple (text) values.

func (s *encState) simple(v reflect.Value, ti *typeInfo) error {
	var err error
	s.buf, err = appendSimple(s.buf, v, ti)
	return err
}

// appendSimple appends the lexical form of v, a value of the simple kind
// ti.kind (not kQName), escaped as element content.
func appendSimple(b []byte, v reflect.Value, ti *typeInfo) ([]byte, error) {
	var err error
	switch ti.kind {
	case kString:
		b, err = appendEscaped(b, v.String(), false)
	case kBool:
		b = strconv.AppendBool(b, v.Bool())
	case kInt8, kInt16, kInt32, kInt64:
		b = strconv.AppendInt(b, v.Int(), 10)
	case kUint8, kUint16, kUint32, kUint64:
		b = strconv.AppendUint(b, v.Uint(), 10)
	case kFloat32:
		b = appendFloat(b, v.Float(), 32)
	case kFloat64:
		b = appendFloat(b, v.Float(), 64)
	case kBase64:
		b = base64.StdEncoding.AppendEncode(b, v.Bytes())
	case kHex:
		const digits = "0123456789ABCDEF"
		for _, c := range v.Bytes() {
			b = append(b, digits[c>>4], digits[c&15])
		}
	case kTime:
		b, err = appendDateTime(b, valueOf[time.Time](v))
	case kBigInt:
		b = pointerOf[big.Int](v, ti.isPtr).Append(b, 10)
	case kRat:
		d, ok := ratDecimal(pointerOf[big.Rat](v, ti.isPtr))
		if !ok {
			err = errors.New("rational number has no finite decimal form")
		}
		b = append(b, d...)
	case kDecimal:
		d := trimSpace(v.String())
		if d == "" {
			d = "0"
		}
		if !validDecimal(d) {
			err = errors.New(quote(d) + " is not a valid decimal")
		}
		b = append(b, d...)
	}
	if err != nil {
		return b, &Error{Subcode: SubcodeBadValue, Msg: err.Error(), Err: err}
	}
	return b, nil
}

// valueOf returns v's value as a T without allocating when v is addressable.
func valueOf[T any](v reflect.Value) T {
	if v.CanAddr() {
		return *v.Addr().Interface().(*T)
	}
	return v.Interface().(T)
}

// pointerOf returns a *T for a v of type *T (isPtr) or T.
func pointerOf[T any](v reflect.Value, isPtr bool) *T {
	switch {
	case isPtr:
		return v.Interface().(*T)
	case v.CanAddr():
		return v.Addr().Interface().(*T)
	}
	p := reflect.New(v.Type())
	p.Elem().Set(v)
	return p.Interface().(*T)
}

// quote quotes s for an error message, shortened.
func quote(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strconv.Quote(s)
}

func badValue(text, what string) *Error {
	return &Error{Subcode: SubcodeBadValue, Msg: quote(text) + " is not " + what}
}

// setSimple parses the text of el into dst, a settable value of kind ti.kind.
func setSimple(dst reflect.Value, ti *typeInfo, el *Element) error {
	text := el.text
	xk := el.tkind
	if ti.kind != kString || xk != kInvalid && xk != kString {
		text = trimSpace(text)
	}
	switch ti.kind {
	case kString:
		dst.SetString(text)
	case kBool:
		b, ok := parseBool(text)
		if !ok {
			return badValue(text, "a valid boolean")
		}
		dst.SetBool(b)
	case kInt8, kInt16, kInt32, kInt64:
		n, err := strconv.ParseInt(text, 10, dst.Type().Bits())
		if err != nil {
			return intError(text, dst.Type(), err)
		}
		dst.SetInt(n)
	case kUint8, kUint16, kUint32, kUint64:
		n, err := strconv.ParseUint(strings.TrimPrefix(text, "+"), 10, dst.Type().Bits())
		if err != nil {
			return intError(text, dst.Type(), err)
		}
		dst.SetUint(n)
	case kFloat32, kFloat64:
		f, err := parseFloat(text, dst.Type().Bits())
		if err != nil {
			return &Error{Subcode: SubcodeBadValue, Msg: quote(text) + " is not a valid " + dst.Type().String() + ": " + err.Error()}
		}
		dst.SetFloat(f)
	case kBase64, kHex:
		var b []byte
		var err error
		if xk == kHex || xk != kBase64 && ti.kind == kHex {
			b, err = hex.DecodeString(text)
		} else {
			b, err = decodeBase64(text)
		}
		if err != nil {
			return &Error{Subcode: SubcodeBadValue, Msg: "bad binary data: " + err.Error(), Err: err}
		}
		dst.SetBytes(b)
	case kTime:
		t, err := parseDateTime(text)
		if err != nil {
			return badValue(text, "a valid dateTime")
		}
		dst.Set(reflect.ValueOf(t))
	case kQName:
		n, err := el.resolve(text)
		if err != nil {
			return err
		}
		dst.Set(reflect.ValueOf(n))
	case kBigInt:
		if !validDecimal(text) || strings.IndexByte(text, '.') >= 0 {
			return badValue(text, "a valid integer")
		}
		b, _ := new(big.Int).SetString(text, 10)
		if ti.isPtr {
			dst.Set(reflect.ValueOf(b))
		} else {
			dst.Set(reflect.ValueOf(b).Elem())
		}
	case kRat:
		if !validDecimal(text) {
			return badValue(text, "a valid decimal")
		}
		r, _ := new(big.Rat).SetString(text)
		if ti.isPtr {
			dst.Set(reflect.ValueOf(r))
		} else {
			dst.Set(reflect.ValueOf(r).Elem())
		}
	case kDecimal:
		if !validDecimal(text) {
			return badValue(text, "a valid decimal")
		}
		dst.SetString(text)
	}
	return nil
}

func intError(text string, t reflect.Type, err error) *Error {
	if errors.Is(err, strconv.ErrRange) {
		return &Error{Subcode: SubcodeBadValue, Msg: quote(text) + " is out of range for " + t.String()}
	}
	return &Error{Subcode: SubcodeBadValue, Msg: quote(text) + " is not a valid " + t.String()}
}
