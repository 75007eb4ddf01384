package gen

import (
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/core/wsdl"
)

// mimeParts returns the message parts an operation's binding sends as MIME
// attachments (a mime:content of a mime:multipartRelated: SOAP with
// Attachments, WSDL 1.1 §5, WS-I Attachments Profile 1.0), input then
// output.
func mimeParts(sig *wsdl.Signature) (in, out []*wsdl.MessagePart) {
	if sig.Input != nil {
		in = sig.Input.Attachments
	}
	if sig.Output != nil && !sig.OneWay {
		out = sig.Output.Attachments
	}
	return in, out
}

// unsupportedMIME returns why the generated code of op cannot carry its
// MIME parts ("" when it has none): the client method returns it as its
// error, the server answers it as a Receiver fault, and Generate returns
// it as a warning. Nothing is left out silently.
func (op *operation) unsupportedMIME() string {
	in, out := mimeParts(op.sig)
	if len(in)+len(out) == 0 {
		return ""
	}
	var names []string
	for _, p := range in {
		names = append(names, fmt.Sprintf("%q (input)", p.Name))
	}
	for _, p := range out {
		names = append(names, fmt.Sprintf("%q (output)", p.Name))
	}
	word := "part"
	if len(names) > 1 {
		word = "parts"
	}
	return fmt.Sprintf("the operation %s carries the MIME %s %s as SOAP with Attachments, which soapwire gen does not generate yet",
		op.sig.Name, word, strings.Join(names, ", "))
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
