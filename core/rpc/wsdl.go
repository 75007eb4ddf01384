package rpc

import (
	"io"

	"github.com/soapwire/soapwire/core/wsdl"
)

// Definition returns the WSDL description of s and its operations, as
// code-first Go types describe them. A Service bound to a contract
// (WithContract) is described by its contract: WSDL writes that.
func (s *Service) Definition() *wsdl.Definition {
	d := &wsdl.Definition{
		Name:      s.name,
		Namespace: s.namespace,
		RPC:       s.cfg.style.IsRPC(),
		Encoded:   s.cfg.style.IsEncoded(),
		Bare:      s.cfg.style.IsBare(),
		Qualified: s.cfg.qualified,
	}
	if s.cfg.typeNS != s.namespace {
		d.TypeNamespace = s.cfg.typeNS
	}
	for _, op := range s.order {
		o := wsdl.Operation{
			Name:          op.name,
			Action:        op.action,
			Doc:           op.doc,
			Input:         parts(op.in, d.Bare),
			Output:        parts(op.out, d.Bare),
			InputHeaders:  headerParts(op.in),
			OutputHeaders: headerParts(op.out),
		}
		if !d.Bare {
			o.InputElement, o.OutputElement = op.in.element, op.out.element
		}
		d.Operations = append(d.Operations, o)
	}
	return d
}

// parts returns the body parameters of a message as WSDL parts: each with
// the namespace its element is in when not the schema's form (an xml tag's),
// and a bare message's one part named as its element.
func parts(mp *msgPlan, bare bool) []wsdl.Part {
	out := make([]wsdl.Part, len(mp.params))
	for i, p := range mp.params {
		out[i] = wsdl.Part{Name: p.Name, Type: p.Type, Optional: p.Optional, Nillable: p.Nillable, Space: p.tagSpace}
		if bare {
			out[i].Name, out[i].Space = mp.element.Local, mp.element.Space
		}
	}
	return out
}

func headerParts(mp *msgPlan) []wsdl.Part {
	out := make([]wsdl.Part, len(mp.headers))
	for i, p := range mp.headers {
		out[i] = wsdl.Part{Name: p.Name, Space: p.Space, Type: p.Type, Optional: p.Optional, Nillable: p.Nillable}
	}
	return out
}

// WSDL writes the WSDL 1.1 document of s, with SOAP 1.1 and SOAP 1.2
// bindings whose ports are at address. Bindings serve it for "?wsdl". A
// Service bound to a contract writes the contract's document, every port
// at address (wsdl.Contract.WriteDocument).
func (s *Service) WSDL(w io.Writer, address string) error {
	if s.bound != nil {
		return s.bound.contract.WriteDocument(w, address)
	}
	return s.Definition().Write(w, address)
}
