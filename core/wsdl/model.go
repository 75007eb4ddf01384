package wsdl

import (
	"encoding/xml"
	"reflect"
)

// Definition describes a service for WSDL generation.
type Definition struct {
	Name      string // the service name: service, portType and binding names derive from it
	Namespace string // the target namespace: operation elements live here
	RPC       bool   // binding style rpc; false is document/literal
	Encoded   bool   // use encoded (SOAP encoding); only with RPC
	// Bare is document/literal bare: each message's body part is a global
	// element named by its Part (Name, in Space or Namespace), not a
	// wrapper named after the operation. Not with RPC.
	Bare bool
	// Qualified writes elementFormDefault="qualified": the local elements
	// of each schema (a wrapper's children, the fields of complex types)
	// are in its target namespace.
	Qualified bool
	// TypeNamespace is the target namespace of the schema of the complex
	// types; "" is Namespace. When it differs, the schema of Namespace
	// (the operations' elements) imports it.
	TypeNamespace string
	Operations    []Operation
}

// Operation is one request-response operation.
type Operation struct {
	Name   string // the operation; its wrapper elements are Name and Name+"Response" unless set below
	Action string // soapAction
	Doc    string // documentation, optional
	Input  []Part // request accessors, in order (bare: at most one, the body's element)
	Output []Part // response accessors, the return value first
	// InputElement and OutputElement name a document/literal wrapper
	// element (default Name and Name+"Response" in Namespace); rpc takes
	// their namespace as its soap:body namespace. Ignored when Bare.
	InputElement, OutputElement xml.Name
	// InputHeaders and OutputHeaders are the soap:header parts: global
	// elements (Name in Space or Namespace).
	InputHeaders, OutputHeaders []Part
}

// Part is one parameter: an accessor element of the wrapper, a bare body
// element or a header element.
type Part struct {
	Name string
	// Space is the element's namespace when it is not the schema's own
	// form's: a field tagged `xml:"urn:x name"`. A local element in
	// another namespace refers to a global element of that namespace's
	// schema.
	Space    string
	Type     reflect.Type
	Optional bool // may be absent (minOccurs="0")
	Nillable bool // may be xsi:nil (a pointer is nillable whatever this says)
}

// Namespaces of WSDL 1.1 and its SOAP bindings.
const (
	NamespaceWSDL      = "http://schemas.xmlsoap.org/wsdl/"
	NamespaceSOAP11    = "http://schemas.xmlsoap.org/wsdl/soap/"
	NamespaceSOAP12    = "http://schemas.xmlsoap.org/wsdl/soap12/"
	NamespaceSOAPEnc   = "http://schemas.xmlsoap.org/soap/encoding/"
	NamespaceSOAP12Enc = "http://www.w3.org/2003/05/soap-encoding"
	NamespaceXSD       = "http://www.w3.org/2001/XMLSchema"
	TransportHTTP      = "http://schemas.xmlsoap.org/soap/http"
)
