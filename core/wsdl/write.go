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

// Write writes the WSDL 1.1 document of d, with a SOAP 1.1 and a SOAP 1.2
// binding and a service whose two ports are at address.
func (d *Definition) Write(w io.Writer, address string) error {
	if d.Encoded && !d.RPC {
		return fmt.Errorf("wsdl: %s: document/encoded is not supported", d.Name)
	}
	s := newSchema(d.Encoded)
	var elems strings.Builder
	var msgs strings.Builder
	for _, op := range d.Operations {
		for _, m := range []struct {
			name  string
			parts []Part
		}{{op.Name, op.Input}, {op.Name + "Response", op.Output}} {
			msgName := op.Name + "Request"
			if m.name != op.Name {
				msgName = m.name
			}
			fmt.Fprintf(&msgs, `<wsdl:message name="%s">`, esc(msgName))
			if d.RPC {
				for _, p := range m.parts {
					q, err := s.ref(p.Type, true)
					if err != nil {
						return fmt.Errorf("wsdl: %s: %w", op.Name, err)
					}
					fmt.Fprintf(&msgs, `<wsdl:part name="%s" type="%s"/>`, esc(p.Name), q)
				}
			} else {
				fmt.Fprintf(&msgs, `<wsdl:part name="parameters" element="tns:%s"/>`, esc(m.name))
				fmt.Fprintf(&elems, `<xsd:element name="%s"><xsd:complexType><xsd:sequence>`, esc(m.name))
				if err := s.elements(&elems, m.parts); err != nil {
					return fmt.Errorf("wsdl: %s: %w", op.Name, err)
				}
				elems.WriteString(`</xsd:sequence></xsd:complexType></xsd:element>`)
			}
			msgs.WriteString(`</wsdl:message>`)
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
	b.WriteString(">\n")

	// types
	fmt.Fprintf(&b, `<wsdl:types><xsd:schema targetNamespace="%s" elementFormDefault="unqualified">`, ns)
	if d.Encoded {
		fmt.Fprintf(&b, `<xsd:import namespace="%s"/><xsd:import namespace="%s"/>`, NamespaceSOAPEnc, NamespaceWSDL)
	}
	for _, def := range s.defs {
		b.WriteString("\n")
		b.WriteString(def)
	}
	if elems.Len() > 0 {
		b.WriteString("\n")
		b.WriteString(elems.String())
	}
	b.WriteString("\n</xsd:schema></wsdl:types>\n")

	b.WriteString(strings.ReplaceAll(msgs.String(), "</wsdl:message>", "</wsdl:message>\n"))

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
		body := `<` + bd.prefix + `:body use="literal"/>`
		if d.RPC {
			body = fmt.Sprintf(`<%s:body use="literal" namespace="%s"/>`, bd.prefix, ns)
		}
		if d.Encoded {
			body = fmt.Sprintf(`<%s:body use="encoded" namespace="%s" encodingStyle="%s"/>`, bd.prefix, ns, bd.enc)
		}
		for _, op := range d.Operations {
			fmt.Fprintf(&b, "\n"+`<wsdl:operation name="%s"><%s:operation soapAction="%s" style="%s"/>`,
				esc(op.Name), bd.prefix, esc(op.Action), style)
			fmt.Fprintf(&b, `<wsdl:input>%s</wsdl:input><wsdl:output>%s</wsdl:output></wsdl:operation>`, body, body)
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
