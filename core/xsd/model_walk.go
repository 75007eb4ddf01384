package xsd

import (
	"encoding/xml"
	"sort"
)

// firstSet is what can start a particle: element names (with the
// declaration each stands for: the particle's element, or a member of its
// substitution group) and wildcards.
type firstSet struct {
	names map[xml.Name]*Element
	local map[string]*Element // by local name, for lenient reading
	wild  []*Wildcard
}

// match returns the declaration or wildcard that name starts.
func (f *firstSet) match(n xml.Name, lenient bool) (*Element, *Wildcard) {
	if e := f.names[n]; e != nil {
		return e, nil
	}
	if lenient {
		if e := f.local[n.Local]; e != nil {
			return e, nil
		}
	}
	for _, w := range f.wild {
		if w.Allows(n.Space) {
			return nil, w
		}
	}
	return nil, nil
}

// expected lists what could start, for messages.
func (f *firstSet) expected() []string {
	var out []string
	for n := range f.names {
		out = append(out, qn(n))
	}
	sort.Strings(out)
	if len(f.wild) > 0 {
		out = append(out, "any element")
	}
	return out
}

// first returns the names that can start p (memoized).
func (c *Codec) first(p *Particle) *firstSet {
	if f, ok := c.firsts.Load(p); ok {
		return f.(*firstSet)
	}
	f := &firstSet{names: map[xml.Name]*Element{}, local: map[string]*Element{}}
	c.addFirst(f, p, 0)
	c.firsts.Store(p, f)
	return f
}

func (c *Codec) addFirst(f *firstSet, p *Particle, depth int) {
	if p == nil || p.Max == 0 || depth > maxChain {
		return
	}
	switch {
	case p.Element != nil:
		for _, e := range c.members(p.Element) {
			f.names[e.Name] = e
			if _, ok := f.local[e.Name.Local]; !ok {
				f.local[e.Name.Local] = e
			}
		}
	case p.Any != nil:
		f.wild = append(f.wild, p.Any)
	case p.Group != nil:
		for _, q := range p.Group.Particles {
			c.addFirst(f, q, depth+1)
			if p.Group.Compositor == Sequence && !emptiable(q) {
				return
			}
		}
	}
}

// members returns the elements that may stand where e is declared: e
// itself unless abstract, and its substitution group's members that are
// not.
func (c *Codec) members(e *Element) []*Element {
	var out []*Element
	if !e.Abstract {
		out = append(out, e)
	}
	if e.Global && c.set != nil {
		for _, s := range c.set.SubstitutionGroup(e) {
			if !s.Abstract {
				out = append(out, s)
			}
		}
	}
	return out
}

// contentElements returns the element declarations a content model
// holds (substitutes included), by local name, each once.
func (c *Codec) contentElements(p *Particle) map[string][]*Element {
	if p == nil {
		return nil
	}
	if m, ok := c.elements.Load(p); ok {
		return m.(map[string][]*Element)
	}
	m := map[string][]*Element{}
	seen := map[*Element]bool{}
	var walk func(p *Particle, depth int)
	walk = func(p *Particle, depth int) {
		if p == nil || depth > maxChain {
			return
		}
		if p.Element != nil {
			for _, e := range append([]*Element{p.Element}, c.members(p.Element)...) {
				if !seen[e] {
					seen[e] = true
					m[e.Name.Local] = append(m[e.Name.Local], e)
				}
			}
		}
		if p.Group != nil {
			for _, q := range p.Group.Particles {
				walk(q, depth+1)
			}
		}
	}
	walk(p, 0)
	c.elements.Store(p, m)
	return m
}

// hasWildcard reports whether a content model has an xs:any.
func hasWildcard(p *Particle, depth int) bool {
	if p == nil || depth > maxChain {
		return false
	}
	if p.Any != nil {
		return true
	}
	if p.Group != nil {
		for _, q := range p.Group.Particles {
			if hasWildcard(q, depth+1) {
				return true
			}
		}
	}
	return false
}

// derivesFrom reports whether t is base or derives from it (by any chain
// of restrictions and extensions; every type derives from anyType, every
// simple type from anySimpleType).
func derivesFrom(t, base Type) bool {
	if ct, ok := base.(*ComplexType); ok && ct.IsAnyType() {
		return true
	}
	if st, ok := base.(*SimpleType); ok && st.Kind == KindAnySimpleType {
		if _, simple := t.(*SimpleType); simple {
			return true
		}
	}
	for x, n := t, 0; x != nil && n < maxChain; x, n = x.BaseType(), n+1 {
		if x == base {
			return true
		}
	}
	return false
}
