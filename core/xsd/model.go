package xsd

import (
	"encoding/xml"
	"strconv"
)

// Loc is where a component is written: the document's location (as loaded,
// a path or a URL) and the line of its element.
type Loc struct {
	File string
	Line int
}

func (l Loc) String() string {
	if l.Line == 0 {
		return l.File
	}
	return l.File + ":" + strconv.Itoa(l.Line)
}

// Unbounded is a Particle's Max for maxOccurs="unbounded".
const Unbounded = -1

// Component is what every schema component is: something written at a
// place, with its documentation (xs:annotation/xs:documentation, trimmed;
// several are separated by a blank line).
type Component interface {
	Location() Loc
	Documentation() string
	component()
}

// Schema is one xs:schema element: a schema document, or one held in a
// WSDL's types.
type Schema struct {
	TargetNamespace        string // an included schema without one takes its includer's ("chameleon")
	Location               string // the document it is in
	Loc                    Loc
	Doc                    string
	ElementFormQualified   bool // elementFormDefault="qualified"
	AttributeFormQualified bool // attributeFormDefault="qualified"
	BlockDefault           string
	FinalDefault           string
	Imports                []*Import // xs:import, and xs:include (Include set)

	// The global components it declares, in document order.
	Elements        []*Element
	Attributes      []*Attribute
	Types           []Type
	Groups          []*Group
	AttributeGroups []*AttributeGroup
}

// Import is an xs:import or an xs:include.
type Import struct {
	Include   bool   // xs:include
	Namespace string // xs:import's namespace ("" for none)
	Schema    string // the schemaLocation as written ("" for none)
	Loaded    string // the location of the document loaded for it ("" when none was: the namespace was known, or came from the catalog by namespace)
	Loc       Loc
}

// Element is an element declaration: a global one, or a local one inside a
// complex type or a named group. A particle that refers to a global element
// (ref) points at the global Element itself.
type Element struct {
	// Name is the element's name on the wire: a global element and a
	// qualified local one (form, elementFormDefault) are in the target
	// namespace, an unqualified local one is in no namespace.
	Name      xml.Name
	Loc       Loc
	Doc       string
	Global    bool
	Qualified bool // Name.Space is the target namespace (always for a global element)
	// Type is the element's type: named (TypeName), anonymous (its Context
	// is this element), its substitution group head's, or anyType.
	Type     Type
	TypeName xml.Name // the type attribute; zero when the type is anonymous or implied
	Nillable bool
	Abstract bool
	Default  *string
	Fixed    *string
	Block    string
	Final    string
	// SubstitutionGroup is the head of the group the element belongs to;
	// Substitutes are the elements that name this one as their head.
	SubstitutionGroup     *Element
	SubstitutionGroupName xml.Name
	Substitutes           []*Element
	// Scope is the complex type a local element is declared in (nil for a
	// global element and one in a named group: see InGroup).
	Scope       *ComplexType
	InGroup     *Group
	Constraints []*IdentityConstraint
	Schema      *Schema
	// ExpectedContentTypes is the declaration's xmime:expectedContentTypes
	// attribute ("image/png, image/*"), "" when it has none: the media
	// types a base64Binary value may have, and the mark of a binary that
	// travels as an MTOM part (see MIMEBinary).
	ExpectedContentTypes string
}

func (e *Element) Location() Loc         { return e.Loc }
func (e *Element) Documentation() string { return e.Doc }
func (*Element) component()              {}

// IdentityConstraint is an xs:unique, xs:key or xs:keyref, recorded (not
// checked).
type IdentityConstraint struct {
	Kind     string // "unique", "key" or "keyref"
	Name     xml.Name
	Refer    xml.Name // keyref's
	Selector string
	Fields   []string
	Loc      Loc
}

// Attribute is an attribute declaration.
type Attribute struct {
	Name      xml.Name // a global attribute and a qualified local one are in the target namespace
	Loc       Loc
	Doc       string
	Global    bool
	Qualified bool
	Type      *SimpleType // anySimpleType when none is given
	TypeName  xml.Name
	Default   *string
	Fixed     *string
	Schema    *Schema
}

func (a *Attribute) Location() Loc         { return a.Loc }
func (a *Attribute) Documentation() string { return a.Doc }
func (*Attribute) component()              {}

// Use says whether an attribute may, must or must not appear.
type Use uint8

const (
	Optional Use = iota
	Required
	Prohibited
)

func (u Use) String() string {
	switch u {
	case Required:
		return "required"
	case Prohibited:
		return "prohibited"
	}
	return "optional"
}

// AttributeUse is an attribute as a complex type or attribute group uses it:
// a local declaration or a reference to a global one.
type AttributeUse struct {
	Attribute *Attribute
	Ref       bool // Attribute is the global one referred to
	Use       Use
	Default   *string // the use's own value constraint, over the declaration's
	Fixed     *string
	// ArrayType is the wsdl:arrayType written on a reference to the SOAP
	// encoding's arrayType ("xsd:string[]"), resolved in ComplexType.Array.
	ArrayType string
	Loc       Loc

	ref        xml.Name
	arrayItem  xml.Name // ArrayType's type, resolved where it is written
	arrayDims  string   // ArrayType's rank part
	arrayValid bool
}

// ValueDefault returns the default value that applies (the use's, else the
// declaration's).
func (u *AttributeUse) ValueDefault() *string {
	if u.Default != nil {
		return u.Default
	}
	return u.Attribute.Default
}

// ValueFixed returns the fixed value that applies.
func (u *AttributeUse) ValueFixed() *string {
	if u.Fixed != nil {
		return u.Fixed
	}
	return u.Attribute.Fixed
}

// AttributeGroup is a named xs:attributeGroup.
type AttributeGroup struct {
	Name         xml.Name
	Loc          Loc
	Doc          string
	Attributes   []*AttributeUse
	Groups       []*AttributeGroup // attribute groups it refers to
	AnyAttribute *Wildcard
	Schema       *Schema

	groupRefs []ref
}

func (g *AttributeGroup) Location() Loc         { return g.Loc }
func (g *AttributeGroup) Documentation() string { return g.Doc }
func (*AttributeGroup) component()              {}

// Compositor is a model group's kind.
type Compositor uint8

const (
	Sequence Compositor = iota
	Choice
	All
)

func (c Compositor) String() string {
	switch c {
	case Choice:
		return "choice"
	case All:
		return "all"
	}
	return "sequence"
}

// ModelGroup is an xs:sequence, xs:choice or xs:all.
type ModelGroup struct {
	Compositor Compositor
	Particles  []*Particle
	Loc        Loc
	Doc        string
}

func (g *ModelGroup) Location() Loc         { return g.Loc }
func (g *ModelGroup) Documentation() string { return g.Doc }
func (*ModelGroup) component()              {}

// Group is a named xs:group.
type Group struct {
	Name   xml.Name
	Model  *ModelGroup
	Loc    Loc
	Doc    string
	Schema *Schema
}

func (g *Group) Location() Loc         { return g.Loc }
func (g *Group) Documentation() string { return g.Doc }
func (*Group) component()              {}

// Particle is a term with its occurrence bounds: exactly one of Element,
// Group and Any is set. A reference to a named group sets GroupRef and
// Group (its model group, shared by every reference).
type Particle struct {
	Min, Max int // Max is Unbounded for maxOccurs="unbounded"
	Loc      Loc
	Element  *Element
	Group    *ModelGroup
	GroupRef *Group
	Any      *Wildcard

	ref ref // an element or group reference, until resolved
}

// Optional reports whether the particle may be absent (minOccurs="0").
func (p *Particle) Optional() bool { return p.Min == 0 }

// Repeated reports whether the particle may occur more than once.
func (p *Particle) Repeated() bool { return p.Max == Unbounded || p.Max > 1 }

// Wildcard is an xs:any or xs:anyAttribute.
type Wildcard struct {
	// Namespace is the namespace constraint as written ("##any" when none
	// was); Any, Other and Namespaces are what it means.
	Namespace  string
	Any        bool     // ##any
	Other      bool     // ##other: any namespace but the target namespace and none
	Namespaces []string // the listed namespaces, "" for ##local, ##targetNamespace resolved
	Process    string   // "strict", "lax" or "skip"
	TargetNS   string
	Loc        Loc
	Doc        string
}

func (w *Wildcard) Location() Loc         { return w.Loc }
func (w *Wildcard) Documentation() string { return w.Doc }
func (*Wildcard) component()              {}

// Allows reports whether an element or attribute in namespace ns matches.
func (w *Wildcard) Allows(ns string) bool {
	switch {
	case w.Any:
		return true
	case w.Other:
		return ns != "" && ns != w.TargetNS
	}
	for _, n := range w.Namespaces {
		if n == ns {
			return true
		}
	}
	return false
}

// ref is a reference by QName until the resolver replaces it with a pointer.
type ref struct {
	kind refKind
	name xml.Name
	loc  Loc
}

type refKind uint8

const (
	refNone refKind = iota
	refElement
	refGroup
	refAttributeGroup
)
