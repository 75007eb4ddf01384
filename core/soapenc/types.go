package soapenc

import (
	"encoding/xml"
	"math/big"
	"reflect"
	"time"
)

// Decimal is an xsd:decimal held as its exact lexical form ("-12.50",
// "1234567890123456789012345678901234567890.000000000000000000001"), so any
// precision round-trips. The Encoder refuses a Decimal that is not a valid
// decimal; the empty Decimal is written as "0".
type Decimal string

// Rat returns d as an exact rational number; ok is false if d is not a valid
// decimal.
func (d Decimal) Rat() (r *big.Rat, ok bool) {
	s := trimSpace(string(d))
	if !validDecimal(s) {
		return nil, false
	}
	return new(big.Rat).SetString(s)
}

// String returns the lexical form.
func (d Decimal) String() string { return string(d) }

// HexBinary is binary data encoded as xsd:hexBinary. A plain []byte is
// xsd:base64Binary.
type HexBinary []byte

// noZone is the location of a dateTime written without a time zone. It is a
// constant in effect: no code assigns it.
var noZone = time.FixedZone("", 0)

// NoZone returns the location of times decoded from an xsd:dateTime that has
// no time zone ("2024-05-01T10:00:00"). Such a time behaves as UTC in
// comparisons (t.Equal) and is encoded again without a zone. Use it to write
// a zoneless dateTime: time.Date(2024, 5, 1, 10, 0, 0, 0, soapenc.NoZone()).
func NoZone() *time.Location { return noZone }

// kind is how a Go type is encoded.
type kind uint8

const (
	kInvalid kind = iota
	kString
	kBool
	kInt8
	kInt16
	kInt32
	kInt64
	kUint8
	kUint16
	kUint32
	kUint64
	kFloat32
	kFloat64
	kBase64  // []byte
	kHex     // HexBinary
	kTime    // time.Time
	kQName   // xml.Name
	kBigInt  // *big.Int or big.Int
	kRat     // *big.Rat or big.Rat (xsd:decimal)
	kDecimal // Decimal
	kStruct
	kSlice
	kArray
	kPtr
	kIface
	kMap
)

// xsdNames are the xsi:type local names (XML Schema namespace) of the simple kinds.
var xsdNames = [...]string{
	kString: "string", kBool: "boolean",
	kInt8: "byte", kInt16: "short", kInt32: "int", kInt64: "long",
	kUint8: "unsignedByte", kUint16: "unsignedShort", kUint32: "unsignedInt", kUint64: "unsignedLong",
	kFloat32: "float", kFloat64: "double",
	kBase64: "base64Binary", kHex: "hexBinary", kTime: "dateTime", kQName: "QName",
	kBigInt: "integer", kRat: "decimal", kDecimal: "decimal",
	kMap: "",
}

func (k kind) simple() bool { return k >= kString && k <= kDecimal }

// xsdKinds maps an xsi:type local name in the XML Schema namespace (and, for
// SOAP 1.1, in the SOAP-ENC namespace) to the kind of its natural Go value.
// Types without a natural Go type of their own (dates, URIs, tokens) are
// strings.
var xsdKinds = map[string]kind{
	"string": kString, "boolean": kBool,
	"byte": kInt8, "short": kInt16, "int": kInt32, "long": kInt64,
	"unsignedByte": kUint8, "unsignedShort": kUint16, "unsignedInt": kUint32, "unsignedLong": kUint64,
	"float": kFloat32, "double": kFloat64,
	"base64Binary": kBase64, "base64": kBase64, "hexBinary": kHex,
	"dateTime": kTime, "QName": kQName,
	"integer": kBigInt, "nonNegativeInteger": kBigInt, "positiveInteger": kBigInt,
	"nonPositiveInteger": kBigInt, "negativeInteger": kBigInt,
	"decimal":          kDecimal,
	"normalizedString": kString, "token": kString, "language": kString, "Name": kString,
	"NCName": kString, "NMTOKEN": kString, "NMTOKENS": kString, "ID": kString, "IDREF": kString,
	"IDREFS": kString, "ENTITY": kString, "ENTITIES": kString, "anyURI": kString,
	"date": kString, "time": kString, "duration": kString, "gYear": kString, "gYearMonth": kString,
	"gMonth": kString, "gMonthDay": kString, "gDay": kString, "NOTATION": kString,
}

// naturalTypes are the Go types an any target receives for each simple kind.
var naturalTypes = [...]reflect.Type{
	kString: reflect.TypeFor[string](), kBool: reflect.TypeFor[bool](),
	kInt8: reflect.TypeFor[int8](), kInt16: reflect.TypeFor[int16](), kInt32: reflect.TypeFor[int32](), kInt64: reflect.TypeFor[int64](),
	kUint8: reflect.TypeFor[uint8](), kUint16: reflect.TypeFor[uint16](), kUint32: reflect.TypeFor[uint32](), kUint64: reflect.TypeFor[uint64](),
	kFloat32: reflect.TypeFor[float32](), kFloat64: reflect.TypeFor[float64](),
	kBase64: reflect.TypeFor[[]byte](), kHex: reflect.TypeFor[HexBinary](), kTime: reflect.TypeFor[time.Time](),
	kQName: reflect.TypeFor[xml.Name](), kBigInt: reflect.TypeFor[*big.Int](), kRat: reflect.TypeFor[*big.Rat](),
	kDecimal: reflect.TypeFor[Decimal](),
}

var (
	typeTime    = reflect.TypeFor[time.Time]()
	typeName    = reflect.TypeFor[xml.Name]()
	typeBigInt  = reflect.TypeFor[big.Int]()
	typeBigRat  = reflect.TypeFor[big.Rat]()
	typeDecimal = reflect.TypeFor[Decimal]()
	typeHex     = reflect.TypeFor[HexBinary]()
	typeAny     = reflect.TypeFor[any]()
	typeMapAny  = reflect.TypeFor[map[string]any]()
	typeSlcAny  = reflect.TypeFor[[]any]()
)

// TypeName returns the xsi:type the Encoder writes for a value of Go type t:
// an XML Schema type for the simple types, the SOAP encoding Array type of
// version v for slices and arrays (other than []byte), and
// {typeNamespace}GoName for a named struct (or a pointer to one). ok is false
// for types written without xsi:type (anonymous structs, maps, interfaces,
// structs when typeNamespace is "") and for types that cannot be encoded.
func TypeName(t reflect.Type, v Version, typeNamespace string) (name xml.Name, ok bool) {
	ti := infoOf(t)
	for ti.kind == kPtr {
		ti = ti.elem
	}
	switch {
	case ti.kind.simple():
		return xml.Name{Space: NamespaceXSD, Local: xsdNames[ti.kind]}, true
	case ti.kind == kSlice || ti.kind == kArray:
		return xml.Name{Space: v.Namespace(), Local: "Array"}, true
	case ti.kind == kStruct && ti.typeName != "" && typeNamespace != "":
		return xml.Name{Space: typeNamespace, Local: ti.typeName}, true
	}
	return xml.Name{}, false
}

// Field is one accessor of a struct type, as the Encoder writes it and the
// Decoder reads it.
type Field struct {
	Name      string       // the element name
	Space     string       // the element's namespace, when the tag names one ("urn:x name")
	Type      reflect.Type // the field's Go type
	OmitEmpty bool         // left out when empty (tag option omitempty)
	Nillable  bool         // a nil pointer is written xsi:nil, not left out (tag option nillable)
	Required  bool         // always written: a strict Decoder refuses a value without it
}

// Fields lists the accessors of struct type t (pointers are followed) in
// the order the Encoder writes them: names from tags, skipped fields left
// out, the fields of embedded structs promoted in place. It is what a
// schema generator (core/wsdl) describes. It returns an *Error for a type
// that is not a struct or whose fields cannot be encoded.
func Fields(t reflect.Type) ([]Field, error) {
	ti := infoOf(t)
	for ti.kind == kPtr {
		ti = ti.elem
	}
	if ti.kind != kStruct {
		return nil, errorf(SubcodeUnsupported, "%s is not a struct type", t)
	}
	out := make([]Field, len(ti.fields))
	for i, f := range ti.fields {
		if f.problem {
			return nil, errorf(SubcodeUnsupported, "%s", f.ti.err)
		}
		out[i] = Field{Name: f.name, Space: f.space, Type: ti.t.FieldByIndex(f.index).Type, OmitEmpty: f.omitEmpty,
			Nillable: f.nillable, Required: f.required}
	}
	return out, nil
}
