package gen

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/core/xsd"
)

// declaredType is the name of an element's declared type (zero for an
// anonymous one).
func declaredType(decl *xsd.Element) xml.Name {
	if decl.Type == nil {
		return xml.Name{Space: xsd.NamespaceXSD, Local: "anyType"}
	}
	return decl.Type.TypeName()
}

// emitWriteValue writes the element decl holding expr, a value of r's Go
// type (not nil).
func (g *generator) emitWriteValue(f *file, in string, decl *xsd.Element, r *rep, expr string) {
	ns, local := goString(decl.Name.Space), goString(decl.Name.Local)
	switch r.kind {
	case repStruct, repArray:
		t := r.typeName
		if r.kind == repArray {
			t = xml.Name{}
		}
		f.p("%sif err := e.Struct(%s, %s, %s, %s, %s); err != nil {", in, ns, local, addrOf(expr), goString(t.Space), goString(t.Local))
		f.p("%s\treturn err", in)
		f.p("%s}", in)
	case repIface:
		t := r.st.ct.Name
		f.p("%sif err := e.Derived(%s, %s, %s, %s, %s, %v); err != nil {", in, ns, local, expr, goString(t.Space), goString(t.Local), r.st.ct.Abstract)
		f.p("%s\treturn err", in)
		f.p("%s}", in)
	case repRaw:
		f.p("%se.Start(%s, %s)", in, ns, local)
		f.p("%sif err := e.RawContent(%s); err != nil {", in, expr)
		f.p("%s\treturn err", in)
		f.p("%s}", in)
		f.p("%se.End()", in)
	case repAttachment:
		g.emitWriteBinary(f, in, decl, r, expr)
	default:
		text := formatExpr(r, expr)
		if decl.Fixed != nil {
			f.p("%sif s, _ := %s.Check(%s); s != %s {", in, r.simple, text, goString(*decl.Fixed))
			f.p("%s\treturn e.ErrorfIn(%s, %s)", in, local, errorfMessage(fmt.Sprintf("the value is fixed to %q", *decl.Fixed)))
			f.p("%s}", in)
		}
		if !r.check {
			f.p("%se.SimpleText(%s, %s, %s, %s)", in, ns, local, r.simple, text)
			return
		}
		f.p("%sif err := e.Simple(%s, %s, %s, %s); err != nil {", in, ns, local, r.simple, text)
		f.p("%s\treturn err", in)
		f.p("%s}", in)
	}
}

// addrOf is the address of an addressable expression.
func addrOf(expr string) string {
	if strings.HasPrefix(expr, "(*") && strings.HasSuffix(expr, ")") {
		return expr[2 : len(expr)-1]
	}
	return "&" + expr
}

func isQNameRep(r *rep) bool {
	return r.kind == repQName || r.xkind == xsd.KindQName || r.xkind == xsd.KindNOTATION ||
		r.item != nil && (r.item.kind == repQName || r.item.xkind == xsd.KindQName)
}

// emitWriteNil writes decl as xsi:nil (an error when it is not nillable).
func (g *generator) emitWriteNil(f *file, in string, decl *xsd.Element, r *rep) {
	local := goString(decl.Name.Local)
	if !decl.Nillable {
		f.p("%sreturn e.ErrorfIn(%s, \"the element is not nillable: it cannot be nil\")", in, local)
		return
	}
	simple := "nil"
	if r.isSimple() {
		simple = r.simple
	}
	f.p("%se.NilElement(%s, %s, %s)", in, goString(decl.Name.Space), local, simple)
}

// emitWriteItem writes decl holding expr, which may be nil when canBeNil
// (an interface, raw XML, a slice): nil is xsi:nil.
func (g *generator) emitWriteItem(f *file, in string, decl *xsd.Element, r *rep, expr string, canBeNil bool) {
	if !canBeNil || !r.nilIsAbsent() {
		g.emitWriteValue(f, in, decl, r, expr)
		return
	}
	f.p("%sif %s == nil {", in, expr)
	g.emitWriteNil(f, in+"\t", decl, r)
	if decl.Nillable {
		f.p("%s} else {", in)
		g.emitWriteValue(f, in+"\t", decl, r, expr)
		f.p("%s}", in)
		return
	}
	f.p("%s}", in)
	g.emitWriteValue(f, in, decl, r, expr)
}

// emitReadValue writes statements that read the element just taken (st)
// as decl, a value of rep r: assign returns the statement storing a value
// expression of r's Go type; assignNil stores xsi:nil ("" when the place
// cannot hold it: a value that is not nillable is refused anyway).
func (g *generator) emitReadValue(f *file, in string, decl *xsd.Element, r *rep, assign func(val string) string, assignNil string) {
	nillable := decl.Nillable && assignNil != ""
	local := goString(decl.Name.Local)
	switch r.kind {
	case repStruct, repArray:
		t := declaredType(decl)
		f.p("%svar x %s", in, r.goType)
		if nillable {
			f.p("%sisNil, err := d.StructNillable(st, &x, %s, %s)", in, goString(t.Space), goString(t.Local))
		} else {
			f.p("%sif err := d.Struct(st, &x, %s, %s); err != nil {", in, goString(t.Space), goString(t.Local))
			f.p("%s\treturn err", in)
			f.p("%s}", in)
			f.p("%s%s", in, assign("x"))
			return
		}
		f.p("%sif err != nil {", in)
		f.p("%s\treturn err", in)
		f.p("%s}", in)
		f.p("%sif isNil {", in)
		f.p("%s\t%s", in, assignNil)
		f.p("%s} else {", in)
		f.p("%s\t%s", in, assign("x"))
		f.p("%s}", in)
	case repIface, repRaw:
		f.p("%sif st.Nil {", in)
		if nillable {
			f.p("%s\tif err := d.Empty(); err != nil {", in)
			f.p("%s\t\treturn err", in)
			f.p("%s\t}", in)
			f.p("%s\t%s", in, assignNil)
			f.p("%s} else {", in)
		} else {
			f.p("%s\treturn d.NotNillable()", in)
			f.p("%s} else {", in)
		}
		if r.kind == repIface {
			f.p("%s\tx, err := %s(d, st)", in, g.m.dispatchName(r.st))
		} else {
			f.p("%s\tx, err := d.Raw(st)", in)
		}
		f.p("%s\tif err != nil {", in)
		f.p("%s\t\treturn err", in)
		f.p("%s\t}", in)
		f.p("%s\t%s", in, assign("x"))
		f.p("%s}", in)
	case repAttachment:
		g.emitReadBinary(f, in, nillable, r, assign, assignNil)
	default:
		switch {
		case nillable:
			f.p("%ss, isNil, err := d.TextNillable(st, %s)", in, r.simple)
		case decl.Fixed != nil:
			f.p("%ss, err := d.TextDefault(st, %s, %s, true)", in, r.simple, goString(*decl.Fixed))
		case decl.Default != nil:
			f.p("%ss, err := d.TextDefault(st, %s, %s, false)", in, r.simple, goString(*decl.Default))
		default:
			f.p("%ss, err := d.Text(st, %s)", in, r.simple)
		}
		f.p("%sif err != nil {", in)
		f.p("%s\treturn err", in)
		f.p("%s}", in)
		onErr := func(err string) string { return fmt.Sprintf("d.ErrorIn(%s, %s)", local, err) }
		if nillable {
			f.p("%sif isNil {", in)
			f.p("%s\t%s", in, assignNil)
			f.p("%s} else {", in)
			g.emitParse(f, in+"\t", r, "s", assign, onErr)
			f.p("%s}", in)
			return
		}
		g.emitParse(f, in, r, "s", assign, onErr)
	}
}

// fieldAssign returns how a value read is stored into an element field
// (assign), and xsi:nil (assignNil, "" when the field cannot hold it).
func fieldAssign(fd *field) (assign func(val string) string, assignNil string) {
	t := fd.rep.goType
	target := "v." + fd.name
	switch {
	case fd.repeated && fd.nillable && fd.rep.kind != repIface && fd.rep.kind != repRaw:
		return func(val string) string {
			return fmt.Sprintf("{ y := %s; %s = append(%s, &y) }", val, target, target)
		}, fmt.Sprintf("%s = append(%s, nil)", target, target)
	case fd.repeated:
		nilStmt := ""
		if fd.nillable {
			nilStmt = fmt.Sprintf("%s = append(%s, nil)", target, target)
		}
		return func(val string) string { return fmt.Sprintf("%s = append(%s, %s)", target, target, val) }, nilStmt
	case fd.nillable && (fd.optional || fd.ptr):
		return func(val string) string { return fmt.Sprintf("{ y := xsd.Some[%s](%s); %s = &y }", t, val, target) },
			fmt.Sprintf("{ y := xsd.NilValue[%s](); %s = &y }", t, target)
	case fd.nillable:
		return func(val string) string { return fmt.Sprintf("%s = xsd.Some[%s](%s)", target, t, val) },
			fmt.Sprintf("%s = xsd.NilValue[%s]()", target, t)
	case fd.rep.nilIsAbsent():
		return func(val string) string { return fmt.Sprintf("%s = %s", target, val) }, ""
	case fd.optional || fd.ptr:
		return func(val string) string { return fmt.Sprintf("{ y := %s; %s = &y }", val, target) }, ""
	}
	return func(val string) string { return fmt.Sprintf("%s = %s", target, val) }, ""
}
