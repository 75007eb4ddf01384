package core

import (
	"fmt"
	"slices"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// Writing a message read as MTOM again (a Node forwarding it, a handler
// storing it, a stream body copying its body into another message): each
// xop:Include its body copies is written as the packaging of the message
// being written asks, never as inline base64 beside a part that is written
// too:
//
//   - MTOM: the xop:Include stays, naming the same part; a part the message
//     being written does not carry under that Content-ID is written after
//     its own (once, however many includes name it);
//   - SwA: the swaRef text "cid:ID" (as a Binary is written under SwA), the
//     part carried as under MTOM: an xop:Include has no meaning outside an
//     XOP package;
//   - Inline: the part's base64 in place of the Include, and no part. A
//     part read from a package that no Include of the envelope inlined
//     fails the write (Packaging Inline has no room for it).
//
// A body written on its own (Body.WriteTo to a writer of the caller's)
// has no package: its includes are inline base64.

// xopOut is what writing a message's envelope collects of the parts its
// includes name.
type xopOut struct {
	extra   []*Attachment // named by an Include, not carried by the message: written after its parts
	inlined []*Attachment // written inline in place of an Include (Inline)
}

// carry makes sure the package written carries a: the message's own part
// of that Content-ID, else a, after the message's parts.
func (x *xmlWriter) carry(a *Attachment) {
	if x.msg.Attachment(a.ID) != nil || x.xout == nil {
		return
	}
	for _, e := range x.xout.extra {
		if e == a || e.ID == a.ID {
			return
		}
	}
	x.xout.extra = append(x.xout.extra, a)
}

// inlined notes that a's bytes were written in place of an Include.
func (x *xmlWriter) inlined(a *Attachment) {
	if x.xout != nil && !slices.Contains(x.xout.inlined, a) {
		x.xout.inlined = append(x.xout.inlined, a)
	}
}

// xopInclude returns the name the copied includes are written with, and
// its declaration (made on each: the prefix may mean anything around it).
func xopInclude() (xmltok.Name, []xmltok.NS) {
	return xmltok.Name{Space: []byte(NamespaceXOP), Prefix: []byte("xop"), Local: []byte("Include")},
		[]xmltok.NS{{Prefix: []byte("xop"), URI: []byte(NamespaceXOP)}}
}

// copyInclude returns what a body being copied into the envelope of the
// message x writes in place of the xop:Include naming att, or nil when the
// Include is to be expanded into the part's base64 (Inline, or no message).
func (in *inbound) copyInclude(x *xmlWriter, att *Attachment) *xmltok.Token {
	xs := in.xop
	if x.msg == nil {
		return nil
	}
	switch x.msg.Packaging {
	case MTOM:
		x.carry(att)
		name, ns := xopInclude()
		xs.tok = xmltok.Token{Kind: xmltok.StartElement, Name: name, NS: ns,
			Attr: []xmltok.Attr{{Name: xmltok.Name{Local: []byte("href")}, Value: []byte(cidURL(att.ID))}}}
		xs.end = xmltok.Token{Kind: xmltok.EndElement, Name: name}
		in.peeked = &xs.end // the Include's end, next
	case SwA:
		x.carry(att)
		xs.tok = xmltok.Token{Kind: xmltok.CharData, Text: []byte(cidURL(att.ID))}
	default:
		x.inlined(att)
		return nil
	}
	xs.synth = true
	return &xs.tok
}

// checkInlined fails the write of an Inline message when a part read from
// a package (need) was not inlined by an Include of its envelope.
func checkInlined(need []*Attachment, xo *xopOut) error {
	for _, a := range need {
		if !slices.Contains(xo.inlined, a) {
			return fmt.Errorf("%w: the part <%s>, read from a package, is named by no xop:Include of the envelope", errInlineAttachments, a.ID)
		}
	}
	return nil
}
