package gen

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strings"

	"github.com/soapwire/soapwire/core/xsd"
)

// content is the state of writing one struct's content model: the
// variables it names.
type content struct {
	g     *generator
	f     *file
	st    *goStruct
	n     int               // counters named so far
	cur   map[*field]string // general form: the cursor of each field
	label int               // labels named so far
}

func (c *content) fresh(prefix string) string {
	c.n++
	return fmt.Sprintf("%s%d", prefix, c.n)
}

// emptiable reports whether a particle may hold nothing.
func emptiable(p *xsd.Particle) bool {
	if p == nil || p.Min == 0 {
		return true
	}
	return termEmptiable(p)
}

// termEmptiable reports whether one occurrence of p's term may hold
// nothing.
func termEmptiable(p *xsd.Particle) bool {
	if p.Group == nil {
		return false
	}
	switch p.Group.Compositor {
	case xsd.Choice:
		for _, q := range p.Group.Particles {
			if emptiable(q) {
				return true
			}
		}
		return len(p.Group.Particles) == 0
	default:
		for _, q := range p.Group.Particles {
			if !emptiable(q) {
				return false
			}
		}
		return true
	}
}

// firstOf returns what can start p: element names (each with the element
// it stands for) in order, and wildcards.
func (m *model) firstOf(p *xsd.Particle) ([]*xsd.Element, []*xsd.Wildcard) {
	var els []*xsd.Element
	var wilds []*xsd.Wildcard
	seen := map[xml.Name]bool{}
	var add func(p *xsd.Particle, depth int)
	add = func(p *xsd.Particle, depth int) {
		if p == nil || p.Max == 0 || depth > 1024 {
			return
		}
		switch {
		case p.Element != nil:
			for _, e := range m.members(p.Element) {
				if !seen[e.Name] {
					seen[e.Name] = true
					els = append(els, e)
				}
			}
		case p.Any != nil:
			wilds = append(wilds, p.Any)
		case p.Group != nil:
			for _, q := range p.Group.Particles {
				add(q, depth+1)
				if p.Group.Compositor == xsd.Sequence && !emptiable(q) {
					return
				}
			}
		}
	}
	add(p, 0)
	return els, wilds
}

// matchExpr is the condition that the start tag st starts p.
func (c *content) matchExpr(p *xsd.Particle) string {
	els, wilds := c.g.m.firstOf(p)
	var parts []string
	for _, e := range els {
		parts = append(parts, fmt.Sprintf("st.Is(%s, %s)", goString(e.Name.Space), goString(e.Name.Local)))
	}
	for _, w := range wilds {
		parts = append(parts, c.g.m.wildVar(w)+".Allows(st.Space())")
	}
	if len(parts) == 0 {
		return "false"
	}
	return strings.Join(parts, " || ")
}

// expectedOf lists what can start p, for messages.
func (c *content) expectedOf(p *xsd.Particle) string {
	els, wilds := c.g.m.firstOf(p)
	var names []string
	for _, e := range els {
		names = append(names, qname(e.Name))
	}
	sort.Strings(names)
	if len(wilds) > 0 {
		names = append(names, "any element")
	}
	return strings.Join(names, ", ")
}

// simpleModel returns the element particles of a content model that is a
// sequence (nested sequences that occur once included) of distinct
// elements, each its own field, with no choice, substitution or wildcard:
// its codec is then written straight. ok is false for any other model.
func (m *model) simpleModel(st *goStruct, p *xsd.Particle) (els []*xsd.Particle, ok bool) {
	seen := map[xml.Name]bool{}
	var walk func(p *xsd.Particle, top bool) bool
	walk = func(p *xsd.Particle, top bool) bool {
		if p.Group == nil || p.Group.Compositor != xsd.Sequence || p.Max != 1 || !top && p.Min != 1 {
			return false
		}
		for _, q := range p.Group.Particles {
			if q.Max == 0 {
				continue
			}
			if q.Group != nil {
				if !walk(q, false) {
					return false
				}
				continue
			}
			if q.Element == nil {
				return false
			}
			ms := m.members(q.Element)
			if len(ms) != 1 || ms[0] != q.Element || seen[q.Element.Name] || st.elems[q.Element.Name] == nil {
				return false
			}
			seen[q.Element.Name] = true
			els = append(els, q)
		}
		return true
	}
	if !walk(p, true) {
		return nil, false
	}
	return els, true
}

// presentExpr is the condition that a single (not repeated) field holds a
// value.
func presentExpr(fd *field) string {
	t := fd.goType()
	if strings.HasPrefix(t, "*") || fd.rep.nilIsAbsent() && !fd.nillable {
		return "v." + fd.name + " != nil"
	}
	return "true"
}

// emitWriteField writes one occurrence of a single field, or one item of
// a repeated one (item: the index expression).
func (c *content) emitWriteField(in string, fd *field, decl *xsd.Element, item string) {
	g, f := c.g, c.f
	x := "v." + fd.name
	if fd.repeated {
		x += "[" + item + "]"
		if fd.nillable && fd.rep.kind != repIface && fd.rep.kind != repRaw {
			f.p("%sif %s == nil {", in, x)
			g.emitWriteNil(f, in+"\t", decl, fd.rep)
			f.p("%s} else {", in)
			g.emitWriteValue(f, in+"\t", decl, fd.rep, "(*"+x+")")
			f.p("%s}", in)
			return
		}
		if fd.rep.kind == repIface || fd.rep.kind == repRaw {
			g.emitWriteItem(f, in, decl, fd.rep, x, true)
			return
		}
		g.emitWriteValue(f, in, decl, fd.rep, x)
		return
	}
	t := fd.goType()
	switch {
	case strings.HasPrefix(t, "*xsd.Nillable["):
		f.p("%sif %s.Nil {", in, x)
		g.emitWriteNil(f, in+"\t", decl, fd.rep)
		f.p("%s} else {", in)
		g.emitWriteValue(f, in+"\t", decl, fd.rep, x+".Value")
		f.p("%s}", in)
	case strings.HasPrefix(t, "xsd.Nillable["):
		f.p("%sif %s.Nil {", in, x)
		g.emitWriteNil(f, in+"\t", decl, fd.rep)
		f.p("%s} else {", in)
		g.emitWriteValue(f, in+"\t", decl, fd.rep, x+".Value")
		f.p("%s}", in)
	case strings.HasPrefix(t, "*"):
		g.emitWriteValue(f, in, decl, fd.rep, "(*"+x+")")
	default:
		g.emitWriteValue(f, in, decl, fd.rep, x)
	}
}

// emitEncodeContent writes the elements of a content model.
func (g *generator) emitEncodeContent(f *file, st *goStruct, p *xsd.Particle) {
	c := &content{g: g, f: f, st: st, cur: map[*field]string{}}
	if els, ok := g.m.simpleModel(st, p); ok {
		for _, q := range els {
			c.emitEncodeSimple(q)
		}
		return
	}
	// the general form: a cursor per field, as the codec takes values
	var fields []*field
	for _, fd := range allFields(st) {
		if fd.kind == fieldElem || fd.kind == fieldAny {
			fields = append(fields, fd)
			c.cur[fd] = c.fresh("n")
			f.p("\t%s := 0", c.cur[fd])
		}
	}
	f.p("\twritten := 0")
	c.emitEncodeParticle("\t", p)
	for _, fd := range fields {
		f.p("\tif %s {", c.avail(fd))
		if fd.kind == fieldAny {
			f.p("\t\treturn e.Errorf(\"an element of the wildcard is not allowed here\")")
		} else {
			f.p("\t\treturn e.Errorf(%s)", errorfMessage("the element "+fd.el.Name.Local+" occurs more often than the schema allows here"))
		}
		f.p("\t}")
	}
	f.p("\t_ = written")
}

// allFields returns st's fields with its embedded bases' (base first).
func allFields(st *goStruct) []*field {
	var out []*field
	if st.embed != nil {
		out = allFields(st.embed)
	}
	return append(out, st.fields...)
}

// emitEncodeSimple writes one element particle of a straight sequence.
func (c *content) emitEncodeSimple(q *xsd.Particle) {
	f := c.f
	fd := c.st.elems[q.Element.Name]
	decl := q.Element
	local := goString(decl.Name.Local)
	if fd.repeated {
		if q.Min > 0 {
			f.p("\tif len(v.%s) < %d {", fd.name, q.Min)
			f.p("\t\tif len(v.%s) == 0 {", fd.name)
			f.p("\t\t\treturn e.Missing(%s)", local)
			f.p("\t\t}")
			f.p("\t\treturn e.Errorf(\"the element %%s occurs %%d times, the schema wants at least %%d\", %s, len(v.%s), %d)", local, fd.name, q.Min)
			f.p("\t}")
		}
		if q.Max > 0 {
			f.p("\tif len(v.%s) > %d {", fd.name, q.Max)
			f.p("\t\treturn e.Errorf(%s)", errorfMessage("the element "+decl.Name.Local+" occurs more often than the schema allows here"))
			f.p("\t}")
		}
		f.p("\tfor i := range v.%s {", fd.name)
		c.emitWriteField("\t\t", fd, decl, "i")
		f.p("\t}")
		return
	}
	present := presentExpr(fd)
	if present == "true" {
		c.emitWriteField("\t", fd, decl, "")
		return
	}
	f.p("\tif %s {", present)
	c.emitWriteField("\t\t", fd, decl, "")
	if q.Min > 0 {
		f.p("\t} else {")
		f.p("\t\treturn e.Missing(%s)", local)
	}
	f.p("\t}")
}

// avail is the condition that a field has a value left to write.
func (c *content) avail(fd *field) string {
	n := c.cur[fd]
	if fd.repeated || fd.kind == fieldAny {
		return fmt.Sprintf("%s < len(v.%s)", n, fd.name)
	}
	if p := presentExpr(fd); p != "true" {
		return fmt.Sprintf("%s == 0 && %s", n, p)
	}
	return n + " == 0"
}

// availOf is the condition that p has something to write.
func (c *content) availOf(p *xsd.Particle) string {
	var parts []string
	seen := map[string]bool{}
	var walk func(p *xsd.Particle)
	walk = func(p *xsd.Particle) {
		if p == nil || p.Max == 0 {
			return
		}
		switch {
		case p.Element != nil:
			for _, e := range c.g.m.members(p.Element) {
				if fd := c.st.elems[e.Name]; fd != nil {
					if a := c.avail(fd); !seen[a] {
						seen[a] = true
						parts = append(parts, "("+a+")")
					}
				}
			}
		case p.Any != nil:
			if fd := c.st.any; fd != nil {
				if a := c.avail(fd); !seen[a] {
					seen[a] = true
					parts = append(parts, "("+a+")")
				}
			}
		case p.Group != nil:
			for _, q := range p.Group.Particles {
				walk(q)
			}
		}
	}
	walk(p)
	if len(parts) == 0 {
		return "false"
	}
	return strings.Join(parts, " || ")
}

// emitEncodeParticle writes as many occurrences of p as the fields hold,
// within its bounds (the general form).
func (c *content) emitEncodeParticle(in string, p *xsd.Particle) {
	if p == nil || p.Max == 0 {
		return
	}
	f := c.f
	if p.Element != nil && p.Max == 1 {
		if ms := c.g.m.members(p.Element); len(ms) == 1 && ms[0] == p.Element && c.st.elems[p.Element.Name] != nil {
			fd := c.st.elems[p.Element.Name]
			f.p("%sif %s {", in, c.avail(fd))
			c.emitWriteField(in+"\t", fd, p.Element, c.cur[fd])
			f.p("%s\t%s++", in, c.cur[fd])
			f.p("%s\twritten++", in)
			if p.Min > 0 {
				f.p("%s} else {", in)
				f.p("%s\treturn e.Missing(%s)", in, goString(p.Element.Name.Local))
			}
			f.p("%s}", in)
			return
		}
	}
	k := c.fresh("k")
	bound := "true"
	if p.Max > 0 {
		bound = fmt.Sprintf("%s < %d", k, p.Max)
	}
	f.p("%s%s := 0", in, k)
	f.p("%sfor ; %s && (%s); %s++ {", in, bound, c.availOf(p), k)
	switch {
	case p.Element != nil:
		f.p("%s\tswitch {", in)
		for _, e := range c.g.m.members(p.Element) {
			fd := c.st.elems[e.Name]
			if fd == nil {
				continue
			}
			f.p("%s\tcase %s:", in, c.avail(fd))
			c.emitWriteField(in+"\t\t", fd, e, c.cur[fd])
			f.p("%s\t\t%s++", in, c.cur[fd])
		}
		f.p("%s\t}", in)
		f.p("%s\twritten++", in)
	case p.Any != nil:
		fd := c.st.any
		f.p("%s\tif err := e.Raw(v.%s[%s]); err != nil {", in, fd.name, c.cur[fd])
		f.p("%s\t\treturn err", in)
		f.p("%s\t}", in)
		f.p("%s\t%s++", in, c.cur[fd])
		f.p("%s\twritten++", in)
	case p.Group != nil:
		before := c.fresh("before")
		f.p("%s\t%s := written", in, before)
		c.emitEncodeTerm(in+"\t", p.Group)
		f.p("%s\tif written == %s {", in, before)
		f.p("%s\t\t%s++", in, k)
		f.p("%s\t\tbreak", in)
		f.p("%s\t}", in)
	}
	f.p("%s}", in)
	if p.Min > 0 && !termEmptiable(p) {
		f.p("%sif %s < %d {", in, k, p.Min)
		if p.Element != nil {
			f.p("%s\treturn e.Missing(%s)", in, goString(p.Element.Name.Local))
		} else {
			f.p("%s\treturn e.Errorf(%s)", in, errorfMessage("one of "+c.expectedOf(p)+" is required"))
		}
		f.p("%s}", in)
	}
}

// emitEncodeTerm writes one occurrence of a model group.
func (c *content) emitEncodeTerm(in string, g *xsd.ModelGroup) {
	if g.Compositor != xsd.Choice {
		for _, q := range g.Particles {
			c.emitEncodeParticle(in, q)
		}
		return
	}
	c.f.p("%sswitch {", in)
	for _, q := range g.Particles {
		if q.Max == 0 {
			continue
		}
		c.f.p("%scase %s:", in, c.availOf(q))
		c.emitEncodeParticle(in+"\t", q)
	}
	c.f.p("%s}", in)
}
