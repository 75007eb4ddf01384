package main

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core/soapenc"
)

// arg is one parameter of a call: key[:type]=value.
type arg struct {
	name  string
	typ   string // the XML Schema type asked for ("" untyped: the WSDL's, else string)
	raw   string // the value as given
	value any    // the Go value written (soapenc picks the xsi:type from its Go type)
}

// Errors of parsing an argument.
var (
	errArgForm = errors.New("want key=value or key:type=value")
	errArgName = errors.New("not an XML name")
	errArgType = errors.New("unknown type")
)

// xsdTypes maps the type names an argument may carry (XML Schema local
// names, and a few short forms) to the canonical XML Schema name.
var xsdTypes = map[string]string{
	"string": "string", "str": "string",
	"int": "int", "long": "long", "short": "short", "byte": "byte",
	"unsignedInt": "unsignedInt", "unsignedLong": "unsignedLong", "unsignedShort": "unsignedShort", "unsignedByte": "unsignedByte",
	"boolean": "boolean", "bool": "boolean",
	"float": "float", "double": "double", "decimal": "decimal", "integer": "integer",
	"dateTime": "dateTime", "base64Binary": "base64Binary", "base64": "base64Binary",
	"hexBinary": "hexBinary", "hex": "hexBinary", "nil": "nil",
}

// typeNames lists the accepted type names, for messages.
func typeNames() string {
	return "string, int, long, short, byte, unsignedInt, unsignedLong, unsignedShort, unsignedByte, " +
		"boolean (bool), float, double, decimal, integer, dateTime, base64Binary (base64), hexBinary (hex), nil"
}

// parseArg reads key=value or key:type=value. The value of an untyped
// argument is converted later (typeArg), once the WSDL may have said its
// type.
func parseArg(s string) (arg, error) {
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		return arg{}, fmt.Errorf("%q: %w", s, errArgForm)
	}
	name, typ, typed := strings.Cut(k, ":")
	if !isXMLName(name) {
		return arg{}, fmt.Errorf("%q: %q is %w", s, name, errArgName)
	}
	a := arg{name: name, raw: v}
	if typed {
		t, ok := xsdTypes[typ]
		if !ok {
			return arg{}, fmt.Errorf("%q: %w %q (known: %s)", s, errArgType, typ, typeNames())
		}
		a.typ = t
	}
	return a, nil
}

// typeArg converts the argument's value to its type: the one it was given,
// else wsdlType (an XML Schema local name from the WSDL, "" if none or
// unknown), else string.
func typeArg(a *arg, wsdlType string) error {
	t := a.typ
	if t == "" {
		if _, known := xsdTypes[wsdlType]; known {
			t = wsdlType
		} else {
			t = "string"
		}
	}
	v, err := convert(t, a.raw)
	if err != nil {
		return fmt.Errorf("argument %s: %q is not an xsd:%s: %w", a.name, a.raw, t, err)
	}
	a.value = v
	return nil
}

// decimalRE is the lexical form of xsd:decimal.
var decimalRE = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)

// convert reads s as a value of the XML Schema type t, as the Go type
// core/soapenc writes as t.
func convert(t, s string) (any, error) {
	trim := strings.TrimSpace(s)
	switch t {
	case "string":
		if !utf8.ValidString(s) {
			return nil, errors.New("not UTF-8")
		}
		for _, r := range s {
			if !isXMLChar(r) {
				return nil, fmt.Errorf("the character %U cannot be carried by XML", r)
			}
		}
		return s, nil
	case "int":
		n, err := strconv.ParseInt(trim, 10, 32)
		return int32(n), numErr(err)
	case "long":
		n, err := strconv.ParseInt(trim, 10, 64)
		return n, numErr(err)
	case "short":
		n, err := strconv.ParseInt(trim, 10, 16)
		return int16(n), numErr(err)
	case "byte":
		n, err := strconv.ParseInt(trim, 10, 8)
		return int8(n), numErr(err)
	case "unsignedInt":
		n, err := strconv.ParseUint(trim, 10, 32)
		return uint32(n), numErr(err)
	case "unsignedLong":
		n, err := strconv.ParseUint(trim, 10, 64)
		return n, numErr(err)
	case "unsignedShort":
		n, err := strconv.ParseUint(trim, 10, 16)
		return uint16(n), numErr(err)
	case "unsignedByte":
		n, err := strconv.ParseUint(trim, 10, 8)
		return uint8(n), numErr(err)
	case "boolean":
		switch trim {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, errors.New("want true, false, 1 or 0")
	case "float", "double":
		bits := 64
		if t == "float" {
			bits = 32
		}
		var f float64
		var err error
		switch trim {
		case "INF":
			f = math.Inf(1)
		case "-INF":
			f = math.Inf(-1)
		case "NaN":
			f = math.NaN()
		default:
			if strings.ContainsAny(trim, "xXpP_") || strings.EqualFold(trim, "inf") || strings.EqualFold(trim, "+inf") ||
				strings.EqualFold(trim, "-inf") || strings.EqualFold(trim, "infinity") || strings.EqualFold(trim, "nan") {
				return nil, errors.New("not a decimal number (INF, -INF and NaN are spelled so)")
			}
			f, err = strconv.ParseFloat(trim, bits)
			if err != nil {
				return nil, numErr(err)
			}
		}
		if bits == 32 {
			return float32(f), nil
		}
		return f, nil
	case "decimal":
		if !decimalRE.MatchString(trim) {
			return nil, errors.New("not a decimal number")
		}
		return soapenc.Decimal(trim), nil
	case "integer":
		n, ok := new(big.Int).SetString(strings.TrimPrefix(trim, "+"), 10)
		if !ok || strings.HasPrefix(trim, "+-") || strings.HasPrefix(trim, "+_") || strings.Contains(trim, "_") {
			return nil, errors.New("not an integer")
		}
		return n, nil
	case "dateTime":
		if tm, err := time.Parse(time.RFC3339Nano, trim); err == nil {
			return tm, nil
		}
		tm, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", trim, soapenc.NoZone())
		if err != nil {
			return nil, errors.New("want 2006-01-02T15:04:05Z, with an optional fraction and zone")
		}
		return tm, nil
	case "base64Binary":
		b, err := base64.StdEncoding.DecodeString(trim)
		if err != nil {
			return nil, errors.New("not base64")
		}
		return b, nil
	case "hexBinary":
		b, err := hex.DecodeString(trim)
		if err != nil {
			return nil, errors.New("not hexadecimal")
		}
		return soapenc.HexBinary(b), nil
	case "nil":
		if s != "" {
			return nil, errors.New("a nil argument takes no value (key:nil=)")
		}
		return nil, nil
	}
	return nil, fmt.Errorf("%w %q", errArgType, t)
}

func numErr(err error) error {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		return ne.Err
	}
	return err
}

// isXMLName reports whether s is an XML name without a colon (an NCName),
// which an accessor's local name must be.
func isXMLName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || unicode.IsLetter(r):
		case i > 0 && (r == '-' || r == '.' || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)):
		default:
			return false
		}
	}
	return true
}

// isXMLChar reports whether r may appear in XML 1.0 text.
func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}
