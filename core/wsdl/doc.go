// Package wsdl reads and writes WSDL 1.1 contracts.
//
// # Reading a contract
//
// Load reads a WSDL document with every WSDL and schema document it
// imports (wsdl:import, xsd:import and xsd:include, each loaded once,
// relative locations resolved against the importing document, cycles
// handled; an import placed directly under wsdl:types and a port type
// behind a wsdl:import included) through an xsd.Loader: files, bytes, and
// HTTP(S) only when the caller gives an HTTP loader. The standard schemas
// contracts import by URL come from an embedded catalog, so a contract
// loads offline; limits bound the bytes, documents and nesting
// (xsd.WithLimits). Documents in ISO-8859-1 and other single-byte
// encodings, with a blank line before the XML declaration or a document
// type declaration with internal entities are read as real files have
// them.
//
// The Contract holds the model: messages and their parts resolved to
// schema elements and types (core/xsd), port types, bindings (SOAP 1.1,
// SOAP 1.2, HTTP; style, use, soap:header parts, faults, MIME parts),
// services and ports with their addresses, documentation and the location
// of everything. Endpoints gives the view for calling it: each SOAP port
// with the Signature of each operation (style, SOAP version, action,
// address; the input and output with the element the Body holds, whether
// it is wrapped, the parameters, the header parts; the faults with their
// detail element). Describe prints it all, as `soapwire wsdl` does.
//
// What the reader does not apply is reported, never dropped silently: an
// extension element of a namespace it does not know (WS-Policy, say) is a
// warning in Contract.Warnings, one marked wsdl:required="true" fails the
// load, and so does a reference that does not resolve (an *xsd.Error lists
// every problem with its file and line).
//
// # Calling a contract's operations
//
// NewClient is the run-time client (zeep is the model): it chooses a SOAP
// port (WithPort, WithVersion, else the first; Contract.FindEndpoint
// tells which), and Call sends an operation by name over any
// core.RoundTripper with the port's SOAP version and the operation's
// SOAPAction (WithAction overrides it). Arguments and results are Go
// values, maps or *xsd.Value trees, written and read by core/xsd's codec
// in the exact form the contract says: document/literal wrapped (the
// parameters of the wrapper), bare (the part element's value, or one field
// per part), rpc/literal and rpc/encoded (the accessors), soap:header
// parts (WithHeader, WithReplyHeader). A declared fault is a *FaultError
// with its detail decoded; a reply that does not match the output is a
// *ReplyError saying what and where; arguments that do not fit the input
// are an error before anything is sent. The port's address is
// Client.Address: a RoundTripper is made for one address
// (soaphttp.NewTransport(client.Address())).
//
// # Writing a contract
//
// Definition.Write writes WSDL 1.1 for RPC services: XML Schema types
// generated from Go types, messages, a portType, a SOAP 1.1 and a SOAP 1.2
// binding in the service's style (document/literal wrapped, rpc/literal or
// rpc/encoded) and a service element with two ports at one address;
// core/rpc builds a Definition from its registered operations
// (rpc.Service.WSDL).
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
