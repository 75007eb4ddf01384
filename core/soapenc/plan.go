package soapenc

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// typeInfo is the cached plan for one Go type: how values of it are encoded
// and decoded. Plans depend only on the type, never on Encoder or Decoder
// options, so one process-wide cache serves every Encoder and Decoder.
type typeInfo struct {
	t        reflect.Type
	kind     kind
	isPtr    bool      // kBigInt/kRat: t is *big.Int / *big.Rat
	elem     *typeInfo // kPtr, kSlice, kArray, kMap
	arrayLen int       // kArray
	fields   []fieldInfo
	byName   map[string]int // struct: field index by element name
	typeName string         // struct: the Go type name made an NCName ("" when anonymous)
	xsiType  string         // simple kinds: ` xsi:type="xsd:int"`
	err      string         // kInvalid: why the type cannot be encoded or decoded
}

type fieldInfo struct {
	name      string
	space     string // the tag's namespace ("" when the tag names none)
	index     []int
	ti        *typeInfo
	omitEmpty bool
	nillable  bool   // tag option nillable: a nil pointer is written xsi:nil, never left out
	required  bool   // must be present when read strictly (see Decoder.Strict)
	problem   bool   // the tag does not fit the field: ti is an invalid plan saying why
	open      string // "<name"
	close     string // "</name>"
}

// infoCache maps reflect.Type to *typeInfo. It is a pure memo of infoOf,
// like encoding/json's field cache: no option or default lives in it.
var infoCache sync.Map

// infoOf returns the plan for t.
func infoOf(t reflect.Type) *typeInfo {
	if v, ok := infoCache.Load(t); ok {
		return v.(*typeInfo)
	}
	building := map[reflect.Type]*typeInfo{}
	build(t, building)
	for bt, bi := range building {
		infoCache.LoadOrStore(bt, bi)
	}
	v, _ := infoCache.Load(t)
	return v.(*typeInfo)
}

func build(t reflect.Type, building map[reflect.Type]*typeInfo) *typeInfo {
	if v, ok := infoCache.Load(t); ok {
		return v.(*typeInfo)
	}
	if ti, ok := building[t]; ok {
		return ti
	}
	ti := &typeInfo{t: t}
	building[t] = ti
	switch t {
	case typeTime:
		ti.kind = kTime
	case typeName:
		ti.kind = kQName
	case typeDecimal:
		ti.kind = kDecimal
	case typeHex:
		ti.kind = kHex
	case typeBigInt:
		ti.kind = kBigInt
	case typeBigRat:
		ti.kind = kRat
	}
	if ti.kind == kInvalid {
		switch t.Kind() {
		case reflect.String:
			ti.kind = kString
		case reflect.Bool:
			ti.kind = kBool
		case reflect.Int8:
			ti.kind = kInt8
		case reflect.Int16:
			ti.kind = kInt16
		case reflect.Int32:
			ti.kind = kInt32
		case reflect.Int, reflect.Int64:
			ti.kind = kInt64
		case reflect.Uint8:
			ti.kind = kUint8
		case reflect.Uint16:
			ti.kind = kUint16
		case reflect.Uint32:
			ti.kind = kUint32
		case reflect.Uint, reflect.Uint64:
			ti.kind = kUint64
		case reflect.Float32:
			ti.kind = kFloat32
		case reflect.Float64:
			ti.kind = kFloat64
		case reflect.Pointer:
			switch t.Elem() {
			case typeBigInt:
				ti.kind, ti.isPtr = kBigInt, true
			case typeBigRat:
				ti.kind, ti.isPtr = kRat, true
			default:
				ti.kind = kPtr
				ti.elem = build(t.Elem(), building)
			}
		case reflect.Interface:
			ti.kind = kIface
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 && t.Elem().PkgPath() == "" {
				ti.kind = kBase64
			} else {
				ti.kind = kSlice
				ti.elem = build(t.Elem(), building)
			}
		case reflect.Array:
			ti.kind = kArray
			ti.arrayLen = t.Len()
			ti.elem = build(t.Elem(), building)
		case reflect.Map:
			if t.Key().Kind() != reflect.String {
				ti.err = fmt.Sprintf("map key type %s is not a string type", t.Key())
				break
			}
			ti.kind = kMap
			ti.elem = build(t.Elem(), building)
		case reflect.Struct:
			ti.kind = kStruct
			ti.typeName = ncName(t.Name())
			buildFields(ti, t, nil, building)
		default:
			ti.err = fmt.Sprintf("type %s cannot be SOAP-encoded", t)
		}
	}
	if ti.kind.simple() {
		ti.xsiType = ` xsi:type="xsd:` + xsdNames[ti.kind] + `"`
	}
	return ti
}

func buildFields(ti *typeInfo, t reflect.Type, index []int, building map[reflect.Type]*typeInfo) {
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Name == "XMLName" && sf.Type == typeName {
			continue
		}
		tag, skip := fieldName(sf)
		name := tag.name
		if skip {
			continue
		}
		idx := append(append([]int(nil), index...), i)
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct && !isSpecial(sf.Type) {
			buildFields(ti, sf.Type, idx, building)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if ti.byName == nil {
			ti.byName = map[string]int{}
		}
		if _, dup := ti.byName[name]; dup {
			continue // the shallower (earlier) field wins
		}
		f := fieldInfo{name: name, space: tag.space, index: idx, ti: build(sf.Type, building), omitEmpty: tag.omitEmpty,
			nillable: tag.nillable, open: "<" + name, close: "</" + name + ">"}
		f.required = fieldRequired(&f)
		switch {
		case !validNCName(name):
			f.ti, f.problem = &typeInfo{t: sf.Type, err: fmt.Sprintf("field %s: %q is not a valid XML element name", sf.Name, name)}, true
		case tag.nillable && !canBeNil(sf.Type):
			f.ti, f.problem = &typeInfo{t: sf.Type, err: fmt.Sprintf("field %s is tagged nillable but its type %s cannot be nil (use a pointer)", sf.Name, sf.Type)}, true
		}
		ti.byName[name] = len(ti.fields)
		ti.fields = append(ti.fields, f)
	}
}

func isSpecial(t reflect.Type) bool {
	return t == typeTime || t == typeName || t == typeBigInt || t == typeBigRat
}

// fieldTag is what a field's tags say.
type fieldTag struct {
	name, space         string
	omitEmpty, nillable bool
}

// fieldName reads the soap tag, then the xml tag:
// `soap:"name,omitempty,nillable"`, `xml:"urn:x name"`. An xml tag's name
// may start with a namespace and a space, as encoding/xml's: the field's
// element is then in that namespace. A soap tag of options only takes the
// name from the xml tag.
func fieldName(sf reflect.StructField) (tag fieldTag, skip bool) {
	soap, hasSoap := sf.Tag.Lookup("soap")
	name, opts, _ := strings.Cut(soap, ",")
	if x, ok := sf.Tag.Lookup("xml"); ok && name == "" {
		xname, xopts, _ := strings.Cut(x, ",")
		if i := strings.LastIndexByte(xname, ' '); i >= 0 {
			tag.space, xname = strings.TrimSpace(xname[:i]), xname[i+1:]
		}
		name = xname
		if !hasSoap {
			opts = xopts
		}
	}
	if name == "-" && opts == "" {
		return fieldTag{}, true
	}
	tag.name = name
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		switch o {
		case "omitempty":
			tag.omitEmpty = true
		case "nillable":
			tag.nillable = true
		}
	}
	return tag, false
}

// canBeNil reports whether a value of type t can be nil.
func canBeNil(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Map, reflect.Slice:
		return true
	}
	return false
}

// fieldRequired reports whether a field must be present when read
// strictly: what the Encoder always writes. A pointer (unless nillable), a
// slice or Go array (repeated elements, maybe none), a map or an interface,
// and an omitempty field may be absent.
func fieldRequired(f *fieldInfo) bool {
	if f.omitEmpty {
		return false
	}
	switch f.ti.kind {
	case kPtr:
		return f.nillable
	case kBigInt, kRat:
		return !f.ti.isPtr || f.nillable
	case kSlice, kArray, kMap, kIface:
		return false
	}
	return true
}

// validNCName reports whether s is a non-colonized XML name.
func validNCName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if r == '_' || unicode.IsLetter(r) {
			continue
		}
		if i > 0 && (r == '-' || r == '.' || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)) {
			continue
		}
		return false
	}
	return true
}

// ncName turns a Go type name (which may carry type arguments) into an NCName.
func ncName(s string) string {
	if s == "" || validNCName(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i, r := range s {
		ok := r == '_' || unicode.IsLetter(r) || (i > 0 && (r == '-' || r == '.' || unicode.IsDigit(r)))
		if !ok {
			r = '_'
		}
		b = utf8.AppendRune(b, r)
	}
	return strings.TrimRight(string(b), "_")
}
