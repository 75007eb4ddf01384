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

func (k Kind) String() string {
	switch k {
	case StartElement:
		return "StartElement"
	case EndElement:
		return "EndElement"
	case CharData:
		return "CharData"
	case Comment:
		return "Comment"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// XMLNamespace is the namespace bound to the reserved prefix "xml".
const XMLNamespace = "http://www.w3.org/XML/1998/namespace"

// xmlnsNamespace is the namespace of the reserved prefix "xmlns".
const xmlnsNamespace = "http://www.w3.org/2000/xmlns/"

// Name is a resolved XML name: Space is the namespace URI, Prefix the prefix
// used in the document (empty for the default namespace or none).
type Name struct {
	Space  []byte
	Prefix []byte
	Local  []byte
}

// Is reports whether the name is {space}local.
func (n Name) Is(space, local string) bool {
	return string(n.Local) == local && string(n.Space) == space
}

// Attr is an attribute other than a namespace declaration. Value has its
// references decoded and its white space normalized (XML 1.0 §3.3.3).
type Attr struct {
	Name  Name
	Value []byte
}

// NS is a namespace declaration: an empty Prefix declares the default
// namespace.
type NS struct {
	Prefix []byte
	URI    []byte
}

// Token is one token of the document. It and every slice it holds are valid
// until the next call to Next.
type Token struct {
	Kind Kind
	Name Name   // StartElement, EndElement
	Attr []Attr // StartElement: the attributes, namespace declarations excluded
	NS   []NS   // StartElement: the namespace declarations made on this element
	Text []byte // CharData (references decoded, line ends normalized), Comment (as written)
}

// Limits bound what a Reader accepts. A zero or negative field means no
// limit.
type Limits struct {
	MaxBytes      int64 // input bytes, before any UTF-16 transcoding
	MaxDepth      int   // element nesting
	MaxAttrs      int   // attributes per element, namespace declarations excluded
	MaxNSDecls    int   // namespace declarations per element
	MaxNameLen    int   // bytes in a prefix or a local name
	MaxTokenBytes int   // bytes in a start tag, an end tag, a comment or the XML declaration (text is streamed)
}

// ErrTooLarge is in the chain of the error for input over Limits.MaxBytes.
var ErrTooLarge = errors.New("input exceeds the size limit")

// ErrLimit is in the chain of the errors for the structural limits (depth,
// attributes, namespace declarations, name length, token size).
var ErrLimit = errors.New("limit exceeded")

// SyntaxError is a well-formedness or namespace error, a refused construct,
// or a limit.
type SyntaxError struct {
	Offset int64 // input bytes consumed when the error was found
	Msg    string
	Err    error // ErrTooLarge, ErrLimit, io.ErrUnexpectedEOF or a read error, if any
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("xml: %s (at byte %d)", e.Msg, e.Offset)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// IsSpace reports whether b holds only XML white space.
func IsSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}
