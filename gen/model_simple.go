package gen

import (
	"encoding/xml"

	"github.com/soapwire/soapwire/core/xsd"
)

// goSimple is a named Go type the generator writes for a simple type: a
// named restriction, list or union, or an anonymous enumeration.
type goSimple struct {
	name   string
	t      *xsd.SimpleType
	rep    *rep // the values' rep (its goType is name)
	under  *rep // what it is made of
	alias  bool // a type alias (of time.Time, xml.Name)
	doc    string
	consts []enumConst
}

// enumConst is one enumerated value's constant.
type enumConst struct {
	name  string
	value string
	doc   string
}

// simpleRep returns how the values of t are held, making the Go types
// and the Simple variable it needs; ctx names an anonymous type from where
// it is written.
func (m *model) simpleRep(t *xsd.SimpleType, ctx string) *rep {
	if r := m.simples[t]; r != nil {
		return r
	}
	if t.IsBuiltin() {
		r := builtinRep(t.Kind)
		r.simple = m.builtinSimple(t.Kind)
		r.typeName = t.Name
		m.simples[t] = r
		return r
	}
	name := ""
	if t.Name != (xml.Name{}) {
		name = m.typeNames[t]
	}
	var under *rep
	switch t.Variety {
	case xsd.List:
		item := m.builtinRepOf(xsd.KindAnySimpleType)
		if t.Item != nil {
			item = m.simpleRep(t.Item, ctx+"Item")
		}
		under = &rep{goType: "[]" + item.goType, kind: repList, item: item, check: true, xkind: xsd.KindAnySimpleType}
	case xsd.Union:
		for i, mt := range t.Members {
			if !mt.IsBuiltin() && mt.Name == (xml.Name{}) {
				m.simpleRep(mt, ctx+"Member"+itoa(i+1))
			}
		}
		under = &rep{goType: "string", kind: repString, check: true, xkind: xsd.KindAnySimpleType}
	default:
		base := m.builtinRepOf(xsd.KindAnySimpleType)
		if t.Base != nil {
			base = m.simpleRep(t.Base, ctx+"Base")
		}
		under = base.copyValue()
		under.check = true
		if base.named != nil && !base.named.alias {
			// a restriction of a named type holds its values in that type
			under = base.copyValue()
			under.check = true
		}
	}
	facets := t.EffectiveFacets()
	enum := len(facets.Enumeration) > 0 && t.Variety == xsd.Atomic
	if name == "" && enum {
		name = m.names.name(ctx)
	}
	r := under.copyValue()
	r.typeName = encodedTypeName(t)
	r.simple = m.simpleVar(t, ctx)
	if name != "" {
		gs := &goSimple{name: name, t: t, under: under, doc: typeDoc(t.Documentation(), t.Context)}
		gs.alias = !under.definable()
		r.goType = name
		r.named = gs
		gs.rep = r
		if enum && under.kind == repString {
			gs.consts = m.enumConsts(name, facets.Enumeration)
		}
		m.goSimples = append(m.goSimples, gs)
	}
	m.simples[t] = r
	return r
}

// copyValue returns a copy of r that is not a named type's.
func (r *rep) copyValue() *rep {
	cp := *r
	cp.named = nil
	return &cp
}

// builtinRepOf returns the rep of a built-in kind (with its Simple).
func (m *model) builtinRepOf(k xsd.Kind) *rep {
	return m.simpleRep(m.set.Builtin(k), "")
}

// enumConsts names the constants of an enumeration: the type's name and
// the value's words (ColorRed); an empty value is TypeEmpty.
func (m *model) enumConsts(typeName string, es []xsd.Enum) []enumConst {
	var out []enumConst
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.Value] {
			continue
		}
		seen[e.Value] = true
		word := "Empty"
		if e.Value != "" {
			word = goName(e.Value)
			if word[0] == 'X' && (len(e.Value) == 0 || e.Value[0] != 'x' && e.Value[0] != 'X') {
				word = word[1:]
				if word == "" {
					word = "Value"
				}
			}
		}
		out = append(out, enumConst{name: m.names.name(typeName + word), value: e.Value, doc: e.Doc})
	}
	return out
}

// encodedTypeName is the xsi:type the SOAP encoding writes for a value of
// t: its name, or for an anonymous simple type its nearest named base's.
func encodedTypeName(t *xsd.SimpleType) xml.Name {
	for s, i := t, 0; s != nil && i < 1024; s, i = s.Base, i+1 {
		if s.Name != (xml.Name{}) {
			return s.Name
		}
	}
	return xml.Name{}
}

// builtinSimple returns the name of the Simple variable of a built-in
// kind, declaring it once.
func (m *model) builtinSimple(k xsd.Kind) string {
	if v, ok := m.builtinVars[k]; ok {
		return v
	}
	v := m.locals.name("simple" + goName(k.String()))
	m.builtinVars[k] = v
	m.simpleVars = append(m.simpleVars, &simpleVar{name: v, builtin: k})
	return v
}

// simpleVar is one generated Simple variable.
type simpleVar struct {
	name    string
	builtin xsd.Kind        // a built-in type's
	t       *xsd.SimpleType // a schema type's
	base    string          // a restriction's base variable
	item    string          // a list's item variable
	members []string        // a union's member variables
}

// simpleVar returns the variable that checks t's values.
func (m *model) simpleVar(t *xsd.SimpleType, ctx string) string {
	if v, ok := m.schemaVars[t]; ok {
		return v
	}
	name := ctx
	if t.Name != (xml.Name{}) {
		name = m.typeNames[t]
	}
	v := &simpleVar{name: m.locals.name("simple" + name), t: t}
	m.schemaVars[t] = v.name
	switch t.Variety {
	case xsd.List:
		if t.Item != nil {
			v.item = m.simpleRep(t.Item, ctx+"Item").simple
		} else {
			v.item = m.builtinSimple(xsd.KindAnySimpleType)
		}
		if t.Base != nil && t.Base.Variety == xsd.List && !t.Base.IsBuiltin() {
			v.base = m.simpleRep(t.Base, ctx+"Base").simple
		}
	case xsd.Union:
		for i, mt := range t.Members {
			v.members = append(v.members, m.simpleRep(mt, ctx+"Member"+itoa(i+1)).simple)
		}
		if t.Base != nil && t.Base.Variety == xsd.Union && !t.Base.IsBuiltin() {
			v.base = m.simpleRep(t.Base, ctx+"Base").simple
		}
	default:
		if t.Base != nil {
			v.base = m.simpleRep(t.Base, ctx+"Base").simple
		} else {
			v.base = m.builtinSimple(xsd.KindAnySimpleType)
		}
	}
	m.simpleVars = append(m.simpleVars, v)
	return v.name
}
