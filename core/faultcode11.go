package core

import (
	"encoding/xml"
	"strings"
)

// SOAP 1.1 has one fault code where SOAP 1.2 has a code and subcodes. WS-I
// Basic Profile 1.1 (§3.3.6, R1004, R1031) asks a 1.1 faultcode to be one of
// the SOAP 1.1 codes or a namespace-qualified code, never the "dot" notation
// (Client.Auth) that SOAP 1.1 §4.4.1 allowed; WS-Addressing's SOAP binding
// (§6) writes its 1.1 faults that way too, the subcode as the faultcode.
//
// Writing: MustUnderstand and VersionMismatch are always the SOAP codes
// (their processing depends on them); any other fault with a subcode in a
// namespace is written as that subcode (the first such, outermost), a
// qualified name; the rest as Client or Server. A subcode without a
// namespace, and any deeper subcode, has no place in a 1.1 faultcode.
//
// Reading: the SOAP codes, with dotted refinements from older peers read as
// subcodes without a namespace (Client.Auth); any other qualified code as
// its subcode, with the class codeClass11 gives it. A code soapwire would
// not write itself (dotted, or unqualified) is kept in Fault.custom11 and
// written back as it came, so a relayed fault is not changed.

// refinement11 returns the subcode f is written as in SOAP 1.1, if any.
func (f *Fault) refinement11() (xml.Name, bool) {
	if f.Code == CodeMustUnderstand || f.Code == CodeVersionMismatch {
		return xml.Name{}, false
	}
	for _, s := range f.Subcodes {
		if s.Space != "" && s.Space != NamespaceV11 && s.Local != "" {
			return s, true
		}
	}
	return xml.Name{}, false
}

// writeCode11 writes the content of a 1.1 faultcode element (p is the
// envelope's prefix).
func writeCode11(x *xmlWriter, f *Fault, p string) {
	switch {
	case f.custom11.Local == "":
	case f.custom11.Space == "":
		x.text(f.custom11.Local) // a peer's unqualified code: no prefix can be bound to no namespace
		return
	default:
		x.text(p + ":" + f.custom11.Local) // a peer's dotted code, relayed as it came
		return
	}
	if s, ok := f.refinement11(); ok {
		q := codePrefix(s.Space)
		if q == p {
			q = "fc"
		}
		x.decl(q, s.Space)
		x.text(q + ":" + s.Local)
		return
	}
	x.text(p + ":" + f.Code.local(V11))
}

// codePrefix is the prefix a 1.1 faultcode in namespace ns is written with:
// the usual one of the namespaces whose codes soapwire writes (so a peer
// that shows the faultcode as text shows wsa:ActionMismatch), else fc.
func codePrefix(ns string) string {
	switch ns {
	case NamespaceAddressing:
		return "wsa"
	case NamespaceRPC:
		return "rpc"
	case EncodingStyleV12:
		return "enc"
	}
	return "fc"
}

// codeClass11 is the class (Code) of a namespace-qualified 1.1 faultcode.
// The codes of WS-Addressing, SOAP RPC and the SOAP encoding are refinements
// of Sender but for wsa:EndpointUnavailable, a Receiver fault (WS-Addressing
// 1.0 SOAP Binding §6.4). SOAP 1.1 carries no class for other codes: the
// peer named the problem with a code of its own, which soapwire reads as a
// Sender (Client) fault: a request failed for a reason the service states,
// not one worth retrying blindly.
func codeClass11(q xml.Name) Code {
	if q.Space == NamespaceAddressing && q.Local == "EndpointUnavailable" {
		return CodeReceiver
	}
	return CodeSender
}

// setCode11 reads the faultcode QName s of a 1.1 fault.
func (f *Fault) setCode11(p *parser, s string) error {
	q, err := p.qname(s)
	if err != nil {
		return err
	}
	switch q.Space {
	case NamespaceV11:
		parts := strings.Split(q.Local, ".")
		code, ok := codeOf(V11, parts[0])
		if !ok {
			return p.sender("unknown fault code %q", s)
		}
		f.Code = code
		for _, sub := range parts[1:] { // the dot notation of older peers
			f.Subcodes = append(f.Subcodes, xml.Name{Local: sub})
		}
		if len(parts) > 1 {
			f.custom11 = q // written back as it came
		}
	case "":
		// an unqualified code (no default namespace): kept as it is, so it
		// is written back unchanged; a SOAP code's name is read as that code
		f.custom11 = q
		f.Subcodes = []xml.Name{q}
		f.Code = CodeSender
		if code, ok := codeOf(V11, strings.SplitN(q.Local, ".", 2)[0]); ok {
			f.Code = code
		}
	default:
		f.Code = codeClass11(q)
		f.Subcodes = []xml.Name{q}
	}
	return nil
}
