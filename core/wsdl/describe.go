package wsdl

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core/xsd"
)

// Describe writes a plain-text summary of the contract: its services and
// ports with their addresses, every operation of every SOAP endpoint with
// its style, action, input, output, headers and faults, the named types
// they use (expanded), and the warnings. Namespaces are written with the
// prefixes listed first (xsd for XML Schema, ns0, ns1… in order of use).
// It is what `soapwire wsdl` prints.
//
// Notation: "name?" may be absent, "name*" repeats (0 or more), "name+" (1
// or more), "name[2..5]" other bounds; "nillable" may be xsi:nil;
// "@name" is an attribute; choice(a | b), any(namespaces); an anonymous
// type is written inline in braces, except that of a global element a
// particle refers to ("name: element"), written once under Elements.
func (c *Contract) Describe(w io.Writer) error {
	p := &printer{prefix: map[string]string{xsd.NamespaceXSD: "xsd", xsd.NamespaceXML: "xml"}, queued: map[xsd.Type]bool{}, elemQueued: map[*xsd.Element]bool{}}
	var body strings.Builder
	p.out = &body
	p.contract(c)
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "Contract %s", c.Location)
	if c.TargetNamespace != "" {
		fmt.Fprintf(bw, " (target namespace %s)", c.TargetNamespace)
	}
	bw.WriteString("\n")
	if len(p.order) > 0 {
		bw.WriteString("\nPrefixes:\n")
		for _, ns := range p.order {
			fmt.Fprintf(bw, "  %s: %s\n", p.prefix[ns], ns)
		}
	}
	bw.WriteString(body.String())
	return bw.Flush()
}

type printer struct {
	out    *strings.Builder
	prefix map[string]string
	order  []string // namespaces in the order they got a prefix
	next   int
	queued map[xsd.Type]bool
	queue  []xsd.Type
	// global elements of an anonymous type that particles refer to: written
	// once, in the Elements section
	elemQueued map[*xsd.Element]bool
	elems      []*xsd.Element
}

func (p *printer) printf(format string, args ...any) { fmt.Fprintf(p.out, format, args...) }

// name writes a qualified name with its namespace's prefix.
func (p *printer) name(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	pre, ok := p.prefix[n.Space]
	if !ok {
		pre = "ns" + strconv.Itoa(p.next)
		p.next++
		p.prefix[n.Space] = pre
	}
	if !slices.Contains(p.order, n.Space) {
		p.order = append(p.order, n.Space)
	}
	return pre + ":" + n.Local
}

func (p *printer) contract(c *Contract) {
	for _, s := range c.Services {
		p.printf("\nService %s\n", s.Name.Local)
		for _, port := range s.Ports {
			b := port.Binding
			if b == nil {
				continue
			}
			p.printf("  Port %s: %s, binding %s, address %s\n", port.Name, b.Kind, p.name(b.Name), quote(port.Address))
			if b.Kind != SOAP11 && b.Kind != SOAP12 {
				var names []string
				for _, op := range b.Operations {
					names = append(names, op.Name)
				}
				p.printf("    not a SOAP port; operations: %s\n", strings.Join(names, ", "))
				continue
			}
			for _, e := range c.endpoints {
				if e.Port == port {
					p.operations(e)
				}
			}
		}
	}
	for _, e := range c.endpoints {
		if e.Port == nil {
			p.printf("\nBinding %s (%s, no port uses it)\n", p.name(e.Binding.Name), e.Binding.Kind)
			p.operations(e)
		}
	}
	if len(p.queue) > 0 || len(p.elems) > 0 {
		// Expanding a type or element queues those it uses: expand them
		// all once (discarding the text) to know them, then write them
		// sorted.
		out := p.out
		p.out = &strings.Builder{}
		for i, j := 0, 0; i < len(p.queue) || j < len(p.elems); {
			if i < len(p.queue) {
				p.typeLine(p.queue[i])
				i++
			} else {
				p.elementLine(p.elems[j])
				j++
			}
		}
		p.out = out
		byName := func(an, bn xml.Name) int {
			if c := slices.Index(p.order, an.Space) - slices.Index(p.order, bn.Space); c != 0 {
				return c
			}
			return strings.Compare(an.Local, bn.Local)
		}
		slices.SortStableFunc(p.elems, func(a, b *xsd.Element) int { return byName(a.Name, b.Name) })
		slices.SortStableFunc(p.queue, func(a, b xsd.Type) int { return byName(a.TypeName(), b.TypeName()) })
		if len(p.elems) > 0 {
			p.out.WriteString("\nElements:\n")
			for _, e := range p.elems {
				p.elementLine(e)
			}
		}
		if len(p.queue) > 0 {
			p.out.WriteString("\nTypes:\n")
			for _, t := range p.queue {
				p.typeLine(t)
			}
		}
	}
	if len(c.Warnings) > 0 {
		p.out.WriteString("\nWarnings:\n")
		for _, w := range c.Warnings {
			p.printf("  %s\n", w)
		}
	}
}

func quote(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func (p *printer) operations(e *Endpoint) {
	for _, s := range e.Operations {
		kind := s.Style.String() + "/" + s.Input.Use.String()
		if s.Style == Document && s.Input.Use == Literal {
			if s.Input.Wrapped {
				kind += " wrapped"
			} else {
				kind += " bare"
			}
		}
		if s.OneWay {
			kind += ", one-way"
		}
		p.printf("    %s (%s", s.Name, kind)
		if s.Action != "" {
			p.printf(", action %s", s.Action)
		}
		p.printf(")\n")
		p.message("in: ", s.Input)
		if s.Output != nil {
			p.message("out:", s.Output)
		}
		for _, f := range s.Faults {
			if f.Element != nil {
				p.printf("      fault %s: %s\n", f.Name, p.element(f.Element))
			} else {
				p.printf("      fault %s: message %s\n", f.Name, p.name(f.Message.Name))
			}
		}
	}
}

func (p *printer) message(label string, m *MessageSignature) {
	var b strings.Builder
	switch {
	case m.Wrapped || m.Element != (xml.Name{}) && len(m.Parts) != 1 || m.Element != (xml.Name{}) && m.Params != nil && m.Params[0].Element != nil && m.Params[0].Element.Name != m.Element:
		b.WriteString(p.name(m.Element))
		b.WriteString("(")
		b.WriteString(p.particles(m.Params, 0))
		b.WriteString(")")
	default:
		var parts []string
		for _, pt := range m.Params {
			parts = append(parts, p.element(pt.Element))
		}
		if len(parts) == 0 {
			parts = append(parts, "(empty body)")
		}
		b.WriteString(strings.Join(parts, ", "))
	}
	p.printf("      %s %s\n", label, b.String())
	for _, h := range m.Headers {
		req := ""
		if h.Required {
			req = " (required)"
		}
		p.printf("           header %s%s\n", p.element(h.Element), req)
	}
	for _, a := range m.Attachments {
		p.printf("           attachment %s\n", a.Name)
	}
}

// element writes a global or part element: its name and type.
func (p *printer) element(e *xsd.Element) string {
	return p.name(e.Name) + ": " + p.typeRef(e.Type, 0) + nilMark(e)
}

func nilMark(e *xsd.Element) string {
	if e.Nillable {
		return " nillable"
	}
	return ""
}

// maxInline bounds the nesting of anonymous types written inline.
const maxInline = 8

// typeRef writes a reference to a type: its name (queued for the Types
// section), or an anonymous type inline.
func (p *printer) typeRef(t xsd.Type, depth int) string {
	if t == nil {
		return "?"
	}
	if n := t.TypeName(); n != (xml.Name{}) {
		if n.Space != xsd.NamespaceXSD && !p.queued[t] {
			p.queued[t] = true
			p.queue = append(p.queue, t)
		}
		return p.name(n)
	}
	if depth > maxInline {
		return "{…}"
	}
	switch t := t.(type) {
	case *xsd.SimpleType:
		return p.simple(t, depth)
	case *xsd.ComplexType:
		return "{" + p.complexBody(t, depth) + "}"
	}
	return "?"
}

// typeLine writes a named type of the Types section.
func (p *printer) typeLine(t xsd.Type) {
	name := p.name(t.TypeName())
	switch t := t.(type) {
	case *xsd.SimpleType:
		p.printf("  %s = %s\n", name, p.simple(t, 0))
	case *xsd.ComplexType:
		pre := ""
		if t.Abstract {
			pre = "abstract "
		}
		derived := ""
		if b, ok := t.Base.(*xsd.ComplexType); t.BaseName != (xml.Name{}) && !(ok && b.IsAnyType()) {
			derived = " " + t.Derivation.String() + " of " + p.typeRef(t.Base, 0)
		}
		if t.Array != nil {
			item := t.Array.ItemType
			for c, ok := item.(*xsd.ComplexType); ok && c.Name == (xml.Name{}) && c.Array != nil; c, ok = item.(*xsd.ComplexType) {
				item = c.Array.ItemType // an array of arrays: its rank groups follow
			}
			p.printf("  %s%s = array of %s%s\n", pre, name, p.typeRef(item, 0), t.Array.Dimensions)
			return
		}
		p.printf("  %s%s%s(%s)\n", pre, name, derived, p.complexBody(t, 0))
		for _, d := range t.Derived {
			p.typeRef(d, 0) // a derived type may stand for it (xsi:type)
		}
	}
}

// elementLine writes a global element of the Elements section.
func (p *printer) elementLine(e *xsd.Element) {
	p.printf("  %s = %s%s\n", p.name(e.Name), p.typeRef(e.Type, 0), nilMark(e))
}

// complexBody writes a complex type's content and attributes.
func (p *printer) complexBody(t *xsd.ComplexType, depth int) string {
	var items []string
	switch t.Content {
	case xsd.SimpleContent:
		items = append(items, "_value: "+p.typeRef(t.SimpleType, depth+1))
	case xsd.ElementContent, xsd.MixedContent:
		if pt := t.EffectiveParticle(); pt != nil {
			if s := p.particles([]*xsd.Particle{pt}, depth+1); s != "" {
				items = append(items, s)
			}
		}
	}
	for _, u := range t.EffectiveAttributes() {
		a := u.Attribute
		s := "@" + p.name(a.Name) + ": " + p.typeRef(a.Type, depth+1)
		if u.Use == xsd.Required {
			s += " required"
		}
		if f := u.ValueFixed(); f != nil {
			s += " fixed " + strconv.Quote(*f)
		} else if d := u.ValueDefault(); d != nil {
			s += " default " + strconv.Quote(*d)
		}
		items = append(items, s)
	}
	if w := t.EffectiveAnyAttribute(); w != nil {
		items = append(items, "@any("+w.Namespace+")")
	}
	body := strings.Join(items, ", ")
	if t.Content == xsd.MixedContent {
		body = "mixed " + body
	}
	return body
}

// particles writes particles, a 1..1 sequence flattened into its parent.
func (p *printer) particles(ps []*xsd.Particle, depth int) string {
	var items []string
	for _, pt := range ps {
		if s := p.particle(pt, depth); s != "" {
			items = append(items, s)
		}
	}
	return strings.Join(items, ", ")
}

func (p *printer) particle(pt *xsd.Particle, depth int) string {
	occ := occurs(pt)
	switch {
	case pt.Element != nil:
		e := pt.Element
		s := p.name(e.Name) + occ + ": "
		if e.Abstract {
			s += "abstract "
		}
		if e.Global && e.Type != nil && e.Type.TypeName() == (xml.Name{}) {
			// a reference to a global element of an anonymous type: its
			// type is written once, in the Elements section
			if !p.elemQueued[e] {
				p.elemQueued[e] = true
				p.elems = append(p.elems, e)
			}
			s += "element"
		} else {
			s += p.typeRef(e.Type, depth)
		}
		s += nilMark(e)
		if subs := e.Substitutes; len(subs) > 0 {
			var names []string
			for _, m := range subs {
				names = append(names, p.name(m.Name))
			}
			s += " (or " + strings.Join(names, ", ") + ")"
		}
		return s
	case pt.Any != nil:
		return "any" + occ + "(" + pt.Any.Namespace + ")"
	case pt.Group != nil:
		if depth > maxInline*4 {
			return "…"
		}
		inner := make([]string, 0, len(pt.Group.Particles))
		for _, c := range pt.Group.Particles {
			if s := p.particle(c, depth+1); s != "" {
				inner = append(inner, s)
			}
		}
		switch pt.Group.Compositor {
		case xsd.Choice:
			return "choice" + occ + "(" + strings.Join(inner, " | ") + ")"
		case xsd.All:
			return "all" + occ + "(" + strings.Join(inner, ", ") + ")"
		}
		if occ == "" {
			return strings.Join(inner, ", ")
		}
		return "sequence" + occ + "(" + strings.Join(inner, ", ") + ")"
	}
	return ""
}

// occurs writes a particle's bounds: "" for exactly once.
func occurs(pt *xsd.Particle) string {
	switch {
	case pt.Min == 1 && pt.Max == 1:
		return ""
	case pt.Min == 0 && pt.Max == 1:
		return "?"
	case pt.Min == 0 && pt.Max == xsd.Unbounded:
		return "*"
	case pt.Min == 1 && pt.Max == xsd.Unbounded:
		return "+"
	case pt.Max == xsd.Unbounded:
		return fmt.Sprintf("[%d..]", pt.Min)
	}
	return fmt.Sprintf("[%d..%d]", pt.Min, pt.Max)
}

// simple writes a simple type's definition.
func (p *printer) simple(t *xsd.SimpleType, depth int) string {
	if t.IsBuiltin() {
		return p.name(t.Name)
	}
	switch {
	case t.Variety == xsd.List && (t.Base == nil || t.Base.IsBuiltin()):
		return "list of " + p.typeRef(t.Item, depth+1) + facets(t.Facets)
	case t.Variety == xsd.Union && (t.Base == nil || t.Base.IsBuiltin()):
		var ms []string
		for _, m := range t.Members {
			ms = append(ms, p.typeRef(m, depth+1))
		}
		return "union of (" + strings.Join(ms, ", ") + ")" + facets(t.Facets)
	}
	return p.typeRef(t.Base, depth+1) + facets(t.Facets)
}

// facets writes the facets a restriction writes.
func facets(f xsd.Facets) string {
	var b strings.Builder
	if len(f.Enumeration) > 0 {
		vals := make([]string, len(f.Enumeration))
		for i, e := range f.Enumeration {
			vals[i] = strconv.Quote(e.Value)
		}
		b.WriteString(" enum(" + strings.Join(vals, ", ") + ")")
	}
	for _, pat := range f.Patterns {
		b.WriteString(" pattern " + strconv.Quote(pat))
	}
	ints := []struct {
		name string
		v    *int
	}{{"length", f.Length}, {"minLength", f.MinLength}, {"maxLength", f.MaxLength}, {"totalDigits", f.TotalDigits}, {"fractionDigits", f.FractionDigits}}
	for _, i := range ints {
		if i.v != nil {
			fmt.Fprintf(&b, " %s %d", i.name, *i.v)
		}
	}
	strs := []struct {
		name string
		v    *string
	}{{"minInclusive", f.MinInclusive}, {"maxInclusive", f.MaxInclusive}, {"minExclusive", f.MinExclusive}, {"maxExclusive", f.MaxExclusive}}
	for _, s := range strs {
		if s.v != nil {
			fmt.Fprintf(&b, " %s %s", s.name, *s.v)
		}
	}
	if f.WhiteSpace != "" {
		b.WriteString(" whiteSpace " + f.WhiteSpace)
	}
	return b.String()
}
