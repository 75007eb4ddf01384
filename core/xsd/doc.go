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
package xsd
