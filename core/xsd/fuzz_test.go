package xsd_test

import (
	"os"
	"testing"

	"github.com/soapwire/soapwire/core/xsd"
)

// FuzzLoad: any two documents (the second imported or included by the
// first under the name b.xsd) load or fail within small limits, without a
// panic or a hang, and the model of what loads can be walked to the end.
func FuzzLoad(f *testing.F) {
	for _, name := range []string{"testdata/shop.xsd", "testdata/parts.xsd", "testdata/common/common.xsd"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, []byte(schemaDoc(`<xs:include schemaLocation="a.xsd"/><xs:element name="x" type="tns:T"/>`)))
	}
	f.Add([]byte(schemaDoc(`<xs:import namespace="urn:b" schemaLocation="b.xsd"/><xs:complexType name="A"><xs:complexContent><xs:extension base="tns:A"/></xs:complexContent></xs:complexType>`)),
		[]byte(`<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" targetNamespace="urn:b"><xs:import namespace="urn:t" schemaLocation="a.xsd"/></xs:schema>`))
	f.Add([]byte(`<!DOCTYPE s [<!ENTITY e "urn:t">]>`+schemaDoc(`<xs:group name="G"><xs:choice><xs:group ref="tns:G"/></xs:choice></xs:group>`)), []byte(""))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		set, err := xsd.Load(t.Context(), xsd.MapLoader{"a.xsd": a, "b.xsd": b}, "a.xsd",
			xsd.WithLimits(xsd.Limits{MaxBytes: 1 << 20, MaxDocuments: 8, MaxImportDepth: 4, MaxDepth: 64}))
		if err != nil {
			return
		}
		walkSet(set)
	})
}

// walkSet visits every component reachable from the set's globals, as a
// codec or a generator would.
func walkSet(set *xsd.Set) {
	seenT := map[xsd.Type]bool{}
	seenG := map[*xsd.ModelGroup]bool{}
	var typ func(xsd.Type)
	var particle func(*xsd.Particle)
	particle = func(p *xsd.Particle) {
		if p == nil {
			return
		}
		switch {
		case p.Element != nil:
			typ(p.Element.Type)
			_ = set.SubstitutionGroup(p.Element)
		case p.Group != nil:
			if seenG[p.Group] {
				return
			}
			seenG[p.Group] = true
			for _, c := range p.Group.Particles {
				particle(c)
			}
		}
	}
	typ = func(t xsd.Type) {
		if t == nil || seenT[t] {
			return
		}
		seenT[t] = true
		typ(t.BaseType())
		switch t := t.(type) {
		case *xsd.SimpleType:
			_ = t.EffectiveFacets()
			_ = t.Primitive()
			if t.Item != nil {
				typ(t.Item)
			}
			for _, m := range t.Members {
				typ(m)
			}
		case *xsd.ComplexType:
			particle(t.EffectiveParticle())
			for _, u := range t.EffectiveAttributes() {
				typ(u.Attribute.Type)
			}
			if t.SimpleType != nil {
				typ(t.SimpleType)
			}
			if t.Array != nil {
				typ(t.Array.ItemType)
			}
			for _, d := range set.DerivedTypes(t) {
				typ(d)
			}
		}
	}
	for _, e := range set.Elements() {
		typ(e.Type)
	}
	for _, t := range set.Types() {
		typ(t)
	}
}
