package core

import (
	"fmt"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// The start of the envelope: the Envelope element, the Header (if any) and
// the Body's start tag.

// envelope reads the envelope into a readState it allocates once it has
// seen the Envelope's first child, and returns it. Beside an error it
// returns the readState when there is one by then (the parser is its then:
// see readEnvelope).
func (p *parser) envelope() (*readState, error) {
	t, err := p.structural("document")
	if err != nil {
		return nil, notAnEnvelope(err)
	}
	if string(t.Name.Local) != "Envelope" {
		f := p.sender("the root element is %s, not a SOAP Envelope", nameString(t.Name))
		f.Cause = ErrNotEnvelope
		return nil, f
	}
	if p.v = versionOf(t.Name.Space); p.v == 0 {
		return nil, &Fault{Code: CodeVersionMismatch, Reason: fmt.Sprintf("the envelope namespace %q is not SOAP 1.1 or 1.2", t.Name.Space)}
	}
	ns := p.v.Namespace()
	if p.v == V12 && len(t.Attr) > 0 {
		if err := p.soap12Attrs(t, "Envelope"); err != nil {
			return nil, err
		}
	}
	enc, encSet := encodingStyleOf(t, ns)
	t, err = p.structural("Envelope")
	if err != nil {
		return nil, err
	}
	var st *readState
	if t.Kind == xmltok.StartElement && t.Name.Is(ns, "Header") {
		if p.v == V12 && len(t.Attr) > 0 {
			if err := p.soap12Attrs(t, "Header"); err != nil {
				return nil, err
			}
		}
		h := new(readStateH)
		st = &h.readState
		p.attach(st)
		if st.env.Headers, err = p.header(h.blocks[:0]); err != nil {
			return st, err
		}
		if t, err = p.structural("Envelope"); err != nil {
			return st, err
		}
	} else {
		st = new(readState)
		p.attach(st)
	}
	env := &st.env
	env.Version = p.v
	switch {
	case t.Kind == xmltok.EndElement:
		return st, p.sender("the Envelope has no Body")
	case t.Name.Is(ns, "Header"):
		return st, p.sender("a second Header")
	case !t.Name.Is(ns, "Body"):
		return st, p.sender("%s where the Header or the Body was expected (the Header must be the first child of the Envelope, the Body next)", nameString(t.Name))
	}
	if p.v == V12 && len(t.Attr) > 0 {
		if err := p.soap12Attrs(t, "Body"); err != nil {
			return st, err
		}
	}
	if e, ok := encodingStyleOf(t, ns); ok { // the Body's own wins
		enc, encSet = e, true
	}
	// p may be released (and reused) once body returns: only env from here
	v := p.v
	if env.Body, err = p.body(); err != nil {
		return st, err
	}
	if encSet {
		env.Body.src.enc = enc
	}
	if f := env.Body.Fault(); f != nil {
		env.Headers = foldFaultHeaders(env.Headers, f, v)
	}
	return st, nil
}

// foldFaultHeaders removes from the headers of a fault envelope of version
// v the blocks that are part of the fault f (read into it): writing the
// Fault writes them again. They are the 1.2 NotUnderstood blocks
// (Fault.NotUnderstood) and, for a VersionMismatch fault, the Upgrade block
// (Fault.Supported), in 1.2 and in 1.1 (SOAP 1.2 Part 1 Appendix A).
func foldFaultHeaders(headers []HeaderBlock, f *Fault, v Version) []HeaderBlock {
	kept := headers[:0]
	for _, b := range headers {
		fault := b.Name.Space == NamespaceV12 &&
			(v == V12 && b.Name.Local == "NotUnderstood" || f.Code == CodeVersionMismatch && b.Name.Local == "Upgrade")
		if !fault {
			kept = append(kept, b)
		}
	}
	return kept
}

// soap12Attrs refuses the attributes SOAP 1.2 does not allow on the
// Envelope, Header or Body start tag t (Part 1 §5.1, §5.2, §5.3): any
// attribute in no namespace, and on the Envelope and the Body the
// encodingStyle attribute (§5.1.1: it may appear on header blocks and on
// the Body's children, not on them). Namespace-qualified attributes of
// other namespaces stay allowed.
func (p *parser) soap12Attrs(t *xmltok.Token, what string) error {
	for _, a := range t.Attr {
		switch {
		case len(a.Name.Space) == 0:
			return p.sender("attribute %s in no namespace on the SOAP 1.2 %s (Part 1 §5.1–5.3 allows only namespace-qualified ones)", a.Name.Local, what)
		case what != "Header" && string(a.Name.Local) == "encodingStyle" && string(a.Name.Space) == NamespaceV12:
			return p.sender("encodingStyle on the SOAP 1.2 %s (Part 1 §5.1.1 allows it on header blocks and on the Body's children only)", what)
		}
	}
	return nil
}

// encodingStyleOf returns the value of the encodingStyle attribute of the
// envelope's namespace ns on the start tag t, if it has one (a copy, or the
// constant of a well-known style).
func encodingStyleOf(t *xmltok.Token, ns string) (string, bool) {
	for _, a := range t.Attr {
		if string(a.Name.Local) == "encodingStyle" && string(a.Name.Space) == ns {
			return known(a.Value), true
		}
	}
	return "", false
}
