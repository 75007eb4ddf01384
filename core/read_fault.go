package core

import (
	"encoding/xml"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// A Fault in the Body: read whole, with the elements it is made of.

// faultBody reads a Fault, the Body's child named name, and the end of the
// envelope.
func (p *parser) faultBody(name xml.Name) (Body, error) {
	ns := p.v.Namespace()
	p.faultStart = p.r.Offset()
	f, err := p.readFault()
	if err != nil {
		return Body{}, err
	}
	f.NotUnderstood = p.nu
	if f.Code == CodeVersionMismatch {
		f.Supported = p.upg
	}
	t, err := p.structural("Body")
	if err != nil {
		return Body{}, err
	}
	if t.Kind == xmltok.StartElement {
		if t.Name.Is(ns, "Fault") {
			return Body{}, p.sender("two Faults in the Body")
		}
		return Body{}, p.sender("a Fault must be the only child of the Body")
	}
	src := &p.st.src
	*src = bodySource{fault: f, name: name, named: true}
	return Body{src}, p.afterBody()
}

// text reads the character content of the current element; elements in it
// are an error.
func (p *parser) text() (string, error) {
	var b strings.Builder
	for {
		t, err := p.next()
		if err != nil {
			return "", err
		}
		switch t.Kind {
		case xmltok.CharData:
			b.Write(t.Text)
		case xmltok.StartElement:
			return "", p.sender("unexpected element %s in a text-only fault element", t.Name.Local)
		case xmltok.EndElement:
			return trimSpace(b.String()), nil
		}
		if err := p.checkSize("the Fault", p.faultStart); err != nil {
			return "", err
		}
	}
}

// content copies the content of the current element as namespace-complete
// XML.
func (p *parser) content() ([]byte, error) {
	x := newMemWriter(128)
	depth := p.r.Depth()
	for {
		t, err := p.next()
		if err != nil {
			return nil, err
		}
		if err := p.checkSize("the Fault", p.faultStart); err != nil {
			return nil, err
		}
		d := p.r.Depth()
		if t.Kind == xmltok.EndElement && d < depth {
			return x.buf, nil
		}
		if t.Kind == xmltok.StartElement && d == depth+1 {
			x.token(t, p.r.Scope())
		} else {
			x.token(t, nil)
		}
	}
}

// skip skips the rest of the current element.
func (p *parser) skip() error {
	depth := p.r.Depth()
	for depth <= p.r.Depth() {
		if _, err := p.next(); err != nil {
			return err
		}
		if err := p.checkSize("the Fault", p.faultStart); err != nil {
			return err
		}
	}
	return nil
}

// qname resolves a prefixed name in the current scope.
func (p *parser) qname(s string) (xml.Name, error) {
	s = trimSpace(s)
	prefix, local, ok := strings.Cut(s, ":")
	if !ok {
		prefix, local = "", s
	}
	if local == "" || strings.Contains(local, ":") {
		return xml.Name{}, p.sender("%q is not a QName", s)
	}
	uri, bound := p.r.Lookup([]byte(prefix))
	if !bound {
		return xml.Name{}, p.sender("unbound prefix %q in the QName %q", prefix, s)
	}
	return xml.Name{Space: string(uri), Local: local}, nil
}
