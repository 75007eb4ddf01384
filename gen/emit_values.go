package gen

import (
	"fmt"
)

// formatExpr returns the expression that writes expr, a value of r's Go
// type, as its lexical form (what the codec writes for it, before its
// check).
func formatExpr(r *rep, expr string) string {
	k := "xsd." + kindConst(r.xkind)
	switch r.kind {
	case repBool:
		return fmt.Sprintf("xsd.FormatBool(bool(%s))", expr)
	case repInt:
		return fmt.Sprintf("xsd.FormatInt(int64(%s))", expr)
	case repUint:
		return fmt.Sprintf("xsd.FormatUint(uint64(%s))", expr)
	case repFloat:
		return fmt.Sprintf("xsd.FormatFloat(float64(%s), %d, %s)", expr, r.bits, k)
	case repTime:
		return fmt.Sprintf("xsd.FormatTime(%s, %s)", expr, k)
	case repBinary:
		return fmt.Sprintf("xsd.FormatBinary([]byte(%s), %s)", expr, k)
	case repQName:
		return fmt.Sprintf("xsd.FormatQName(%s)", expr)
	case repList:
		return fmt.Sprintf("xsd.FormatList([]%s(%s), func(it %s) string { return %s })", r.item.goType, expr, r.item.goType, formatExpr(r.item, "it"))
	}
	if r.goType == "string" {
		return expr
	}
	return fmt.Sprintf("string(%s)", expr)
}

// parseCall returns the call that reads the checked lexical form in src
// into r's Go type, as (value, error); "" for a string kind, which
// converts without one.
func parseCall(r *rep, src string) string {
	k := "xsd." + kindConst(r.xkind)
	switch r.kind {
	case repBool:
		return fmt.Sprintf("xsd.ParseBool(%s)", src)
	case repInt:
		return fmt.Sprintf("xsd.ParseInt(%s, %d)", src, r.bits)
	case repUint:
		return fmt.Sprintf("xsd.ParseUint(%s, %d)", src, r.bits)
	case repFloat:
		return fmt.Sprintf("xsd.ParseFloat(%s, %s, %d)", src, k, r.bits)
	case repTime:
		return fmt.Sprintf("xsd.ParseTime(%s, %s)", src, k)
	case repBinary:
		return fmt.Sprintf("xsd.ParseBinary(%s, %s)", src, k)
	case repQName:
		return fmt.Sprintf("xsd.ParseQName(%s)", src)
	case repList:
		item := r.item
		var body string
		if c := parseCall(item, "it"); c == "" {
			body = fmt.Sprintf("return %s(it), nil", item.goType)
		} else {
			body = fmt.Sprintf("x, err := %s; return %s(x), err", c, item.goType)
		}
		return fmt.Sprintf("xsd.ParseList(%s, func(it string) (%s, error) { %s })", src, item.goType, body)
	}
	return ""
}

// emitFormat writes the statement that declares dst as the lexical form
// of expr.
func (g *generator) emitFormat(f *file, in string, r *rep, expr, dst string) {
	e := formatExpr(r, expr)
	f.use(e)
	f.p("%s%s := %s", in, dst, e)
}

// emitCheckedText writes statements that declare dst as the checked,
// normalized lexical form of expr (a value of r's type); onErr formats the
// error's return statement from an error expression.
func (g *generator) emitCheckedText(f *file, in string, r *rep, expr, dst string, onErr func(err string) string) {
	e := formatExpr(r, expr)
	f.use(e)
	if !r.check {
		f.p("%s%s := %s", in, dst, e)
		return
	}
	f.p("%s%s, err := %s.Check(%s)", in, dst, r.simple, e)
	f.p("%sif err != nil {", in)
	f.p("%s\treturn %s", in, onErr("err"))
	f.p("%s}", in)
}

// emitParse writes statements that read the checked lexical form in src
// into a value of r's Go type and pass it to assign (which returns the
// statement that stores it); onErr formats the error's return.
func (g *generator) emitParse(f *file, in string, r *rep, src string, assign func(val string) string, onErr func(err string) string) {
	c := parseCall(r, src)
	if c == "" {
		f.p("%s%s", in, assign(conv(r.goType, src)))
		return
	}
	f.use(c)
	f.use(r.goType)
	f.p("%sx, err := %s", in, c)
	f.p("%sif err != nil {", in)
	f.p("%s\treturn %s", in, onErr("err"))
	f.p("%s}", in)
	f.p("%s%s", in, assign(conv(r.goType, "x")))
}

// conv converts expr to the Go type t (a no-op spelled out for string).
func conv(t, expr string) string {
	if t == "string" && expr != "x" {
		return expr
	}
	return t + "(" + expr + ")"
}
