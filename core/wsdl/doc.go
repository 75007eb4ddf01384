// Package wsdl writes WSDL 1.1 documents for RPC services: XML Schema
// types generated from Go types, messages, a portType, a SOAP 1.1 and a
// SOAP 1.2 binding in the service's style (document/literal wrapped,
// rpc/literal or rpc/encoded) and a service element with two ports at one
// address. It uses the standard library and core/soapenc only; core/rpc
// builds a Definition from its registered operations (rpc.Service.WSDL).
//
// Go types map to XML Schema types as core/soapenc writes them: string
// xsd:string, bool xsd:boolean, int8/16/32 xsd:byte/short/int, int and
// int64 xsd:long, the unsigned kinds xsd:unsigned*, float32/64
// xsd:float/double, []byte xsd:base64Binary, soapenc.HexBinary
// xsd:hexBinary, time.Time xsd:dateTime, soapenc.Decimal xsd:decimal,
// *big.Int xsd:integer. A named struct is a complexType of that name with a
// sequence of unqualified elements (elementFormDefault="unqualified"); a
// pointer or omitempty field has minOccurs="0". A slice is an element with
// maxOccurs="unbounded" in the literal styles (an rpc/literal part that is a
// slice is an ArrayOfX type of "item" elements), and a SOAP-encoded array
// type ArrayOfX (soapenc:Array restricted by wsdl:arrayType) in rpc/encoded.
//
// An rpc/encoded document imports the SOAP encoding namespace
// (http://schemas.xmlsoap.org/soap/encoding/) without a schemaLocation:
// clients that fetch schemas (zeep) need a local copy of it when they have
// no network.
package wsdl
