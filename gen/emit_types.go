package gen

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core/xsd"
)

// qname writes a name for documentation: {namespace}local, or local.
func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// goType returns the Go type of a field.
func (fd *field) goType() string {
	switch fd.kind {
	case fieldText:
		return fd.rep.goType
	case fieldAny:
		return "[]xsd.RawXML"
	case fieldAnyAttr:
		return "[]xml.Attr"
	case fieldAttr:
		if fd.optional && !fd.rep.nilIsAbsent() {
			return "*" + fd.rep.goType
		}
		return fd.rep.goType
	}
	t := fd.rep.goType
	if fd.repeated {
		if fd.nillable && fd.rep.kind != repIface && fd.rep.kind != repRaw {
			return "[]*" + t
		}
		return "[]" + t
	}
	if fd.nillable {
		if fd.optional || fd.ptr {
			return "*xsd.Nillable[" + t + "]"
		}
		return "xsd.Nillable[" + t + "]"
	}
	if fd.rep.nilIsAbsent() {
		return t
	}
	if fd.optional || fd.ptr {
		return "*" + t
	}
	return t
}

// nilIsAbsent reports whether a value of the rep can be nil itself (a
// slice or an interface), which then stands for an absent element or
// attribute.
func (r *rep) nilIsAbsent() bool {
	switch r.kind {
	case repBinary, repList, repRaw, repArray, repIface:
		return true
	}
	return false
}

// tag returns a field's struct tag: the names the reflective codec (and
// encoding/xml) map it by.
func (fd *field) tag() string {
	var t string
	switch fd.kind {
	case fieldElem:
		t = fd.el.Name.Local
		if fd.el.Name.Space != "" {
			t = fd.el.Name.Space + " " + t
		}
	case fieldAttr:
		n := fd.use.Attribute.Name
		t = n.Local + ",attr"
		if n.Space != "" {
			t = n.Space + " " + t
		}
	case fieldText:
		t = ",chardata"
	case fieldAny:
		t = ",any"
	case fieldAnyAttr:
		t = "-"
	}
	s := `xml:` + strconv.Quote(t)
	if strings.Contains(s, "`") {
		return strconv.Quote(s)
	}
	return "`" + s + "`"
}

// emitSimpleTypes writes the named simple types and their constants.
func (g *generator) emitSimpleTypes(f *file) {
	simples := append([]*goSimple(nil), g.m.goSimples...)
	sort.Slice(simples, func(i, j int) bool { return simples[i].name < simples[j].name })
	for _, s := range simples {
		what := "the simple type " + qname(s.t.Name)
		if s.t.Name == (xml.Name{}) {
			what = "an enumeration (" + describeContext(s.t.Context) + ")"
		}
		f.p("// %s is %s.", s.name, what)
		if s.doc != "" {
			f.p("//")
			f.comment("", s.doc)
		}
		f.use(s.under.goType)
		if s.alias {
			f.p("type %s = %s", s.name, s.under.goType)
		} else {
			f.p("type %s %s", s.name, s.under.goType)
		}
		f.p("")
		if len(s.consts) > 0 {
			f.p("// The values %s enumerates.", s.name)
			f.p("const (")
			for _, c := range s.consts {
				if c.doc != "" {
					f.comment("\t", c.doc)
				}
				f.p("\t%s %s = %s", c.name, s.name, goString(c.value))
			}
			f.p(")")
			f.p("")
		}
		if !s.alias {
			f.p("// Validate checks the value against %s's facets.", s.name)
			f.p("func (v %s) Validate() error {", s.name)
			g.emitFormat(f, "\t", s.rep, "v", "s")
			f.p("\t_, err := %s.Check(s)", s.rep.simple)
			f.p("\treturn err")
			f.p("}")
			f.p("")
		}
	}
}

// describeContext says where an anonymous type is written.
func describeContext(c xsd.Component) string {
	switch c := c.(type) {
	case *xsd.Element:
		return "the type of the element " + qname(c.Name)
	case *xsd.Attribute:
		return "the type of the attribute " + qname(c.Name)
	case *xsd.SimpleType:
		if c.Name != (xml.Name{}) {
			return "written in the type " + qname(c.Name)
		}
		return "written in an anonymous simple type"
	case *xsd.ComplexType:
		if c.Array != nil {
			if c.Name != (xml.Name{}) {
				return "an item of the array type " + qname(c.Name)
			}
			return "an item of an array of arrays"
		}
		if c.Name != (xml.Name{}) {
			return "the value of the type " + qname(c.Name)
		}
	}
	return "anonymous"
}

// emitStructs writes the structs and the interfaces of types with derived
// types.
func (g *generator) emitStructs(f *file) {
	for _, st := range g.m.sortedStructs() {
		g.emitStruct(f, st)
	}
}

func (g *generator) emitStruct(f *file, st *goStruct) {
	ct := st.ct
	switch {
	case ct.Name != (xml.Name{}):
		f.p("// %s is the complex type %s.", st.name, qname(ct.Name))
	case st.message != "":
		f.p("// %s is %s.", st.name, st.message)
	default:
		f.p("// %s is %s.", st.name, describeContext(ct.Context))
	}
	if st.doc != "" {
		f.p("//")
		f.comment("", st.doc)
	}
	if st.array != nil {
		f.use(st.array.goType)
		f.p("//")
		f.p("// It is a SOAP-encoded array of %s.", st.array.goType)
		f.p("type %s []%s", st.name, st.array.goType)
		f.p("")
		g.emitIface(f, st)
		return
	}
	if ct.Abstract {
		f.p("//")
		f.p("// The type is abstract: an element of it holds a type derived from it.")
	}
	f.p("type %s struct {", st.name)
	if st.embed != nil {
		f.p("\t%s", st.embed.name)
	}
	for _, fd := range st.fields {
		if fd.owner != st {
			continue
		}
		if fd.doc != "" {
			f.comment("\t", fd.doc)
		}
		t := fd.goType()
		f.use(t)
		f.p("\t%s %s %s", fd.name, t, fd.tag())
	}
	f.p("}")
	f.p("")
	g.emitIface(f, st)
}

// emitIface writes the interface of a type with derived types, and the
// marker methods of the types in families.
func (g *generator) emitIface(f *file, st *goStruct) {
	if st.iface != "" {
		f.need("xsd", "xml")
		f.p("// %s is a %s or a type derived from it: what an element of the type", st.iface, st.name)
		f.p("// holds (the derived type's name is written as its xsi:type).")
		f.p("type %s interface {", st.iface)
		f.p("\tEncodeXSD(e *xsd.Encoder) error")
		f.p("\tDecodeXSD(d *xsd.Decoder, st *xsd.Start) error")
		f.p("\tXSDType() xml.Name")
		f.p("\tis%s()", st.name)
		f.p("}")
		f.p("")
	}
	for _, b := range st.bases {
		f.p("func (*%s) is%s() {}", st.name, b.name)
		f.p("")
	}
}

// emitSimpleVars writes the Simple variables that check values, and the
// wildcards.
func (g *generator) emitSimpleVars(f *file) {
	if len(g.m.simpleVars) == 0 && len(g.m.wilds) == 0 {
		return
	}
	f.need("xsd")
	f.p("// simples checks simple values as the contract's types say.")
	f.p("var simples = xsd.NewSimples()")
	f.p("")
	vars := append([]*simpleVar(nil), g.m.simpleVars...)
	sort.Slice(vars, func(i, j int) bool { return vars[i].name < vars[j].name })
	f.p("var (")
	for _, v := range vars {
		f.p("\t%s = %s", v.name, g.simpleExpr(f, v))
	}
	for _, w := range g.m.wilds {
		f.p("\t%s = %s", w.name, wildExpr(w.w))
	}
	f.p(")")
	f.p("")
}

// simpleExpr is the expression that makes a Simple.
func (g *generator) simpleExpr(f *file, v *simpleVar) string {
	if v.t == nil {
		return fmt.Sprintf("simples.Builtin(xsd.%s)", kindConst(v.builtin))
	}
	name := xmlNameExpr(v.t.Name)
	if name != "xml.Name{}" || true {
		f.need("xml")
	}
	switch {
	case v.item != "" && v.base == "":
		return fmt.Sprintf("simples.List(%s, %s)", name, v.item)
	case v.members != nil && v.base == "":
		return fmt.Sprintf("simples.Union(%s, %s)", name, strings.Join(v.members, ", "))
	}
	return fmt.Sprintf("simples.Restrict(%s, %s, %s)", name, v.base, facetsExpr(v.t.Facets))
}

// xmlNameExpr is an xml.Name literal.
func xmlNameExpr(n xml.Name) string {
	if n == (xml.Name{}) {
		return "xml.Name{}"
	}
	return fmt.Sprintf("xml.Name{Space: %s, Local: %s}", goString(n.Space), goString(n.Local))
}

// kindConst is the xsd constant of a built-in kind (xsd.KindInt).
func kindConst(k xsd.Kind) string {
	s := k.String()
	if s == "" {
		return "KindAnySimpleType"
	}
	special := map[string]string{"QName": "QName", "NOTATION": "NOTATION", "NMTOKEN": "NMTOKEN", "NMTOKENS": "NMTOKENS",
		"ID": "ID", "IDREF": "IDREF", "IDREFS": "IDREFS", "ENTITY": "ENTITY", "ENTITIES": "ENTITIES"}
	if v, ok := special[s]; ok {
		return "Kind" + v
	}
	return "Kind" + strings.ToUpper(s[:1]) + s[1:]
}

// facetsExpr is an xsd.Facets literal.
func facetsExpr(fc xsd.Facets) string {
	var parts []string
	if len(fc.Enumeration) > 0 {
		var es []string
		for _, e := range fc.Enumeration {
			if e.QName != (xml.Name{}) {
				es = append(es, fmt.Sprintf("{Value: %s, QName: %s}", goString(e.Value), xmlNameExpr(e.QName)))
			} else {
				es = append(es, fmt.Sprintf("{Value: %s}", goString(e.Value)))
			}
		}
		parts = append(parts, "Enumeration: []xsd.Enum{"+strings.Join(es, ", ")+"}")
	}
	if len(fc.Patterns) > 0 {
		var ps []string
		for _, p := range fc.Patterns {
			ps = append(ps, goString(p))
		}
		parts = append(parts, "Patterns: []string{"+strings.Join(ps, ", ")+"}")
	}
	ints := []struct {
		name string
		v    *int
	}{{"Length", fc.Length}, {"MinLength", fc.MinLength}, {"MaxLength", fc.MaxLength}, {"TotalDigits", fc.TotalDigits}, {"FractionDigits", fc.FractionDigits}}
	for _, i := range ints {
		if i.v != nil {
			parts = append(parts, fmt.Sprintf("%s: xsd.IntFacet(%d)", i.name, *i.v))
		}
	}
	strs := []struct {
		name string
		v    *string
	}{{"MinInclusive", fc.MinInclusive}, {"MaxInclusive", fc.MaxInclusive}, {"MinExclusive", fc.MinExclusive}, {"MaxExclusive", fc.MaxExclusive}}
	for _, s := range strs {
		if s.v != nil {
			parts = append(parts, fmt.Sprintf("%s: xsd.StringFacet(%s)", s.name, goString(*s.v)))
		}
	}
	if fc.WhiteSpace != "" {
		parts = append(parts, "WhiteSpace: "+goString(fc.WhiteSpace))
	}
	return "xsd.Facets{" + strings.Join(parts, ", ") + "}"
}

// wildExpr is an xsd.Wildcard literal.
func wildExpr(w *xsd.Wildcard) string {
	var parts []string
	if w.Any {
		parts = append(parts, "Any: true")
	}
	if w.Other {
		parts = append(parts, "Other: true")
	}
	if len(w.Namespaces) > 0 {
		var ns []string
		for _, n := range w.Namespaces {
			ns = append(ns, goString(n))
		}
		parts = append(parts, "Namespaces: []string{"+strings.Join(ns, ", ")+"}")
	}
	if w.TargetNS != "" {
		parts = append(parts, "TargetNS: "+goString(w.TargetNS))
	}
	if w.Process != "" {
		parts = append(parts, "Process: "+goString(w.Process))
	}
	return "&xsd.Wildcard{" + strings.Join(parts, ", ") + "}"
}
