package xmltok

import (
	"errors"
	"fmt"
)

// Kind says what a Token is.
type Kind uint8

// Token kinds.
const (
	StartElement Kind = iota + 1
	EndElement
	CharData
	Comment
)

// XMLNamespace is the namespace bound to the reserved prefix "xml".
const XMLNamespace = "http://www.w3.org/XML/1998/namespace"

// Name is a resolved XML name: Space is the namespace URI, Prefix the prefix
// used in the document ("" for the default namespace or none).
type Name struct {
	Space  string
	Prefix string
	Local  string
}

// Attr is an attribute other than a namespace declaration.
type Attr struct {
	Name  Name
	Value string
}

// NS is a namespace declaration: Prefix "" declares the default namespace.
type NS struct {
	Prefix string
	URI    string
}

// Token is one token of the document.
type Token struct {
	Kind Kind
	Name Name   // StartElement, EndElement
	Attr []Attr // StartElement: attributes, namespace declarations excluded
	NS   []NS   // StartElement: namespace declarations made on this element
	Text []byte // CharData (entities decoded), Comment
}

// Limits bound what a Reader accepts. A zero or negative field means no limit.
type Limits struct {
	MaxBytes   int64 // input bytes
	MaxDepth   int   // element nesting
	MaxAttrs   int   // attributes per element, namespace declarations excluded
	MaxNSDecls int   // namespace declarations per element
	MaxNameLen int   // bytes in a prefix or local name
}

// ErrTooLarge is returned (wrapped) when the input exceeds Limits.MaxBytes.
var ErrTooLarge = errors.New("input exceeds the size limit")

// ErrLimit is wrapped by errors for the structural limits (depth, attributes,
// namespace declarations, name length).
var ErrLimit = errors.New("limit exceeded")

// SyntaxError is a well-formedness or namespace error, or a limit.
type SyntaxError struct {
	Offset int64 // input bytes consumed when the error was found
	Msg    string
	Err    error // ErrTooLarge, ErrLimit, or the underlying error, if any
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("xml: %s (at byte %d)", e.Msg, e.Offset)
}

func (e *SyntaxError) Unwrap() error { return e.Err }
