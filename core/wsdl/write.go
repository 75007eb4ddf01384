package wsdl

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

func esc(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// message is one wsdl:message being written: its body parts and header
// parts, each a rendered wsdl:part, and the body parts' names.
type message struct {
	name       string
	parts      []string
	bodyParts  []string
	headerPart []string
	headerReq  []bool // the header part is required (not Optional)
}

// Write writes the WSDL 1.1 document of d, with a SOAP 1.1 and a SOAP 1.2
// binding and a service whose two ports are at address.
func (d *Definition) Write(w io.Writer, address string) error {
	if d.Encoded && !d.RPC {
		return fmt.Errorf("wsdl: %s: document/encoded is not supported", d.Name)
	}
	if d.Bare && d.RPC {
		return fmt.Errorf("wsdl: %s: bare is a document style, not rpc", d.Name)
	}
	x := newWriter(d)
	var msgs strings.Builder
	messages := make([][2]*message, len(d.Operations))
	for i, op := range d.Operations {
		for j, m := range []struct {
			name    string
			element xml.Name
			parts   []Part
			headers []Part
		}{
			{op.Name + "Request", op.InputElement, op.Input, op.InputHeaders},
			{op.Name + "Response", op.OutputElement, op.Output, op.OutputHeaders},
		} {
			if m.element.Local == "" {
				m.element = xml.Name{Space: d.Namespace, Local: op.Name}
				if j == 1 {
					m.element.Local += "Response"
				}
			}
			msg, err := x.message(m.name, m.element, m.parts, m.headers)
			if err != nil {
				return fmt.Errorf("wsdl: %s: %w", op.Name, err)
			}
			messages[i][j] = msg
			fmt.Fprintf(&msgs, `<wsdl:message name="%s">%s</wsdl:message>`+"\n", esc(msg.name), strings.Join(msg.parts, ""))
		}
	}

	var b strings.Builder
	ns := esc(d.Namespace)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<wsdl:definitions name="%s" targetNamespace="%s" xmlns:tns="%s"`, esc(d.Name), ns, ns)
	fmt.Fprintf(&b, ` xmlns:wsdl="%s" xmlns:xsd="%s" xmlns:soap="%s" xmlns:soap12="%s"`,
		NamespaceWSDL, NamespaceXSD, NamespaceSOAP11, NamespaceSOAP12)
	if d.Encoded {
		fmt.Fprintf(&b, ` xmlns:soapenc="%s"`, NamespaceSOAPEnc)
	}
	if x.typeNS != d.Namespace {
		fmt.Fprintf(&b, ` xmlns:ts="%s"`, esc(x.typeNS))
	}
	for _, o := range x.others {
		fmt.Fprintf(&b, ` xmlns:%s="%s"`, x.prefixes[o], esc(o))
	}
	b.WriteString(">\n")

	// types
	form := "unqualified"
	if d.Qualified {
		form = "qualified"
	}
	b.WriteString(`<wsdl:types>`)
	for i, sns := range x.order {
		s := x.schemas[sns]
		if len(s.types) == 0 && len(s.elems) == 0 && sns != d.Namespace {
			continue
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, `<xsd:schema targetNamespace="%s" elementFormDefault="%s">`, esc(sns), form)
		if d.Encoded {
			fmt.Fprintf(&b, `<xsd:import namespace="%s"/><xsd:import namespace="%s"/>`, NamespaceSOAPEnc, NamespaceWSDL)
		}
		for _, imp := range s.imports {
			fmt.Fprintf(&b, `<xsd:import namespace="%s"/>`, esc(imp))
		}
		for _, def := range s.types {
			b.WriteString("\n")
			b.WriteString(def)
		}
		if len(s.elems) > 0 {
			b.WriteString("\n")
			b.WriteString(strings.Join(s.elems, ""))
		}
		b.WriteString("\n</xsd:schema>")
	}
	b.WriteString("</wsdl:types>\n")

	b.WriteString(msgs.String())

	// portType
	fmt.Fprintf(&b, `<wsdl:portType name="%sPortType">`, esc(d.Name))
	for _, op := range d.Operations {
		n := esc(op.Name)
		fmt.Fprintf(&b, "\n"+`<wsdl:operation name="%s">`, n)
		if op.Doc != "" {
			fmt.Fprintf(&b, `<wsdl:documentation>%s</wsdl:documentation>`, esc(op.Doc))
		}
		fmt.Fprintf(&b, `<wsdl:input message="tns:%sRequest"/><wsdl:output message="tns:%sResponse"/></wsdl:operation>`, n, n)
	}
	b.WriteString("\n</wsdl:portType>\n")

	// bindings
	style := "document"
	if d.RPC {
		style = "rpc"
	}
	for _, bd := range []struct{ suffix, prefix, enc string }{
		{"Soap11", "soap", NamespaceSOAPEnc},
		{"Soap12", "soap12", NamespaceSOAP12Enc},
	} {
		fmt.Fprintf(&b, `<wsdl:binding name="%s%s" type="tns:%sPortType">`, esc(d.Name), bd.suffix, esc(d.Name))
		fmt.Fprintf(&b, `<%s:binding style="%s" transport="%s"/>`, bd.prefix, style, TransportHTTP)
		for i, op := range d.Operations {
			fmt.Fprintf(&b, "\n"+`<wsdl:operation name="%s"><%s:operation soapAction="%s" style="%s"/>`,
				esc(op.Name), bd.prefix, esc(op.Action), style)
			bodyNS := [2]string{d.Namespace, d.Namespace}
			if op.InputElement.Space != "" {
				bodyNS[0] = op.InputElement.Space
			}
			if op.OutputElement.Space != "" {
				bodyNS[1] = op.OutputElement.Space
			}
			for j, dir := range []string{"input", "output"} {
				fmt.Fprintf(&b, `<wsdl:%s>%s</wsdl:%s>`, dir, d.body(bd.prefix, bd.enc, bodyNS[j], messages[i][j]), dir)
			}
			b.WriteString(`</wsdl:operation>`)
		}
		b.WriteString("\n</wsdl:binding>\n")
	}

	// service
	fmt.Fprintf(&b, `<wsdl:service name="%s">`, esc(d.Name))
	for _, bd := range []struct{ suffix, prefix string }{{"Soap11", "soap"}, {"Soap12", "soap12"}} {
		fmt.Fprintf(&b, "\n"+`<wsdl:port name="%s%s" binding="tns:%s%s"><%s:address location="%s"/></wsdl:port>`,
			esc(d.Name), bd.suffix, esc(d.Name), bd.suffix, bd.prefix, esc(address))
	}
	b.WriteString("\n</wsdl:service>\n</wsdl:definitions>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// use returns the use, namespace and encodingStyle attributes of a
// soap:body or soap:header.
func (d *Definition) use(enc, ns string) string {
	switch {
	case d.Encoded:
		return fmt.Sprintf(` use="encoded" namespace="%s" encodingStyle="%s"`, esc(ns), enc)
	case d.RPC:
		return fmt.Sprintf(` use="literal" namespace="%s"`, esc(ns))
	}
	return ` use="literal"`
}

// body writes the soap:body of a message, with its parts named when the
// message has header parts, and a soap:header per header part.
func (d *Definition) body(prefix, enc, ns string, m *message) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<%s:body`, prefix)
	u := d.use(enc, ns)
	if len(m.headerPart) > 0 {
		// soap:body names its parts: the others are headers
		fmt.Fprintf(&b, `%s parts="%s"/>`, u, esc(strings.Join(m.bodyParts, " ")))
	} else {
		fmt.Fprintf(&b, `%s/>`, u)
	}
	for i, h := range m.headerPart {
		req := ""
		if m.headerReq[i] {
			req = ` wsdl:required="true"`
		}
		fmt.Fprintf(&b, `<%s:header message="tns:%s" part="%s"%s%s/>`, prefix, esc(m.name), esc(h), u, req)
	}
	return b.String()
}

// message makes one wsdl:message: in document/literal wrapped style one
// part, the wrapper element (declared in its namespace's schema); in bare
// style a part per parameter, each a global element; in rpc style a part
// per parameter, each of its type. Header parts are global elements.
func (x *writer) message(name string, wrapper xml.Name, parts, headers []Part) (*message, error) {
	d := x.d
	m := &message{name: name}
	switch {
	case d.RPC:
		for _, p := range parts {
			if p.Space != "" {
				return nil, fmt.Errorf("the rpc part %s cannot be in a namespace (%s): rpc accessors are unqualified", p.Name, p.Space)
			}
			q, err := x.ref(p.Type, true, "")
			if err != nil {
				return nil, err
			}
			m.parts = append(m.parts, fmt.Sprintf(`<wsdl:part name="%s" type="%s"/>`, esc(p.Name), q))
			m.bodyParts = append(m.bodyParts, p.Name)
		}
	case d.Bare:
		for _, p := range parts {
			part, err := x.elementPart(p)
			if err != nil {
				return nil, err
			}
			m.parts = append(m.parts, part)
			m.bodyParts = append(m.bodyParts, p.Name)
		}
	default:
		var el strings.Builder
		fmt.Fprintf(&el, `<xsd:element name="%s"><xsd:complexType><xsd:sequence>`, esc(wrapper.Local))
		if err := x.elements(&el, parts, wrapper.Space); err != nil {
			return nil, err
		}
		el.WriteString(`</xsd:sequence></xsd:complexType></xsd:element>`)
		s := x.schema(wrapper.Space)
		if _, dup := s.globals[wrapper.Local]; dup {
			return nil, fmt.Errorf("two elements {%s}%s", wrapper.Space, wrapper.Local)
		}
		s.globals[wrapper.Local] = el.String()
		s.elems = append(s.elems, el.String())
		m.parts = append(m.parts, fmt.Sprintf(`<wsdl:part name="parameters" element="%s"/>`, x.qname("", wrapper.Space, esc(wrapper.Local))))
		m.bodyParts = append(m.bodyParts, "parameters")
	}
	for _, h := range headers {
		for _, b := range m.bodyParts {
			if b == h.Name {
				return nil, fmt.Errorf("the header part %s has the name of a body part", h.Name)
			}
		}
		part, err := x.elementPart(h)
		if err != nil {
			return nil, err
		}
		m.parts = append(m.parts, part)
		m.headerPart = append(m.headerPart, h.Name)
		m.headerReq = append(m.headerReq, !h.Optional)
	}
	return m, nil
}

// elementPart declares p as a global element (in p.Space, else the target
// namespace) and returns the wsdl:part naming it.
func (x *writer) elementPart(p Part) (string, error) {
	ns := p.Space
	if ns == "" {
		ns = x.d.Namespace
	}
	q, err := x.ref(p.Type, true, ns)
	if err != nil {
		return "", fmt.Errorf("%w (part %s)", err, p.Name)
	}
	nils := nillable(p.Type, x.encoded, false)
	if p.Nillable {
		nils = ` nillable="true"`
	}
	if err := x.global(ns, p.Name, q, nils); err != nil {
		return "", err
	}
	return fmt.Sprintf(`<wsdl:part name="%s" element="%s"/>`, esc(p.Name), x.qname("", ns, esc(p.Name))), nil
}
