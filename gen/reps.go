package gen

import (
	"encoding/xml"

	"github.com/soapwire/soapwire/core/xsd"
)

// repKind is how a schema value is held in Go.
type repKind uint8

const (
	repString repKind = iota // a string kind: string, soapenc.Decimal, xsd.Integer, xsd.Duration, enumerations
	repBool
	repInt
	repUint
	repFloat
	repTime
	repBinary
	repQName
	repList   // a list type: a slice of its items
	repStruct // a complex type: a struct
	repIface  // a complex type with derived types: an interface
	repRaw    // xsd:anyType: xsd.RawXML
	repArray  // a SOAP-encoded array: a named slice
	// repAttachment: a base64Binary element held as a core.Binary (an
	// MTOM part or inline base64, see binary.go)
	repAttachment
)

// rep is how the values of one schema type are held in Go.
type rep struct {
	goType string   // the Go type: "string", "int32", "time.Time", "Person", "AnyShape", "xsd.RawXML"
	kind   repKind  // how it converts
	bits   int      // int, uint, float sizes
	xkind  xsd.Kind // the built-in kind (time, binary and float formats)
	simple string   // the generated Simple variable that checks its values (simple reps)
	// check: writing must check the value (its Go type does not make it
	// valid: strings, restrictions, lists)
	check bool
	item  *rep      // a list's or an array's items
	st    *goStruct // a struct, an interface's base, an array type
	// typeName is the type's name for xsi:type (the SOAP encoding writes it
	// on every element): its own, or the nearest named base's
	typeName xml.Name
	// named is the generated named simple type, when the rep is one
	named *goSimple
}

// isSimple reports whether the rep holds a simple value (text).
func (r *rep) isSimple() bool {
	switch r.kind {
	case repStruct, repIface, repRaw, repArray:
		return false
	}
	return true
}

// byValue reports whether a field of the rep holds a struct by value (a
// containment that may make a type contain itself).
func (r *rep) byValue() *goStruct {
	if r.kind == repStruct {
		return r.st
	}
	return nil
}

// builtinRep is the Go type of a built-in simple type.
func builtinRep(k xsd.Kind) *rep {
	r := &rep{xkind: k}
	switch k {
	case xsd.KindBoolean:
		r.goType, r.kind = "bool", repBool
	case xsd.KindFloat:
		r.goType, r.kind, r.bits = "float32", repFloat, 32
	case xsd.KindDouble:
		r.goType, r.kind, r.bits = "float64", repFloat, 64
	case xsd.KindDecimal:
		r.goType, r.kind, r.check = "soapenc.Decimal", repString, true
	case xsd.KindLong:
		r.goType, r.kind, r.bits = "int64", repInt, 64
	case xsd.KindInt:
		r.goType, r.kind, r.bits = "int32", repInt, 32
	case xsd.KindShort:
		r.goType, r.kind, r.bits = "int16", repInt, 16
	case xsd.KindByte:
		r.goType, r.kind, r.bits = "int8", repInt, 8
	case xsd.KindUnsignedLong:
		r.goType, r.kind, r.bits = "uint64", repUint, 64
	case xsd.KindUnsignedInt:
		r.goType, r.kind, r.bits = "uint32", repUint, 32
	case xsd.KindUnsignedShort:
		r.goType, r.kind, r.bits = "uint16", repUint, 16
	case xsd.KindUnsignedByte:
		r.goType, r.kind, r.bits = "uint8", repUint, 8
	case xsd.KindDuration, xsd.KindDayTimeDuration, xsd.KindYearMonthDuration:
		r.goType, r.kind, r.check = "xsd.Duration", repString, true
	case xsd.KindDateTime, xsd.KindDateTimeStamp, xsd.KindDate, xsd.KindTime, xsd.KindGYearMonth,
		xsd.KindGYear, xsd.KindGMonthDay, xsd.KindGDay, xsd.KindGMonth:
		r.goType, r.kind = "time.Time", repTime
		r.check = k == xsd.KindDateTimeStamp
	case xsd.KindHexBinary, xsd.KindBase64Binary:
		r.goType, r.kind = "[]byte", repBinary
	case xsd.KindQName, xsd.KindNOTATION:
		r.goType, r.kind = "xml.Name", repQName
	case xsd.KindNMTOKENS, xsd.KindIDREFS, xsd.KindENTITIES:
		r.goType, r.kind, r.check = "[]string", repList, true
		r.item = &rep{goType: "string", kind: repString, xkind: k.Item(), check: true}
	default:
		if k.IsInteger() {
			r.goType, r.kind, r.check = "xsd.Integer", repString, true
		} else {
			r.goType, r.kind, r.check = "string", repString, true
		}
	}
	return r
}

// underlying returns the Go type a defined type over r has as its
// underlying type, and whether a defined type may be made of it (a
// defined type of time.Time or xml.Name would lose what the codec knows
// of them: those get an alias).
func (r *rep) definable() bool {
	switch r.kind {
	case repTime, repQName:
		return false
	}
	return true
}
