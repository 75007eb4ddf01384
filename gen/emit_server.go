package gen

import (
	"fmt"
	"strings"
)

// emitServers writes an interface and a server per port type.
func (g *generator) emitServers(f *file) {
	if len(g.portTypes) == 0 {
		return
	}
	f.need("context", "core", "wsdl", "xsd", "xml")
	for _, pt := range g.portTypes {
		g.emitInterface(f, pt)
		g.emitServer(f, pt)
	}
}

// emitInterface writes the Go interface of a port type.
func (g *generator) emitInterface(f *file, pt *portType) {
	f.p("// %s is the port type %s: what a server of the contract", pt.iface, qname(pt.pt.Name))
	f.p("// implements (%s serves it). An operation's error is", pt.ctor)
	f.p("// answered as a fault: a declared fault's typed error with its detail, a")
	f.p("// *core.Fault as it is, any other error as a Receiver fault that hides")
	f.p("// its text.")
	if pt.pt.Doc != "" {
		f.p("//")
		f.comment("", pt.pt.Doc)
	}
	f.p("type %s interface {", pt.iface)
	for i, op := range pt.ops {
		if i > 0 {
			f.p("")
		}
		f.p("\t// %s is the operation %s.", op.goName, op.sig.Name)
		if op.sig.Doc != "" {
			f.p("\t//")
			f.comment("\t", op.sig.Doc)
		}
		if d := mimeDoc(op); d != "" {
			f.p("\t//")
			f.comment("\t", d)
		}
		params := append([]string{"ctx context.Context"}, op.params()...)
		results := op.results()
		for _, r := range results {
			f.use(r)
		}
		if len(results) == 1 {
			f.p("\t%s(%s) %s", op.goName, strings.Join(params, ", "), results[0])
		} else {
			f.p("\t%s(%s) (%s)", op.goName, strings.Join(params, ", "), strings.Join(results, ", "))
		}
	}
	f.p("}")
	f.p("")
}

// emitServer writes the server of a port type.
func (g *generator) emitServer(f *file, pt *portType) {
	var bindings []string
	for _, p := range pt.ports {
		bindings = append(bindings, fmt.Sprintf("%s (SOAP %s)", p.ep.Binding.Name.Local, p.ep.Version))
	}
	f.p("// %s serves an implementation of %s over the contract's SOAP", pt.server, pt.iface)
	f.p("// bindings of the port type: %s. It is a core.Handler (behind any", strings.Join(bindings, ", "))
	f.p("// binding: HTTP, NATS, mail, file drops) that routes a request by its")
	f.p("// body's element and action, refuses one that does not fit the contract")
	f.p("// with a Sender fault naming what is wrong, and serves the contract's WSDL")
	f.p("// (WSDL: bindings/http answers \"GET ?wsdl\" with it).")
	f.p("type %s struct {", pt.server)
	f.p("\t*wsdl.Skeleton")
	f.p("}")
	f.p("")
	f.p("// %s returns the server of impl.", pt.ctor)
	f.p("func %s(impl %s, opts ...wsdl.SkeletonOption) *%s {", pt.ctor, pt.iface, pt.server)
	f.p("\treturn &%s{wsdl.NewSkeleton(wsdlDocument, []*wsdl.SkeletonOperation{", pt.server)
	for _, p := range pt.ports {
		for _, op := range p.ops {
			sig := op.sig
			f.p("\t\t{Version: %s, Name: %s, Action: %s, Element: %s, Encoded: %v, OneWay: %v,", versionExpr(p.ep), goString(sig.Name),
				goString(sig.Action), xmlNameExpr(elementName(sig.Input)), isEncoded(sig), sig.OneWay)
			f.p("\t\t\tServe: func(ctx context.Context, call *wsdl.SkeletonCall) error { return %s(ctx, call, impl) }},", op.serve)
		}
	}
	f.p("\t}, opts...)}")
	f.p("}")
	f.p("")
	for _, p := range pt.ports {
		for _, op := range p.ops {
			g.emitServeOp(f, pt, op)
		}
	}
}

// emitServeOp writes the function serving one operation of one binding.
func (g *generator) emitServeOp(f *file, pt *portType, op *operation) {
	f.p("func %s(ctx context.Context, call *wsdl.SkeletonCall, impl %s) error {", op.serve, pt.iface)
	if why := op.unsupportedMIME(); why != "" {
		f.p("\treturn &core.Fault{Code: core.CodeReceiver, Reason: %s}", goString(why))
		f.p("}")
		f.p("")
		return
	}
	var args []string
	if op.in != nil {
		f.p("\tvar in %s", op.in.goType)
		f.p("\tif err := call.Read(func(d *xsd.Decoder) error {")
		f.p("\t\tvar err error")
		f.p("\t\tin, err = %s(d)", op.in.read)
		f.p("\t\treturn err")
		f.p("\t}); err != nil {")
		f.p("\t\treturn err")
		f.p("\t}")
		args = append(args, "in")
	} else {
		f.p("\tif err := call.Read(func(*xsd.Decoder) error { return nil }); err != nil {")
		f.p("\t\treturn err")
		f.p("\t}")
	}
	for _, h := range op.inHdrs {
		n := h.el.el.Name
		f.p("\tvar %s %s", h.param, h.el.goType)
		f.p("\tif _, err := call.Header(%s, %s, %v, func(d *xsd.Decoder, st *xsd.Start) error {", goString(n.Space), goString(n.Local), h.sig.Required)
		f.p("\t\tvar err error")
		f.p("\t\t%s, err = %s(d, st)", h.param, h.el.read)
		f.p("\t\treturn err")
		f.p("\t}); err != nil {")
		f.p("\t\treturn err")
		f.p("\t}")
		args = append(args, h.param)
	}
	args = append(args, emitServeParts(f, op)...)
	call := fmt.Sprintf("impl.%s(%s)", op.goName, strings.Join(append([]string{"ctx"}, args...), ", "))
	if op.sig.OneWay || op.out == nil {
		f.p("\treturn %s", call)
		f.p("}")
		f.p("")
		return
	}
	outs := []string{"out"}
	for _, h := range op.outHdrs {
		outs = append(outs, h.param)
	}
	for _, p := range op.outParts {
		outs = append(outs, p.param)
	}
	f.p("\t%s, err := %s", strings.Join(outs, ", "), call)
	f.p("\tif err != nil {")
	f.p("\t\treturn err")
	f.p("\t}")
	f.p("\tif err := call.Write(func(e *xsd.Encoder) error { return %s(e, out) }); err != nil {", op.out.write)
	f.p("\t\treturn err")
	f.p("\t}")
	for _, h := range op.outHdrs {
		f.p("\tif %s != nil {", h.param)
		f.p("\t\tif err := call.WriteHeader(func(e *xsd.Encoder) error { return %s(e, %s) }); err != nil {", h.el.write, h.param)
		f.p("\t\t\treturn err")
		f.p("\t\t}")
		f.p("\t}")
	}
	emitWriteParts(f, op)
	f.p("\treturn nil")
	f.p("}")
	f.p("")
}
