package rpc

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core/soapenc"
)

// Literal (schema-described, untyped) XML for the literal styles: simple
// values as text, structs as unqualified child elements in field order,
// slices as repeated elements (or, for an rpc/literal part, a wrapper of
// "item" elements), nil pointers omitted.

var (
	typeTime    = reflect.TypeFor[time.Time]()
	typeHex     = reflect.TypeFor[soapenc.HexBinary]()
	typeDecimal = reflect.TypeFor[soapenc.Decimal]()
	typeBigInt  = reflect.TypeFor[big.Int]()
	typeBigRat  = reflect.TypeFor[big.Rat]()
	typeXMLName = reflect.TypeFor[xml.Name]()
)

const maxLiteralDepth = 64

// writeLiteral writes v as element(s) named name. wrap writes a slice as one
// element holding "item" children instead of repeated elements.
func writeLiteral(b *bytes.Buffer, name string, v reflect.Value, wrap bool, depth int) error {
	if depth > maxLiteralDepth {
		return fmt.Errorf("rpc: %s: value nested too deep (a cycle?)", name)
	}
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil // optional and absent
		}
		v = v.Elem()
	}
	t := v.Type()
	if text, ok, err := literalText(v); ok || err != nil {
		if err != nil {
			return fmt.Errorf("rpc: %s: %w", name, err)
		}
		return writeText(b, name, text)
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if wrap {
			open(b, name)
			for i := range v.Len() {
				if err := writeLiteral(b, "item", v.Index(i), true, depth+1); err != nil {
					return err
				}
			}
			closeTag(b, name)
			return nil
		}
		for i := range v.Len() {
			if err := writeLiteral(b, name, v.Index(i), true, depth+1); err != nil {
				return err
			}
		}
		return nil
	case reflect.Struct:
		open(b, name)
		if err := writeFields(b, v, depth); err != nil {
			return err
		}
		closeTag(b, name)
		return nil
	}
	return fmt.Errorf("rpc: %s: cannot write a %v literally", name, t)
}

// writeFields writes a struct's fields; an embedded struct without a name
// tag has its fields promoted, as core/soapenc and core/wsdl do.
func writeFields(b *bytes.Buffer, v reflect.Value, depth int) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		fname, opts, skip := fieldName(f)
		if skip {
			continue
		}
		fv := v.Field(i)
		if f.Anonymous && fname == f.Name {
			ev := fv
			for ev.Kind() == reflect.Pointer && !ev.IsNil() {
				ev = ev.Elem()
			}
			if ev.Kind() == reflect.Struct {
				if err := writeFields(b, ev, depth+1); err != nil {
					return err
				}
				continue
			}
		}
		if hasOpt(opts, "omitempty") && fv.IsZero() {
			continue
		}
		if err := writeLiteral(b, fname, fv, false, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func hasOpt(opts []string, o string) bool {
	for _, x := range opts {
		if x == o {
			return true
		}
	}
	return false
}

// literalText returns the lexical form of a simple value; ok is false for
// structs, slices and the like.
func literalText(v reflect.Value) (text string, ok bool, err error) {
	t := v.Type()
	switch t {
	case typeTime:
		tm := v.Interface().(time.Time)
		if tm.Location() == soapenc.NoZone() {
			return tm.Format("2006-01-02T15:04:05.999999999"), true, nil
		}
		return tm.Format(time.RFC3339Nano), true, nil
	case typeHex:
		return hex.EncodeToString(v.Bytes()), true, nil
	case typeDecimal:
		d := soapenc.Decimal(v.String())
		if d == "" {
			return "0", true, nil
		}
		if _, ok := d.Rat(); !ok {
			return "", true, fmt.Errorf("%q is not a decimal", string(d))
		}
		return string(d), true, nil
	case typeBigInt:
		bi := v.Addr().Interface().(*big.Int)
		return bi.String(), true, nil
	case typeBigRat:
		r := v.Addr().Interface().(*big.Rat)
		return r.FloatString(20), true, nil
	case typeXMLName:
		return "", true, fmt.Errorf("xml.Name values are only supported in rpc/encoded")
	}
	switch t.Kind() {
	case reflect.String:
		s := v.String()
		if !utf8.ValidString(s) {
			return "", true, fmt.Errorf("invalid UTF-8 in a string")
		}
		return s, true, nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(v.Uint(), 10), true, nil
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		switch {
		case math.IsInf(f, 1):
			return "INF", true, nil
		case math.IsInf(f, -1):
			return "-INF", true, nil
		case math.IsNaN(f):
			return "NaN", true, nil
		}
		return strconv.FormatFloat(f, 'g', -1, t.Bits()), true, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return base64.StdEncoding.EncodeToString(v.Bytes()), true, nil
		}
	}
	return "", false, nil
}

func open(b *bytes.Buffer, name string) {
	b.WriteByte('<')
	b.WriteString(name)
	b.WriteByte('>')
}

func closeTag(b *bytes.Buffer, name string) {
	b.WriteString("</")
	b.WriteString(name)
	b.WriteByte('>')
}

func writeText(b *bytes.Buffer, name, text string) error {
	for _, r := range text {
		if !isXMLChar(r) {
			return fmt.Errorf("rpc: %s: character %U cannot be carried in XML", name, r)
		}
	}
	open(b, name)
	xml.EscapeText(b, []byte(text))
	closeTag(b, name)
	return nil
}

func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) || (r >= 0xE000 && r <= 0xFFFD) || (r >= 0x10000 && r <= 0x10FFFF)
}
