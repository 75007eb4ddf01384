// Package soapenc implements the SOAP encoding: SOAP 1.1 section 5 and SOAP
// 1.2 Part 2 section 3. It writes Go values as XML elements with xsi:type on
// every value, and reads such elements, as real SOAP toolkits send them,
// back into Go values. It uses the standard library only.
//
// # Encoding
//
// An Encoder writes by hand (no xml.Marshal) to an io.Writer:
//
//	enc := soapenc.Encoder{Version: soapenc.V11, MultiRefs: true, TypeNamespace: "urn:types"}
//	err := enc.EncodeParts(w, xml.Name{Space: "urn:svc", Local: "echoResponse"},
//		soapenc.Part{Name: "return", Value: result})
//
// Encode writes one value as one element; EncodeParts writes an RPC wrapper
// element whose children are the parts. Every top-level element declares
// every prefix it uses (m for its own namespace, xsi, xsd, soapenc or enc,
// tns for TypeNamespace), so the output can be placed in any Body. Accessors
// (struct fields, parts, array items) are unqualified, unless FieldNamespace
// qualifies struct fields (and literal list items) as a schema with
// elementFormDefault="qualified" does, a part has a Space, or a field's xml
// tag names a namespace ("urn:x name"); array items are named "item".
//
// Go types and the XML Schema types they are written as:
//
//	string                  xsd:string (invalid UTF-8 and characters XML cannot carry are an error)
//	bool                    xsd:boolean
//	int8, int16, int32      xsd:byte, xsd:short, xsd:int
//	int, int64              xsd:long
//	uint8 … uint, uint64    xsd:unsignedByte, unsignedShort, unsignedInt, unsignedLong
//	float32, float64        xsd:float, xsd:double: shortest round-trip text, INF, -INF, NaN
//	[]byte                  xsd:base64Binary
//	HexBinary               xsd:hexBinary
//	time.Time               xsd:dateTime: "Z", "+hh:mm", or no zone for times in NoZone()
//	xml.Name                xsd:QName, its prefix declared on the element; the zero Name is nil
//	*big.Int, big.Int       xsd:integer, exact
//	Decimal, *big.Rat       xsd:decimal, exact (a Rat must have a finite decimal form)
//	struct                  its exported fields in order, xsi:type {TypeNamespace}TypeName
//	slice, Go array         SOAP array (1.1 soapenc:arrayType="xsd:int[3]"; 1.2 enc:itemType and
//	                        enc:arraySize); nested Go arrays are dimensions ([2][3]int is
//	                        "xsd:int[2,3]"), nested slices are arrays of arrays ("xsd:int[][2]")
//	map[string]T            a structure with one accessor per key, in key order, no xsi:type
//	pointer, interface      the value pointed to or held; nil is xsi:nil="true"
//
// Field names come from a `soap:"name,omitempty"` tag, else from the name of
// an `xml:"name"` or `xml:"urn:x name"` tag, else the field name; "-" skips
// a field; omitempty skips false, 0, "", nil and empty values, and zero
// structs; nillable (on a pointer, map, slice or interface) writes a nil
// value xsi:nil="true" where a plain nil pointer is left out: a required
// and nillable element (minOccurs="1" nillable="true"). A field named
// XMLName of type xml.Name is skipped. Embedded structs without a name tag
// have their fields promoted.
//
// With Literal the Encoder writes the same values without the encoding's
// markup, in the form WSDL's use="literal" describes (rpc/literal and
// document/literal): no xsi:type, lists as repeated elements (or, for
// nested lists and with WrapLists, elements of "item" children), nil
// pointers left out and nil list items as xsi:nil. The Decoder reads that
// form back, led by the Go type.
//
// With MultiRefs a pointer reached more than once (shared or cyclic) is
// written once: SOAP 1.1 writes href="#idN" accessors and the value in a
// multiRef element (soapenc:root="0") after the top-level element; SOAP 1.2
// writes enc:id on the first occurrence and enc:ref on the others. Without
// MultiRefs shared pointers are written at each place and a cyclic value is
// an *Error (SubcodeCycle), never an endless recursion.
//
// # Decoding
//
// A Decoder reads a body's children from an xml.TokenReader that yields
// namespace-resolved tokens, as (*xml.Decoder).Token does, and io.EOF at the
// end of the body. A core.Body is read through its Next method (tokens
// without copies), and an *xml.Decoder nothing has been read from with
// RawToken, the Decoder resolving prefixes itself; the tree is the same. ReadBody reads every token into a bounded tree of
// Elements (MaxNodes, MaxDepth, MaxBytes), keeping its own scope of
// namespace declarations to resolve QName values (xsi:type, arrayType,
// xsd:QName content). It then links references in any order (1.1 href="#x"
// to id="x"; 1.2 enc:ref="x" to enc:id="x") and returns the main element,
// the first top-level element not marked soapenc:root="0". A reference to an
// id no element carries is SubcodeMissingID, an id carried twice is
// SubcodeDuplicateID. Given the envelope's header blocks (Decoder.Headers,
// which core/rpc sets), a reference may point to an element of a header
// block (the W3C SOAP 1.2 test collection's T57 and T76) and ids are unique
// across the whole envelope; a 1.2 enc:ref written "#id", as in the drafts
// and in T57, names the id "id".
//
// Prefixes declared on the Envelope and Body (outside the tokens read) are
// given in Decoder.Namespaces, so xsi:type="xsd:int" resolves when xsd is
// declared on the Envelope, as Axis and gSOAP do. An encodingStyle declared
// there is Decoder.EncodingStyle, which NewDecoder takes from a core.Body
// (Body.EncodingStyle); one ReadBody does not know is
// SubcodeDataEncodingUnknown, as on an element.
//
//	d := soapenc.NewDecoder(body)
//	d.Version, d.Namespaces = soapenc.V11, envelopeNamespaces
//	el, err := d.ReadBody()
//	for _, c := range el.Children() { … c.Name, c.Type(), c.Decode(&arg) … }
//	// or, by field name: el.Decode(&argsStruct)
//
// Element.Decode maps a value onto a Go value by reflection, led by the Go
// type: a value without xsi:type is read as the target type, so untyped
// values (zeep, node-soap) decode. A value that does not fit ("abc" or
// "300" into an int8, a structure into a string) is an *Error with
// SubcodeBadValue. Struct fields are matched by local name (then ignoring
// case), unknown accessors are ignored, absent fields left as they are and
// xsi:nil read as the zero value, unless the Decoder is Strict: then an
// absent field the Encoder always writes (Field.Required), xsi:nil on a
// value that cannot be nil, an element no field has and a name in another
// case are each an error naming the element. A field's element may be in
// any namespace, but a tag's namespace is always checked, and CheckForms
// checks every field against FieldNamespace (qualified) or none
// (unqualified). A slice is read from a SOAP array,
// from a wrapper element of items without array markers, from one bare
// value, or — as a struct field — from repeated sibling elements of the
// field's name (node-soap style); DecodeItems does the same for a list of
// elements the caller picked.
//
// An array may declare more items than it sends and may use soapenc:offset
// and soapenc:position: slices grow with the items present, never with the
// declared size; a declared size above MaxArraySize, or more items than
// declared, is SubcodeArraySize. The positions no item was sent for are
// absent, not empty: nil in a slice (or Go array) of pointers, of any or of
// *Element, and SubcodeBadValue naming the position for item types that
// cannot be nil (a []string is never given an empty string the sender did
// not send); a slice ends with the last item sent, and a Go array longer
// than the items sent of an array that declares more is refused likewise.
// Multi-dimensional arrays ("xsd:int[2,3]",
// arraySize "2 3") decode into [][]T (or [2][3]T) by rows, arrays of arrays
// ("xsd:int[][2]") into [][]T, and either into a flat []T.
//
// An any target receives the natural Go type: the type Decoder.Types names
// for the xsi:type, else the type of the table above for an XML Schema
// xsi:type (xsd:int → int32, xsd:long → int64, xsd:integer → *big.Int,
// xsd:decimal → Decimal; string for other schema types), []T (one slice
// level per dimension) for arrays, map[string]any for structures (repeated
// accessors collect into a []any), and the text for untyped leaves.
//
// A referenced element is decoded once per Go type and the result shared,
// across the Decode calls on one tree: shared pointers stay shared, cycles
// become pointer (or map) cycles, and a cycle through a type that cannot hold
// one is SubcodeCycle. Value nesting, references followed, is bounded by
// MaxDepth, so no input can loop forever, overflow the stack or expand
// exponentially.
//
// # Errors
//
// Failures of the encoding are *Error values with a Subcode (MissingID,
// DuplicateID, BadValue, DataEncodingUnknown, ArraySize, Limit, Cycle,
// Unsupported) and the path of the element or field. The RPC layer maps them
// onto SOAP faults (enc:MissingID, enc:DuplicateID, rpc:BadArguments); a
// token reader's own error is returned as it is.
//
// The package keeps one process-wide cache of per-type plans (field names,
// kinds), a pure memo like encoding/json's; it holds no options or defaults.
package soapenc
