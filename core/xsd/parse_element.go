package xsd

import (
	"encoding/xml"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

// maxOccurs bounds the numbers minOccurs and maxOccurs may say.
const maxOccurs = 1 << 30

// globalElement reads a top-level xs:element.
func (p *sp) globalElement(n *xmldoc.Node) *Element {
	p.checkAttrs(n, "name", "type", "nillable", "abstract", "default", "fixed", "block", "final", "substitutionGroup", "id")
	e := p.elementDecl(n, true, nil, nil)
	if g, ok := p.qname(n, "substitutionGroup"); ok {
		e.SubstitutionGroupName = g
		if v, _ := n.Attr("substitutionGroup"); len(strings.Fields(v)) > 1 {
			p.r.Warn(e.Loc, "an element in several substitution groups: only the first, %s, is read", g.Local)
		}
	}
	return e
}

// elementDecl reads what a global and a local declaration share.
func (p *sp) elementDecl(n *xmldoc.Node, global bool, scope *ComplexType, group *Group) *Element {
	name, _ := n.Attr("name")
	name = strings.TrimSpace(name)
	e := &Element{Loc: p.loc(n), Doc: p.docOf(n), Global: global, Scope: scope, InGroup: group, Schema: p.s}
	if name == "" {
		p.r.Fail(e.Loc, "an element declaration without a name")
	}
	e.Qualified = global || p.form(n, "form", p.s.ElementFormQualified)
	e.Name.Local = name
	if e.Qualified {
		e.Name.Space = p.s.TargetNamespace
	}
	e.Nillable = p.boolean(n, "nillable")
	e.Abstract = p.boolean(n, "abstract")
	e.Default = p.optString(n, "default")
	e.Fixed = p.optString(n, "fixed")
	if e.Default != nil && e.Fixed != nil {
		p.r.Fail(e.Loc, "the element %s has both a default and a fixed value", name)
	}
	e.Block, _ = n.Attr("block")
	e.Final, _ = n.Attr("final")
	if v, ok := n.AttrNS(NamespaceXMLMime, "expectedContentTypes"); ok {
		e.ExpectedContentTypes = strings.TrimSpace(v)
	}
	if t, ok := p.qname(n, "type"); ok {
		e.TypeName = t
	}
	for _, c := range p.children(n) {
		switch c.Name.Local {
		case "annotation":
		case "simpleType", "complexType":
			if e.Type != nil || e.TypeName != (xml.Name{}) {
				p.r.Fail(p.loc(c), "the element %s has two types", name)
				continue
			}
			if c.Name.Local == "simpleType" {
				e.Type = p.simpleType(c, e)
			} else {
				e.Type = p.complexType(c, e)
			}
		case "unique", "key", "keyref":
			e.Constraints = append(e.Constraints, p.identity(c))
		default:
			p.r.Warn(p.loc(c), "xs:%s in an element declaration is not supported (ignored)", c.Name.Local)
		}
	}
	p.r.elements = append(p.r.elements, e)
	return e
}

// localElement reads an xs:element inside a model group: a local
// declaration or a reference, as a particle.
func (p *sp) localElement(n *xmldoc.Node, scope *ComplexType, group *Group) *Particle {
	pt := &Particle{Loc: p.loc(n)}
	p.occurs(n, pt)
	if r, ok := p.qname(n, "ref"); ok {
		p.checkAttrs(n, "ref", "minOccurs", "maxOccurs", "id")
		pt.ref = ref{kind: refElement, name: r, loc: pt.Loc}
		for _, c := range p.children(n) {
			if c.Name.Local != "annotation" {
				p.r.Fail(p.loc(c), "an element reference (ref=%s) with content of its own", r.Local)
			}
		}
	} else {
		p.checkAttrs(n, "name", "type", "form", "minOccurs", "maxOccurs", "nillable", "default", "fixed", "block", "id", "targetNamespace")
		if _, ok := n.Attr("targetNamespace"); ok {
			p.r.Warn(pt.Loc, "targetNamespace on a local element (XML Schema 1.1) is not supported (ignored)")
		}
		pt.Element = p.elementDecl(n, false, scope, group)
	}
	p.r.particles = append(p.r.particles, pt)
	return pt
}

// occurs reads minOccurs and maxOccurs.
func (p *sp) occurs(n *xmldoc.Node, pt *Particle) {
	pt.Min, pt.Max = 1, 1
	if v, ok := n.Attr("minOccurs"); ok {
		m, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || m < 0 || m > maxOccurs {
			p.r.Fail(pt.Loc, "minOccurs=%q", v)
		} else {
			pt.Min = m
		}
	}
	if v, ok := n.Attr("maxOccurs"); ok {
		v = strings.TrimSpace(v)
		if v == "unbounded" {
			pt.Max = Unbounded
		} else if m, err := strconv.Atoi(v); err != nil || m < 0 || m > maxOccurs {
			p.r.Fail(pt.Loc, "maxOccurs=%q", v)
		} else {
			pt.Max = m
		}
	}
	if pt.Max != Unbounded && pt.Min > pt.Max {
		p.r.Fail(pt.Loc, "minOccurs %d is more than maxOccurs %d", pt.Min, pt.Max)
	}
}

// particle reads a child of a complex type or model group that is a
// particle; nil (reported) for anything else.
func (p *sp) particle(n *xmldoc.Node, scope *ComplexType, group *Group) *Particle {
	switch n.Name.Local {
	case "element":
		return p.localElement(n, scope, group)
	case "sequence", "choice", "all":
		pt := &Particle{Loc: p.loc(n)}
		p.checkAttrs(n, "minOccurs", "maxOccurs", "id")
		p.occurs(n, pt)
		pt.Group = p.modelGroup(n, scope, group)
		p.r.particles = append(p.r.particles, pt)
		return pt
	case "group":
		pt := &Particle{Loc: p.loc(n)}
		p.checkAttrs(n, "ref", "minOccurs", "maxOccurs", "id")
		p.occurs(n, pt)
		r, ok := p.qname(n, "ref")
		if !ok {
			p.r.Fail(pt.Loc, "xs:group without a ref inside a content model")
			return nil
		}
		pt.ref = ref{kind: refGroup, name: r, loc: pt.Loc}
		p.r.particles = append(p.r.particles, pt)
		return pt
	case "any":
		pt := &Particle{Loc: p.loc(n)}
		p.occurs(n, pt)
		pt.Any = p.wildcard(n, "minOccurs", "maxOccurs")
		p.r.particles = append(p.r.particles, pt)
		return pt
	}
	return nil
}

// modelGroup reads an xs:sequence, xs:choice or xs:all.
func (p *sp) modelGroup(n *xmldoc.Node, scope *ComplexType, group *Group) *ModelGroup {
	g := &ModelGroup{Loc: p.loc(n), Doc: p.docOf(n)}
	switch n.Name.Local {
	case "choice":
		g.Compositor = Choice
	case "all":
		g.Compositor = All
	}
	for _, c := range p.children(n) {
		if c.Name.Local == "annotation" {
			continue
		}
		pt := p.particle(c, scope, group)
		if pt == nil {
			p.r.Warn(p.loc(c), "xs:%s in xs:%s is not supported (ignored)", c.Name.Local, n.Name.Local)
			continue
		}
		g.Particles = append(g.Particles, pt)
	}
	return g
}

// namedGroup reads a top-level xs:group.
func (p *sp) namedGroup(n *xmldoc.Node) *Group {
	p.checkAttrs(n, "name", "id")
	name, _ := n.Attr("name")
	g := &Group{Name: xml.Name{Space: p.s.TargetNamespace, Local: strings.TrimSpace(name)}, Loc: p.loc(n), Doc: p.docOf(n), Schema: p.s}
	if g.Name.Local == "" {
		p.r.Fail(g.Loc, "a named group without a name")
	}
	for _, c := range p.children(n) {
		switch c.Name.Local {
		case "annotation":
		case "sequence", "choice", "all":
			if g.Model != nil {
				p.r.Fail(p.loc(c), "the group %s has two model groups", g.Name.Local)
				continue
			}
			g.Model = p.modelGroup(c, nil, g)
		default:
			p.r.Warn(p.loc(c), "xs:%s in a named group is not supported (ignored)", c.Name.Local)
		}
	}
	if g.Model == nil {
		g.Model = &ModelGroup{Loc: g.Loc}
	}
	p.r.groups = append(p.r.groups, g)
	return g
}

// wildcard reads an xs:any or xs:anyAttribute.
func (p *sp) wildcard(n *xmldoc.Node, more ...string) *Wildcard {
	p.checkAttrs(n, append([]string{"namespace", "processContents", "id", "notNamespace", "notQName"}, more...)...)
	w := &Wildcard{Loc: p.loc(n), Doc: p.docOf(n), TargetNS: p.s.TargetNamespace, Process: "strict"}
	if v, ok := n.Attr("processContents"); ok {
		switch v = strings.TrimSpace(v); v {
		case "strict", "lax", "skip":
			w.Process = v
		default:
			p.r.Fail(w.Loc, "processContents=%q", v)
		}
	}
	for _, a := range []string{"notNamespace", "notQName"} {
		if _, ok := n.Attr(a); ok {
			p.r.Warn(w.Loc, "%s (XML Schema 1.1) is not supported: the wildcard allows more than it says", a)
		}
	}
	ns, ok := n.Attr("namespace")
	ns = strings.TrimSpace(ns)
	if !ok {
		ns = "##any"
	}
	w.Namespace = ns
	switch ns {
	case "##any":
		w.Any = true
	case "##other":
		w.Other = true
	default:
		for _, f := range strings.Fields(ns) {
			switch f {
			case "##targetNamespace":
				w.Namespaces = append(w.Namespaces, p.s.TargetNamespace)
			case "##local":
				w.Namespaces = append(w.Namespaces, "")
			default:
				w.Namespaces = append(w.Namespaces, f)
			}
		}
	}
	return w
}

// identity reads an xs:unique, xs:key or xs:keyref.
func (p *sp) identity(n *xmldoc.Node) *IdentityConstraint {
	c := &IdentityConstraint{Kind: n.Name.Local, Loc: p.loc(n)}
	name, _ := n.Attr("name")
	c.Name = xml.Name{Space: p.s.TargetNamespace, Local: strings.TrimSpace(name)}
	if n.Name.Local == "keyref" {
		c.Refer, _ = p.qname(n, "refer")
	}
	for _, k := range n.Elements() {
		x, _ := k.Attr("xpath")
		switch {
		case k.Is(NamespaceXSD, "selector"):
			c.Selector = x
		case k.Is(NamespaceXSD, "field"):
			c.Fields = append(c.Fields, x)
		}
	}
	return c
}

// attribute reads an xs:attribute: a global declaration (whose use is
// returned only to hold it) or a local declaration or reference.
func (p *sp) attribute(n *xmldoc.Node, global bool) *AttributeUse {
	u := &AttributeUse{Loc: p.loc(n)}
	if v, ok := n.Attr("use"); ok {
		switch v = strings.TrimSpace(v); v {
		case "optional":
		case "required":
			u.Use = Required
		case "prohibited":
			u.Use = Prohibited
		default:
			p.r.Fail(u.Loc, "use=%q", v)
		}
	}
	if v, ok := n.AttrNS(NamespaceWSDL, "arrayType"); ok {
		u.ArrayType = strings.TrimSpace(v)
		p.arrayType(n, u)
	}
	if r, ok := p.qname(n, "ref"); ok && !global {
		p.checkAttrs(n, "ref", "use", "default", "fixed", "id", "inheritable")
		u.Ref = true
		u.ref = r
		u.Default = p.optString(n, "default")
		u.Fixed = p.optString(n, "fixed")
		p.r.uses = append(p.r.uses, u)
		return u
	}
	if global {
		p.checkAttrs(n, "name", "type", "default", "fixed", "id", "inheritable")
	} else {
		p.checkAttrs(n, "name", "type", "use", "default", "fixed", "form", "id", "targetNamespace", "inheritable")
	}
	name, _ := n.Attr("name")
	a := &Attribute{Loc: u.Loc, Doc: p.docOf(n), Global: global, Schema: p.s}
	a.Name.Local = strings.TrimSpace(name)
	if a.Name.Local == "" {
		p.r.Fail(a.Loc, "an attribute declaration without a name")
	}
	a.Qualified = global || p.form(n, "form", p.s.AttributeFormQualified)
	if a.Qualified {
		a.Name.Space = p.s.TargetNamespace
	}
	a.Default = p.optString(n, "default")
	a.Fixed = p.optString(n, "fixed")
	if a.Default != nil && a.Fixed != nil {
		p.r.Fail(a.Loc, "the attribute %s has both a default and a fixed value", a.Name.Local)
	}
	if a.Default != nil && u.Use == Required {
		p.r.Fail(a.Loc, "the attribute %s is required and has a default value", a.Name.Local)
	}
	a.TypeName, _ = p.qname(n, "type")
	for _, c := range p.children(n) {
		switch c.Name.Local {
		case "annotation":
		case "simpleType":
			if a.Type != nil || a.TypeName != (xml.Name{}) {
				p.r.Fail(p.loc(c), "the attribute %s has two types", a.Name.Local)
				continue
			}
			a.Type = p.simpleType(c, a)
		default:
			p.r.Warn(p.loc(c), "xs:%s in an attribute declaration is not supported (ignored)", c.Name.Local)
		}
	}
	u.Attribute = a
	p.r.attributes = append(p.r.attributes, a)
	if !global {
		p.r.uses = append(p.r.uses, u)
	}
	return u
}

// arrayType reads a wsdl:arrayType ("xsd:string[]", "tns:Item[][]",
// "xsd:int[,]"): its item type, resolved where it is written, and its rank.
func (p *sp) arrayType(n *xmldoc.Node, u *AttributeUse) {
	v := u.ArrayType
	i := strings.IndexByte(v, '[')
	if i <= 0 || !strings.HasSuffix(v, "]") {
		p.r.Fail(u.Loc, "wsdl:arrayType=%q is not a type followed by its dimensions", v)
		return
	}
	if !validRanks(v[i:]) {
		p.r.Fail(u.Loc, "wsdl:arrayType=%q: its dimensions are not brackets holding commas and sizes (SOAP 1.1 §5.4.2)", v)
		return
	}
	q, err := n.ResolveQName(v[:i])
	if err != nil {
		p.r.Fail(u.Loc, "wsdl:arrayType: %v", err)
		return
	}
	u.arrayItem, u.arrayDims, u.arrayValid = p.chameleonName(q, u.Loc), v[i:], true
}

// validRanks reports whether dims is an arrayType's rank and size part as
// SOAP 1.1 §5.4.2 writes it: bracketed groups ("[]", "[,]", "[2]",
// "[][3,4]") holding only commas, digits and spaces. Anything else is
// refused: the part is written back into arrayType attributes, and into
// the code soapwire gen writes.
func validRanks(dims string) bool {
	open := false
	for i := 0; i < len(dims); i++ {
		switch c := dims[i]; {
		case c == '[' && !open, c == ']' && open:
			open = !open
		case open && (c == ',' || c == ' ' || '0' <= c && c <= '9'):
		default:
			return false
		}
	}
	return dims != "" && !open
}

// attributeGroup reads a top-level xs:attributeGroup.
func (p *sp) attributeGroup(n *xmldoc.Node) *AttributeGroup {
	p.checkAttrs(n, "name", "id")
	name, _ := n.Attr("name")
	g := &AttributeGroup{Name: xml.Name{Space: p.s.TargetNamespace, Local: strings.TrimSpace(name)}, Loc: p.loc(n), Doc: p.docOf(n), Schema: p.s}
	if g.Name.Local == "" {
		p.r.Fail(g.Loc, "an attribute group without a name")
	}
	p.attributeContent(n, &g.Attributes, &g.groupRefs, &g.AnyAttribute, nil)
	p.r.attrGroups = append(p.r.attrGroups, g)
	return g
}

// attributeContent reads the attributes, attribute group references and
// attribute wildcard among n's children; others go to rest (or are
// reported when rest is nil).
func (p *sp) attributeContent(n *xmldoc.Node, uses *[]*AttributeUse, groups *[]ref, any **Wildcard, rest func(*xmldoc.Node) bool) {
	for _, c := range p.children(n) {
		switch c.Name.Local {
		case "annotation":
		case "attribute":
			*uses = append(*uses, p.attribute(c, false))
		case "attributeGroup":
			p.checkAttrs(c, "ref", "id")
			r, ok := p.qname(c, "ref")
			if !ok {
				p.r.Fail(p.loc(c), "xs:attributeGroup without a ref")
				continue
			}
			*groups = append(*groups, ref{kind: refAttributeGroup, name: r, loc: p.loc(c)})
		case "anyAttribute":
			if *any != nil {
				p.r.Fail(p.loc(c), "two attribute wildcards")
			}
			*any = p.wildcard(c)
		default:
			if rest == nil || !rest(c) {
				p.r.Warn(p.loc(c), "xs:%s in xs:%s is not supported (ignored)", c.Name.Local, n.Name.Local)
			}
		}
	}
}

// boolean reads a boolean attribute (false when absent).
func (p *sp) boolean(n *xmldoc.Node, attr string) bool {
	v, ok := n.Attr(attr)
	if !ok {
		return false
	}
	switch strings.TrimSpace(v) {
	case "true", "1":
		return true
	case "false", "0":
		return false
	}
	p.r.Fail(p.loc(n), "%s=%q is not a boolean", attr, v)
	return false
}

func (p *sp) optString(n *xmldoc.Node, attr string) *string {
	v, ok := n.Attr(attr)
	if !ok {
		return nil
	}
	return &v
}
