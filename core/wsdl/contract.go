package wsdl

import (
	"encoding/xml"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
	"github.com/soapwire/soapwire/core/xsd"
)

// More namespaces a WSDL 1.1 document uses.
const (
	NamespaceHTTP   = "http://schemas.xmlsoap.org/wsdl/http/"
	NamespaceMIME   = "http://schemas.xmlsoap.org/wsdl/mime/"
	NamespaceWSDL20 = "http://www.w3.org/ns/wsdl"
)

// Contract is a WSDL 1.1 description read with everything it imports: its
// schemas and the messages, port types, bindings and services of every
// document. Components keep where they are written and their
// documentation. Endpoints gives the view for calling it: each SOAP port
// with the signature of each operation.
type Contract struct {
	Location        string // the first document
	Name            string // the first document's name attribute
	TargetNamespace string // the first document's
	Doc             string
	Schemas         *xsd.Set
	Messages        []*Message // of every document, in the order read
	PortTypes       []*PortType
	Bindings        []*Binding
	Services        []*Service
	Documents       []string // the locations of the documents read (WSDL and schema), in order
	// Warnings are what the reader ignored or does not support: extension
	// elements it does not apply (WS-Policy, say), schema constructs it
	// does not read, components defined twice.
	Warnings []xsd.Problem

	endpoints []*Endpoint
	root      *xmldoc.Node // the first document, for WriteDocument
	messages  map[xml.Name]*Message
	portTypes map[xml.Name]*PortType
	bindings  map[xml.Name]*Binding
}

// WriteDocument writes the contract's first document (the one Load was
// given) as it was read, with the location of every port's address
// (soap:address, soap12:address, http:address) set to address, as a
// service serves its WSDL at the URL it is reached at; address "" keeps
// them. It is written in UTF-8 with the namespace declarations where the
// document had them; comments and a document type declaration are left
// out (its entities were expanded). Documents it imports are not written:
// their locations, relative to the first one's, are as they were.
func (c *Contract) WriteDocument(w io.Writer, address string) error {
	return xmldoc.Write(w, c.root, func(n *xmldoc.Node, a *xmldoc.Attr) string {
		if address != "" && a.Name == (xml.Name{Local: "location"}) && n.Name.Local == "address" &&
			(n.Name.Space == NamespaceSOAP11 || n.Name.Space == NamespaceSOAP12 || n.Name.Space == NamespaceHTTP) &&
			n.Parent != nil && n.Parent.Is(NamespaceWSDL, "port") {
			return address
		}
		return a.Value
	})
}

// Message returns the message named n.
func (c *Contract) Message(n xml.Name) *Message { return c.messages[n] }

// PortType returns the port type named n.
func (c *Contract) PortType(n xml.Name) *PortType { return c.portTypes[n] }

// Binding returns the binding named n.
func (c *Contract) Binding(n xml.Name) *Binding { return c.bindings[n] }

// Service returns the service with the local name name (the first, if
// imported documents give two of that name).
func (c *Contract) Service(name string) *Service {
	for _, s := range c.Services {
		if s.Name.Local == name {
			return s
		}
	}
	return nil
}

// Message is a wsdl:message.
type Message struct {
	Name  xml.Name
	Parts []*MessagePart
	Loc   xsd.Loc
	Doc   string
}

// Part returns the part named name.
func (m *Message) Part(name string) *MessagePart {
	for _, p := range m.Parts {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// MessagePart is a wsdl:part: an element (document style) or a type (rpc
// style).
type MessagePart struct {
	Name        string
	Element     *xsd.Element // set when the part names an element
	ElementName xml.Name
	Type        xsd.Type // set when the part names a type
	TypeName    xml.Name
	Loc         xsd.Loc
	Doc         string
}

// PortType is a wsdl:portType: abstract operations.
type PortType struct {
	Name       xml.Name
	Operations []*PortTypeOperation
	Loc        xsd.Loc
	Doc        string
}

// PortTypeOperation is an operation of a port type.
type PortTypeOperation struct {
	Name           string
	Input          *OperationMessage // nil for a notification (output only)
	Output         *OperationMessage // nil for a one-way operation
	Faults         []*OperationMessage
	ParameterOrder []string
	Loc            xsd.Loc
	Doc            string
}

// OperationMessage is an operation's input, output or fault: a message,
// with the name the operation gives it.
type OperationMessage struct {
	Name    string
	Message *Message
	// Action is the WS-Addressing action the operation declares for it
	// (wsam:Action or wsaw:Action), "" when none.
	Action string
	Loc    xsd.Loc
	Doc    string

	msg xml.Name
}

// Kind is what protocol a binding describes.
type Kind uint8

const (
	OtherBinding Kind = iota // a binding of another protocol
	SOAP11                   // soap:binding
	SOAP12                   // soap12:binding
	HTTP                     // http:binding (HTTP GET/POST without SOAP)
)

func (k Kind) String() string {
	switch k {
	case SOAP11:
		return "SOAP 1.1"
	case SOAP12:
		return "SOAP 1.2"
	case HTTP:
		return "HTTP"
	}
	return "other"
}

// Binding is a wsdl:binding.
type Binding struct {
	Name       xml.Name
	PortType   *PortType
	Kind       Kind
	Style      string // the soap:binding style ("" when not written: document)
	Transport  string // the soap:binding transport
	Verb       string // the http:binding verb
	Operations []*BindingOperation
	Loc        xsd.Loc
	Doc        string
	// MTOM says that the policy attached to the binding (a wsp:Policy in
	// it, or one a wsp:PolicyReference names) requires MTOM: the
	// wsoma:OptimizedMimeSerialization assertion, not optional.
	MTOM bool

	portType   xml.Name
	policies   []*xmldoc.Node
	policyURIs []string
}

// BindingOperation is an operation of a binding.
type BindingOperation struct {
	Name      string
	Operation *PortTypeOperation
	// Action is the soap:operation soapAction ("" when none).
	Action string
	// ActionRequired is SOAP 1.2's soapActionRequired (nil when not
	// written).
	ActionRequired *bool
	Style          string // the soap:operation style ("" when not written)
	HTTPLocation   string // the http:operation location
	Input          *BindingMessage
	Output         *BindingMessage
	Faults         []*BindingFault
	Loc            xsd.Loc
	Doc            string

	inName, outName string
}

// BindingMessage is how a binding carries an operation's input or output.
type BindingMessage struct {
	Name    string
	Body    *SOAPBody // nil when there is no soap:body
	Headers []*SOAPHeader
	// MIME are the parts of a mime:multipartRelated (SOAP with
	// attachments): one holds the SOAP body, the others attachments.
	MIME []*MIMEPart
	Loc  xsd.Loc
}

// SOAPBody is a soap:body.
type SOAPBody struct {
	// Parts are the message parts in the body; nil when the parts
	// attribute is absent (all of them).
	Parts         []string
	Use           string // "literal" or "encoded" ("" when not written: literal)
	Namespace     string
	EncodingStyle string
	Loc           xsd.Loc
}

// SOAPHeader is a soap:header: a message part sent as a header block.
type SOAPHeader struct {
	Message       *Message
	Part          *MessagePart
	Use           string
	Namespace     string
	EncodingStyle string
	// Required is wsdl:required="true" on the soap:header (some toolkits
	// mark optional headers with "false").
	Required bool
	Faults   []*SOAPHeader // soap:headerfault
	Loc      xsd.Loc

	msg  xml.Name
	part string
}

// MIMEPart is a mime:part of a mime:multipartRelated.
type MIMEPart struct {
	Body     *SOAPBody // the part that holds the SOAP envelope
	Contents []MIMEContent
	Loc      xsd.Loc
}

// MIMEContent is a mime:content: a message part sent as an attachment.
type MIMEContent struct {
	Part string
	Type string
}

// BindingFault is a binding's wsdl:fault with its soap:fault.
type BindingFault struct {
	Name          string
	Fault         *OperationMessage // the port type operation's fault of that name
	Use           string
	Namespace     string
	EncodingStyle string
	Loc           xsd.Loc
}

// Service is a wsdl:service.
type Service struct {
	Name  xml.Name
	Ports []*Port
	Loc   xsd.Loc
	Doc   string
}

// Port is a wsdl:port.
type Port struct {
	Name    string
	Binding *Binding
	Address string // soap:address, soap12:address or http:address location
	Loc     xsd.Loc
	Doc     string
	// MTOM says that the policy attached to the port requires MTOM (see
	// Binding.MTOM).
	MTOM bool

	binding    xml.Name
	policies   []*xmldoc.Node
	policyURIs []string
}
