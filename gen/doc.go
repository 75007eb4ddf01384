// Package gen writes Go source from a WSDL 1.1 contract (read by
// core/wsdl, with its schemas): the types of its schemas with codecs of
// their own, a client per SOAP port and, per port type, an interface to
// implement and a server. `soapwire gen -o DIR [-pkg NAME] WSDL|URL` drives
// it. The code it writes imports soapwire's core packages only (core,
// core/xsd, core/wsdl, core/soapenc), is gofmt-formatted and vet-clean, and
// the same contract always gives the same bytes.
//
// # Types
//
// Every named type and every global element with an anonymous type of the
// contract's schemas gets a Go type; an anonymous type written elsewhere is
// named from where it is (OrderItem for the anonymous type of Order's item
// element), and so is an anonymous enumeration. Names are the XML names'
// words, each capitalized (echoString EchoString, get_item GetItem); a name
// taken already (the same local name in two namespaces, a type and an
// element, a field and a method) gets the first free number (Person2),
// names being handed out in a fixed order: the named types by namespace and
// local name, then the global elements, then what these refer to in order.
//
// A complex type is a struct: a field per element name of its content
// model (a choice's branches, a substitution group's members and nested
// groups are flattened into fields), per attribute, Value for simple
// content, Text for mixed content, Any ([]xsd.RawXML) for what wildcards
// take, AnyAttrs for an attribute wildcard's. Its tags are the ones core/xsd's
// reflective codec maps, so the same value goes through either codec. An
// extension embeds its base's struct; a type with derived types is held,
// where an element of it appears, in an interface (AnyShape for Shape) that
// the type and its derived types implement: writing one writes its xsi:type,
// reading dispatches on xsi:type. A SOAP-encoded array is a named slice.
// A field of a required element is a value; optional (minOccurs="0") a
// pointer, nil when absent; nillable an xsd.Nillable (Nil for xsi:nil),
// a pointer to one when also optional; repeated a slice ([]*T when the
// items may be nil). Slices, interfaces and xsd.RawXML are nil when absent.
// A required element whose type contains itself is a pointer.
//
// Simple types map so that no value loses anything:
//
//	string and its derived types, anyURI, unions  string
//	boolean                                      bool
//	float, double                                float32, float64
//	decimal                                      soapenc.Decimal (the lexical form, any precision)
//	integer and its unbounded kinds              xsd.Integer (likewise)
//	long, int, short, byte, unsigned*            int64 … uint8
//	dateTime, date, time, g*                     time.Time (soapenc.NoZone() for no zone)
//	duration                                     xsd.Duration (years and months kept)
//	base64Binary, hexBinary                      []byte
//	base64Binary with xmime:expectedContentTypes core.Binary (an MTOM part; WithBinary: every one)
//	QName, NOTATION                              xml.Name
//	NMTOKENS, IDREFS, ENTITIES, list types       a slice of the item type
//	anyType                                      xsd.RawXML (the element as it is)
//
// A named simple type is a Go type of its own (a type alias of time.Time or
// xml.Name); an enumeration's values are constants of it, and Validate
// checks a value against the type's facets. Every value written or read is
// checked against its type as the contract says (lexical space, facets,
// white space), exactly as core/xsd's codec checks it.
//
// # Codecs
//
// Each struct has EncodeXSD (its attributes and content, into the element
// an xsd.Encoder has open) and DecodeXSD (from the element an xsd.Decoder
// has just taken): straight code, no reflection, writing the namespaces and
// element forms the schema says and refusing, with an error naming the
// place ("echoStruct/person/age: …"), what it forbids: the codec's
// behaviour, fuzzed against it.
//
// # Clients and servers
//
// A client per SOAP port (NewCalcSoap11Client(rt core.RoundTripper,
// ...wsdl.StubOption)) has a method per operation, Op(ctx, in, headers...,
// ...wsdl.CallOption) (out, headers..., error): soap:header parts are
// arguments and results, a one-way operation returns only an error, a
// declared fault is its typed error (CalcFaultError, errors.As), the
// port's address, SOAP version and SOAPAction are the contract's
// (wsdl.WithAddress, wsdl.WithVersion, wsdl.WithAction change them).
//
// A port type is an interface with the same methods (without the options);
// NewCalcPortTypeServer(impl) returns its server: a core.Handler over every
// SOAP binding of the port type, routing by the body's element and the
// action, refusing a request that does not fit the contract with a Sender
// fault naming what is wrong, answering a declared fault's typed error with
// its detail, and serving the contract's WSDL (bindings/http's "?wsdl").
//
// The runtime this code needs lives in the core packages: core/xsd's
// Encoder, Decoder and Simples, core/wsdl's Stub and Skeleton.
package gen
