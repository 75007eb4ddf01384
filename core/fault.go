package core

import (
	"encoding/xml"
	"errors"
	"fmt"
	"strings"
)

// Code is a SOAP fault code. The zero Code is CodeReceiver (1.1 Server).
type Code uint8

// Fault codes (SOAP 1.2 names; the 1.1 names are in comments).
const (
	CodeReceiver            Code = iota // 1.1 Server: the receiver could not process a good message
	CodeSender                          // 1.1 Client: the message was wrong
	CodeMustUnderstand                  // a mandatory header block was not understood
	CodeVersionMismatch                 // the envelope namespace is not one we support
	CodeDataEncodingUnknown             // 1.2 only (1.1 writes Client): an encodingStyle we do not know
)

// String returns the 1.2 local name of the code.
func (c Code) String() string {
	switch c {
	case CodeSender:
		return "Sender"
	case CodeMustUnderstand:
		return "MustUnderstand"
	case CodeVersionMismatch:
		return "VersionMismatch"
	case CodeDataEncodingUnknown:
		return "DataEncodingUnknown"
	}
	return "Receiver"
}

// local returns the code's local name in the given version.
func (c Code) local(v Version) string {
	if v != V12 {
		switch c {
		case CodeSender, CodeDataEncodingUnknown:
			return "Client"
		case CodeReceiver:
			return "Server"
		}
	}
	return c.String()
}

func codeOf(v Version, local string) (Code, bool) {
	switch local {
	case "Sender":
		return CodeSender, v == V12
	case "Receiver":
		return CodeReceiver, v == V12
	case "Client":
		return CodeSender, v != V12
	case "Server":
		return CodeReceiver, v != V12
	case "MustUnderstand":
		return CodeMustUnderstand, true
	case "VersionMismatch":
		return CodeVersionMismatch, true
	case "DataEncodingUnknown":
		return CodeDataEncodingUnknown, v == V12
	}
	return CodeReceiver, false
}

// Text is a fault reason in one language.
type Text struct {
	Lang string // xml:lang
	Text string
}

// Fault is a SOAP fault and the module's error type. It is written in the 1.1
// form (faultcode, faultstring, faultactor, detail) or the 1.2 form (Code with
// Subcodes, Reason texts, Node, Role, Detail) as the envelope's version says.
//
// SOAP 1.1 has one fault code. Following WS-I Basic Profile 1.1 (R1004,
// R1031: a SOAP 1.1 code or a namespace-qualified one, no "Client.Sub" dot
// notation), a 1.1 fault is written with the standard code (Client, Server,
// MustUnderstand, VersionMismatch) unless it is a Sender or Receiver fault
// with a subcode in a namespace: then its faultcode is that subcode (the
// first with a namespace), as WS-Addressing writes wsa:ActionMismatch.
// Reading a 1.1 fault, a qualified faultcode becomes the only subcode, under
// Sender (Receiver for wsa:EndpointUnavailable): SOAP 1.1 does not carry the
// class of such a fault. Dotted codes from older peers (Client.Auth) are read
// as the code and subcodes without a namespace.
type Fault struct {
	Code     Code
	Subcodes []xml.Name // 1.2 nested Subcode values, outermost first; in 1.1 the first with a namespace is the faultcode (see above)
	Reason   string     // faultstring / the first Reason Text
	Lang     string     // xml:lang of Reason; "" is written as "en" in 1.2
	// Translations are further Reason texts in other languages (1.2; 1.1 has one faultstring).
	Translations []Text
	Node         string // 1.1 faultactor / 1.2 Node: the URI of the node that faulted
	Role         string // 1.2 Role: the role the node was acting in
	Detail       []byte // the children of detail/Detail, namespace-complete XML
	// NotUnderstood names the mandatory header blocks that were not understood;
	// 1.2 writes a NotUnderstood header block for each.
	NotUnderstood []xml.Name
	// Supported lists, for a VersionMismatch fault, the envelopes the
	// faulting node supports, most preferred first; nil means both (1.2,
	// then 1.1). They are written as the Upgrade header block: always in
	// 1.2, and in 1.1 when Supported is set (SOAP 1.2 Part 1 Appendix A: a
	// 1.2-only node answering a 1.1 message). Reading a VersionMismatch
	// fault, the Upgrade block (1.2, or the 1.2 block in a 1.1 envelope) is
	// read into Supported, envelopes of versions soapwire does not know
	// left out; nil when the fault had none.
	Supported []Version
	// Version is the version of the envelope the fault came from or answers,
	// when known; a binding writes the fault in it.
	Version Version
	// Remote is true for a fault decoded from a received envelope.
	Remote bool
	// Cause is the error behind the fault. It is never serialized, so internal
	// text does not leak to peers.
	Cause error

	custom11 xml.Name // a dotted or unqualified 1.1 faultcode read from a peer, written back as it came
}

// Error describes the fault.
func (f *Fault) Error() string {
	var b strings.Builder
	b.WriteString("soap fault: ")
	b.WriteString(f.Code.String())
	for _, s := range f.Subcodes {
		b.WriteString("/")
		b.WriteString(s.Local)
	}
	if f.Reason != "" {
		b.WriteString(": ")
		b.WriteString(f.Reason)
	}
	if f.Node != "" {
		b.WriteString(" (node ")
		b.WriteString(f.Node)
		b.WriteString(")")
	}
	if f.Cause != nil && !strings.Contains(f.Reason, f.Cause.Error()) {
		b.WriteString(": ")
		b.WriteString(f.Cause.Error())
	}
	return b.String()
}

// Unwrap returns Cause.
func (f *Fault) Unwrap() error { return f.Cause }

// Is reports whether target is a *Fault with the same Code, so that
// errors.Is(err, &core.Fault{Code: core.CodeSender}) works.
func (f *Fault) Is(target error) bool {
	t, ok := target.(*Fault)
	return ok && t.Code == f.Code && t.Reason == "" && len(t.Subcodes) == 0
}

// HasSubcode reports whether name is one of f's subcodes.
func (f *Fault) HasSubcode(name xml.Name) bool {
	for _, s := range f.Subcodes {
		if s == name {
			return true
		}
	}
	return false
}

// InternalErrorReason is the reason of the fault that stands for a plain error.
const InternalErrorReason = "The server could not process the message"

// FaultOf returns the *Fault in err's chain or, for any other error, a
// Receiver fault with a generic reason whose Cause is err (its text is never
// written to a peer). FaultOf(nil) is nil.
func FaultOf(err error) *Fault {
	if err == nil {
		return nil
	}
	var f *Fault
	if errors.As(err, &f) {
		return f
	}
	return &Fault{Code: CodeReceiver, Reason: InternalErrorReason, Cause: err}
}

// SenderFault returns a Sender (1.1 Client) fault with the reason formatted
// from format and args.
func SenderFault(format string, args ...any) *Fault {
	return &Fault{Code: CodeSender, Reason: fmt.Sprintf(format, args...)}
}

// ReceiverFault returns a Receiver (1.1 Server) fault with the given reason.
func ReceiverFault(format string, args ...any) *Fault {
	return &Fault{Code: CodeReceiver, Reason: fmt.Sprintf(format, args...)}
}
