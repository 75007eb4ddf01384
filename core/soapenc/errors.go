package soapenc

import (
	"fmt"
	"strings"
)

// Subcodes of Error. The names of MissingID, DuplicateID and
// DataEncodingUnknown are those of the SOAP 1.2 faults they stand for; the RPC
// layer maps BadValue and ArraySize onto rpc:BadArguments.
const (
	SubcodeMissingID           = "MissingID"           // a reference to an id that no element carries
	SubcodeDuplicateID         = "DuplicateID"         // two elements carry the same id
	SubcodeBadValue            = "BadValue"            // a value that does not fit its type or its Go target
	SubcodeDataEncodingUnknown = "DataEncodingUnknown" // an encodingStyle other than the SOAP encoding
	SubcodeArraySize           = "ArraySize"           // a bad or too large declared array size, or more items than declared
	SubcodeLimit               = "Limit"               // MaxNodes, MaxDepth or MaxBytes exceeded
	SubcodeCycle               = "Cycle"               // a cyclic value where it cannot be represented
	SubcodeUnsupported         = "Unsupported"         // a Go type or construct this package does not handle
)

// Error is the error of this package's encoding and decoding. When decoding,
// every Error but Unsupported is the sender's fault.
type Error struct {
	Subcode string // one of the Subcode constants
	Path    string // where: the element path from the body child ("/echo/arg/item[2]"), or the Go field path when encoding
	Msg     string // what went wrong, for humans
	Err     error  // the underlying error, if any
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("soapenc: ")
	b.WriteString(e.Subcode)
	if e.Path != "" {
		b.WriteString(" at ")
		b.WriteString(e.Path)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

func errorf(sub, format string, args ...any) *Error {
	return &Error{Subcode: sub, Msg: fmt.Sprintf(format, args...)}
}
