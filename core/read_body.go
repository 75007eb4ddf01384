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
	src := &p.st.src
	if t.Kind == xmltok.EndElement {
		p.names(p.st.env.Headers, nil)
		p.st.in = inbound{done: true, empty: true}
		*src = bodySource{in: &p.st.in, named: true}
		return Body{src}, p.afterBody()
	}
	name := p.names(p.st.env.Headers, &t.Name)
	if t.Name.Is(p.v.Namespace(), "Fault") {
		return p.faultBody(name)
	}
	p.st.in = inbound{r: p.r, p: p, v: p.v, depth: p.r.Depth() - 1, first: t, msg: &p.st.msg}
	*src = bodySource{in: &p.st.in, name: name, named: true}
	return Body{src}, nil
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
		if t.Name.Is(p.v.Namespace(), "Body") {
			return p.sender("two Bodies")
		}
		return p.sender("element %s after the Body (WS-I BP R1011)", nameString(t.Name))
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
