package core

import (
	"fmt"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// NewBinary returns a Binary standing for a, bound to no message: what a
// caller puts into a value that a codec writes (core/xsd's Encoder, the
// code soapwire gen generates), which attaches a as a part of the message
// it writes under MTOM and inlines its bytes otherwise. encoding/xml
// (MarshalXML) writes it inline, as a decoded Binary. A nil a gives the
// zero Binary.
func NewBinary(a *Attachment) Binary {
	if a == nil {
		return Binary{}
	}
	return Binary{att: a}
}

// DecodeBinary reads the content of the element whose start tag Next (or
// Token) returned last, to its end tag (consumed), as an xs:base64Binary
// value, as Binary's UnmarshalXML does: in an MTOM message an xop:Include
// is taken as its part itself, which is neither read nor copied; text
// "cid:ID" naming a part of the message (swaRef) is that part; other text
// is base64, decoded into an attachment of its own, in memory up to
// Limits.SpoolThreshold and in a temporary file beyond it, within
// Limits.MaxPartBytes. A child element, bad base64, a value over the bound
// are Sender faults. It is how a reader that walks the body's tokens
// itself (core/xsd's Decoder) takes a binary value without its bytes going
// through the tokens. The value is readable until the message is closed.
func (b Body) DecodeBinary() (Binary, error) {
	if f := b.faultOf(); f != nil {
		return Binary{}, f
	}
	in, err := b.tokens()
	if err != nil {
		return Binary{}, err
	}
	lim := Limits{}.resolved()
	if in.p != nil {
		lim = in.p.lim
	}
	x := in.xop
	if x != nil {
		x.take, x.taken = true, nil
		defer func() { x.take, x.taken = false, nil }()
	}
	s := &binarySpool{lim: lim, msg: in.msg}
	for done := false; !done; {
		t, _, err := in.next()
		if err == io.EOF {
			err = &Fault{Code: CodeSender, Version: in.v, Reason: "the body ends inside a base64Binary value"}
		}
		if err != nil {
			s.abort()
			return Binary{}, err
		}
		switch t.Kind {
		case xmltok.CharData:
			if err := s.write(t.Text); err != nil {
				s.abort()
				return Binary{}, err
			}
		case xmltok.StartElement:
			s.abort()
			return Binary{}, &Fault{Code: CodeSender, Version: in.v, Reason: fmt.Sprintf("element %s inside a base64Binary value", t.Name.Local)}
		case xmltok.EndElement:
			done = true
		}
	}
	if x != nil && x.taken != nil {
		s.abort()
		return Binary{att: x.taken}, nil
	}
	if ref, ok := s.swaRef(); ok && in.msg != nil {
		if a := in.msg.Attachment(ref); a != nil {
			s.abort()
			return Binary{att: a}, nil
		}
	}
	a, err := s.finish()
	if err != nil {
		return Binary{}, err
	}
	return Binary{att: a}, nil
}
