package xsd_test

import (
	"encoding/xml"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/xsd"
)

const (
	shop   = "urn:shop"
	common = "urn:common"
	xs     = xsd.NamespaceXSD
)

func loadShop(t *testing.T) *xsd.Set {
	t.Helper()
	set, err := xsd.Load(t.Context(), xsd.FSLoader(os.DirFS("testdata")), "shop.xsd")
	require.NoError(t, err)
	return set
}

func q(space, local string) xml.Name { return xml.Name{Space: space, Local: local} }

// particles returns the particles of a type's effective content, a 1..1
// top sequence opened.
func particles(t *testing.T, ct *xsd.ComplexType) []*xsd.Particle {
	t.Helper()
	p := ct.EffectiveParticle()
	require.NotNil(t, p)
	require.NotNil(t, p.Group)
	return p.Group.Particles
}

// TestLoadSchemas: imports and includes are read once each (the import
// cycle too), relative to the importing document, ISO-8859-1 included; the
// catalog gives the namespaces imported without a location or referred to.
func TestLoadSchemas(t *testing.T) {
	set := loadShop(t)
	var locs []string
	for _, s := range set.Schemas() {
		locs = append(locs, s.Location+" "+s.TargetNamespace)
	}
	assert.ElementsMatch(t, []string{
		"shop.xsd urn:shop",
		"common/common.xsd urn:common",
		"parts.xsd urn:shop",
		"soapwire:soap-encoding.xsd http://schemas.xmlsoap.org/soap/encoding/",
		"soapwire:xml.xsd http://www.w3.org/XML/1998/namespace",
	}, locs)
	assert.Equal(t, []string{"http://schemas.xmlsoap.org/soap/encoding/", "http://www.w3.org/XML/1998/namespace", common, shop}, set.Namespaces())
	s := set.Schemas()[0]
	assert.Equal(t, "The shop's schema.", s.Doc)
	assert.True(t, s.ElementFormQualified)
	assert.False(t, s.AttributeFormQualified)
	require.Len(t, s.Imports, 3)
	assert.Equal(t, xsd.Import{Namespace: common, Schema: "common/common.xsd", Loaded: "common/common.xsd", Loc: xsd.Loc{File: "shop.xsd", Line: 8}}, *s.Imports[0])
	assert.True(t, s.Imports[2].Include)
	party := set.Type(q(common, "Party"))
	require.NotNil(t, party)
	assert.Equal(t, "Who orders: a person or a company (Société).", party.Documentation(), "transcoded from ISO-8859-1")
	assert.Equal(t, xsd.Loc{File: "common/common.xsd", Line: 6}, party.Location())
}

// TestElements: names on the wire (qualified, unqualified, chameleon),
// references to global elements, types, nillable, default and fixed.
func TestElements(t *testing.T) {
	set := loadShop(t)
	order := set.Element(q(shop, "order"))
	require.NotNil(t, order)
	assert.True(t, order.Global)
	assert.Equal(t, "An order.", order.Doc)
	assert.Equal(t, q(shop, "Order"), order.TypeName)
	require.Len(t, order.Constraints, 1)
	assert.Equal(t, xsd.IdentityConstraint{Kind: "key", Name: q(shop, "lineKey"), Selector: "tns:line", Fields: []string{"@no"}, Loc: xsd.Loc{File: "shop.xsd", Line: 14}}, *order.Constraints[0])

	ot := order.Type.(*xsd.ComplexType)
	assert.Equal(t, set.Type(q(shop, "Order")), xsd.Type(ot))
	ps := particles(t, ot)
	require.Len(t, ps, 8)
	customer, line, note, total, choice, audit, extra, any := ps[0], ps[1], ps[2], ps[3], ps[4], ps[5], ps[6], ps[7]

	assert.Equal(t, q(shop, "customer"), customer.Element.Name, "elementFormDefault qualified")
	assert.Equal(t, set.Type(q(common, "Party")), customer.Element.Type)
	assert.Equal(t, ot, customer.Element.Scope)
	assert.False(t, customer.Element.Global)

	assert.Equal(t, 1, line.Min)
	assert.Equal(t, xsd.Unbounded, line.Max)
	assert.True(t, line.Repeated())

	assert.Equal(t, q("", "note"), note.Element.Name, "form=unqualified")
	assert.False(t, note.Element.Qualified)
	assert.True(t, note.Optional())

	assert.True(t, total.Element.Nillable)
	assert.Equal(t, set.Builtin(xsd.KindDecimal), total.Element.Type)

	require.NotNil(t, choice.Group)
	assert.Equal(t, xsd.Choice, choice.Group.Compositor)
	assert.Equal(t, 0, choice.Min)
	invoice := choice.Group.Particles[1].Element
	require.NotNil(t, invoice.Default)
	assert.Equal(t, "true", *invoice.Default)

	require.NotNil(t, audit.GroupRef)
	assert.Equal(t, set.Group(q(shop, "Audit")), audit.GroupRef)
	assert.Equal(t, audit.GroupRef.Model, audit.Group)
	assert.Equal(t, set.Group(q(shop, "Audit")), audit.Group.Particles[0].Element.InGroup)

	assert.Equal(t, set.Element(q(shop, "extra")), extra.Element, "a reference is the global element")
	assert.True(t, extra.Element.Global)
	ex := extra.Element.Type.(*xsd.ComplexType)
	assert.Equal(t, q(shop, "Extra"), ex.Name, "a chameleon include's types take the includer's namespace")
	assert.Equal(t, q("", "key"), particles(t, ex)[0].Element.Name, "and its own elementFormDefault")

	require.NotNil(t, any.Any)
	assert.True(t, any.Any.Other)
	assert.Equal(t, "lax", any.Any.Process)
	assert.False(t, any.Any.Allows(shop))
	assert.False(t, any.Any.Allows(""))
	assert.True(t, any.Any.Allows("urn:elsewhere"))

	lt := line.Element.Type.(*xsd.ComplexType)
	all := lt.EffectiveParticle().Group
	assert.Equal(t, xsd.All, all.Compositor)
	require.NotNil(t, all.Particles[1].Element.Fixed)
	assert.Equal(t, "1", *all.Particles[1].Element.Fixed)

	anything := set.Element(q(shop, "anything"))
	assert.Equal(t, set.AnyType(), anything.Type, "no type: anyType")
	assert.True(t, set.AnyType().IsAnyType())
	assert.Equal(t, xsd.MixedContent, set.AnyType().Content)
}

// TestAttributes: declared, referred to, from attribute groups (nested,
// across namespaces), with use, defaults and wildcards.
func TestAttributes(t *testing.T) {
	set := loadShop(t)
	ot := set.Type(q(shop, "Order")).(*xsd.ComplexType)
	var names []string
	for _, u := range ot.EffectiveAttributes() {
		names = append(names, u.Attribute.Name.Local+":"+u.Use.String())
	}
	assert.Equal(t, []string{"id:required", "currency:optional", "trace:optional", "version:optional"}, names)
	cur := ot.EffectiveAttributes()[1]
	assert.Equal(t, q("", "currency"), cur.Attribute.Name, "attributeFormDefault unqualified")
	assert.Equal(t, "EUR", *cur.ValueDefault())
	assert.Equal(t, set.Type(q(shop, "Currency")), xsd.Type(cur.Attribute.Type))
	version := ot.EffectiveAttributes()[3]
	assert.Equal(t, "1", *version.ValueDefault())
	assert.Equal(t, xsd.Loc{File: "common/common.xsd", Line: 14}, version.Loc)
	require.Len(t, ot.AttributeGroups, 1)
	assert.Equal(t, set.AttributeGroup(q(common, "Versioned")), ot.AttributeGroups[0].Groups[0])
	require.NotNil(t, ot.EffectiveAnyAttribute())
	assert.Equal(t, "skip", ot.EffectiveAnyAttribute().Process)
	assert.True(t, ot.EffectiveAnyAttribute().Allows("urn:x"))

	mixed := set.Type(q(shop, "Mixed")).(*xsd.ComplexType)
	assert.Equal(t, xsd.MixedContent, mixed.Content)
	lang := mixed.EffectiveAttributes()[0]
	assert.True(t, lang.Ref)
	assert.Equal(t, q(xsd.NamespaceXML, "lang"), lang.Attribute.Name, "xml.xsd from the catalog")
	assert.Equal(t, set.Attribute(q(xsd.NamespaceXML, "lang")), lang.Attribute)

	assert.Equal(t, xsd.EmptyContent, set.Type(q(shop, "Empty")).(*xsd.ComplexType).Content)
}

// TestDerivation: complex content extension and restriction, simple content
// extension and restriction, abstract types, derived type lists.
func TestDerivation(t *testing.T) {
	set := loadShop(t)
	order := set.Type(q(shop, "Order")).(*xsd.ComplexType)
	rush := set.Type(q(shop, "RushOrder")).(*xsd.ComplexType)
	assert.Equal(t, xsd.Extended, rush.Derivation)
	assert.Equal(t, xsd.Type(order), rush.Base)
	ps := particles(t, rush)
	require.Len(t, ps, 2, "the base's content, then the extension's")
	assert.Equal(t, order.EffectiveParticle(), ps[0])
	assert.Equal(t, q(shop, "deadline"), ps[1].Group.Particles[0].Element.Name)
	require.Len(t, rush.EffectiveAttributes(), 5)
	assert.Equal(t, "priority", rush.EffectiveAttributes()[4].Attribute.Name.Local)

	small := set.Type(q(shop, "SmallOrder")).(*xsd.ComplexType)
	assert.Equal(t, xsd.Restricted, small.Derivation)
	assert.Len(t, particles(t, small), 5, "a restriction's content is what it writes")
	assert.Equal(t, 3, particles(t, small)[1].Max)
	var names []string
	for _, u := range small.EffectiveAttributes() {
		names = append(names, u.Attribute.Name.Local)
	}
	assert.Equal(t, []string{"id", "trace", "version"}, names, "prohibited attributes go, the others are inherited")

	assert.ElementsMatch(t, []*xsd.ComplexType{rush, small}, order.Derived)
	assert.ElementsMatch(t, []*xsd.ComplexType{rush, small}, set.DerivedTypes(order))

	price := set.Type(q(shop, "Price")).(*xsd.ComplexType)
	assert.Equal(t, xsd.SimpleContent, price.Content)
	assert.Equal(t, set.Builtin(xsd.KindDecimal), price.SimpleType)
	assert.Nil(t, price.EffectiveParticle())
	sp := set.Type(q(shop, "SmallPrice")).(*xsd.ComplexType)
	assert.Equal(t, xsd.SimpleContent, sp.Content)
	require.NotNil(t, sp.SimpleType.Facets.MaxExclusive)
	assert.Equal(t, "100", *sp.SimpleType.Facets.MaxExclusive)
	assert.Equal(t, set.Builtin(xsd.KindDecimal), sp.SimpleType.Base)
	assert.Equal(t, sp, sp.SimpleType.Context)
	assert.Equal(t, "currency", sp.EffectiveAttributes()[0].Attribute.Name.Local)

	payment := set.Type(q(shop, "Payment")).(*xsd.ComplexType)
	assert.True(t, payment.Abstract)
	assert.Equal(t, []*xsd.ComplexType{set.Type(q(shop, "Transfer")).(*xsd.ComplexType)}, payment.Derived)
}

// TestSimpleTypes: facets, their inheritance, lists, unions, built-ins.
func TestSimpleTypes(t *testing.T) {
	set := loadShop(t)
	cur := set.Type(q(shop, "Currency")).(*xsd.SimpleType)
	assert.Equal(t, xsd.Atomic, cur.Variety)
	assert.Equal(t, set.Builtin(xsd.KindString), cur.Base)
	require.Len(t, cur.Facets.Enumeration, 2)
	assert.Equal(t, "EUR", cur.Facets.Enumeration[0].Value)
	assert.Equal(t, "Euro", cur.Facets.Enumeration[0].Doc)
	assert.Equal(t, 3, *cur.Facets.Length)
	assert.Equal(t, "collapse", cur.Facets.WhiteSpace)
	assert.Equal(t, xsd.KindString, cur.Primitive())

	sku := set.Type(q(shop, "Sku")).(*xsd.SimpleType)
	assert.Equal(t, []string{`[A-Z]{3}-\d+`}, sku.Facets.Patterns)
	assert.Equal(t, 5, *sku.Facets.MinLength)
	assert.Equal(t, 20, *sku.Facets.MaxLength)
	assert.Equal(t, set.Builtin(xsd.KindToken), sku.Builtin())
	assert.Equal(t, xsd.KindString, sku.Primitive())

	small := set.Type(q(shop, "SmallAmount")).(*xsd.SimpleType)
	f := small.EffectiveFacets()
	assert.Equal(t, "100", *f.MaxInclusive, "its own facet")
	assert.Equal(t, "0", *f.MinInclusive, "its base's")
	assert.Equal(t, 9, *f.TotalDigits)
	assert.Equal(t, 2, *f.FractionDigits)
	assert.Equal(t, xsd.KindDecimal, small.Primitive())
	assert.Equal(t, []*xsd.SimpleType{small}, set.Type(q(shop, "Amount")).(*xsd.SimpleType).Derived)

	skus := set.Type(q(shop, "Skus")).(*xsd.SimpleType)
	assert.Equal(t, xsd.List, skus.Variety)
	assert.Equal(t, sku, skus.Item)
	short := set.Type(q(shop, "ShortSkus")).(*xsd.SimpleType)
	assert.Equal(t, xsd.List, short.Variety, "a restriction of a list is a list")
	assert.Equal(t, sku, short.Item)

	u := set.Type(q(shop, "SkuOrCount")).(*xsd.SimpleType)
	assert.Equal(t, xsd.Union, u.Variety)
	require.Len(t, u.Members, 3)
	assert.Equal(t, sku, u.Members[0], "memberTypes first")
	assert.Equal(t, set.Builtin(xsd.KindInt), u.Members[1])
	assert.Equal(t, u, u.Members[2].Context, "then the inline members")
	assert.Equal(t, xsd.KindDate, u.Members[2].Primitive())

	nm := set.Builtin(xsd.KindNMTOKENS)
	assert.Equal(t, xsd.List, nm.Variety)
	assert.Equal(t, set.Builtin(xsd.KindNMTOKEN), nm.Item)
	assert.Equal(t, set.Builtin(xsd.KindInt), set.Type(q("http://www.w3.org/1999/XMLSchema", "int")), "the 1999 draft's names")
}

// TestSubstitutionGroups: members, their types, abstract heads.
func TestSubstitutionGroups(t *testing.T) {
	set := loadShop(t)
	payment := set.Element(q(shop, "payment"))
	cash := set.Element(q(shop, "cash"))
	transfer := set.Element(q(shop, "transfer"))
	assert.True(t, payment.Abstract)
	assert.Equal(t, []*xsd.Element{cash, transfer}, payment.Substitutes)
	assert.Equal(t, []*xsd.Element{cash, transfer}, set.SubstitutionGroup(payment))
	assert.Equal(t, payment, cash.SubstitutionGroup)
	assert.Equal(t, payment.Type, cash.Type, "no type of its own: the head's")
	assert.Equal(t, set.Type(q(shop, "Transfer")), transfer.Type)
}

// TestArrays: SOAP-encoded arrays read from wsdl:arrayType.
func TestArrays(t *testing.T) {
	set := loadShop(t)
	a := set.Type(q(shop, "ArrayOfLine")).(*xsd.ComplexType).Array
	require.NotNil(t, a)
	assert.Equal(t, set.Type(q(shop, "Line")), a.ItemType)
	assert.Equal(t, "[]", a.Dimensions)
	assert.Equal(t, xsd.NamespaceSOAPEnc, a.Encoding)
	m := set.Type(q(shop, "Matrix")).(*xsd.ComplexType).Array
	require.NotNil(t, m)
	assert.Equal(t, set.Builtin(xsd.KindDouble).Name, m.ItemTypeName)
	assert.Equal(t, "[][]", m.Dimensions)
	assert.Equal(t, "[]", m.ItemTypePrefix(), "an array of arrays: its items are double[]")
	assert.Equal(t, set.Builtin(xsd.KindDouble), m.ItemType.(*xsd.ComplexType).Array.ItemType)
	assert.Nil(t, set.Type(q(shop, "Order")).(*xsd.ComplexType).Array)
}

// TestLookups: sorted listings, and what is not there.
func TestLookups(t *testing.T) {
	set := loadShop(t)
	var els []string
	for _, e := range set.Elements() {
		if e.Name.Space == shop {
			els = append(els, e.Name.Local)
		}
	}
	assert.Equal(t, []string{"anything", "cash", "extra", "order", "payment", "transfer"}, els)
	assert.Nil(t, set.Element(q(shop, "nope")))
	assert.Nil(t, set.Type(q(shop, "nope")))
	assert.Nil(t, set.Type(q(xs, "nope")))
	assert.Equal(t, set.AnyType(), set.Type(q(xs, "anyType")))
	assert.Equal(t, set.AnyType(), set.Element(q(xs, "schema")).Type)
	types := set.Types()
	for i := 1; i < len(types); i++ {
		a, b := types[i-1].TypeName(), types[i].TypeName()
		assert.True(t, a.Space < b.Space || a.Space == b.Space && a.Local < b.Local, "%v before %v", a, b)
	}
	assert.Empty(t, set.Warnings())
}
