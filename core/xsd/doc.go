// Package xsd reads XML Schema 1.0 documents into a model of resolved
// components, for the readers and writers of contracts: core/wsdl's reader,
// the schema-driven codec and the code generator. It uses the standard
// library and the core's strict tokenizer only.
//
// # Loading
//
// Load reads a schema document with everything it imports and includes
// (resolved against the importing document's location, each loaded once,
// cycles handled) through a Loader: files of an fs.FS (FSLoader), bytes in
// memory (MapLoader), and HTTP(S) only with an HTTPLoader the caller adds
// (Loaders chains them). A Catalog maps URLs to local copies; by default
// the StandardCatalog soapwire ships (xml.xsd, xmlmime, XOP, WS-Addressing,
// the SOAP 1.2 envelope, the SOAP 1.1 and 1.2 encodings), which also
// resolves imports that name only a namespace. Limits bound the bytes, the
// documents, the nesting in a document and the chain of imports; document
// type declarations are read for their internal entities only, never for
// external ones.
//
// Nothing is dropped silently: a construct the reader does not support is
// either an error (xs:redefine, which would change types) or a warning with
// its location (Set.Warnings); a reference that does not resolve, a type
// that derives from itself, a group that contains itself are errors,
// collected in an *Error with their locations.
//
// # The model
//
// A Set holds every Schema read and looks up global components by name
// (namespace and local name) across all of them: Element, Type,
// Attribute, Group, AttributeGroup; Builtin and AnyType give the built-in
// types (each Set has its own instances). Every reference is resolved to a
// pointer: an element's Type, a particle's Element (a reference points at
// the global Element itself) or Group (a named group's model, with
// GroupRef), a type's Base, a list's Item, a union's Members, an
// attribute use's Attribute, a type's AttributeGroups, an element's
// SubstitutionGroup; the reverse links are there too (ComplexType.Derived
// and SimpleType.Derived for xsi:type, Element.Substitutes).
//
// Every component carries its Loc (file and line) and its documentation;
// an anonymous type its Context (the element, attribute or type it is
// written in) and a local element its Scope, so that a generator can name
// them. A local element's Name is its name on the wire: in the target
// namespace when it is qualified (form, elementFormDefault), in none when
// not.
//
// ComplexType.EffectiveParticle and EffectiveAttributes give a type's whole
// content with what it inherits (an extension's base content first, the
// attributes of its base and attribute groups); ArrayInfo describes a
// SOAP-encoded array (wsdl:arrayType). Simple types keep their facets
// (EffectiveFacets merges a chain of restrictions); Kind names every
// built-in type with its base and primitive.
//
// # The codec
//
// A Codec writes and reads XML in the form the schema says and checks it as
// it goes: the schema-driven reference codec of soapwire's contract-first
// side (the run-time client of core/wsdl, `soapwire call`, generated code
// is fuzzed against it).
//
//	c := xsd.NewCodec(set)                        // xsd.Lenient(), xsd.Encoded(core.V11)
//	err := c.Encode(w, set.Element(name), order)  // or c.Body(el, order): a core.Body
//	err = c.Decode(body, el, &order)              // body: a core.Body (or any TokenReader)
//	err = c.DecodeBytes(detail, el, &tree)        // tree: a *xsd.Value
//
// Writing follows the schema, not the value: elements are qualified or not
// as each declaration says (form, elementFormDefault), attributes too,
// children come in the content model's order (sequence, choice, all,
// nested groups, occurrence bounds), an element whose value is of a type
// derived from the declared one carries xsi:type, nil is xsi:nil (on a
// nillable element only) and absent is absent. Every namespace is written
// with a prefix (ns0, ns1… in order of first use; xsi, xsd, soapenc, enc
// for theirs), declared on the element where it is first needed; no
// default namespace is declared, so an unprefixed element is in no
// namespace. With Encoded, every element carries its xsi:type and arrays
// are SOAP-encoded arrays.
//
// Reading checks the same and refuses with a *ValueError naming the path
// ("order/total/amount"): a required element or attribute missing, an
// element the content model does not allow there (unknown, in the wrong
// namespace, out of order, one too many), a value outside its type's
// lexical space or facets (enumeration, lengths, patterns that Go's
// regular expressions can express, numeric bounds and digits), xsi:nil on
// an element that is not nillable, an xsi:type that does not derive from
// the declared type, an abstract element or type without a substitute.
// errors.As finds a Sender *core.Fault in such an error, so a server that
// returns it answers a Sender fault. Lenient reading matches elements by
// local name in any order, skips what the schema does not have and leaves
// missing values absent; it still refuses a value that does not parse.
//
// # Values
//
// A Value is the generic tree: names, attributes, text, children, xsi:type
// and nil, as the wire has them (decoding) or as the caller builds them
// (encoding takes children by name, in the schema's order). A
// map[string]any of local names (nested maps, []any for repeated
// elements, nil for xsi:nil, "@name" or "name" for an attribute, "" for
// simple content) encodes too. Go values map as encoding/xml's tags say:
// a field `xml:"name"` (`xml:"ns name"` pins the namespace) holds an
// element, `xml:"name,attr"` an attribute, `xml:",chardata"` simple
// content, `xml:",any"` the elements of a wildcard (RawXML or *Value); an
// untagged field matches by its name in any case. Pointers are optional
// (nil is absent; on a required nillable element, xsi:nil), Nillable[T]
// keeps nil and absent apart, slices repeat. Simple values: string and
// named strings (any type), bool, the integer and float kinds (range
// checked both ways), soapenc.Decimal, big.Int, big.Rat and big.Float
// (decimal and integer without precision loss), time.Time (dateTime, date,
// time and the g* types; a time in soapenc.NoZone() has no zone),
// time.Duration (duration without years or months), []byte (base64Binary
// or hexBinary as the type says), xml.Name (QName), slices for list types,
// encoding.TextMarshaler and TextUnmarshaler. A struct whose Go type name
// is the name of a type derived from the declared one is written with that
// xsi:type; an any (interface) field receives a *Value. A Go field the
// schema has no place for, when it holds something, is an error, and so
// is an element read that the Go value has no field for: nothing is
// dropped silently.
package xsd
