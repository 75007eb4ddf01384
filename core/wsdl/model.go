package wsdl

import "reflect"

// Definition describes a service for WSDL generation.
type Definition struct {
	Name       string // the service name: service, portType and binding names derive from it
	Namespace  string // the target namespace: operation elements and types live here
	RPC        bool   // binding style rpc; false is document/literal wrapped
	Encoded    bool   // use encoded (SOAP encoding); only with RPC
	Operations []Operation
}

// Operation is one request-response operation.
type Operation struct {
	Name   string // the request element; the response element is Name+"Response"
	Action string // soapAction
	Doc    string // documentation, optional
	Input  []Part // request accessors, in order
	Output []Part // response accessors, the return value first
}

// Part is one parameter: an accessor element of the wrapper.
type Part struct {
	Name     string
	Type     reflect.Type
	Optional bool // may be absent (minOccurs="0")
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
