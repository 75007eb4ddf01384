package wsdl

import (
	"context"
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
	"github.com/soapwire/soapwire/core/xsd"
)

// Load reads the WSDL 1.1 document at location with every WSDL and schema
// document it imports (each once, relative locations resolved against the
// importing document), through loader and the catalog (xsd.WithCatalog:
// the standard schemas soapwire ships by default), within the limits
// (xsd.WithLimits). Nothing is fetched from the network unless loader
// does so (xsd.HTTPLoader).
//
// The error is an *xsd.Error listing every problem found (a reference that
// does not resolve, a construct that cannot be read right), or the failure
// to load a document (wrapping xsd.ErrLimit or xsd.ErrTooLarge for a
// limit). What is read but not applied is in Contract.Warnings.
func Load(ctx context.Context, loader xsd.Loader, location string, opts ...xsd.Option) (*Contract, error) {
	cr := &reader{
		r: xsd.NewReader(ctx, loader, opts...),
		c: &Contract{
			Location:  location,
			messages:  map[xml.Name]*Message{},
			portTypes: map[xml.Name]*PortType{},
			bindings:  map[xml.Name]*Binding{},
		},
	}
	cr.document(location, xsd.Loc{}, 0, "")
	if err := cr.r.Err(); err != nil && cr.fatal() {
		return nil, fmt.Errorf("wsdl: %w", err)
	}
	set, err := cr.r.Set()
	if err != nil {
		return nil, fmt.Errorf("wsdl: %w", err)
	}
	cr.c.Schemas = set
	cr.resolve()
	cr.resolvePolicies()
	if !cr.r.Failed() {
		cr.endpoints()
	}
	if err := cr.r.Err(); err != nil {
		return nil, fmt.Errorf("wsdl: %w", err)
	}
	cr.c.Warnings = cr.r.Warnings()
	cr.c.Documents = cr.r.Documents()
	return cr.c, nil
}

// reader is the state of one Load.
type reader struct {
	r *xsd.Reader
	c *Contract

	ops     []*PortTypeOperation
	bops    []*bindingOp
	ports   []*Port
	headers []*SOAPHeader
	// policies are the wsp:Policy elements of the documents by the
	// references that name them ("#id", a Name)
	policies map[string]*xmldoc.Node
}

type bindingOp struct {
	b  *Binding
	op *BindingOperation
}

// fatal reports whether loading stopped on a document that could not be
// read (then resolving the rest would only add noise).
func (cr *reader) fatal() bool {
	_, ok := cr.r.Err().(*xsd.Error)
	return !ok
}

func (cr *reader) fail(loc xsd.Loc, format string, args ...any) { cr.r.Fail(loc, format, args...) }
func (cr *reader) warn(loc xsd.Loc, format string, args ...any) { cr.r.Warn(loc, format, args...) }

// document reads the WSDL document at location (once); from is where it
// is imported, namespace the namespace the import says ("" for the first).
func (cr *reader) document(location string, from xsd.Loc, depth int, namespace string) {
	d, isNew, err := cr.r.Document(location, depth)
	if err != nil {
		cr.r.Fatal(from, err)
		return
	}
	if !isNew {
		return
	}
	root := d.Root
	loc := xsd.Loc{File: d.Location, Line: root.Line}
	switch {
	case root.Is(NamespaceWSDL, "definitions"):
	case root.Is(xsd.NamespaceXSD, "schema") && depth > 0:
		// a schema imported with wsdl:import, as some contracts do
		cr.r.AddSchemaDocument(d, depth)
		return
	case root.Name.Space == NamespaceWSDL20:
		cr.fail(loc, "WSDL 2.0 (%s) is not supported: only WSDL 1.1 is", NamespaceWSDL20)
		return
	default:
		cr.fail(loc, "{%s}%s is not a WSDL 1.1 document (wsdl:definitions)", root.Name.Space, root.Name.Local)
		return
	}
	tns, _ := root.Attr("targetNamespace")
	if depth > 0 && namespace != "" && tns != namespace {
		cr.warn(loc, "imported for the namespace %q, the document has the target namespace %q", namespace, tns)
	}
	if depth == 0 {
		cr.c.TargetNamespace = tns
		cr.c.Name, _ = root.Attr("name")
		cr.c.root = root
	}
	dr := &docReader{cr: cr, loc: d.Location, tns: tns, depth: depth}
	// A document's own definitions come before those it imports: where
	// both define a name (a contract error, reported), its own are used.
	var imports []*xmldoc.Node
	defer func() {
		for _, n := range imports {
			dr.wsdlImport(n)
		}
	}()
	for _, n := range root.Children {
		if n.IsText() {
			if strings.TrimSpace(n.Text) != "" {
				cr.warn(loc, "text in wsdl:definitions ignored")
			}
			continue
		}
		if n.Name.Space != NamespaceWSDL {
			dr.policyDef(n)
			if !cr.appliedPolicy(n) {
				dr.extension(n, "wsdl:definitions")
			}
			continue
		}
		switch n.Name.Local {
		case "documentation":
			if depth == 0 {
				cr.c.Doc = joinDoc(cr.c.Doc, documentation(n))
			}
		case "import":
			imports = append(imports, n)
		case "types":
			dr.types(n)
		case "message":
			dr.message(n)
		case "portType":
			dr.portType(n)
		case "binding":
			dr.binding(n)
		case "service":
			dr.service(n)
		default:
			cr.warn(dr.at(n), "wsdl:%s is not WSDL 1.1 (ignored)", n.Name.Local)
		}
	}
}

// docReader reads the components of one WSDL document.
type docReader struct {
	cr    *reader
	loc   string
	tns   string
	depth int
}

func (dr *docReader) at(n *xmldoc.Node) xsd.Loc { return xsd.Loc{File: dr.loc, Line: n.Line} }

func (dr *docReader) name(n *xmldoc.Node) xml.Name {
	v, _ := n.Attr("name")
	v = strings.TrimSpace(v)
	if v == "" {
		dr.cr.fail(dr.at(n), "wsdl:%s without a name", n.Name.Local)
	}
	return xml.Name{Space: dr.tns, Local: v}
}

// qname reads a QName attribute that must be there.
func (dr *docReader) qname(n *xmldoc.Node, attr string) xml.Name {
	v, ok := n.Attr(attr)
	if !ok {
		dr.cr.fail(dr.at(n), "wsdl:%s without a %s", n.Name.Local, attr)
		return xml.Name{}
	}
	q, err := n.ResolveQName(v)
	if err != nil {
		dr.cr.fail(dr.at(n), "%s: %v", attr, err)
	}
	return q
}

func (dr *docReader) wsdlImport(n *xmldoc.Node) {
	ns, _ := n.Attr("namespace")
	location, ok := n.Attr("location")
	if !ok || strings.TrimSpace(location) == "" {
		dr.cr.fail(dr.at(n), "wsdl:import of %q without a location", ns)
		return
	}
	loc, err := xsd.ResolveLocation(dr.loc, location)
	if err != nil {
		dr.cr.fail(dr.at(n), "%v", err)
		return
	}
	dr.cr.document(loc, dr.at(n), dr.depth+1, ns)
}

// types reads wsdl:types: schemas, and the xsd:import and xsd:include some
// contracts put there directly.
func (dr *docReader) types(n *xmldoc.Node) {
	for _, c := range n.Elements() {
		switch {
		case c.Is(xsd.NamespaceXSD, "schema"):
			dr.cr.r.AddSchema(c, dr.loc, dr.depth)
		case c.Is(xsd.NamespaceXSD, "import"), c.Is(xsd.NamespaceXSD, "include"):
			ns, _ := c.Attr("namespace")
			sl, ok := c.Attr("schemaLocation")
			if !ok {
				dr.cr.r.Want(ns, dr.at(c))
				continue
			}
			loc, err := xsd.ResolveLocation(dr.loc, sl)
			if err != nil {
				dr.cr.fail(dr.at(c), "%v", err)
				continue
			}
			dr.cr.r.LoadSchemaAt(loc, dr.at(c), dr.depth+1, "", false, ns)
		case c.Name.Space == NamespaceWSDL && c.Name.Local == "documentation":
		default:
			dr.extension(c, "wsdl:types")
		}
	}
}

func (dr *docReader) message(n *xmldoc.Node) {
	m := &Message{Name: dr.name(n), Loc: dr.at(n)}
	for _, c := range n.Elements() {
		switch {
		case c.Is(NamespaceWSDL, "documentation"):
			m.Doc = joinDoc(m.Doc, documentation(c))
		case c.Is(NamespaceWSDL, "part"):
			p := &MessagePart{Loc: dr.at(c), Doc: docOf(c)}
			p.Name, _ = c.Attr("name")
			if p.Name == "" {
				dr.cr.fail(p.Loc, "a part of the message %s without a name", m.Name.Local)
			}
			_, hasE := c.Attr("element")
			_, hasT := c.Attr("type")
			switch {
			case hasE && hasT:
				dr.cr.fail(p.Loc, "the part %s names both an element and a type", p.Name)
			case hasE:
				p.ElementName = dr.qname(c, "element")
			case hasT:
				p.TypeName = dr.qname(c, "type")
			default:
				dr.cr.fail(p.Loc, "the part %s names neither an element nor a type", p.Name)
			}
			m.Parts = append(m.Parts, p)
		default:
			dr.extension(c, "wsdl:message")
		}
	}
	register(dr.cr, "message", m.Name, m.Loc, m, dr.cr.c.messages, &dr.cr.c.Messages, func(f *Message) xsd.Loc { return f.Loc })
}

// register adds a named component to its table and list; a second one of
// the name is reported and left out.
func register[T any](cr *reader, what string, name xml.Name, loc xsd.Loc, v T, table map[xml.Name]T, list *[]T, locOf func(T) xsd.Loc) {
	if f, ok := table[name]; ok {
		cr.warn(loc, "the %s %s is defined again (the first, at %s, is used)", what, name.Local, locOf(f))
		return
	}
	table[name] = v
	*list = append(*list, v)
}

func (dr *docReader) portType(n *xmldoc.Node) {
	pt := &PortType{Name: dr.name(n), Loc: dr.at(n)}
	for _, c := range n.Elements() {
		switch {
		case c.Is(NamespaceWSDL, "documentation"):
			pt.Doc = joinDoc(pt.Doc, documentation(c))
		case c.Is(NamespaceWSDL, "operation"):
			pt.Operations = append(pt.Operations, dr.operation(c))
		default:
			dr.extension(c, "wsdl:portType")
		}
	}
	register(dr.cr, "port type", pt.Name, pt.Loc, pt, dr.cr.c.portTypes, &dr.cr.c.PortTypes, func(f *PortType) xsd.Loc { return f.Loc })
}

func (dr *docReader) operation(n *xmldoc.Node) *PortTypeOperation {
	op := &PortTypeOperation{Loc: dr.at(n)}
	op.Name, _ = n.Attr("name")
	if op.Name == "" {
		dr.cr.fail(op.Loc, "an operation without a name")
	}
	if po, ok := n.Attr("parameterOrder"); ok {
		op.ParameterOrder = strings.Fields(po)
	}
	var order []string
	for _, c := range n.Elements() {
		if c.Name.Space != NamespaceWSDL {
			dr.extension(c, "wsdl:operation")
			continue
		}
		switch c.Name.Local {
		case "documentation":
			op.Doc = joinDoc(op.Doc, documentation(c))
			continue
		case "input", "output", "fault":
		default:
			dr.cr.warn(dr.at(c), "wsdl:%s in an operation is not WSDL 1.1 (ignored)", c.Name.Local)
			continue
		}
		om := &OperationMessage{Loc: dr.at(c), Doc: docOf(c)}
		om.Name, _ = c.Attr("name")
		om.msg = dr.qname(c, "message")
		for _, a := range c.Attrs {
			if a.Name.Local == "Action" && isAddressingWSDL(a.Name.Space) {
				om.Action = a.Value
			}
		}
		switch c.Name.Local {
		case "input":
			if op.Input != nil {
				dr.cr.fail(om.Loc, "the operation %s has two inputs", op.Name)
			}
			op.Input = om
			order = append(order, "input")
		case "output":
			if op.Output != nil {
				dr.cr.fail(om.Loc, "the operation %s has two outputs", op.Name)
			}
			op.Output = om
			order = append(order, "output")
		case "fault":
			if om.Name == "" {
				dr.cr.fail(om.Loc, "a fault of the operation %s without a name", op.Name)
			}
			op.Faults = append(op.Faults, om)
		}
	}
	switch {
	case len(order) == 0:
		dr.cr.fail(op.Loc, "the operation %s has neither an input nor an output", op.Name)
	case order[0] == "output":
		// notification and solicit-response: the service sends first
		dr.cr.warn(op.Loc, "the operation %s starts with its output (notification or solicit-response): not callable, left out of the endpoints", op.Name)
	}
	dr.cr.ops = append(dr.cr.ops, op)
	return op
}

func (dr *docReader) service(n *xmldoc.Node) {
	s := &Service{Name: dr.name(n), Loc: dr.at(n)}
	for _, c := range n.Elements() {
		switch {
		case c.Is(NamespaceWSDL, "documentation"):
			s.Doc = joinDoc(s.Doc, documentation(c))
		case c.Is(NamespaceWSDL, "port"):
			p := &Port{Loc: dr.at(c), Doc: docOf(c)}
			p.Name, _ = c.Attr("name")
			p.binding = dr.qname(c, "binding")
			p.policyURIs = policyURIs(c)
			for _, e := range c.Elements() {
				switch {
				case e.Is(NamespaceWSDL, "documentation"):
				case e.Name.Local == "address" && (e.Name.Space == NamespaceSOAP11 || e.Name.Space == NamespaceSOAP12 || e.Name.Space == NamespaceHTTP):
					if p.Address != "" {
						dr.cr.warn(dr.at(e), "the port %s has a second address (ignored)", p.Name)
						continue
					}
					p.Address, _ = e.Attr("location")
				default:
					if !attachedPolicy(e, &p.policies) || !dr.cr.appliedPolicy(e) {
						dr.extension(e, "wsdl:port")
					}
				}
			}
			s.Ports = append(s.Ports, p)
			dr.cr.ports = append(dr.cr.ports, p)
		default:
			dr.extension(c, "wsdl:service")
		}
	}
	dr.cr.c.Services = append(dr.cr.c.Services, s)
}

// documentation returns a wsdl:documentation's text.
func documentation(n *xmldoc.Node) string { return strings.TrimSpace(n.InnerText()) }

// docOf returns the wsdl:documentation of n.
func docOf(n *xmldoc.Node) string {
	var doc string
	for _, c := range n.Elements() {
		if c.Is(NamespaceWSDL, "documentation") {
			doc = joinDoc(doc, documentation(c))
		}
	}
	return doc
}

func joinDoc(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// extension handles an element of another namespace where WSDL allows
// extensions: a required one (wsdl:required="true") that is not understood
// fails the load; the others are reported (once per kind and document).
func (dr *docReader) extension(n *xmldoc.Node, in string) {
	if v, _ := n.AttrNS(NamespaceWSDL, "required"); strings.TrimSpace(v) == "true" {
		dr.cr.fail(dr.at(n), "the extension {%s}%s in %s is marked required and is not supported", n.Name.Space, n.Name.Local, in)
		return
	}
	dr.cr.warn(dr.at(n), "{%s}%s in %s is not applied%s", n.Name.Space, n.Name.Local, in, hint(n.Name.Space))
}

// hint says what an ignored extension of a known namespace means.
func hint(ns string) string {
	switch {
	case strings.Contains(ns, "/policy") || strings.Contains(ns, "securitypolicy") || strings.Contains(ns, "ws-sx"):
		return ": a WS-Policy assertion (security and reliability policies must be set up by hand)"
	case isAddressingWSDL(ns) || strings.Contains(ns, "addressing"):
		return ": WS-Addressing metadata (soapwire writes WS-Addressing headers when asked)"
	}
	return ""
}

// isAddressingWSDL reports whether ns is one of the WS-Addressing WSDL
// binding and metadata namespaces (where Action attributes come from).
func isAddressingWSDL(ns string) bool {
	switch ns {
	case "http://www.w3.org/2006/05/addressing/wsdl", "http://www.w3.org/2007/05/addressing/metadata",
		"http://www.w3.org/2005/08/addressing", "http://schemas.xmlsoap.org/ws/2004/08/addressing":
		return true
	}
	return false
}
