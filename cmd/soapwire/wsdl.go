package main

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// maxWSDLBytes bounds a WSDL document call reads.
const maxWSDLBytes = 8 << 20

// XML namespaces of WSDL 1.1 and its SOAP bindings.
const (
	nsWSDL       = "http://schemas.xmlsoap.org/wsdl/"
	nsWSDLSOAP11 = "http://schemas.xmlsoap.org/wsdl/soap/"
	nsWSDLSOAP12 = "http://schemas.xmlsoap.org/wsdl/soap12/"
	nsXSD        = core.NamespaceXMLSchema
)

// errNoOperation: the WSDL has no SOAP binding of the operation.
var errNoOperation = errors.New("no SOAP binding of the operation in the WSDL")

// opInfo is what a WSDL says about calling one operation.
type opInfo struct {
	namespace string // the request element's namespace
	style     string // "document", "rpc" or "encoded" (see parseStyle)
	action    string // the soapAction
	params    []param
}

// param is one input parameter: its accessor name and XML Schema type
// (a local name in the XML Schema namespace; "" when it is another type).
type param struct {
	name, typ string
}

// The parts of WSDL 1.1 read.
type (
	wDefinitions struct {
		TargetNamespace string      `xml:"targetNamespace,attr"`
		Attrs           []xml.Attr  `xml:",any,attr"`
		Types           []wTypes    `xml:"http://schemas.xmlsoap.org/wsdl/ types"`
		Messages        []wMessage  `xml:"http://schemas.xmlsoap.org/wsdl/ message"`
		PortTypes       []wPortType `xml:"http://schemas.xmlsoap.org/wsdl/ portType"`
		Bindings        []wBinding  `xml:"http://schemas.xmlsoap.org/wsdl/ binding"`
	}
	wTypes struct {
		Schemas []wSchema `xml:"http://www.w3.org/2001/XMLSchema schema"`
	}
	wSchema struct {
		TargetNamespace string         `xml:"targetNamespace,attr"`
		Attrs           []xml.Attr     `xml:",any,attr"`
		Elements        []wElement     `xml:"http://www.w3.org/2001/XMLSchema element"`
		ComplexTypes    []wComplexType `xml:"http://www.w3.org/2001/XMLSchema complexType"`
	}
	wElement struct {
		Name        string        `xml:"name,attr"`
		Type        string        `xml:"type,attr"`
		Attrs       []xml.Attr    `xml:",any,attr"`
		ComplexType *wComplexType `xml:"http://www.w3.org/2001/XMLSchema complexType"`
	}
	wComplexType struct {
		Name     string     `xml:"name,attr"`
		Sequence []wElement `xml:"http://www.w3.org/2001/XMLSchema sequence>element"`
		All      []wElement `xml:"http://www.w3.org/2001/XMLSchema all>element"`
	}
	wMessage struct {
		Name  string  `xml:"name,attr"`
		Parts []wPart `xml:"http://schemas.xmlsoap.org/wsdl/ part"`
	}
	wPart struct {
		Name    string     `xml:"name,attr"`
		Type    string     `xml:"type,attr"`
		Element string     `xml:"element,attr"`
		Attrs   []xml.Attr `xml:",any,attr"`
	}
	wPortType struct {
		Name       string `xml:"name,attr"`
		Operations []struct {
			Name  string `xml:"name,attr"`
			Input struct {
				Message string `xml:"message,attr"`
			} `xml:"http://schemas.xmlsoap.org/wsdl/ input"`
		} `xml:"http://schemas.xmlsoap.org/wsdl/ operation"`
	}
	wBinding struct {
		Name       string        `xml:"name,attr"`
		Type       string        `xml:"type,attr"`
		SOAP11     *wSOAPBinding `xml:"http://schemas.xmlsoap.org/wsdl/soap/ binding"`
		SOAP12     *wSOAPBinding `xml:"http://schemas.xmlsoap.org/wsdl/soap12/ binding"`
		Operations []struct {
			Name   string   `xml:"name,attr"`
			SOAP11 *wSOAPOp `xml:"http://schemas.xmlsoap.org/wsdl/soap/ operation"`
			SOAP12 *wSOAPOp `xml:"http://schemas.xmlsoap.org/wsdl/soap12/ operation"`
			Input  struct {
				SOAP11 *wSOAPBody `xml:"http://schemas.xmlsoap.org/wsdl/soap/ body"`
				SOAP12 *wSOAPBody `xml:"http://schemas.xmlsoap.org/wsdl/soap12/ body"`
			} `xml:"http://schemas.xmlsoap.org/wsdl/ input"`
		} `xml:"http://schemas.xmlsoap.org/wsdl/ operation"`
	}
	wSOAPBinding struct {
		Style string `xml:"style,attr"`
	}
	wSOAPOp struct {
		Action string `xml:"soapAction,attr"`
		Style  string `xml:"style,attr"`
	}
	wSOAPBody struct {
		Use       string `xml:"use,attr"`
		Namespace string `xml:"namespace,attr"`
	}
)

// readWSDL reads a WSDL 1.1 document (at most maxWSDLBytes) and returns how
// to call op in SOAP version v: the binding of that version if there is
// one, else the other. Schemas the WSDL imports are not fetched: a
// parameter whose type is not found is untyped.
func readWSDL(r io.Reader, op string, v core.Version) (*opInfo, error) {
	lr := &io.LimitedReader{R: r, N: maxWSDLBytes + 1}
	var defs wDefinitions
	d := xml.NewDecoder(lr)
	if err := d.Decode(&defs); err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("wsdl: larger than %d MiB", maxWSDLBytes>>20)
		}
		return nil, fmt.Errorf("wsdl: %w", err)
	}
	if lr.N <= 0 {
		return nil, fmt.Errorf("wsdl: larger than %d MiB", maxWSDLBytes>>20)
	}
	prefixes := nsMap(nil, defs.Attrs)
	var schemas []wSchema
	for _, t := range defs.Types {
		schemas = append(schemas, t.Schemas...)
	}

	// The binding of op in version v, else in the other version.
	type found struct {
		style, action, use, ns, portType string
	}
	var pick *found
	for _, b := range defs.Bindings {
		for _, bo := range b.Operations {
			if bo.Name != op {
				continue
			}
			for _, ver := range [...]core.Version{core.V11, core.V12} {
				sb, so, body := b.SOAP11, bo.SOAP11, bo.Input.SOAP11
				if ver == core.V12 {
					sb, so, body = b.SOAP12, bo.SOAP12, bo.Input.SOAP12
				}
				if sb == nil && so == nil {
					continue
				}
				f := &found{style: "document", portType: localOf(b.Type)}
				if sb != nil && sb.Style != "" {
					f.style = sb.Style
				}
				if so != nil {
					f.action = so.Action
					if so.Style != "" {
						f.style = so.Style
					}
				}
				if body != nil {
					f.use, f.ns = body.Use, body.Namespace
				}
				if pick == nil || ver == v {
					pick = f
				}
			}
		}
	}
	if pick == nil {
		return nil, fmt.Errorf("%w: %q", errNoOperation, op)
	}
	info := &opInfo{action: pick.action, namespace: defs.TargetNamespace}
	switch {
	case pick.style == "rpc" && pick.use == "encoded":
		info.style = "encoded"
	case pick.style == "rpc":
		info.style = "rpc"
	default:
		info.style = "document"
	}

	// The input message's parts.
	var msgName string
	for _, pt := range defs.PortTypes {
		if pt.Name != pick.portType {
			continue
		}
		for _, o := range pt.Operations {
			if o.Name == op {
				msgName = localOf(o.Input.Message)
			}
		}
	}
	var parts []wPart
	for _, m := range defs.Messages {
		if m.Name == msgName {
			parts = m.Parts
		}
	}
	if info.style == "document" {
		// Wrapped: one part, an element whose children are the parameters.
		if len(parts) == 1 && parts[0].Element != "" {
			info.namespace, info.params = schemaElement(schemas, prefixes, parts[0].Element, parts[0].Attrs)
			if info.namespace == "" {
				info.namespace = defs.TargetNamespace
			}
		}
		return info, nil
	}
	if pick.ns != "" {
		info.namespace = pick.ns
	}
	for _, p := range parts {
		info.params = append(info.params, param{name: p.Name, typ: xsdLocal(nsMap(prefixes, p.Attrs), p.Type)})
	}
	return info, nil
}

// schemaElement finds the top-level element ref (a QName) in the schemas
// and returns its namespace and its children (a sequence or all, inline or
// in a named complexType).
func schemaElement(schemas []wSchema, prefixes map[string]string, ref string, attrs []xml.Attr) (string, []param) {
	space := resolve(nsMap(prefixes, attrs), ref).Space
	name := localOf(ref)
	for _, s := range schemas {
		if space != "" && s.TargetNamespace != space {
			continue
		}
		scope := nsMap(prefixes, s.Attrs)
		for _, e := range s.Elements {
			if e.Name != name {
				continue
			}
			ct := e.ComplexType
			if ct == nil && e.Type != "" {
				tn := localOf(e.Type)
				for i := range s.ComplexTypes {
					if s.ComplexTypes[i].Name == tn {
						ct = &s.ComplexTypes[i]
					}
				}
			}
			if ct == nil {
				return s.TargetNamespace, nil
			}
			var ps []param
			for _, c := range append(ct.Sequence, ct.All...) {
				ps = append(ps, param{name: c.Name, typ: xsdLocal(nsMap(scope, c.Attrs), c.Type)})
			}
			return s.TargetNamespace, ps
		}
	}
	return space, nil
}

// nsMap returns the prefixes in scope: outer's, with the xmlns declarations
// among attrs added.
func nsMap(outer map[string]string, attrs []xml.Attr) map[string]string {
	m := make(map[string]string, len(outer)+len(attrs))
	for k, v := range outer {
		m[k] = v
	}
	for _, a := range attrs {
		switch {
		case a.Name.Space == "xmlns":
			m[a.Name.Local] = a.Value
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			m[""] = a.Value
		}
	}
	return m
}

// resolve reads a QName attribute value with the prefixes in scope.
func resolve(prefixes map[string]string, qname string) xml.Name {
	prefix, local, ok := strings.Cut(qname, ":")
	if !ok {
		return xml.Name{Space: prefixes[""], Local: qname}
	}
	return xml.Name{Space: prefixes[prefix], Local: local}
}

// xsdLocal returns the local name of an XML Schema built-in type, "" for
// any other type.
func xsdLocal(prefixes map[string]string, qname string) string {
	if qname == "" {
		return ""
	}
	n := resolve(prefixes, qname)
	if n.Space != nsXSD {
		return ""
	}
	return n.Local
}

// localOf drops a QName's prefix.
func localOf(qname string) string {
	if i := strings.LastIndexByte(qname, ':'); i >= 0 {
		return qname[i+1:]
	}
	return qname
}
