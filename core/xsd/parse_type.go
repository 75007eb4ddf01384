package xsd

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

// typeName returns the name of a named type definition, zero for an
// anonymous one (a name on an anonymous one, or none on a top-level one, is
// an error).
func (p *sp) typeName(n *xmldoc.Node, ctx Component) xml.Name {
	name, has := n.Attr("name")
	name = strings.TrimSpace(name)
	switch {
	case ctx == nil && name == "":
		p.r.Fail(p.loc(n), "a top-level xs:%s without a name", n.Name.Local)
	case ctx != nil && has:
		p.r.Warn(p.loc(n), "a name on an anonymous xs:%s (ignored)", n.Name.Local)
		return xml.Name{}
	}
	if ctx != nil {
		return xml.Name{}
	}
	return xml.Name{Space: p.s.TargetNamespace, Local: name}
}

// simpleType reads an xs:simpleType; ctx is the component holding an
// anonymous one, nil for a top-level one.
func (p *sp) simpleType(n *xmldoc.Node, ctx Component) *SimpleType {
	p.checkAttrs(n, "name", "final", "id")
	t := &SimpleType{Name: p.typeName(n, ctx), Loc: p.loc(n), Doc: p.docOf(n), Context: ctx, Schema: p.s}
	t.Final, _ = n.Attr("final")
	p.r.simples = append(p.r.simples, t)
	var body *xmldoc.Node
	for _, c := range p.children(n) {
		switch c.Name.Local {
		case "annotation":
		case "restriction", "list", "union":
			if body != nil {
				p.r.Fail(p.loc(c), "a simple type with two derivations")
				continue
			}
			body = c
		default:
			p.r.Warn(p.loc(c), "xs:%s in a simple type is not supported (ignored)", c.Name.Local)
		}
	}
	if body == nil {
		p.r.Fail(t.Loc, "a simple type without a restriction, list or union")
		t.BaseName = xml.Name{Space: NamespaceXSD, Local: "anySimpleType"}
		return t
	}
	switch body.Name.Local {
	case "restriction":
		p.checkAttrs(body, "base", "id")
		t.BaseName, _ = p.qname(body, "base")
		p.facets(body, &t.Facets, func(c *xmldoc.Node) bool {
			if c.Name.Local != "simpleType" {
				return false
			}
			if t.Base != nil || t.BaseName != (xml.Name{}) {
				p.r.Fail(p.loc(c), "a restriction with both a base and a simple type")
				return true
			}
			t.Base = p.simpleType(c, t)
			return true
		})
		if t.Base == nil && t.BaseName == (xml.Name{}) {
			p.r.Fail(p.loc(body), "a restriction without a base")
		}
	case "list":
		p.checkAttrs(body, "itemType", "id")
		t.Variety = List
		t.ItemName, _ = p.qname(body, "itemType")
		for _, c := range p.children(body) {
			switch {
			case c.Name.Local == "annotation":
			case c.Name.Local == "simpleType" && t.Item == nil && t.ItemName == (xml.Name{}):
				t.Item = p.simpleType(c, t)
			default:
				p.r.Fail(p.loc(c), "xs:%s in a list", c.Name.Local)
			}
		}
		if t.Item == nil && t.ItemName == (xml.Name{}) {
			p.r.Fail(p.loc(body), "a list without an item type")
		}
	case "union":
		p.checkAttrs(body, "memberTypes", "id")
		t.Variety = Union
		if v, ok := body.Attr("memberTypes"); ok {
			for _, f := range strings.Fields(v) {
				q, err := body.ResolveQName(f)
				if err != nil {
					p.r.Fail(p.loc(body), "memberTypes: %v", err)
					continue
				}
				t.MemberNames = append(t.MemberNames, p.chameleonName(q, p.loc(body)))
			}
		}
		for _, c := range p.children(body) {
			switch c.Name.Local {
			case "annotation":
			case "simpleType":
				t.Members = append(t.Members, p.simpleType(c, t))
			default:
				p.r.Fail(p.loc(c), "xs:%s in a union", c.Name.Local)
			}
		}
		if len(t.Members) == 0 && len(t.MemberNames) == 0 {
			p.r.Fail(p.loc(body), "a union without member types")
		}
	}
	return t
}

// facets reads the facets among a restriction's children into f; others go
// to rest.
func (p *sp) facets(n *xmldoc.Node, f *Facets, rest func(*xmldoc.Node) bool) {
	for _, c := range p.children(n) {
		if c.Name.Local == "annotation" || p.facet(c, f) {
			continue
		}
		if rest == nil || !rest(c) {
			p.r.Warn(p.loc(c), "xs:%s in a restriction is not supported (ignored)", c.Name.Local)
		}
	}
}

// facet reads c into f if it is a facet.
func (p *sp) facet(c *xmldoc.Node, f *Facets) bool {
	name := c.Name.Local
	v, hasValue := c.Attr("value")
	switch name {
	case "enumeration":
		e := Enum{Value: v, Doc: p.docOf(c), Loc: p.loc(c)}
		if q, err := c.ResolveQName(v); err == nil {
			e.QName = q
		}
		f.Enumeration = append(f.Enumeration, e)
	case "pattern":
		f.Patterns = append(f.Patterns, v)
	case "length":
		f.Length = p.facetInt(c, v)
	case "minLength":
		f.MinLength = p.facetInt(c, v)
	case "maxLength":
		f.MaxLength = p.facetInt(c, v)
	case "totalDigits":
		f.TotalDigits = p.facetInt(c, v)
	case "fractionDigits":
		f.FractionDigits = p.facetInt(c, v)
	case "minInclusive":
		f.MinInclusive = &v
	case "maxInclusive":
		f.MaxInclusive = &v
	case "minExclusive":
		f.MinExclusive = &v
	case "maxExclusive":
		f.MaxExclusive = &v
	case "whiteSpace":
		switch v = strings.TrimSpace(v); v {
		case "preserve", "replace", "collapse":
			f.WhiteSpace = v
		default:
			p.r.Fail(p.loc(c), "whiteSpace=%q", v)
		}
	case "assertion", "explicitTimezone":
		p.r.Warn(p.loc(c), "the facet xs:%s (XML Schema 1.1) is not supported (not checked)", name)
		return true
	default:
		return false
	}
	p.checkAttrs(c, "value", "fixed", "id")
	if !hasValue {
		p.r.Fail(p.loc(c), "the facet xs:%s has no value", name)
	}
	return true
}

func (p *sp) facetInt(n *xmldoc.Node, v string) *int {
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || i < 0 {
		p.r.Fail(p.loc(n), "the facet xs:%s=%q is not a non-negative integer", n.Name.Local, v)
		return nil
	}
	return &i
}

// complexType reads an xs:complexType; ctx is the element holding an
// anonymous one, nil for a top-level one.
func (p *sp) complexType(n *xmldoc.Node, ctx Component) *ComplexType {
	p.checkAttrs(n, "name", "abstract", "mixed", "block", "final", "id", "defaultAttributesApply")
	t := &ComplexType{Name: p.typeName(n, ctx), Loc: p.loc(n), Doc: p.docOf(n), Context: ctx, Schema: p.s}
	t.Abstract = p.boolean(n, "abstract")
	t.Mixed = p.boolean(n, "mixed")
	t.Block, _ = n.Attr("block")
	t.Final, _ = n.Attr("final")
	p.r.complexes = append(p.r.complexes, t)
	content := false
	p.attributeContent(n, &t.Attributes, &t.groupRefs, &t.AnyAttribute, func(c *xmldoc.Node) bool {
		switch c.Name.Local {
		case "simpleContent", "complexContent":
			if content || t.Particle != nil {
				p.r.Fail(p.loc(c), "a complex type with two content models")
				return true
			}
			content = true
			if c.Name.Local == "simpleContent" {
				p.simpleContent(c, t)
			} else {
				p.complexContent(c, t)
			}
			return true
		case "sequence", "choice", "all", "group":
			if content || t.Particle != nil {
				p.r.Fail(p.loc(c), "a complex type with two content models")
				return true
			}
			t.Particle = p.particle(c, t, nil)
			return true
		case "openContent", "assert":
			p.r.Warn(p.loc(c), "xs:%s (XML Schema 1.1) is not supported (ignored)", c.Name.Local)
			return true
		}
		return false
	})
	return t
}

// derivation reads the xs:extension or xs:restriction of a simpleContent or
// complexContent.
func (p *sp) derivation(n *xmldoc.Node, t *ComplexType) *xmldoc.Node {
	var d *xmldoc.Node
	for _, c := range p.children(n) {
		switch c.Name.Local {
		case "annotation":
		case "extension", "restriction":
			if d != nil {
				p.r.Fail(p.loc(c), "xs:%s with two derivations", n.Name.Local)
				continue
			}
			d = c
		default:
			p.r.Warn(p.loc(c), "xs:%s in xs:%s is not supported (ignored)", c.Name.Local, n.Name.Local)
		}
	}
	if d == nil {
		p.r.Fail(p.loc(n), "xs:%s without an extension or restriction", n.Name.Local)
		return nil
	}
	if d.Name.Local == "extension" {
		t.Derivation = Extended
	}
	var ok bool
	if t.BaseName, ok = p.qname(d, "base"); !ok {
		p.r.Fail(p.loc(d), "xs:%s without a base", d.Name.Local)
	}
	return d
}

// simpleContent reads a complex type's xs:simpleContent.
func (p *sp) simpleContent(n *xmldoc.Node, t *ComplexType) {
	p.checkAttrs(n, "id")
	t.Content = SimpleContent
	d := p.derivation(n, t)
	if d == nil {
		return
	}
	p.checkAttrs(d, "base", "id")
	if t.Derivation == Extended {
		p.attributeContent(d, &t.Attributes, &t.groupRefs, &t.AnyAttribute, nil)
		return
	}
	// A restriction may narrow the value: an anonymous restriction of the
	// base's value type, whose base the resolver fills in.
	st := &SimpleType{Loc: p.loc(d), Context: t, Schema: p.s, fromComplex: true}
	var inline *SimpleType
	p.attributeContent(d, &t.Attributes, &t.groupRefs, &t.AnyAttribute, func(c *xmldoc.Node) bool {
		if c.Name.Local == "simpleType" && inline == nil {
			inline = p.simpleType(c, t)
			return true
		}
		return p.facet(c, &st.Facets)
	})
	st.Base = inline
	t.SimpleType = st
	p.r.simples = append(p.r.simples, st)
}

// complexContent reads a complex type's xs:complexContent.
func (p *sp) complexContent(n *xmldoc.Node, t *ComplexType) {
	p.checkAttrs(n, "mixed", "id")
	if _, ok := n.Attr("mixed"); ok {
		t.Mixed = p.boolean(n, "mixed")
	}
	d := p.derivation(n, t)
	if d == nil {
		return
	}
	p.checkAttrs(d, "base", "id")
	p.attributeContent(d, &t.Attributes, &t.groupRefs, &t.AnyAttribute, func(c *xmldoc.Node) bool {
		switch c.Name.Local {
		case "sequence", "choice", "all", "group":
			if t.Particle != nil {
				p.r.Fail(p.loc(c), "a derivation with two content models")
				return true
			}
			t.Particle = p.particle(c, t, nil)
			return true
		case "openContent", "assert":
			p.r.Warn(p.loc(c), "xs:%s (XML Schema 1.1) is not supported (ignored)", c.Name.Local)
			return true
		}
		return false
	})
}
