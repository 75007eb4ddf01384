package gen

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/core/wsdl"
)

// port is one endpoint: a generated client.
type port struct {
	ep     *wsdl.Endpoint
	client string
	ctor   string
	ops    []*operation
}

// portType is a port type: a generated interface and server.
type portType struct {
	pt     *wsdl.PortType
	iface  string
	server string
	ctor   string
	ops    []*operation // the first binding's: the interface's methods
	ports  []*port      // the SOAP bindings served (one endpoint each)
}

// signature returns the parameters and results of an operation's method
// (after ctx; without opts).
func (op *operation) params() []string {
	var ps []string
	if op.in != nil {
		ps = append(ps, "in "+op.in.goType)
	}
	for _, h := range op.inHdrs {
		ps = append(ps, h.param+" "+h.el.goType)
	}
	for _, p := range op.inParts {
		ps = append(ps, p.param+" *core.Attachment")
	}
	return ps
}

func (op *operation) results() []string {
	var rs []string
	if op.out != nil && !op.sig.OneWay {
		rs = append(rs, op.out.goType)
		for _, h := range op.outHdrs {
			rs = append(rs, h.el.goType)
		}
		for range op.outParts {
			rs = append(rs, "*core.Attachment")
		}
	}
	return append(rs, "error")
}

// emitOpDescs writes the StubOperation of each operation of each port.
func (g *generator) emitOpDescs(f *file) {
	for _, pt := range g.ports {
		for _, op := range pt.ops {
			f.need("wsdl")
			sig := op.sig
			var faults []string
			for i, ft := range op.faults {
				if ft == nil {
					continue
				}
				fs := op.faultSig[i]
				msg := ""
				if fs.Message != nil {
					msg = fs.Message.Name.Local
				}
				f.need("xml")
				faults = append(faults, fmt.Sprintf("{Name: %s, Message: %s, Element: %s, Read: %s}",
					goString(fs.Name), goString(msg), xmlNameExpr(ft.el.el.Name), ft.read))
			}
			f.p("var %s = wsdl.StubOperation{Name: %s, Action: %s, RPC: %v, Encoded: %v, OneWay: %v, Faults: []wsdl.StubFault{%s}}",
				op.desc, goString(sig.Name), goString(sig.Action), sig.Style == wsdl.RPC, isEncoded(sig), sig.OneWay, strings.Join(faults, ", "))
			f.p("")
		}
	}
}

// isEncoded reports whether an operation's messages use the SOAP encoding.
func isEncoded(sig *wsdl.Signature) bool {
	return sig.Input != nil && sig.Input.Use == wsdl.Encoded || sig.Output != nil && sig.Output.Use == wsdl.Encoded
}

// emitClients writes a client per port.
func (g *generator) emitClients(f *file) {
	f.need("context", "core", "wsdl", "xsd")
	for _, p := range g.ports {
		ep := p.ep
		where := "the SOAP binding " + qname(ep.Binding.Name)
		if ep.Port != nil {
			where = "the port " + ep.Service.Name.Local + "/" + ep.Port.Name
		}
		f.p("// %s calls the operations of %s (SOAP %s) over any", p.client, where, ep.Version)
		f.p("// core.RoundTripper: HTTP, NATS, mail.")
		if ep.Port != nil && ep.Port.Doc != "" {
			f.p("//")
			f.comment("", ep.Port.Doc)
		}
		f.p("type %s struct {", p.client)
		f.p("\tstub *wsdl.Stub")
		f.p("}")
		f.p("")
		f.p("// %s returns a client of the port sending through rt. The port's", p.ctor)
		f.p("// address is %s (wsdl.WithAddress changes it,", goString(ep.Address))
		f.p("// wsdl.WithVersion the SOAP version, wsdl.WithSender sends one-way")
		if ep.MTOM {
			f.p("// operations through a core.Sender). The port's policy requires MTOM:")
			f.p("// requests are sent as MTOM packages, each core.Binary a part")
			f.p("// (wsdl.WithPackaging(core.Inline) sends them inline).")
		} else {
			f.p("// operations through a core.Sender).")
		}
		f.p("func %s(rt core.RoundTripper, opts ...wsdl.StubOption) *%s {", p.ctor, p.client)
		if ep.MTOM {
			f.p("\topts = append([]wsdl.StubOption{wsdl.WithPackaging(core.MTOM)}, opts...)")
		}
		f.p("\treturn &%s{stub: wsdl.NewStub(rt, %s, %s, opts...)}", p.client, versionExpr(ep), goString(ep.Address))
		f.p("}")
		f.p("")
		f.p("// Address returns the port's address: where the RoundTripper should go.")
		f.p("func (c *%s) Address() string { return c.stub.Address() }", p.client)
		f.p("")
		for _, op := range p.ops {
			g.emitClientOp(f, p, op)
		}
	}
}

func versionExpr(ep *wsdl.Endpoint) string {
	if ep.Version == 2 {
		return "core.V12"
	}
	return "core.V11"
}

// emitClientOp writes a client's method for one operation.
func (g *generator) emitClientOp(f *file, p *port, op *operation) {
	sig := op.sig
	params := append([]string{"ctx context.Context"}, op.params()...)
	params = append(params, "opts ...wsdl.CallOption")
	results := op.results()
	f.p("// %s calls the operation %s.", op.goName, sig.Name)
	if sig.Doc != "" {
		f.p("//")
		f.comment("", sig.Doc)
	}
	if d := mimeDoc(op); d != "" {
		f.p("//")
		f.comment("", d)
	}
	if sig.OneWay {
		f.p("//")
		f.p("// It is one-way: it returns once the message is sent (through the")
		f.p("// client's Sender, or a RoundTripper that accepts it answering nothing).")
	}
	if len(op.faults) > 0 {
		var names []string
		for _, ft := range op.faults {
			if ft != nil {
				names = append(names, "*"+ft.name)
			}
		}
		if len(names) > 0 {
			f.p("//")
			f.p("// A fault it declares is returned as %s (errors.As).", strings.Join(names, " or "))
		}
	}
	for _, r := range results {
		f.use(r)
	}
	f.p("func (c *%s) %s(%s) (%s) {", p.client, op.goName, strings.Join(params, ", "), strings.Join(results, ", "))
	if why := op.unsupportedMIME(); why != "" {
		f.need("errors")
		var zeros []string
		for range results[1:] {
			zeros = append(zeros, "nil")
		}
		f.p("\treturn %serrors.New(%s)", strings.Join(append(zeros, ""), ", "), goString("wsdl: "+why))
		f.p("}")
		f.p("")
		return
	}
	var outs []string
	if !sig.OneWay && op.out != nil {
		f.p("\tvar out %s", op.out.goType)
		outs = append(outs, "out")
		for _, h := range op.outHdrs {
			f.p("\tvar %s %s", h.param, h.el.goType)
			outs = append(outs, h.param)
		}
	}
	write := "func(*xsd.Encoder) error { return nil }"
	if op.in != nil {
		write = fmt.Sprintf("func(e *xsd.Encoder) error { return %s(e, in) }", op.in.write)
	}
	f.p("\tvar headers []wsdl.StubHeader")
	for _, h := range op.inHdrs {
		f.need("xml")
		f.p("\t{")
		f.p("\t\th := wsdl.StubHeader{Element: %s, Required: %v}", xmlNameExpr(h.el.el.Name), h.sig.Required)
		f.p("\t\tif %s != nil {", h.param)
		f.p("\t\t\th.Write = func(e *xsd.Encoder) error { return %s(e, %s) }", h.el.write, h.param)
		f.p("\t\t}")
		f.p("\t\theaders = append(headers, h)")
		f.p("\t}")
	}
	read := "nil"
	if !sig.OneWay && op.out != nil {
		read = fmt.Sprintf("func(d *xsd.Decoder) error {\n\t\tvar err error\n\t\tout, err = %s(d)\n\t\treturn err\n\t}", op.out.read)
	}
	f.p("\tvar replyHeaders []wsdl.StubHeader")
	for _, h := range op.outHdrs {
		f.need("xml")
		f.p("\treplyHeaders = append(replyHeaders, wsdl.StubHeader{Element: %s, Required: %v, Read: func(d *xsd.Decoder, st *xsd.Start) error {", xmlNameExpr(h.el.el.Name), h.sig.Required)
		f.p("\t\tvar err error")
		f.p("\t\t%s, err = %s(d, st)", h.param, h.el.read)
		f.p("\t\treturn err")
		f.p("\t}})")
	}
	if op.hasParts() {
		f.p("\treplyParts := %s", stubParts(op.outParts, false))
		for i := range op.outParts {
			outs = append(outs, fmt.Sprintf("replyParts[%d].Attachment", i))
		}
		f.p("\terr := c.stub.CallParts(ctx, &%s, %s, headers, %s, %s, replyHeaders, replyParts, opts...)", op.desc, write, stubParts(op.inParts, true), read)
	} else {
		f.p("\terr := c.stub.Call(ctx, &%s, %s, headers, %s, replyHeaders, opts...)", op.desc, write, read)
	}
	if len(outs) == 0 {
		f.p("\treturn err")
	} else {
		f.p("\tif err != nil {")
		var zeros []string
		for range outs {
			zeros = append(zeros, "nil")
		}
		f.p("\t\treturn %s, err", strings.Join(zeros, ", "))
		f.p("\t}")
		f.p("\treturn %s, nil", strings.Join(outs, ", "))
	}
	f.p("}")
	f.p("")
}

// elementName is the element a request's body starts with (for routing).
func elementName(ms *wsdl.MessageSignature) xml.Name {
	if ms == nil {
		return xml.Name{}
	}
	if ms.Element != (xml.Name{}) {
		return ms.Element
	}
	if len(ms.Params) > 0 && ms.Params[0].Element != nil {
		return ms.Params[0].Element.Name
	}
	return xml.Name{}
}
