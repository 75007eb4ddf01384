package gen

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strings"

	"github.com/soapwire/soapwire/core/xsd"
)

// emitCodecs writes the codec methods of every struct.
func (g *generator) emitCodecs(f *file) {
	f.need("xsd", "xml")
	for _, st := range g.m.sortedStructs() {
		if st.array != nil {
			g.emitArrayCodec(f, st)
		} else {
			g.emitEncode(f, st)
			g.emitDecode(f, st)
		}
		g.emitXSDType(f, st)
		if st.iface != "" {
			g.emitDispatch(f, st)
		}
	}
}

// emitXSDType writes the method that names the type (for xsi:type).
func (g *generator) emitXSDType(f *file, st *goStruct) {
	f.p("// XSDType returns the schema type's name (zero for an anonymous type).")
	f.p("func (*%s) XSDType() xml.Name { return %s }", st.name, xmlNameExpr(st.ct.Name))
	f.p("")
}

// expectedAttrs lists a type's attributes, for messages.
func expectedAttrs(st *goStruct) string {
	var names []string
	for _, u := range st.ct.EffectiveAttributes() {
		names = append(names, u.Attribute.Name.Local)
	}
	return strings.Join(names, ", ")
}

// expectedElems lists a type's child elements, for messages.
func expectedElems(st *goStruct) string {
	var names []string
	seen := map[string]bool{}
	for n := range st.elems {
		if !seen[n.Local] {
			seen[n.Local] = true
			names = append(names, n.Local)
		}
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// emitEncode writes EncodeXSD: the attributes and content of a value.
func (g *generator) emitEncode(f *file, st *goStruct) {
	f.p("// EncodeXSD writes v's attributes and content into the element e has")
	f.p("// open, as the contract says (it checks them: an error names what does")
	f.p("// not fit).")
	f.p("func (v *%s) EncodeXSD(e *xsd.Encoder) error {", st.name)
	if st.ct.Abstract {
		f.p("\treturn e.Errorf(%s)", errorfMessage("the type "+qname(st.ct.Name)+" is abstract: give a value of a type derived from it"))
		f.p("}")
		f.p("")
		return
	}
	for _, u := range st.ct.EffectiveAttributes() {
		g.emitEncodeAttr(f, st, u)
	}
	if st.anyAttr != nil {
		f.p("\tfor _, a := range v.%s {", st.anyAttr.name)
		f.p("\t\te.Attr(a.Name.Space, a.Name.Local, a.Value)")
		f.p("\t}")
	}
	switch st.ct.Content {
	case xsd.SimpleContent:
		t := st.text
		g.emitCheckedText(f, "\t", t.rep, "v."+t.name, "s", func(err string) string { return "e.Errorf(\"%v\", " + err + ")" })
		if t.rep.kind == repQName || t.rep.xkind == xsd.KindQName {
			f.p("\te.Text(e.QNames(s))")
		} else {
			f.p("\te.Text(s)")
		}
	case xsd.EmptyContent:
	default:
		if st.ct.Content == xsd.MixedContent && st.text != nil {
			f.p("\te.Text(v.%s)", st.text.name)
		}
		if p := st.ct.EffectiveParticle(); p != nil {
			g.emitEncodeContent(f, st, p)
		}
	}
	f.p("\treturn nil")
	f.p("}")
	f.p("")
}

// emitEncodeAttr writes one attribute.
func (g *generator) emitEncodeAttr(f *file, st *goStruct, u *xsd.AttributeUse) {
	fd := st.attrs[u.Attribute.Name]
	if fd == nil {
		return
	}
	n := u.Attribute.Name
	expr := "v." + fd.name
	in := "\t"
	optional := fd.optional && !fd.rep.nilIsAbsent()
	switch {
	case optional:
		f.p("\tif %s != nil {", expr)
		expr = "*" + expr
		in = "\t\t"
	case fd.rep.nilIsAbsent():
		f.p("\tif %s != nil {", expr)
		in = "\t\t"
	default:
		f.p("\t{")
		in = "\t\t"
	}
	label := n.Local
	g.emitCheckedText(f, in, fd.rep, expr, "s", func(err string) string {
		return fmt.Sprintf("e.Errorf(\"attribute %s: %%v\", %s)", label, err)
	})
	if fx := u.ValueFixed(); fx != nil {
		f.p("%sif fixed, _ := %s.Check(%s); s != fixed {", in, fd.rep.simple, goString(*fx))
		f.p("%s\treturn e.Errorf(%s)", in, errorfMessage(fmt.Sprintf("attribute %s: the value is fixed to %q", label, *fx)))
		f.p("%s}", in)
	}
	val := "s"
	if fd.rep.kind == repQName || fd.rep.xkind == xsd.KindQName || fd.rep.item != nil && fd.rep.item.kind == repQName {
		val = "e.QNames(s)"
	}
	f.p("%se.Attr(%s, %s, %s)", in, goString(n.Space), goString(n.Local), val)
	f.p("\t}")
	if u.Use == xsd.Required && optional && u.ValueFixed() == nil {
		f.p("\tif v.%s == nil {", fd.name)
		f.p("\t\treturn e.MissingAttr(%s)", goString(n.Local))
		f.p("\t}")
	}
}

// emitDecode writes DecodeXSD: the attributes and content of a value,
// checked.
func (g *generator) emitDecode(f *file, st *goStruct) {
	f.p("// DecodeXSD reads v's attributes and content from the element d has")
	f.p("// just taken (st), checking them against the contract, and the element's")
	f.p("// end.")
	f.p("func (v *%s) DecodeXSD(d *xsd.Decoder, st *xsd.Start) error {", st.name)
	g.emitDecodeAttrs(f, st)
	switch st.ct.Content {
	case xsd.SimpleContent:
		t := st.text
		f.p("\ts, err := d.Value(%s)", t.rep.simple)
		f.p("\tif err != nil {")
		f.p("\t\treturn err")
		f.p("\t}")
		g.emitParse(f, "\t", t.rep, "s", func(val string) string { return "v." + t.name + " = " + val }, func(err string) string {
			return "d.Errorf(\"%v\", " + err + ")"
		})
		f.p("\treturn nil")
	case xsd.EmptyContent:
		f.p("\treturn d.Empty()")
	default:
		if p := st.ct.EffectiveParticle(); p != nil {
			g.emitDecodeContent(f, st, p)
		}
		if st.ct.Content == xsd.MixedContent && st.text != nil {
			f.p("\ttext, err := d.Mixed(%s)", goString(expectedElems(st)))
			f.p("\tif err != nil {")
			f.p("\t\treturn err")
			f.p("\t}")
			f.p("\tv.%s = text", st.text.name)
			f.p("\treturn nil")
		} else {
			f.p("\treturn d.End(%s)", goString(expectedElems(st)))
		}
	}
	f.p("}")
	f.p("")
}

// emitDecodeAttrs reads the attributes of st's start tag.
func (g *generator) emitDecodeAttrs(f *file, st *goStruct) {
	uses := st.ct.EffectiveAttributes()
	wild := "nil"
	if w := st.ct.EffectiveAnyAttribute(); w != nil {
		wild = g.m.wildVar(w)
	}
	var required []*field
	hasDefault := false
	for _, u := range uses {
		if fd := st.attrs[u.Attribute.Name]; fd != nil && (u.Use == xsd.Required || u.ValueDefault() != nil || u.ValueFixed() != nil) {
			required = append(required, fd)
			hasDefault = true
		}
	}
	seen := map[*field]string{}
	if hasDefault {
		for i, fd := range required {
			seen[fd] = fmt.Sprintf("seen%d", i)
			f.p("\tvar %s bool", seen[fd])
		}
	}
	f.p("\tattrs := st.Attrs()")
	f.p("\tfor i := range attrs {")
	f.p("\t\ta := &attrs[i]")
	f.p("\t\tswitch {")
	for _, u := range uses {
		fd := st.attrs[u.Attribute.Name]
		if fd == nil {
			continue
		}
		n := u.Attribute.Name
		f.p("\t\tcase a.Name.Is(%s, %s):", goString(n.Space), goString(n.Local))
		f.p("\t\t\ts, err := d.Attr(a, %s)", fd.rep.simple)
		f.p("\t\t\tif err != nil {")
		f.p("\t\t\t\treturn err")
		f.p("\t\t\t}")
		if fx := u.ValueFixed(); fx != nil {
			f.p("\t\t\tif err := d.AttrFixed(a, %s, s, %s); err != nil {", fd.rep.simple, goString(*fx))
			f.p("\t\t\t\treturn err")
			f.p("\t\t\t}")
		}
		g.emitParse(f, "\t\t\t", fd.rep, "s", func(val string) string { return assignAttr(fd, val) }, func(err string) string {
			return fmt.Sprintf("d.Errorf(\"attribute %s: %%v\", %s)", n.Local, err)
		})
		if s, ok := seen[fd]; ok {
			f.p("\t\t\t%s = true", s)
		}
	}
	f.p("\t\tdefault:")
	if st.anyAttr != nil {
		f.p("\t\t\tkeep, err := d.OtherAttr(a, %s, %s)", wild, goString(expectedAttrs(st)))
		f.p("\t\t\tif err != nil {")
		f.p("\t\t\t\treturn err")
		f.p("\t\t\t}")
		f.p("\t\t\tif keep {")
		f.p("\t\t\t\tv.%s = append(v.%s, xml.Attr{Name: xml.Name{Space: string(a.Name.Space), Local: string(a.Name.Local)}, Value: string(a.Value)})", st.anyAttr.name, st.anyAttr.name)
		f.p("\t\t\t}")
	} else {
		f.p("\t\t\tif _, err := d.OtherAttr(a, nil, %s); err != nil {", goString(expectedAttrs(st)))
		f.p("\t\t\t\treturn err")
		f.p("\t\t\t}")
	}
	f.p("\t\t}")
	f.p("\t}")
	for _, u := range uses {
		fd := st.attrs[u.Attribute.Name]
		s, ok := seen[fd]
		if fd == nil || !ok {
			continue
		}
		def := u.ValueDefault()
		if fx := u.ValueFixed(); fx != nil {
			def = fx
		}
		f.p("\tif !%s {", s)
		if def != nil {
			n := u.Attribute.Name
			f.p("\t\ts, err := %s.Check(%s)", fd.rep.simple, goString(*def))
			f.p("\t\tif err != nil {")
			f.p("\t\t\treturn d.Errorf(\"attribute %s's default: %%v\", err)", n.Local)
			f.p("\t\t}")
			g.emitParse(f, "\t\t", fd.rep, "s", func(val string) string { return assignAttr(fd, val) }, func(err string) string {
				return fmt.Sprintf("d.Errorf(\"attribute %s's default: %%v\", %s)", n.Local, err)
			})
		} else if u.Use == xsd.Required {
			f.p("\t\treturn d.MissingAttr(%s)", goString(u.Attribute.Name.Local))
		}
		f.p("\t}")
	}
}

// assignAttr is the statement that stores an attribute's value.
func assignAttr(fd *field, val string) string {
	if fd.optional && !fd.rep.nilIsAbsent() {
		return fmt.Sprintf("{ x := %s; v.%s = &x }", val, fd.name)
	}
	return fmt.Sprintf("v.%s = %s", fd.name, val)
}

// emitDispatch writes the function that reads an element of a type with
// derived types: the type its xsi:type names.
func (g *generator) emitDispatch(f *file, st *goStruct) {
	fn := g.m.dispatchName(st)
	f.p("// %s reads an element of the type %s (or the type its xsi:type names).", fn, qname(st.ct.Name))
	f.p("func %s(d *xsd.Decoder, st *xsd.Start) (%s, error) {", fn, st.iface)
	f.p("\tvar v %s", st.iface)
	f.p("\tswitch {")
	self := "!st.HasType || st.Type == " + xmlNameExpr(st.ct.Name)
	if st.ct.Abstract {
		f.p("\tcase %s:", self)
		f.p("\t\treturn nil, d.Errorf(%s)", errorfMessage("the type "+qname(st.ct.Name)+" is abstract: xsi:type must name a type derived from it"))
	} else {
		f.p("\tcase %s:", self)
		f.p("\t\tv = new(%s)", st.name)
	}
	for _, d := range st.family {
		if d == st || d.ct.Abstract {
			continue
		}
		f.p("\tcase st.Type == %s:", xmlNameExpr(d.ct.Name))
		f.p("\t\tv = new(%s)", d.name)
	}
	f.p("\tcase d.Encoded() != 0:")
	if st.ct.Abstract {
		f.p("\t\treturn nil, d.Errorf(\"xsi:type %%s does not name a type derived from %%s\", st.Type.Local, %s)", goString(qname(st.ct.Name)))
	} else {
		f.p("\t\tv = new(%s)", st.name)
	}
	f.p("\tdefault:")
	f.p("\t\treturn nil, d.Errorf(\"xsi:type {%%s}%%s does not derive from the element's type %%s\", st.Type.Space, st.Type.Local, %s)", goString(qname(st.ct.Name)))
	f.p("\t}")
	f.p("\treturn v, v.DecodeXSD(d, st)")
	f.p("}")
	f.p("")
}

// dispatchName is the name of the function reading an interface's value.
func (m *model) dispatchName(st *goStruct) string {
	if st.dispatch == "" {
		st.dispatch = m.locals.name("decode" + st.iface)
	}
	return st.dispatch
}

// emitArrayCodec writes the codec of a SOAP-encoded array: its items.
func (g *generator) emitArrayCodec(f *file, st *goStruct) {
	a := st.ct.Array
	item := st.array
	itemName := xml.Name{Local: "item"}
	if a.ItemElement != nil {
		itemName = xml.Name{Local: a.ItemElement.Name.Local}
	}
	itemType := a.ItemTypeName
	if item.typeName != (xml.Name{}) {
		itemType = item.typeName
	}
	enc := xsd.NamespaceSOAPEnc
	f.p("// EncodeXSD writes the array's items (in the SOAP encoding: with its")
	f.p("// arrayType).")
	f.p("func (v *%s) EncodeXSD(e *xsd.Encoder) error {", st.name)
	f.need("xsd")
	f.p("\tswitch e.Encoded() {")
	f.p("\tcase 0:")
	f.p("\tcase core.V12:")
	f.need("core")
	f.p("\t\te.Type(%s, \"Array\")", goString(xsd.NamespaceSOAP12Enc))
	f.p("\t\te.Attr(%s, \"itemType\", e.QName(%s, %s))", goString(xsd.NamespaceSOAP12Enc), goString(itemType.Space), goString(itemType.Local))
	f.p("\t\te.Attr(%s, \"arraySize\", xsd.FormatInt(int64(len(*v))))", goString(xsd.NamespaceSOAP12Enc))
	f.p("\tdefault:")
	f.p("\t\te.Type(%s, \"Array\")", goString(enc))
	f.p("\t\te.Attr(%s, \"arrayType\", e.QName(%s, %s)+%s+xsd.FormatInt(int64(len(*v)))+\"]\")", goString(enc), goString(itemType.Space), goString(itemType.Local), goString(a.ItemTypePrefix()+"["))
	f.p("\t}")
	f.p("\tfor i := range *v {")
	el := &xsd.Element{Name: itemName, Nillable: true}
	g.emitWriteItem(f, "\t\t", el, item, "(*v)[i]", item.nilIsAbsent() || item.kind == repStruct)
	f.p("\t}")
	f.p("\treturn nil")
	f.p("}")
	f.p("")
	f.p("// DecodeXSD reads the array's items, whatever their names.")
	f.p("func (v *%s) DecodeXSD(d *xsd.Decoder, st *xsd.Start) error {", st.name)
	f.p("\t*v = (*v)[:0]")
	f.p("\tfor {")
	f.p("\t\tst, err := d.Peek()")
	f.p("\t\tif err != nil {")
	f.p("\t\t\treturn err")
	f.p("\t\t}")
	f.p("\t\tif st == nil {")
	f.p("\t\t\tbreak")
	f.p("\t\t}")
	f.p("\t\tst = d.Take()")
	g.emitReadValue(f, "\t\t", el, item, func(val string) string { return "*v = append(*v, " + val + ")" }, "*v = append(*v, "+zeroOf(item)+")")
	f.p("\t}")
	f.p("\treturn d.End(\"\")")
	f.p("}")
	f.p("")
}

// zeroOf is the zero value of a rep's Go type (what a nil array item
// reads as).
func zeroOf(r *rep) string {
	switch r.kind {
	case repStruct:
		return r.goType + "{}"
	case repIface, repRaw, repArray, repBinary, repList:
		return "nil"
	case repAttachment:
		return "core.Binary{}"
	case repString:
		return r.goType + "(\"\")"
	case repBool:
		return "false"
	case repTime, repQName:
		return r.goType + "{}"
	}
	return r.goType + "(0)"
}
