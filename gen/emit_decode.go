package gen

import (
	"fmt"

	"github.com/soapwire/soapwire/core/xsd"
)

// emitDecodeContent writes the reading of a content model's elements, as
// the codec reads them: each particle takes the children that can start it,
// within its bounds.
func (g *generator) emitDecodeContent(f *file, st *goStruct, p *xsd.Particle) {
	c := &content{g: g, f: f, st: st}
	c.emitDecodeParticle("\t", p)
}

// emitPeek writes the peek at the next child.
func (c *content) emitPeek(in string, decl string) {
	c.f.p("%s%sst, err := d.Peek()", in, decl)
	c.f.p("%sif err != nil {", in)
	c.f.p("%s\treturn err", in)
	c.f.p("%s}", in)
}

// emitDecodeParticle reads the occurrences of p.
func (c *content) emitDecodeParticle(in string, p *xsd.Particle) {
	if p == nil || p.Max == 0 {
		return
	}
	f := c.f
	if p.Element != nil || p.Any != nil {
		single := p.Element != nil && len(c.g.m.members(p.Element)) == 1 && c.g.m.members(p.Element)[0] == p.Element
		if single {
			ns, local := goString(p.Element.Name.Space), goString(p.Element.Name.Local)
			if p.Max == 1 {
				f.p("%s{", in)
				if p.Min > 0 {
					f.p("%s\tst, err := d.Child(%s, %s)", in, ns, local)
					f.p("%s\tif err != nil {", in)
					f.p("%s\t\treturn err", in)
					f.p("%s\t}", in)
					c.emitReadField(in+"\t", p.Element)
				} else {
					f.p("%s\tst, err := d.Optional(%s, %s)", in, ns, local)
					f.p("%s\tif err != nil {", in)
					f.p("%s\t\treturn err", in)
					f.p("%s\t}", in)
					f.p("%s\tif st != nil {", in)
					c.emitReadField(in+"\t\t", p.Element)
					f.p("%s\t}", in)
				}
				f.p("%s}", in)
				return
			}
		}
		if p.Max == 1 {
			f.p("%s{", in)
			c.emitPeek(in+"\t", "")
			if p.Min > 0 {
				f.p("%s\tif st == nil || !(%s) {", in, c.matchExpr(p))
				c.emitMissing(in+"\t\t", p)
				f.p("%s\t}", in)
				f.p("%s\tst = d.Take()", in)
				c.emitDecodeTerm(in+"\t", p)
			} else {
				f.p("%s\tif st != nil && (%s) {", in, c.matchExpr(p))
				f.p("%s\t\tst = d.Take()", in)
				c.emitDecodeTerm(in+"\t\t", p)
				f.p("%s\t}", in)
			}
			f.p("%s}", in)
			return
		}
		if single {
			k := c.fresh("k")
			ns, local := goString(p.Element.Name.Space), goString(p.Element.Name.Local)
			if p.Max < 0 && p.Min == 0 {
				f.p("%sfor {", in)
			} else {
				f.p("%s%s := 0", in, k)
				f.p("%sfor ; %s; %s++ {", in, maxCond(k, p.Max), k)
			}
			f.p("%s\tst, err := d.Optional(%s, %s)", in, ns, local)
			f.p("%s\tif err != nil {", in)
			f.p("%s\t\treturn err", in)
			f.p("%s\t}", in)
			f.p("%s\tif st == nil {", in)
			f.p("%s\t\tbreak", in)
			f.p("%s\t}", in)
			c.emitReadField(in+"\t", p.Element)
			f.p("%s}", in)
			c.emitTooFew(in, p, k)
			return
		}
		k := c.fresh("k")
		f.p("%s%s := 0", in, k)
		f.p("%sfor ; %s; %s++ {", in, maxCond(k, p.Max), k)
		c.emitPeek(in+"\t", "")
		f.p("%s\tif st == nil || !(%s) {", in, c.matchExpr(p))
		f.p("%s\t\tbreak", in)
		f.p("%s\t}", in)
		f.p("%s\tst = d.Take()", in)
		c.emitDecodeTerm(in+"\t", p)
		f.p("%s}", in)
		c.emitTooFew(in, p, k)
		return
	}
	// a model group
	min := p.Min
	if termEmptiable(p) {
		min = 0
	}
	if p.Max == 1 && min >= 1 {
		c.emitDecodeGroup(in, p.Group)
		return
	}
	k := c.fresh("k")
	before := c.fresh("before")
	f.p("%s%s := 0", in, k)
	f.p("%sfor ; %s; %s++ {", in, maxCond(k, p.Max), k)
	if min > 0 {
		f.p("%s\tif %s >= %d {", in, k, min)
		c.emitPeek(in+"\t\t", "")
		f.p("%s\t\tif st == nil || !(%s) {", in, c.matchExpr(p))
		f.p("%s\t\t\tbreak", in)
		f.p("%s\t\t}", in)
		f.p("%s\t}", in)
	} else {
		c.emitPeek(in+"\t", "")
		f.p("%s\tif st == nil || !(%s) {", in, c.matchExpr(p))
		f.p("%s\t\tbreak", in)
		f.p("%s\t}", in)
	}
	f.p("%s\t%s := d.Taken()", in, before)
	c.emitDecodeGroup(in+"\t", p.Group)
	f.p("%s\tif d.Taken() == %s {", in, before)
	f.p("%s\t\tbreak", in)
	f.p("%s\t}", in)
	f.p("%s}", in)
}

// emitTooFew writes the check that p occurred at least its minimum (k
// times it did).
func (c *content) emitTooFew(in string, p *xsd.Particle, k string) {
	if p.Min == 0 {
		return
	}
	f := c.f
	f.p("%sif %s < %d {", in, k, p.Min)
	if p.Element != nil {
		f.p("%s\tif %s == 0 {", in, k)
		c.emitMissing(in+"\t\t", p)
		f.p("%s\t}", in)
		f.p("%s\treturn d.TooFew(%s, %s, %s, %d)", in, goString(p.Element.Name.Space), goString(p.Element.Name.Local), k, p.Min)
	} else {
		c.emitMissing(in+"\t", p)
	}
	f.p("%s}", in)
}

// maxCond is the loop condition of an occurrence counter.
func maxCond(k string, max int) string {
	if max < 0 {
		return "true"
	}
	return fmt.Sprintf("%s < %d", k, max)
}

// emitMissing writes the error for p missing.
func (c *content) emitMissing(in string, p *xsd.Particle) {
	if p.Element != nil {
		c.f.p("%sreturn d.Missing(%s, %s)", in, goString(p.Element.Name.Space), goString(p.Element.Name.Local))
		return
	}
	c.f.p("%sreturn d.OneOf(%s)", in, goString(c.expectedOf(p)))
}

// emitDecodeTerm reads the element (or wildcard's element) just taken.
func (c *content) emitDecodeTerm(in string, p *xsd.Particle) {
	f := c.f
	if p.Any != nil {
		fd := c.st.any
		f.p("%sraw, err := d.Raw(st)", in)
		f.p("%sif err != nil {", in)
		f.p("%s\treturn err", in)
		f.p("%s}", in)
		f.p("%sv.%s = append(v.%s, raw)", in, fd.name, fd.name)
		return
	}
	members := c.g.m.members(p.Element)
	if len(members) == 1 {
		c.emitReadField(in, members[0])
		return
	}
	f.p("%sswitch {", in)
	for _, e := range members {
		f.p("%scase st.Is(%s, %s):", in, goString(e.Name.Space), goString(e.Name.Local))
		c.emitReadField(in+"\t", e)
	}
	f.p("%s}", in)
}

// emitReadField reads the element just taken into its field.
func (c *content) emitReadField(in string, e *xsd.Element) {
	fd := c.st.elems[e.Name]
	assign, assignNil := fieldAssign(fd)
	c.g.emitReadValue(c.f, in, e, fd.rep, assign, assignNil)
}

// emitDecodeGroup reads one occurrence of a model group.
func (c *content) emitDecodeGroup(in string, g *xsd.ModelGroup) {
	f := c.f
	switch g.Compositor {
	case xsd.Sequence:
		for _, q := range g.Particles {
			c.emitDecodeParticle(in, q)
		}
	case xsd.Choice:
		f.p("%s{", in)
		c.emitPeek(in+"\t", "")
		f.p("%s\tswitch {", in)
		for _, q := range g.Particles {
			if q.Max == 0 {
				continue
			}
			f.p("%s\tcase st != nil && (%s):", in, c.matchExpr(q))
			c.emitDecodeParticle(in+"\t\t", q)
		}
		f.p("%s\tdefault:", in)
		f.p("%s\t\treturn d.OneOf(%s)", in, goString(c.expectedOf(&xsd.Particle{Min: 1, Max: 1, Group: g})))
		f.p("%s\t}", in)
		f.p("%s}", in)
	case xsd.All:
		c.label++
		label := fmt.Sprintf("all%d", c.label)
		seen := make([]string, len(g.Particles))
		for i, q := range g.Particles {
			if q.Max != 0 {
				seen[i] = c.fresh("seen")
				f.p("%svar %s bool", in, seen[i])
			}
		}
		f.p("%s%s:", in, label)
		f.p("%sfor {", in)
		c.emitPeek(in+"\t", "")
		f.p("%s\tif st == nil {", in)
		f.p("%s\t\tbreak", in)
		f.p("%s\t}", in)
		f.p("%s\tswitch {", in)
		for i, q := range g.Particles {
			if q.Max == 0 {
				continue
			}
			f.p("%s\tcase !%s && (%s):", in, seen[i], c.matchExpr(q))
			f.p("%s\t\t%s = true", in, seen[i])
			c.emitDecodeParticle(in+"\t\t", q)
		}
		f.p("%s\tdefault:", in)
		f.p("%s\t\tbreak %s", in, label)
		f.p("%s\t}", in)
		f.p("%s}", in)
		for i, q := range g.Particles {
			if q.Max == 0 || q.Min == 0 || termEmptiable(q) {
				continue
			}
			f.p("%sif !%s {", in, seen[i])
			c.emitMissing(in+"\t", q)
			f.p("%s}", in)
		}
	}
}
