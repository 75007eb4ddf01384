package wsdl

import (
	"encoding/xml"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
	"github.com/soapwire/soapwire/core/xsd"
)

// isSOAPNS reports whether ns is the WSDL SOAP 1.1 or 1.2 binding's.
func isSOAPNS(ns string) bool { return ns == NamespaceSOAP11 || ns == NamespaceSOAP12 }

func (dr *docReader) binding(n *xmldoc.Node) {
	b := &Binding{Name: dr.name(n), Loc: dr.at(n)}
	b.portType = dr.qname(n, "type")
	b.policyURIs = policyURIs(n)
	for _, c := range n.Elements() {
		switch {
		case c.Is(NamespaceWSDL, "documentation"):
			b.Doc = joinDoc(b.Doc, documentation(c))
		case c.Is(NamespaceWSDL, "operation"):
			op := dr.bindingOperation(c, b)
			b.Operations = append(b.Operations, op)
			dr.cr.bops = append(dr.cr.bops, &bindingOp{b: b, op: op})
		case c.Name.Local == "binding" && isSOAPNS(c.Name.Space):
			if b.Kind != OtherBinding {
				dr.cr.fail(dr.at(c), "the binding %s says its protocol twice", b.Name.Local)
			}
			b.Kind = SOAP11
			if c.Name.Space == NamespaceSOAP12 {
				b.Kind = SOAP12
			}
			b.Style, _ = c.Attr("style")
			b.Transport, _ = c.Attr("transport")
			if b.Style != "" && b.Style != "document" && b.Style != "rpc" {
				dr.cr.fail(dr.at(c), "style=%q (document or rpc)", b.Style)
			}
		case c.Is(NamespaceHTTP, "binding"):
			if b.Kind != OtherBinding {
				dr.cr.fail(dr.at(c), "the binding %s says its protocol twice", b.Name.Local)
			}
			b.Kind = HTTP
			b.Verb, _ = c.Attr("verb")
		default:
			if !attachedPolicy(c, &b.policies) || !dr.cr.appliedPolicy(c) {
				dr.extension(c, "wsdl:binding")
			}
		}
	}
	register(dr.cr, "binding", b.Name, b.Loc, b, dr.cr.c.bindings, &dr.cr.c.Bindings, func(f *Binding) xsd.Loc { return f.Loc })
}

func (dr *docReader) bindingOperation(n *xmldoc.Node, b *Binding) *BindingOperation {
	op := &BindingOperation{Loc: dr.at(n)}
	op.Name, _ = n.Attr("name")
	for _, c := range n.Elements() {
		switch {
		case c.Is(NamespaceWSDL, "documentation"):
			op.Doc = joinDoc(op.Doc, documentation(c))
		case c.Name.Local == "operation" && isSOAPNS(c.Name.Space):
			op.Action, _ = c.Attr("soapAction")
			op.Style, _ = c.Attr("style")
			if op.Style != "" && op.Style != "document" && op.Style != "rpc" {
				dr.cr.fail(dr.at(c), "style=%q (document or rpc)", op.Style)
			}
			if v, ok := c.Attr("soapActionRequired"); ok {
				req := strings.TrimSpace(v) == "true"
				op.ActionRequired = &req
			}
		case c.Is(NamespaceHTTP, "operation"):
			op.HTTPLocation, _ = c.Attr("location")
		case c.Is(NamespaceWSDL, "input"), c.Is(NamespaceWSDL, "output"):
			m := dr.bindingMessage(c)
			if c.Name.Local == "input" {
				op.Input, op.inName = m, m.Name
			} else {
				op.Output, op.outName = m, m.Name
			}
		case c.Is(NamespaceWSDL, "fault"):
			op.Faults = append(op.Faults, dr.bindingFault(c))
		default:
			dr.extension(c, "a binding's wsdl:operation")
		}
	}
	return op
}

// bindingMessage reads a binding operation's input or output.
func (dr *docReader) bindingMessage(n *xmldoc.Node) *BindingMessage {
	m := &BindingMessage{Loc: dr.at(n)}
	m.Name, _ = n.Attr("name")
	for _, c := range n.Elements() {
		switch {
		case c.Is(NamespaceWSDL, "documentation"):
		case c.Name.Local == "body" && isSOAPNS(c.Name.Space):
			if m.Body != nil {
				dr.cr.fail(dr.at(c), "two soap:body elements")
			}
			m.Body = dr.soapBody(c)
		case c.Name.Local == "header" && isSOAPNS(c.Name.Space):
			m.Headers = append(m.Headers, dr.soapHeader(c))
		case c.Is(NamespaceMIME, "multipartRelated"):
			for _, p := range c.Elements() {
				if !p.Is(NamespaceMIME, "part") {
					dr.extension(p, "mime:multipartRelated")
					continue
				}
				mp := &MIMEPart{Loc: dr.at(p)}
				for _, e := range p.Elements() {
					switch {
					case e.Name.Local == "body" && isSOAPNS(e.Name.Space):
						if m.Body != nil {
							dr.cr.fail(dr.at(e), "two soap:body elements")
						}
						mp.Body = dr.soapBody(e)
						m.Body = mp.Body
					case e.Name.Local == "header" && isSOAPNS(e.Name.Space):
						m.Headers = append(m.Headers, dr.soapHeader(e))
					case e.Is(NamespaceMIME, "content"):
						part, _ := e.Attr("part")
						typ, _ := e.Attr("type")
						mp.Contents = append(mp.Contents, MIMEContent{Part: part, Type: typ})
					default:
						dr.extension(e, "mime:part")
					}
				}
				m.MIME = append(m.MIME, mp)
			}
		case c.Name.Space == NamespaceMIME: // mime:content, mime:mimeXml of an HTTP binding
		case c.Name.Space == NamespaceHTTP: // http:urlEncoded, http:urlReplacement
		default:
			dr.extension(c, "a binding's wsdl:"+n.Name.Local)
		}
	}
	return m
}

func (dr *docReader) soapBody(n *xmldoc.Node) *SOAPBody {
	b := &SOAPBody{Loc: dr.at(n)}
	if v, ok := n.Attr("parts"); ok {
		b.Parts = strings.Fields(v)
		if b.Parts == nil {
			b.Parts = []string{}
		}
	}
	b.Use, _ = n.Attr("use")
	b.Namespace, _ = n.Attr("namespace")
	b.EncodingStyle, _ = n.Attr("encodingStyle")
	dr.checkUse(n, b.Use)
	return b
}

func (dr *docReader) checkUse(n *xmldoc.Node, use string) {
	if use != "" && use != "literal" && use != "encoded" {
		dr.cr.fail(dr.at(n), "use=%q (literal or encoded)", use)
	}
}

func (dr *docReader) soapHeader(n *xmldoc.Node) *SOAPHeader {
	h := &SOAPHeader{Loc: dr.at(n)}
	h.msg = dr.qname(n, "message")
	h.part, _ = n.Attr("part")
	h.Use, _ = n.Attr("use")
	h.Namespace, _ = n.Attr("namespace")
	h.EncodingStyle, _ = n.Attr("encodingStyle")
	dr.checkUse(n, h.Use)
	if v, _ := n.AttrNS(NamespaceWSDL, "required"); strings.TrimSpace(v) == "true" {
		h.Required = true
	}
	for _, c := range n.Elements() {
		if c.Name.Local == "headerfault" && isSOAPNS(c.Name.Space) {
			h.Faults = append(h.Faults, dr.soapHeader(c))
		}
	}
	dr.cr.headers = append(dr.cr.headers, h)
	return h
}

func (dr *docReader) bindingFault(n *xmldoc.Node) *BindingFault {
	f := &BindingFault{Loc: dr.at(n)}
	f.Name, _ = n.Attr("name")
	for _, c := range n.Elements() {
		switch {
		case c.Is(NamespaceWSDL, "documentation"):
		case c.Name.Local == "fault" && isSOAPNS(c.Name.Space):
			f.Use, _ = c.Attr("use")
			f.Namespace, _ = c.Attr("namespace")
			f.EncodingStyle, _ = c.Attr("encodingStyle")
			dr.checkUse(c, f.Use)
			if name, ok := c.Attr("name"); ok && f.Name == "" {
				f.Name = name
			}
		default:
			dr.extension(c, "a binding's wsdl:fault")
		}
	}
	return f
}

// resolve links every reference by name, once all documents and schemas
// are read.
func (cr *reader) resolve() {
	c, set := cr.c, cr.c.Schemas
	for _, m := range c.Messages {
		for _, p := range m.Parts {
			switch {
			case p.ElementName != (xml.Name{}):
				if p.Element = set.Element(p.ElementName); p.Element == nil {
					cr.fail(p.Loc, "the element %s of the part %s of the message %s is not defined", qstr(p.ElementName), p.Name, m.Name.Local)
				}
			case p.TypeName != (xml.Name{}):
				if p.Type = set.Type(p.TypeName); p.Type == nil {
					cr.fail(p.Loc, "the type %s of the part %s of the message %s is not defined", qstr(p.TypeName), p.Name, m.Name.Local)
				}
			}
		}
	}
	message := func(n xml.Name, loc xsd.Loc) *Message {
		if n == (xml.Name{}) {
			return nil
		}
		m := c.Message(n)
		if m == nil {
			cr.fail(loc, "the message %s is not defined", qstr(n))
		}
		return m
	}
	for _, op := range cr.ops {
		for _, om := range append([]*OperationMessage{op.Input, op.Output}, op.Faults...) {
			if om != nil {
				om.Message = message(om.msg, om.Loc)
			}
		}
		// WSDL 1.1 §2.4.5: unnamed input and output are named after the
		// operation.
		if op.Input != nil && op.Input.Name == "" {
			op.Input.Name = op.Name
			if op.Output != nil {
				op.Input.Name = op.Name + "Request"
			}
		}
		if op.Output != nil && op.Output.Name == "" {
			op.Output.Name = op.Name
			if op.Input != nil {
				op.Output.Name = op.Name + "Response"
			}
		}
	}
	for _, h := range cr.headers {
		if h.Message = message(h.msg, h.Loc); h.Message != nil {
			if h.Part = h.Message.Part(h.part); h.Part == nil {
				cr.fail(h.Loc, "the message %s has no part %q for a soap:header", h.Message.Name.Local, h.part)
			}
		}
	}
	for _, b := range c.Bindings {
		if b.PortType = c.PortType(b.portType); b.PortType == nil && b.portType != (xml.Name{}) {
			cr.fail(b.Loc, "the port type %s of the binding %s is not defined", qstr(b.portType), b.Name.Local)
		}
	}
	for _, bo := range cr.bops {
		cr.bindOperation(bo.b, bo.op)
	}
	for _, p := range cr.ports {
		if p.Binding = c.Binding(p.binding); p.Binding == nil && p.binding != (xml.Name{}) {
			cr.fail(p.Loc, "the binding %s of the port %s is not defined", qstr(p.binding), p.Name)
		}
	}
}

// bindOperation finds the port type operation a binding operation binds:
// by name, and by its input and output names where the name is overloaded.
func (cr *reader) bindOperation(b *Binding, op *BindingOperation) {
	if b.PortType == nil {
		return
	}
	var found []*PortTypeOperation
	for _, o := range b.PortType.Operations {
		if o.Name == op.Name {
			found = append(found, o)
		}
	}
	if len(found) > 1 {
		var narrowed []*PortTypeOperation
		for _, o := range found {
			if (op.inName == "" || o.Input != nil && o.Input.Name == op.inName) && (op.outName == "" || o.Output != nil && o.Output.Name == op.outName) {
				narrowed = append(narrowed, o)
			}
		}
		found = narrowed
	}
	switch len(found) {
	case 0:
		cr.fail(op.Loc, "the binding %s has an operation %s its port type %s does not have", b.Name.Local, op.Name, b.PortType.Name.Local)
		return
	case 1:
	default:
		cr.fail(op.Loc, "the operation %s of the binding %s matches %d operations of the port type", op.Name, b.Name.Local, len(found))
		return
	}
	op.Operation = found[0]
	for _, f := range op.Faults {
		for _, pf := range op.Operation.Faults {
			if pf.Name == f.Name {
				f.Fault = pf
			}
		}
		if f.Fault == nil {
			cr.fail(f.Loc, "the binding's fault %q is not a fault of the operation %s", f.Name, op.Name)
		}
	}
	if b.Kind == SOAP11 || b.Kind == SOAP12 {
		if (op.Operation.Input == nil) != (op.Input == nil) || (op.Operation.Output == nil) != (op.Output == nil) {
			cr.warn(op.Loc, "the binding of %s does not have the same input and output as its port type operation", op.Name)
		}
	}
}

func qstr(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}
