package gen

import (
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/core/wsdl"
)

// mimePart is a message part an operation's binding carries as a MIME part
// beside the envelope (a mime:content of a mime:multipartRelated: SOAP with
// Attachments, WSDL 1.1 §5, WS-I Attachments Profile 1.0). Generated code
// takes and returns it as a *core.Attachment, whatever the part's schema
// type: the part is bytes with a content type, not a value of the body.
type mimePart struct {
	part  *wsdl.MessagePart
	typ   string // the first content type the binding's mime:content names
	param string // the argument's (or result's) name
}

// buildMIME makes the MIME parts of op, naming their arguments and
// results with params.
func (g *generator) buildMIME(op *operation, params *namer) {
	sig := op.sig
	var bin, bout *wsdl.BindingMessage
	if sig.Binding != nil {
		bin, bout = sig.Binding.Input, sig.Binding.Output
	}
	if sig.Input != nil {
		for _, p := range sig.Input.Attachments {
			op.inParts = append(op.inParts, &mimePart{part: p, typ: mimeType(bin, p.Name), param: params.name(lowerName(goName(p.Name)))})
		}
	}
	if sig.Output != nil && !sig.OneWay {
		for _, p := range sig.Output.Attachments {
			op.outParts = append(op.outParts, &mimePart{part: p, typ: mimeType(bout, p.Name), param: params.name(lowerName(goName(p.Name)) + "Out")})
		}
	}
}

// mimeType returns the first content type a binding message's mime:content
// names for a part ("" when none: application/octet-stream).
func mimeType(bm *wsdl.BindingMessage, part string) string {
	if bm == nil {
		return ""
	}
	for _, mp := range bm.MIME {
		for _, ct := range mp.Contents {
			if ct.Part == part && ct.Type != "" {
				return ct.Type
			}
		}
	}
	return ""
}

// hasParts reports whether op's messages carry MIME parts.
func (op *operation) hasParts() bool { return len(op.inParts)+len(op.outParts) > 0 }

// unsupportedMIME returns why the generated code of op cannot carry its
// MIME parts as the contract says ("" when it can): a part the binding
// puts both in the soap:body and in a mime:content. The client method
// returns it as its error, the server answers it as a Receiver fault, and
// Generate returns it as a warning: nothing is left out silently.
func (op *operation) unsupportedMIME() string {
	var names []string
	check := func(ms *wsdl.MessageSignature, dir string) {
		if ms == nil {
			return
		}
		for _, a := range ms.Attachments {
			for _, p := range ms.Parts {
				if p == a {
					names = append(names, fmt.Sprintf("%q (%s)", a.Name, dir))
				}
			}
		}
	}
	check(op.sig.Input, "input")
	if !op.sig.OneWay {
		check(op.sig.Output, "output")
	}
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf("the operation %s puts the message %s both in the soap:body and in a MIME part, which soapwire gen does not generate",
		op.sig.Name, plural(len(names), "part", "parts")+" "+strings.Join(names, ", "))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// mimeWarnings returns a warning per operation whose MIME parts the
// generated code does not carry, once per operation and binding.
func (g *generator) mimeWarnings() []string {
	var out []string
	for _, p := range g.ports {
		for _, op := range p.ops {
			if why := op.unsupportedMIME(); why != "" {
				out = append(out, fmt.Sprintf("%s (binding %s): its client method returns this as an error and its server answers a Receiver fault",
					why, p.ep.Binding.Name.Local))
			}
		}
	}
	return out
}

// stubParts returns the expression of the wsdl.StubParts of parts; with
// values, each one's Attachment is its argument.
func stubParts(parts []*mimePart, values bool) string {
	var elems []string
	for _, p := range parts {
		e := fmt.Sprintf("{Name: %s, Type: %s", goString(p.part.Name), goString(p.typ))
		if values {
			e += ", Attachment: " + p.param
		}
		elems = append(elems, e+"}")
	}
	return "[]wsdl.StubPart{" + strings.Join(elems, ", ") + "}"
}

// emitServeParts writes the reading of a request's MIME parts into the
// function serving op, returning the arguments.
func emitServeParts(f *file, op *operation) []string {
	var args []string
	for i, p := range op.inParts {
		f.p("\t%s, err := call.Part(%s, %d)", p.param, goString(p.part.Name), i)
		f.p("\tif err != nil {")
		f.p("\t\treturn err")
		f.p("\t}")
		args = append(args, p.param)
	}
	return args
}

// emitWriteParts writes the adding of the reply's MIME parts.
func emitWriteParts(f *file, op *operation) {
	for _, p := range op.outParts {
		f.p("\tif err := call.WritePart(%s, %s, %s); err != nil {", goString(p.part.Name), goString(p.typ), p.param)
		f.p("\t\treturn err")
		f.p("\t}")
	}
}

// mimeDoc documents op's MIME parts ("" when none).
func mimeDoc(op *operation) string {
	if !op.hasParts() {
		return ""
	}
	desc := func(p *mimePart) string {
		if p.typ == "" {
			return fmt.Sprintf("%s (the part %q)", p.param, p.part.Name)
		}
		return fmt.Sprintf("%s (the part %q, %s)", p.param, p.part.Name, p.typ)
	}
	var in, out []string
	for _, p := range op.inParts {
		in = append(in, desc(p))
	}
	for _, p := range op.outParts {
		d := fmt.Sprintf("%q", p.part.Name)
		if p.typ != "" {
			d += " (" + p.typ + ")"
		}
		out = append(out, d)
	}
	var b strings.Builder
	b.WriteString("SOAP with Attachments: ")
	if len(in) > 0 {
		fmt.Fprintf(&b, "the request's MIME %s %s", plural(len(in), "part is", "parts are"), strings.Join(in, ", "))
		if len(out) > 0 {
			b.WriteString("; ")
		}
	}
	if len(out) > 0 {
		fmt.Fprintf(&b, "the reply's %s %s, returned as *core.Attachment after the body", plural(len(out), "part is", "parts are"), strings.Join(out, ", "))
	}
	b.WriteString(".")
	return b.String()
}
