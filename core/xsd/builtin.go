package xsd

import "encoding/xml"

// Kind names an XML Schema built-in simple type.
type Kind uint8

// The built-in simple types (XML Schema 1.0, and the four 1.1 adds).
const (
	KindNone Kind = iota
	KindAnySimpleType
	KindAnyAtomicType // 1.1
	// primitive
	KindString
	KindBoolean
	KindDecimal
	KindFloat
	KindDouble
	KindDuration
	KindDateTime
	KindTime
	KindDate
	KindGYearMonth
	KindGYear
	KindGMonthDay
	KindGDay
	KindGMonth
	KindHexBinary
	KindBase64Binary
	KindAnyURI
	KindQName
	KindNOTATION
	// derived from string
	KindNormalizedString
	KindToken
	KindLanguage
	KindNMTOKEN
	KindNMTOKENS
	KindName
	KindNCName
	KindID
	KindIDREF
	KindIDREFS
	KindENTITY
	KindENTITIES
	// derived from decimal
	KindInteger
	KindNonPositiveInteger
	KindNegativeInteger
	KindLong
	KindInt
	KindShort
	KindByte
	KindNonNegativeInteger
	KindUnsignedLong
	KindUnsignedInt
	KindUnsignedShort
	KindUnsignedByte
	KindPositiveInteger
	// 1.1
	KindDateTimeStamp
	KindDayTimeDuration
	KindYearMonthDuration
	numKinds
)

type builtinInfo struct {
	name string
	base Kind
	item Kind // a list type's item
}

// info returns a built-in type's name, base and (for a list) item type:
// the hierarchy of XML Schema Part 2, §3.
func (k Kind) info() builtinInfo {
	switch k {
	case KindAnySimpleType:
		return builtinInfo{"anySimpleType", KindNone, 0}
	case KindAnyAtomicType:
		return builtinInfo{"anyAtomicType", KindAnySimpleType, 0}
	case KindString:
		return builtinInfo{"string", KindAnySimpleType, 0}
	case KindBoolean:
		return builtinInfo{"boolean", KindAnySimpleType, 0}
	case KindDecimal:
		return builtinInfo{"decimal", KindAnySimpleType, 0}
	case KindFloat:
		return builtinInfo{"float", KindAnySimpleType, 0}
	case KindDouble:
		return builtinInfo{"double", KindAnySimpleType, 0}
	case KindDuration:
		return builtinInfo{"duration", KindAnySimpleType, 0}
	case KindDateTime:
		return builtinInfo{"dateTime", KindAnySimpleType, 0}
	case KindTime:
		return builtinInfo{"time", KindAnySimpleType, 0}
	case KindDate:
		return builtinInfo{"date", KindAnySimpleType, 0}
	case KindGYearMonth:
		return builtinInfo{"gYearMonth", KindAnySimpleType, 0}
	case KindGYear:
		return builtinInfo{"gYear", KindAnySimpleType, 0}
	case KindGMonthDay:
		return builtinInfo{"gMonthDay", KindAnySimpleType, 0}
	case KindGDay:
		return builtinInfo{"gDay", KindAnySimpleType, 0}
	case KindGMonth:
		return builtinInfo{"gMonth", KindAnySimpleType, 0}
	case KindHexBinary:
		return builtinInfo{"hexBinary", KindAnySimpleType, 0}
	case KindBase64Binary:
		return builtinInfo{"base64Binary", KindAnySimpleType, 0}
	case KindAnyURI:
		return builtinInfo{"anyURI", KindAnySimpleType, 0}
	case KindQName:
		return builtinInfo{"QName", KindAnySimpleType, 0}
	case KindNOTATION:
		return builtinInfo{"NOTATION", KindAnySimpleType, 0}
	case KindNormalizedString:
		return builtinInfo{"normalizedString", KindString, 0}
	case KindToken:
		return builtinInfo{"token", KindNormalizedString, 0}
	case KindLanguage:
		return builtinInfo{"language", KindToken, 0}
	case KindNMTOKEN:
		return builtinInfo{"NMTOKEN", KindToken, 0}
	case KindNMTOKENS:
		return builtinInfo{"NMTOKENS", KindAnySimpleType, KindNMTOKEN}
	case KindName:
		return builtinInfo{"Name", KindToken, 0}
	case KindNCName:
		return builtinInfo{"NCName", KindName, 0}
	case KindID:
		return builtinInfo{"ID", KindNCName, 0}
	case KindIDREF:
		return builtinInfo{"IDREF", KindNCName, 0}
	case KindIDREFS:
		return builtinInfo{"IDREFS", KindAnySimpleType, KindIDREF}
	case KindENTITY:
		return builtinInfo{"ENTITY", KindNCName, 0}
	case KindENTITIES:
		return builtinInfo{"ENTITIES", KindAnySimpleType, KindENTITY}
	case KindInteger:
		return builtinInfo{"integer", KindDecimal, 0}
	case KindNonPositiveInteger:
		return builtinInfo{"nonPositiveInteger", KindInteger, 0}
	case KindNegativeInteger:
		return builtinInfo{"negativeInteger", KindNonPositiveInteger, 0}
	case KindLong:
		return builtinInfo{"long", KindInteger, 0}
	case KindInt:
		return builtinInfo{"int", KindLong, 0}
	case KindShort:
		return builtinInfo{"short", KindInt, 0}
	case KindByte:
		return builtinInfo{"byte", KindShort, 0}
	case KindNonNegativeInteger:
		return builtinInfo{"nonNegativeInteger", KindInteger, 0}
	case KindUnsignedLong:
		return builtinInfo{"unsignedLong", KindNonNegativeInteger, 0}
	case KindUnsignedInt:
		return builtinInfo{"unsignedInt", KindUnsignedLong, 0}
	case KindUnsignedShort:
		return builtinInfo{"unsignedShort", KindUnsignedInt, 0}
	case KindUnsignedByte:
		return builtinInfo{"unsignedByte", KindUnsignedShort, 0}
	case KindPositiveInteger:
		return builtinInfo{"positiveInteger", KindNonNegativeInteger, 0}
	case KindDateTimeStamp:
		return builtinInfo{"dateTimeStamp", KindDateTime, 0}
	case KindDayTimeDuration:
		return builtinInfo{"dayTimeDuration", KindDuration, 0}
	case KindYearMonthDuration:
		return builtinInfo{"yearMonthDuration", KindDuration, 0}
	}
	return builtinInfo{}
}

// String returns the type's local name in the XML Schema namespace
// ("dateTime"), "" for KindNone.
func (k Kind) String() string {
	if k >= numKinds {
		return ""
	}
	return k.info().name
}

// Base returns the built-in type k restricts (KindAnySimpleType for a
// primitive or a built-in list, KindNone for anySimpleType).
func (k Kind) Base() Kind {
	if k >= numKinds {
		return KindNone
	}
	return k.info().base
}

// Primitive returns the primitive type k derives from (k itself for a
// primitive); KindAnySimpleType for anySimpleType, anyAtomicType and the
// built-in lists.
func (k Kind) Primitive() Kind {
	if k == KindNone || k >= numKinds {
		return KindNone
	}
	for k.Base() != KindAnySimpleType && k.Base() != KindNone {
		k = k.Base()
	}
	if k == KindAnyAtomicType || k.info().item != KindNone {
		return KindAnySimpleType
	}
	return k
}

// Item returns the item type of a built-in list type (NMTOKENS, IDREFS,
// ENTITIES), KindNone for the others.
func (k Kind) Item() Kind {
	if k >= numKinds {
		return KindNone
	}
	return k.info().item
}

// IsPrimitive reports whether k is one of the 19 primitive types.
func (k Kind) IsPrimitive() bool {
	return k != KindNone && k != KindAnySimpleType && k != KindAnyAtomicType && k.Primitive() == k
}

// DerivesFrom reports whether k is base or derives from it.
func (k Kind) DerivesFrom(base Kind) bool {
	for ; k != KindNone; k = k.Base() {
		if k == base {
			return true
		}
	}
	return false
}

// IsInteger reports whether k is xsd:integer or one of the types derived
// from it.
func (k Kind) IsInteger() bool { return k.DerivesFrom(KindInteger) }

// KindOf returns the built-in type with the given local name in the XML
// Schema namespace, KindNone if there is none.
func KindOf(local string) Kind {
	for k := KindAnySimpleType; k < numKinds; k++ {
		if k.info().name == local {
			return k
		}
	}
	return KindNone
}

// Kinds returns every built-in simple type, anySimpleType first.
func Kinds() []Kind {
	out := make([]Kind, 0, numKinds-1)
	for k := KindAnySimpleType; k < numKinds; k++ {
		out = append(out, k)
	}
	return out
}

// The namespaces the reader knows.
const (
	NamespaceXSD       = "http://www.w3.org/2001/XMLSchema"
	NamespaceXSI       = "http://www.w3.org/2001/XMLSchema-instance"
	NamespaceXML       = "http://www.w3.org/XML/1998/namespace"
	NamespaceSOAPEnc   = "http://schemas.xmlsoap.org/soap/encoding/"
	NamespaceSOAP12Enc = "http://www.w3.org/2003/05/soap-encoding"
	NamespaceWSDL      = "http://schemas.xmlsoap.org/wsdl/"
)

// Older drafts' namespaces, whose built-in type names some old toolkits
// still write: references to them resolve to the built-in types.
const (
	namespaceXSD1999 = "http://www.w3.org/1999/XMLSchema"
	namespaceXSD2000 = "http://www.w3.org/2000/10/XMLSchema"
)

func isXSDNamespace(ns string) bool {
	return ns == NamespaceXSD || ns == namespaceXSD1999 || ns == namespaceXSD2000
}

// builtinSet is one load's instances of the built-in types.
type builtinSet struct {
	simple  [numKinds]*SimpleType
	anyType *ComplexType
	schema  *Element // xs:schema, which .NET DataSets refer to (ref="s:schema")
}

func newBuiltins() *builtinSet {
	b := &builtinSet{}
	loc := Loc{File: NamespaceXSD}
	for k := KindAnySimpleType; k < numKinds; k++ {
		b.simple[k] = &SimpleType{Name: xml.Name{Space: NamespaceXSD, Local: k.info().name}, Kind: k, Loc: loc, state: 2}
	}
	for k := KindAnySimpleType; k < numKinds; k++ {
		t := b.simple[k]
		if base := k.info().base; base != KindNone {
			t.Base, t.BaseName = b.simple[base], b.simple[base].Name
		}
		if item := k.info().item; item != KindNone {
			t.Variety, t.Item, t.ItemName = List, b.simple[item], b.simple[item].Name
		}
	}
	any := &Wildcard{Namespace: "##any", Any: true, Process: "lax", Loc: loc}
	b.anyType = &ComplexType{
		Name:    xml.Name{Space: NamespaceXSD, Local: "anyType"},
		Loc:     loc,
		Mixed:   true,
		Content: MixedContent,
		Particle: &Particle{Min: 1, Max: 1, Loc: loc, Group: &ModelGroup{Compositor: Sequence, Loc: loc,
			Particles: []*Particle{{Min: 0, Max: Unbounded, Loc: loc, Any: any}}}},
		AnyAttribute: any,
		anyAll:       true,
		state:        2,
	}
	b.anyType.effective, b.anyType.anyAttr = b.anyType.Particle, any
	b.schema = &Element{Name: xml.Name{Space: NamespaceXSD, Local: "schema"}, Loc: loc, Global: true, Qualified: true, Type: b.anyType,
		Doc: "An XML Schema document (read as anyType: its content is not checked)."}
	return b
}

// lookup returns the built-in type {ns}local (anyType included), nil if
// there is none.
func (b *builtinSet) lookup(n xml.Name) Type {
	if !isXSDNamespace(n.Space) {
		return nil
	}
	if n.Local == "anyType" {
		return b.anyType
	}
	if k := KindOf(n.Local); k != KindNone {
		return b.simple[k]
	}
	return nil
}
