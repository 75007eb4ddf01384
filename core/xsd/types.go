package xsd

import "encoding/xml"

// Type is a simple or a complex type definition: *SimpleType or
// *ComplexType.
type Type interface {
	Component
	// TypeName is the type's name; zero for an anonymous type.
	TypeName() xml.Name
	// BaseType is the type it derives from: anyType for a complex type with
	// no derivation written; nil for anyType and anySimpleType.
	BaseType() Type
	isType()
}

// Variety is a simple type's kind of value.
type Variety uint8

const (
	Atomic Variety = iota
	List
	Union
)

func (v Variety) String() string {
	switch v {
	case List:
		return "list"
	case Union:
		return "union"
	}
	return "atomic"
}

// SimpleType is a simple type definition: a built-in type, or a restriction,
// list or union.
type SimpleType struct {
	Name xml.Name // zero when anonymous
	Loc  Loc
	Doc  string
	// Kind is the built-in type this is, for a built-in; KindNone for a
	// type of a schema (see Builtin).
	Kind    Kind
	Variety Variety
	// Base is the type restricted (a built-in's is the next one up the
	// hierarchy; anySimpleType's is nil). A list or union written as such
	// has anySimpleType.
	Base     *SimpleType
	BaseName xml.Name
	// Facets are the facets this restriction writes (see EffectiveFacets).
	Facets Facets
	// Item is a list's item type; Members are a union's member types. Both
	// are inherited by a restriction of a list or union.
	Item        *SimpleType
	ItemName    xml.Name
	Members     []*SimpleType
	MemberNames []xml.Name
	Final       string
	// Context is the component an anonymous type is written in: an
	// *Element, *Attribute, *SimpleType (a list's item, a union's member, a
	// restriction's base) or *ComplexType (simple content); nil when named.
	Context Component
	// Derived are the named simple types whose base this is.
	Derived []*SimpleType
	Schema  *Schema // nil for a built-in

	state       uint8 // resolution: 0 not yet, 1 in progress, 2 done
	fromComplex bool  // a simple content restriction's value type: its base is the base type's value type
}

func (t *SimpleType) Location() Loc         { return t.Loc }
func (t *SimpleType) Documentation() string { return t.Doc }
func (*SimpleType) component()              {}
func (*SimpleType) isType()                 {}
func (t *SimpleType) TypeName() xml.Name    { return t.Name }

func (t *SimpleType) BaseType() Type {
	if t.Base == nil {
		return nil
	}
	return t.Base
}

// IsBuiltin reports whether t is one of the XML Schema built-in types.
func (t *SimpleType) IsBuiltin() bool { return t.Kind != KindNone }

// Builtin returns the nearest built-in type t is or derives from: xsd:int
// for a restriction of xsd:int. A list or union gives anySimpleType.
func (t *SimpleType) Builtin() *SimpleType {
	for s, n := t, 0; s != nil && n < maxChain; s, n = s.Base, n+1 {
		if s.Kind != KindNone {
			return s
		}
	}
	return nil
}

// Primitive returns the primitive built-in t derives from (xsd:decimal for
// xsd:int), KindAnySimpleType for a list or union.
func (t *SimpleType) Primitive() Kind {
	if b := t.Builtin(); b != nil {
		return b.Kind.Primitive()
	}
	return KindNone
}

// EffectiveFacets returns the facets that constrain t's values: its own
// over those of its bases (an enumeration or a pattern written on a type
// replaces its base's).
func (t *SimpleType) EffectiveFacets() Facets {
	var chain []*SimpleType
	for s, n := t, 0; s != nil && n < maxChain; s, n = s.Base, n+1 {
		chain = append(chain, s)
	}
	var f Facets
	for i := len(chain) - 1; i >= 0; i-- {
		f = f.over(chain[i].Facets)
	}
	return f
}

// maxChain bounds walks up a derivation chain (cycles are refused when the
// set is built; this is a second guard).
const maxChain = 1024

// Facets are the constraining facets of a simple type restriction.
type Facets struct {
	Enumeration    []Enum
	Patterns       []string // each a regular expression of XML Schema's dialect
	Length         *int
	MinLength      *int
	MaxLength      *int
	MinInclusive   *string
	MaxInclusive   *string
	MinExclusive   *string
	MaxExclusive   *string
	TotalDigits    *int
	FractionDigits *int
	WhiteSpace     string // "preserve", "replace" or "collapse"; "" when not written
}

// over returns f with the facets g writes put over it.
func (f Facets) over(g Facets) Facets {
	if g.Enumeration != nil {
		f.Enumeration = g.Enumeration
	}
	if g.Patterns != nil {
		f.Patterns = g.Patterns
	}
	pick := func(a, b *int) *int {
		if b != nil {
			return b
		}
		return a
	}
	picks := func(a, b *string) *string {
		if b != nil {
			return b
		}
		return a
	}
	f.Length, f.MinLength, f.MaxLength = pick(f.Length, g.Length), pick(f.MinLength, g.MinLength), pick(f.MaxLength, g.MaxLength)
	f.TotalDigits, f.FractionDigits = pick(f.TotalDigits, g.TotalDigits), pick(f.FractionDigits, g.FractionDigits)
	f.MinInclusive, f.MaxInclusive = picks(f.MinInclusive, g.MinInclusive), picks(f.MaxInclusive, g.MaxInclusive)
	f.MinExclusive, f.MaxExclusive = picks(f.MinExclusive, g.MinExclusive), picks(f.MaxExclusive, g.MaxExclusive)
	if g.WhiteSpace != "" {
		f.WhiteSpace = g.WhiteSpace
	}
	return f
}

// Enum is one xs:enumeration value.
type Enum struct {
	Value string
	// QName is Value resolved as a QName where it is one (it means
	// something only when the type's primitive is QName or NOTATION).
	QName xml.Name
	Doc   string
	Loc   Loc
}

// Derivation is how a complex type derives from its base.
type Derivation uint8

const (
	// Restricted: a restriction, or no derivation written (a restriction of
	// anyType).
	Restricted Derivation = iota
	Extended
)

func (d Derivation) String() string {
	if d == Extended {
		return "extension"
	}
	return "restriction"
}

// ContentKind is what a complex type's elements hold.
type ContentKind uint8

const (
	EmptyContent   ContentKind = iota // attributes only
	SimpleContent                     // a value of SimpleType, and attributes
	ElementContent                    // child elements
	MixedContent                      // child elements and text
)

func (c ContentKind) String() string {
	switch c {
	case SimpleContent:
		return "simple"
	case ElementContent:
		return "element-only"
	case MixedContent:
		return "mixed"
	}
	return "empty"
}

// ComplexType is a complex type definition.
type ComplexType struct {
	Name       xml.Name // zero when anonymous
	Loc        Loc
	Doc        string
	Abstract   bool
	Mixed      bool
	Derivation Derivation
	// Base is the type derived from (a *SimpleType for simple content
	// extending a simple type); BaseName is zero when no derivation is
	// written (then Base is anyType).
	Base     Type
	BaseName xml.Name
	Content  ContentKind
	// SimpleType is a simple-content type's value type (for a restriction
	// with facets, an anonymous restriction of the base's).
	SimpleType *SimpleType
	// Particle is the content model this definition writes: for an
	// extension, only what it adds to its base (see EffectiveParticle).
	Particle *Particle
	// Attributes, AttributeGroups and AnyAttribute are what this definition
	// writes (see EffectiveAttributes).
	Attributes      []*AttributeUse
	AttributeGroups []*AttributeGroup
	AnyAttribute    *Wildcard
	Block, Final    string
	// Array describes a SOAP-encoded array type (a restriction of the SOAP
	// encoding's Array); nil otherwise.
	Array *ArrayInfo
	// Context is the *Element an anonymous type is written in; nil when
	// named.
	Context Component
	// Derived are the complex types whose base this is (for xsi:type).
	Derived []*ComplexType
	Schema  *Schema // nil for anyType

	groupRefs []ref
	anyAll    bool // anyType's content: any elements, any attributes
	state     uint8
	effective *Particle
	attrs     []*AttributeUse
	anyAttr   *Wildcard
}

func (t *ComplexType) Location() Loc         { return t.Loc }
func (t *ComplexType) Documentation() string { return t.Doc }
func (*ComplexType) component()              {}
func (*ComplexType) isType()                 {}
func (t *ComplexType) TypeName() xml.Name    { return t.Name }

func (t *ComplexType) BaseType() Type {
	if t.Base == nil {
		return nil
	}
	return t.Base
}

// IsAnyType reports whether t is xsd:anyType.
func (t *ComplexType) IsAnyType() bool { return t.anyAll }

// EffectiveParticle returns t's whole content model: for an extension, a
// sequence of its base's content model followed by what it adds; for a
// restriction, what it writes. Nil when t has no element content.
func (t *ComplexType) EffectiveParticle() *Particle { return t.effective }

// EffectiveAttributes returns every attribute t allows: its base's
// (replaced by the ones it redeclares, without the prohibited ones), then
// its own and those of its attribute groups, in that order.
func (t *ComplexType) EffectiveAttributes() []*AttributeUse { return t.attrs }

// EffectiveAnyAttribute returns the attribute wildcard that applies: its
// own, its attribute groups', or for an extension its base's.
func (t *ComplexType) EffectiveAnyAttribute() *Wildcard { return t.anyAttr }

// ArrayInfo describes a SOAP-encoded array type.
type ArrayInfo struct {
	// ItemType is the type of the items; ItemTypeName is the name written
	// in wsdl:arrayType (or the item element's type). For an array of
	// arrays ("xsd:int[][]") the items are arrays: ItemType is an anonymous
	// array type of ItemTypeName with the rank groups before the last
	// ("[]"), and ItemTypePrefix says what the arrayType writes after the
	// name.
	ItemType     Type
	ItemTypeName xml.Name
	// Dimensions is the rank part of the arrayType: "[]" for a
	// one-dimensional array, "[,]" for two (whose items are read and
	// written in one flat list), "[][]" for an array of arrays.
	Dimensions string
	// ItemElement is the element the restriction declares for the items,
	// if it declares one.
	ItemElement *Element
	// Encoding is the SOAP encoding namespace (SOAP 1.1's or 1.2's).
	Encoding string
}
