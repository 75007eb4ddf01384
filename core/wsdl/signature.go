package wsdl

import (
	"encoding/xml"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/xsd"
)

// Style is an operation's binding style.
type Style uint8

const (
	Document Style = iota
	RPC
)

func (s Style) String() string {
	if s == RPC {
		return "rpc"
	}
	return "document"
}

// Use says how a message's parts are written: by their schema (literal) or
// in the SOAP encoding (encoded).
type Use uint8

const (
	Literal Use = iota
	Encoded
)

func (u Use) String() string {
	if u == Encoded {
		return "encoded"
	}
	return "literal"
}

// Endpoint is one SOAP port of a service, or a SOAP binding that no port
// uses (then Service and Port are nil and Address is empty): what calling
// its operations takes.
type Endpoint struct {
	Service    *Service
	Port       *Port
	Binding    *Binding
	Version    core.Version
	Address    string
	Operations []*Signature
	// MTOM says that the port's policy (its binding's or its own) requires
	// MTOM: clients send their requests as MTOM packages (XOP).
	MTOM bool
}

// Signature is one operation as an endpoint carries it.
type Signature struct {
	Name    string
	Doc     string // the port type operation's documentation, else the binding's
	Style   Style
	Version core.Version
	Action  string // the SOAPAction (SOAP 1.2: the action parameter)
	Address string
	OneWay  bool
	Input   *MessageSignature
	Output  *MessageSignature // nil for a one-way operation
	Faults  []*FaultSignature

	Operation *PortTypeOperation
	Binding   *BindingOperation
}

// MessageSignature is what one direction of an operation carries.
type MessageSignature struct {
	Message       *Message
	Use           Use
	EncodingStyle string
	Namespace     string // the soap:body namespace (the rpc wrapper's)
	// Wrapped says that a document/literal message is the wrapper
	// convention (WCF's and zeep's test): one body part, an element named
	// as the operation (for the input; the output's must be the input's
	// counterpart), whose type is a sequence with no attributes. Params
	// are then the wrapper's children.
	Wrapped bool
	// Element is the element the SOAP Body holds: the wrapper of a
	// wrapped or rpc message, the one part's element of a bare message
	// with one part; zero for a bare message with none or several.
	Element xml.Name
	// Parts are the message parts in the body, in order.
	Parts []*MessagePart
	// Params are the values the message carries: the wrapper's particles
	// (wrapped), one accessor per part (rpc: an element named as the part,
	// in no namespace, of the part's type, or the part's element), or each
	// part's element (bare).
	Params []*xsd.Particle
	// Headers are the soap:header parts.
	Headers []*HeaderSignature
	// Attachments are the parts carried as MIME attachments.
	Attachments []*MessagePart
}

// HeaderSignature is a header block an operation declares.
type HeaderSignature struct {
	Message   *Message
	Part      *MessagePart
	Element   *xsd.Element // the header block's element
	Use       Use
	Namespace string
	Required  bool // wsdl:required="true"
}

// FaultSignature is a fault an operation declares.
type FaultSignature struct {
	Name    string
	Message *Message
	// Element is the fault detail's element: the message's one part's
	// element (or an element named as the part, for a type part).
	Element   *xsd.Element
	Use       Use
	Namespace string
}

// Endpoints returns every SOAP port of every service (in document order),
// then every SOAP binding that no port uses. Ports of other bindings
// (HTTP GET and POST) are not endpoints; they stay in Services.
func (c *Contract) Endpoints() []*Endpoint { return c.endpoints }

// endpoints computes the endpoints, reporting what does not fit.
func (cr *reader) endpoints() {
	c := cr.c
	used := map[*Binding]bool{}
	sigs := map[*Binding][]*Signature{}
	build := func(b *Binding) []*Signature {
		if s, ok := sigs[b]; ok {
			return s
		}
		var out []*Signature
		bound := map[*PortTypeOperation]bool{}
		for _, op := range b.Operations {
			if op.Operation != nil && bound[op.Operation] {
				cr.warn(op.Loc, "the binding %s binds the operation %s a second time (this one is left out)", b.Name.Local, op.Name)
				continue
			}
			bound[op.Operation] = true
			if s := cr.signature(b, op); s != nil {
				out = append(out, s)
			}
		}
		sigs[b] = out
		return out
	}
	for _, s := range c.Services {
		for _, p := range s.Ports {
			b := p.Binding
			if b == nil || b.Kind != SOAP11 && b.Kind != SOAP12 {
				continue
			}
			used[b] = true
			e := &Endpoint{Service: s, Port: p, Binding: b, Version: version(b), Address: p.Address, MTOM: b.MTOM || p.MTOM}
			for _, sig := range build(b) {
				cp := *sig
				cp.Address = p.Address
				e.Operations = append(e.Operations, &cp)
			}
			c.endpoints = append(c.endpoints, e)
		}
	}
	for _, b := range c.Bindings {
		if !used[b] && (b.Kind == SOAP11 || b.Kind == SOAP12) {
			c.endpoints = append(c.endpoints, &Endpoint{Binding: b, Version: version(b), Operations: build(b), MTOM: b.MTOM})
		}
	}
}

func version(b *Binding) core.Version {
	if b.Kind == SOAP12 {
		return core.V12
	}
	return core.V11
}

// signature computes one operation's signature; nil for one that cannot be
// called (its port type operation starts with an output).
func (cr *reader) signature(b *Binding, op *BindingOperation) *Signature {
	pt := op.Operation
	if pt == nil || pt.Input == nil {
		return nil
	}
	s := &Signature{Name: op.Name, Doc: pt.Doc, Style: Document, Version: version(b), Action: op.Action,
		OneWay: pt.Output == nil, Operation: pt, Binding: op}
	if s.Doc == "" {
		s.Doc = op.Doc
	}
	style := op.Style
	if style == "" {
		style = b.Style
	}
	if style == "rpc" {
		s.Style = RPC
	}
	s.Input = cr.message(s, op, pt.Input, op.Input, false)
	if pt.Output != nil {
		s.Output = cr.message(s, op, pt.Output, op.Output, true)
	}
	for _, bf := range op.Faults {
		if bf.Fault == nil || bf.Fault.Message == nil {
			continue
		}
		f := &FaultSignature{Name: bf.Name, Message: bf.Fault.Message, Namespace: bf.Namespace}
		if bf.Use == "encoded" {
			f.Use = Encoded
		}
		switch parts := bf.Fault.Message.Parts; {
		case len(parts) == 1:
			f.Element = partElement(parts[0], bf.Namespace)
		default:
			cr.warn(bf.Loc, "the fault %s of %s has %d parts (a fault detail is one element)", bf.Name, op.Name, len(parts))
		}
		s.Faults = append(s.Faults, f)
	}
	return s
}

// partElement returns the element a part puts on the wire: its element,
// or one named as the part (in ns) of its type.
func partElement(p *MessagePart, ns string) *xsd.Element {
	if p.Element != nil {
		return p.Element
	}
	return &xsd.Element{Name: xml.Name{Space: ns, Local: p.Name}, Loc: p.Loc, Doc: p.Doc, Type: p.Type, TypeName: p.TypeName}
}

// message computes one direction's signature.
func (cr *reader) message(s *Signature, op *BindingOperation, om *OperationMessage, bm *BindingMessage, output bool) *MessageSignature {
	ms := &MessageSignature{Message: om.Message}
	if bm == nil {
		bm = &BindingMessage{Loc: op.Loc}
	}
	if ms.Message == nil {
		return ms
	}
	body := bm.Body
	if body == nil {
		body = &SOAPBody{Loc: bm.Loc}
		if len(bm.MIME) == 0 {
			cr.warn(bm.Loc, "the %s of %s has no soap:body: its parts are read as the body's", direction(output), op.Name)
		}
	}
	if body.Use == "encoded" {
		ms.Use = Encoded
	}
	ms.EncodingStyle, ms.Namespace = body.EncodingStyle, body.Namespace
	// The body's parts: those soap:body names, else those no header or
	// attachment takes.
	taken := map[string]bool{}
	for _, h := range bm.Headers {
		if h.Message == om.Message && h.Part != nil {
			taken[h.Part.Name] = true
		}
	}
	for _, m := range bm.MIME {
		for _, ct := range m.Contents {
			taken[ct.Part] = true
		}
	}
	if body.Parts != nil {
		for _, name := range body.Parts {
			p := om.Message.Part(name)
			if p == nil {
				cr.fail(body.Loc, "soap:body names the part %q, which the message %s does not have", name, om.Message.Name.Local)
				continue
			}
			ms.Parts = append(ms.Parts, p)
		}
	} else {
		for _, p := range om.Message.Parts {
			if !taken[p.Name] {
				ms.Parts = append(ms.Parts, p)
			}
		}
	}
	for _, m := range bm.MIME {
		for _, ct := range m.Contents {
			if p := om.Message.Part(ct.Part); p != nil && !containsPart(ms.Attachments, p) {
				ms.Attachments = append(ms.Attachments, p)
			}
		}
	}
	for _, h := range bm.Headers {
		if h.Part == nil {
			continue
		}
		hs := &HeaderSignature{Message: h.Message, Part: h.Part, Namespace: h.Namespace, Required: h.Required}
		if h.Use == "encoded" {
			hs.Use = Encoded
		}
		hs.Element = partElement(h.Part, h.Namespace)
		ms.Headers = append(ms.Headers, hs)
	}
	if s.Style == RPC {
		cr.rpcParams(s, ms, op, output)
		return ms
	}
	for _, p := range ms.Parts {
		if p.Element == nil && p.Type != nil {
			cr.warn(p.Loc, "the part %s of a document-style message names a type: it is read as an element %s of that type, in no namespace", p.Name, p.Name)
		}
	}
	if len(ms.Parts) == 1 && ms.Use == Literal && isWrapper(ms.Parts[0], op.Name, output) && (!output || s.Input.Wrapped) {
		w := ms.Parts[0].Element
		ms.Wrapped, ms.Element = true, w.Name
		ms.Params = wrapperParams(w.Type.(*xsd.ComplexType))
		return ms
	}
	for _, p := range ms.Parts {
		e := partElement(p, "")
		ms.Params = append(ms.Params, &xsd.Particle{Min: 1, Max: 1, Loc: p.Loc, Element: e})
	}
	if len(ms.Parts) == 1 {
		ms.Element = ms.Params[0].Element.Name
	}
	return ms
}

func direction(output bool) string {
	if output {
		return "output"
	}
	return "input"
}

func containsPart(ps []*MessagePart, p *MessagePart) bool {
	for _, q := range ps {
		if q == p {
			return true
		}
	}
	return false
}

// rpcParams makes an rpc message's accessors: one per body part, in the
// message's order.
func (cr *reader) rpcParams(s *Signature, ms *MessageSignature, op *BindingOperation, output bool) {
	name := op.Name
	if output {
		name += "Response"
	}
	ms.Element = xml.Name{Space: ms.Namespace, Local: name}
	if ms.Namespace == "" {
		cr.warn(op.Loc, "the rpc operation %s's soap:body has no namespace: its wrapper is in no namespace", op.Name)
	}
	for _, p := range ms.Parts {
		pt := &xsd.Particle{Min: 1, Max: 1, Loc: p.Loc}
		if p.Element != nil {
			pt.Element = p.Element
		} else {
			pt.Element = &xsd.Element{Name: xml.Name{Local: p.Name}, Loc: p.Loc, Doc: p.Doc, Type: p.Type, TypeName: p.TypeName}
		}
		ms.Params = append(ms.Params, pt)
	}
}

// isWrapper reports whether p is a wrapper element: named as the operation
// (the input's), and of a complex type that is a sequence of particles
// without attributes, not abstract, with element content or none.
func isWrapper(p *MessagePart, opName string, output bool) bool {
	e := p.Element
	if e == nil || e.Abstract {
		return false
	}
	if !output && e.Name.Local != opName {
		return false
	}
	t, ok := e.Type.(*xsd.ComplexType)
	if !ok || t.Abstract || t.IsAnyType() || len(t.EffectiveAttributes()) > 0 || t.EffectiveAnyAttribute() != nil {
		return false
	}
	switch t.Content {
	case xsd.EmptyContent:
		return true
	case xsd.ElementContent:
		pt := t.EffectiveParticle()
		return pt != nil && pt.Group != nil && pt.Group.Compositor == xsd.Sequence && pt.Min == 1 && pt.Max == 1
	}
	return false
}

// wrapperParams returns the particles of a wrapper type's sequence (a
// sequence made of an extension's base and addition is flattened).
func wrapperParams(t *xsd.ComplexType) []*xsd.Particle {
	pt := t.EffectiveParticle()
	if pt == nil || pt.Group == nil {
		return nil
	}
	var out []*xsd.Particle
	var add func(g *xsd.ModelGroup, depth int)
	add = func(g *xsd.ModelGroup, depth int) {
		for _, c := range g.Particles {
			if c.Group != nil && c.GroupRef == nil && c.Group.Compositor == xsd.Sequence && c.Min == 1 && c.Max == 1 && depth < 64 {
				add(c.Group, depth+1)
				continue
			}
			out = append(out, c)
		}
	}
	add(pt.Group, 0)
	return out
}
