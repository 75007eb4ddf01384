package core

import (
	"io"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// The start of the Body, and what may follow it.

func (p *parser) body() (Body, error) {
	t, err := p.structural("Body")
	if err != nil {
		return Body{}, err
	}
	if t.Kind == xmltok.EndElement {
		return p.emptyBody()
	}
	name := p.names(p.st.env.Headers, &t.Name)
	if t.Name.Is(p.v.Namespace(), "Fault") {
		return p.faultBody(name)
	}
	// p.st is new (see envelope): only the fields that are not zero are set
	in, src := &p.st.in, &p.st.src
	in.r, in.p, in.v, in.depth, in.first = p.r, p, p.v, p.r.Depth()-1, t
	src.in, src.name, src.named = in, name, true
	return Body{src}, nil
}

// emptyBody ends an envelope whose Body has no child.
//
// It and faultBody are functions of their own so that body's stack frame,
// on the stack of every message read, stays small.
//
//go:noinline
func (p *parser) emptyBody() (Body, error) {
	src := &p.st.src
	p.names(p.st.env.Headers, nil)
	p.st.in = inbound{done: true, empty: true}
	*src = bodySource{in: &p.st.in, named: true}
	return Body{src}, p.afterBody()
}

// afterBody checks what follows the Body: only the end of the Envelope and
// of the input (WS-I BP R1011: no element after the Body).
func (p *parser) afterBody() error {
	defer p.release()
	t, err := p.structural("Envelope")
	if err != nil {
		return err
	}
	if t.Kind == xmltok.StartElement {
		return p.afterBodyElement(t)
	}
	for {
		t, err := p.r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return p.wrap(err)
		}
		if t.Kind != xmltok.Comment {
			return p.sender("content after the Envelope")
		}
	}
}

// afterBodyElement refuses t, an element after the Body. (Not inlined, so
// that its messages take no room on afterBody's stack frame, at the deepest
// point of copying a request's body into its reply.)
//
//go:noinline
func (p *parser) afterBodyElement(t *xmltok.Token) error {
	if t.Name.Is(p.v.Namespace(), "Body") {
		return p.sender("two Bodies")
	}
	return p.sender("element %s after the Body (WS-I BP R1011)", nameString(t.Name))
}
