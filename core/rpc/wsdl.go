package rpc

import (
	"io"

	"github.com/soapwire/soapwire/core/wsdl"
)

// Definition returns the WSDL description of s and its operations.
func (s *Service) Definition() *wsdl.Definition {
	d := &wsdl.Definition{
		Name:      s.name,
		Namespace: s.namespace,
		RPC:       s.cfg.style.IsRPC(),
		Encoded:   s.cfg.style.IsEncoded(),
	}
	for _, op := range s.order {
		d.Operations = append(d.Operations, wsdl.Operation{
			Name:   op.name,
			Action: op.action,
			Doc:    op.doc,
			Input:  parts(op.sig.in),
			Output: parts(op.sig.out),
		})
	}
	return d
}

func parts(ps []param) []wsdl.Part {
	out := make([]wsdl.Part, len(ps))
	for i, p := range ps {
		out[i] = wsdl.Part{Name: p.Name, Type: p.Type, Optional: p.Optional}
	}
	return out
}

// WSDL writes the WSDL 1.1 document of s, with SOAP 1.1 and SOAP 1.2
// bindings whose ports are at address. Bindings serve it for "?wsdl".
func (s *Service) WSDL(w io.Writer, address string) error {
	return s.Definition().Write(w, address)
}
