package core

import "github.com/soapwire/soapwire/core/internal/xmltok"

// Token is one XML token of a body as Body.Next returns it, without copies:
// Name, Attr, NS and Text are slices of the tokenizer's buffer, valid until
// the next call. Compare names with Name.Is(space, local) or string(...)
// conversions, which do not allocate; copy what you keep.
//
//	Kind  TokenKind   StartElement, EndElement, CharData or Comment
//	Name  TokenName   Space (namespace URI), Prefix, Local: StartElement, EndElement
//	Attr  []TokenAttr StartElement: attributes, namespace declarations excluded
//	NS    []TokenNS   StartElement: namespace declarations (see Body.Next)
//	Text  []byte      CharData (references decoded), Comment
type Token = xmltok.Token

// TokenKind says what a Token is.
type TokenKind = xmltok.Kind

// Token kinds.
const (
	StartElement TokenKind = xmltok.StartElement
	EndElement   TokenKind = xmltok.EndElement
	CharData     TokenKind = xmltok.CharData
	Comment      TokenKind = xmltok.Comment
)

// TokenName is a token's resolved name: Space is the namespace URI, Prefix
// the prefix as written, Local the local name. Is(space, local) compares it.
type TokenName = xmltok.Name

// TokenAttr is an attribute of a start tag (namespace declarations are in
// Token.NS); its Value has its references decoded and its white space
// normalized as XML 1.0 §3.3.3 says.
type TokenAttr = xmltok.Attr

// TokenNS is a namespace declaration; an empty Prefix is the default
// namespace.
type TokenNS = xmltok.NS
