package wsdl

import "github.com/soapwire/soapwire/core"

// PackagingOption is WithPackaging's: it configures NewClient, NewStub (a
// generated client) and one Call.
type PackagingOption interface {
	ClientOption
	StubOption
	CallOption
}

type packagingOption core.Packaging

func (p packagingOption) applyClient(c *clientConfig) {
	c.packaging, c.packagingSet = core.Packaging(p), true
}
func (p packagingOption) applyStub(c *stubConfig) { c.packaging = core.Packaging(p) }
func (p packagingOption) applyCall(c *callConfig) {
	c.packaging, c.packagingSet = core.Packaging(p), true
}

// WithPackaging sends requests as p says, instead of as the port's policy
// does: core.MTOM writes each binary value (a core.Binary) as an
// xop:Include naming a MIME part of an XOP package, core.Inline as base64
// text in a plain envelope. By default a client sends MTOM when the port's
// policy requires it (Endpoint.MTOM: the wsoma:OptimizedMimeSerialization
// assertion), else Inline.
func WithPackaging(p core.Packaging) PackagingOption { return packagingOption(p) }

// requestPackaging is the packaging a request is sent in: the call's
// option, else the client's, else the port's policy.
func requestPackaging(call *callConfig, client core.Packaging) core.Packaging {
	if call.packagingSet {
		return call.packaging
	}
	return client
}

// policyPackaging is the packaging an endpoint's policy asks for.
func policyPackaging(e *Endpoint) core.Packaging {
	if e != nil && e.MTOM {
		return core.MTOM
	}
	return core.Inline
}

// attach makes m carry the parts an encoder named (xop:Include) in
// packaging p.
func attach(m *core.Message, p core.Packaging, atts []*core.Attachment) {
	m.Packaging = p
	for _, a := range atts {
		m.AttachBinary(a)
	}
}

// replyPackaging is the packaging a server answers a request in: MTOM for
// an MTOM request, Inline otherwise (a SwA request's binary values are
// answered inline: base64Binary is not swaRef).
func replyPackaging(req *core.Message) core.Packaging {
	if req.Packaging == core.MTOM {
		return core.MTOM
	}
	return core.Inline
}
