package gen

import (
	"encoding/xml"
	"fmt"
)

// emitElemFuncs writes the functions that write and read the global
// elements messages, headers and faults carry.
func (g *generator) emitElemFuncs(f *file) {
	f.need("xsd")
	for _, ef := range g.m.elemList {
		el, r := ef.el, ef.rep
		f.use(ef.goType)
		f.p("// %s writes the element %s holding v (nil: xsi:nil).", ef.write, qname(el.Name))
		f.p("func %s(e *xsd.Encoder, v %s) error {", ef.write, ef.goType)
		f.p("\tif v == nil {")
		if el.Nillable {
			g.emitWriteNil(f, "\t\t", el, r)
			f.p("\t\treturn nil")
		} else {
			f.p("\t\treturn e.Errorf(%s)", errorfMessage("the element "+el.Name.Local+" is required and not nillable: give a value"))
		}
		f.p("\t}")
		val := "(*v)"
		if r.kind == repIface || r.kind == repRaw {
			val = "v"
		}
		g.emitWriteValue(f, "\t", el, r, val)
		f.p("\treturn nil")
		f.p("}")
		f.p("")
		f.p("// %s reads the element %s whose start tag d has just taken (st); nil", ef.read, qname(el.Name))
		f.p("// for xsi:nil.")
		f.p("func %s(d *xsd.Decoder, st *xsd.Start) (%s, error) {", ef.read, ef.goType)
		f.p("\tvar out %s", ef.goType)
		assign := func(val string) string {
			if r.kind == repIface || r.kind == repRaw {
				return "out = " + val
			}
			if val == "x" {
				return "out = &x"
			}
			return fmt.Sprintf("{ y := %s; out = &y }", val)
		}
		f.p("\terr := func() error {")
		g.emitReadValue(f, "\t\t", el, r, assign, "out = nil")
		f.p("\t\treturn nil")
		f.p("\t}()")
		f.p("\treturn out, err")
		f.p("}")
		f.p("")
	}
}

// emitMessages writes the functions that write and read the messages.
func (g *generator) emitMessages(f *file) {
	for _, msg := range g.m.messages {
		f.use(msg.goType)
		switch msg.kind {
		case msgElement:
			el := msg.el.el
			f.p("func %s(e *xsd.Encoder, v %s) error { return %s(e, v) }", msg.write, msg.goType, msg.el.write)
			f.p("")
			f.p("func %s(d *xsd.Decoder) (%s, error) {", msg.read, msg.goType)
			f.p("\tst, err := d.Element(%s, %s)", goString(el.Name.Space), goString(el.Name.Local))
			f.p("\tif err != nil {")
			f.p("\t\treturn nil, err")
			f.p("\t}")
			f.p("\treturn %s(d, st)", msg.el.read)
			f.p("}")
			f.p("")
		case msgRPC:
			w := msg.wrapper
			f.p("func %s(e *xsd.Encoder, v %s) error {", msg.write, msg.goType)
			f.p("\tif v == nil {")
			f.p("\t\tv = new(%s)", msg.st.name)
			f.p("\t}")
			f.p("\te.Start(%s, %s)", goString(w.Space), goString(w.Local))
			f.p("\tif err := v.EncodeXSD(e); err != nil {")
			f.p("\t\treturn err")
			f.p("\t}")
			f.p("\te.End()")
			f.p("\treturn nil")
			f.p("}")
			f.p("")
			f.p("func %s(d *xsd.Decoder) (%s, error) {", msg.read, msg.goType)
			f.p("\tst, err := d.Element(%s, %s)", goString(w.Space), goString(w.Local))
			f.p("\tif err != nil {")
			f.p("\t\treturn nil, err")
			f.p("\t}")
			if msg.rpc12 {
				f.need("core")
				f.p("\tst = d.Detach(st)")
				f.p("\tif err := d.Skip(core.NamespaceRPC, \"result\"); err != nil {")
				f.p("\t\treturn nil, err")
				f.p("\t}")
			}
			f.p("\tv := new(%s)", msg.st.name)
			f.p("\tif err := v.DecodeXSD(d, st); err != nil {")
			f.p("\t\treturn nil, err")
			f.p("\t}")
			f.p("\treturn v, nil")
			f.p("}")
			f.p("")
		case msgParts:
			g.emitPartsMessage(f, msg)
		}
	}
}

// emitPartsMessage writes a bare message of several parts (or none): its
// part elements in a row.
func (g *generator) emitPartsMessage(f *file, msg *message) {
	st := msg.st
	f.p("func %s(e *xsd.Encoder, v %s) error {", msg.write, msg.goType)
	f.p("\tif v == nil {")
	f.p("\t\tv = new(%s)", st.name)
	f.p("\t}")
	c := &content{g: g, f: f, st: st}
	for _, p := range msg.params {
		fd := st.elems[p.Element.Name]
		if fd == nil {
			continue
		}
		c.emitEncodeSimple(p)
	}
	f.p("\treturn nil")
	f.p("}")
	f.p("")
	f.p("func %s(d *xsd.Decoder) (%s, error) {", msg.read, msg.goType)
	f.p("\tv := new(%s)", st.name)
	for _, p := range msg.params {
		fd := st.elems[p.Element.Name]
		if fd == nil {
			continue
		}
		f.p("\t{")
		f.p("\t\tst, err := d.Element(%s, %s)", goString(p.Element.Name.Space), goString(p.Element.Name.Local))
		f.p("\t\tif err != nil {")
		f.p("\t\t\treturn nil, err")
		f.p("\t\t}")
		f.p("\t\tif err := func() error {")
		assign, assignNil := fieldAssign(fd)
		g.emitReadValue(f, "\t\t\t", p.Element, fd.rep, assign, assignNil)
		f.p("\t\t\treturn nil")
		f.p("\t\t}(); err != nil {")
		f.p("\t\t\treturn nil, err")
		f.p("\t\t}")
		f.p("\t}")
	}
	f.p("\treturn v, nil")
	f.p("}")
	f.p("")
}

// emitFaults writes the typed errors of the declared faults.
func (g *generator) emitFaults(f *file) {
	if len(g.m.faultList) == 0 {
		return
	}
	f.need("core", "wsdl", "xsd")
	for _, ft := range g.m.faultList {
		el := ft.el.el
		f.use(ft.el.goType)
		if ft.wrapper != (xml.Name{}) {
			f.p("// %s is the fault whose detail is the element %s holding the", ft.name, qname(ft.wrapper))
			f.p("// accessor %s (the fault message's part), which operations", el.Name.Local)
		} else {
			f.p("// %s is the fault whose detail is the element %s, which operations", ft.name, qname(el.Name))
		}
		f.p("// of the contract declare (%s). A client returns it for such a fault", ft.first.Name)
		f.p("// (errors.As); a server's operation returns it to answer one.")
		if d := el.Documentation(); d != "" {
			f.p("//")
			f.comment("", d)
		}
		f.p("type %s struct {", ft.name)
		f.p("\t// Code is the fault's code (a server's: Sender when zero).")
		f.p("\tCode core.Code")
		f.p("\t// Reason is the fault's reason text.")
		f.p("\tReason string")
		f.p("\t// Detail is the fault's detail.")
		f.p("\tDetail %s", ft.el.goType)
		f.p("\t// Fault is the fault as a client received it (nil on a server).")
		f.p("\tFault *core.Fault")
		f.p("}")
		f.p("")
		f.p("func (e *%s) Error() string {", ft.name)
		label := el.Name.Local
		if ft.wrapper != (xml.Name{}) {
			label = ft.wrapper.Local
		}
		f.p("\treturn %s + e.Reason", goString(label+": "))
		f.p("}")
		f.p("")
		f.p("// As makes errors.As find the *core.Fault: the one received, or the one")
		f.p("// a server answers (its detail written by the contract).")
		f.p("func (e *%s) As(target any) bool {", ft.name)
		f.p("\tp, ok := target.(**core.Fault)")
		f.p("\tif !ok {")
		f.p("\t\treturn false")
		f.p("\t}")
		f.p("\tif e.Fault != nil {")
		f.p("\t\t*p = e.Fault")
		f.p("\t\treturn true")
		f.p("\t}")
		if w := ft.wrapper; w != (xml.Name{}) {
			f.p("\t*p = wsdl.DetailFault(e.Code, e.Reason, func(enc *xsd.Encoder) error {")
			f.p("\t\tenc.Start(%s, %s)", goString(w.Space), goString(w.Local))
			f.p("\t\tif err := %s(enc, e.Detail); err != nil {", ft.el.write)
			f.p("\t\t\treturn err")
			f.p("\t\t}")
			f.p("\t\tenc.End()")
			f.p("\t\treturn nil")
			f.p("\t})")
		} else {
			f.p("\t*p = wsdl.DetailFault(e.Code, e.Reason, func(enc *xsd.Encoder) error { return %s(enc, e.Detail) })", ft.el.write)
		}
		f.p("\treturn true")
		f.p("}")
		f.p("")
		f.p("func %s(d *xsd.Decoder, st *xsd.Start, f *core.Fault) (error, error) {", ft.read)
		f.p("\tdetail, err := %s(d, st)", ft.el.read)
		f.p("\tif err != nil {")
		f.p("\t\treturn nil, err")
		f.p("\t}")
		f.p("\treturn &%s{Code: f.Code, Reason: f.Reason, Detail: detail, Fault: f}, nil", ft.name)
		f.p("}")
		f.p("")
	}
}
