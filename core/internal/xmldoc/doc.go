// Package xmldoc reads a whole XML document into a small tree of elements,
// for the readers of contracts (core/xsd, core/wsdl): documents that are
// read once, whole, and walked in any order, where the envelope path streams.
//
// The tokens come from core/internal/xmltok, strict and bounded. In front of
// it, Parse accepts what real contract files hold and the tokenizer refuses
// on the message path: single-byte encodings declared in the XML
// declaration (ISO-8859-1, ISO-8859-15, windows-1252) and UTF-16 are
// transcoded to UTF-8; white space before the XML declaration and
// processing instructions (xml-stylesheet) are dropped; a document type
// declaration is read for its internal subset, whose general entities
// (plain text only) are expanded and whose attribute defaults are applied,
// within limits. An external entity, a parameter entity reference or an
// entity holding markup is refused; an external DTD subset is not read.
//
// Every element keeps its line, its namespace declarations (to resolve the
// QNames schema attributes hold) and its text; white-space-only text is
// kept only inside documentation elements, where it separates words.
package xmldoc
