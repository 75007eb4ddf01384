package xsd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmldoc"
)

// Problem is something in a contract the reader reports: a construct it
// does not support or ignores (a warning, on the result), or an error that
// stops the load (in an *Error).
type Problem struct {
	Loc Loc
	Msg string
}

func (p Problem) String() string { return p.Loc.String() + ": " + p.Msg }

// Error is a load that failed on what the documents say (a reference that
// does not resolve, a cycle, a construct that cannot be read right): every
// such problem found.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

var (
	// ErrLimit is in the chain of the error for a load over its Limits
	// (documents, import depth, nesting in a document).
	ErrLimit = xmldoc.ErrLimit
	// ErrTooLarge is in the chain of the error for a document, or all the
	// documents together, over the byte limits.
	ErrTooLarge = xmldoc.ErrTooLarge
	// ErrNotAllowed is what a Loader returns for a location it does not
	// open (a URL for a file loader, a file for the HTTP one).
	ErrNotAllowed = errors.New("not allowed by the loader")
)

// maxErrors bounds the problems an Error collects.
const maxErrors = 100
