package core

import (
	"bytes"
	"encoding/xml"
	"errors"

	"github.com/soapwire/soapwire/core/internal/xmltok"
	"github.com/soapwire/soapwire/core/internal/xmlvalue"
)

// Decode decodes the next child of the body (the first, unless some were
// read already) into v, as encoding/xml's Decoder.Decode does, streaming. A
// decoding error is a Sender fault; on a fault body it returns the fault.
//
// The common shapes of Go values (structs with element, attribute and text
// fields, namespaces in tags, nested structs, slices, pointers, the basic
// types, []byte, xml.Name) are read straight from the tokenizer with
// encoding/xml's rules (core/internal/xmlvalue); anything else goes through
// encoding/xml itself. Either way the result is what xml.Unmarshal gives
// for the child written out with every namespace in scope declared on it.
func (b Body) Decode(v any) error {
	if f := b.faultOf(); f != nil {
		return f
	}
	err := b.decode(v)
	if err == nil {
		if b.src != nil && b.src.in != nil {
			b.src.in.finishIfDone()
		}
		return nil
	}
	var f *Fault
	if errors.As(err, &f) {
		return f
	}
	return &Fault{Code: CodeSender, Reason: "the body does not fit the expected value: " + err.Error(), Cause: err}
}

func (b Body) decode(v any) error {
	in, err := b.tokens()
	if err != nil {
		return err
	}
	if in.fastDecode() {
		// the plans and the text buffer are the parser's (recycled with
		// the tokenizer), or nobody's when the tokenizer is gone
		var c *xmlvalue.Cache
		var text []byte
		ps := in.decodeState()
		if ps != nil {
			c, text, ps.dtext = &ps.plans, ps.dtext, nil
		}
		ok, text, err := xmlvalue.Decode(in, v, c, text)
		// the buffer goes back only while the tokenizer (and with it the
		// parser) is still the body's: reading to the end of the Body
		// recycles both
		if ps != nil && in.r != nil && cap(text) <= maxPooledBuf {
			ps.dtext = text
		}
		if ok {
			return err
		}
	}
	d := xml.NewTokenDecoder(prefixed{in})
	if in.msg != nil {
		// a Binary in v learns the message and its limits (binaryContext)
		lim := Limits{}.resolved()
		if in.p != nil {
			lim = in.p.lim
		}
		d.CharsetReader = in.contextReader(lim)
	}
	return d.Decode(v)
}

// fastDecode reports whether the fast path may read this body: encoding/xml
// refuses to go deeper than 10,000 elements and namespace declarations,
// which the tokenizer's limits (depth times declarations per element) must
// rule out for the two to agree.
func (in *inbound) fastDecode() bool {
	lim := Limits{}.resolved()
	if in.p != nil {
		lim = in.p.lim
	}
	return lim.MaxDepth > 0 && lim.MaxNSDecls > 0 && lim.MaxDepth*(lim.MaxNSDecls+1) < 9000
}

// decodeState returns the parser kept with the body's tokenizer (recycled
// with it), which keeps Decode's plans and text buffer from one envelope to
// the next; nil when the tokenizer is gone.
func (in *inbound) decodeState() *parser {
	if in.r == nil {
		return nil
	}
	p, _ := in.r.Aux.(*parser)
	if p == nil {
		p = new(parser) // an outbound body's tokenizer: the parser only keeps plans
		in.r.Aux = p
	}
	return p
}

// Next and Scope make the body's stream the token source of the value fast
// path (xmlvalue.Tokens): Next is next, and Scope the full scope of the
// child whose start tag Next returned last.
func (in *inbound) Next() (*xmltok.Token, bool, error) { return in.next() }
func (in *inbound) Scope() []xmltok.NS                 { return in.r.Scope() }

// prefixed is the body's token stream for encoding/xml when it decodes:
// names carry their prefixes (in Space), as encoding/xml's own tokenizer
// gives them, with the declarations as attributes (every binding in scope on
// a child of the Body), so that encoding/xml resolves them itself, as it
// does reading the XML.
type prefixed struct{ in *inbound }

func (pt prefixed) Token() (xml.Token, error) {
	in := pt.in
	t, child, err := in.next()
	if err != nil {
		return nil, err
	}
	if in.strs == nil {
		in.strs = new(interner)
	}
	n := in.strs
	switch t.Kind {
	case xmltok.StartElement:
		decls := t.NS
		if child {
			decls = in.r.Scope()
		}
		attrs := n.declAttrs(make([]xml.Attr, 0, len(decls)+len(t.Attr)), decls)
		for _, a := range t.Attr {
			attrs = append(attrs, xml.Attr{Name: xml.Name{Space: n.str(a.Name.Prefix), Local: n.str(a.Name.Local)}, Value: string(a.Value)})
		}
		return xml.StartElement{Name: xml.Name{Space: n.str(t.Name.Prefix), Local: n.str(t.Name.Local)}, Attr: attrs}, nil
	case xmltok.EndElement:
		return xml.EndElement{Name: xml.Name{Space: n.str(t.Name.Prefix), Local: n.str(t.Name.Local)}}, nil
	case xmltok.CharData:
		return xml.CharData(bytes.Clone(t.Text)), nil
	}
	return xml.Comment(bytes.Clone(t.Text)), nil
}
