package wsdl

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/url"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/xsd"
)

// StubPart is a message part a binding carries as a MIME part beside the
// envelope (a mime:content of a mime:multipartRelated: SOAP with
// Attachments, WSDL 1.1 §5 and the WS-I Attachments Profile 1.0).
type StubPart struct {
	Name string // the message part's name
	// Type is the first content type the binding's mime:content names: the
	// part's Content-Type when its Attachment has none.
	Type string
	// Attachment is a request's part (nil: missing, an error before
	// anything is sent), or a reply's, set by CallParts.
	Attachment *core.Attachment
}

// PartContentID returns a Content-ID for the MIME part of the message part
// name in the WS-I Attachments Profile's form (R2933):
// name=UUID@host, the name %-escaped, as soapwire sends each part.
func PartContentID(name string) string {
	return url.PathEscape(name) + "=" + core.NewContentID()
}

// partName returns the message part's name a Content-ID in the WS-I
// Attachments Profile's form holds ("" when it has none).
func partName(id string) string {
	i := strings.IndexByte(id, '=')
	if i <= 0 {
		return ""
	}
	name, err := url.PathUnescape(id[:i])
	if err != nil {
		return ""
	}
	return name
}

// outboundPart returns what is sent for p: its attachment with the
// Content-ID of p's name (unless it has one already) and p's Type when it
// has none. The caller's Attachment is not changed.
func outboundPart(p StubPart) *core.Attachment {
	a := *p.Attachment
	if partName(a.ID) != p.Name {
		a.ID = PartContentID(p.Name)
	}
	if a.Type == "" {
		a.Type = p.Type
	}
	return &a
}

// attachParts adds parts to m as MIME parts of an SwA package.
func attachParts(m *core.Message, op string, parts []StubPart, what string) error {
	for _, p := range parts {
		if p.Attachment == nil {
			return fmt.Errorf("wsdl: %s: the MIME part %s of the %s is missing: give a *core.Attachment", op, p.Name, what)
		}
		m.Attachments = append(m.Attachments, outboundPart(p))
	}
	if len(parts) > 0 {
		m.Packaging = core.SwA
	}
	return nil
}

// partOf returns the MIME part of m of the message part name, the i-th of
// its operation's (0-based): the attachment whose Content-ID names it (the
// Attachments Profile's form), else the i-th attachment when its
// Content-ID names no part.
func partOf(m *core.Message, name string, i int) (*core.Attachment, error) {
	for _, a := range m.Attachments {
		if partName(a.ID) == name {
			return a, nil
		}
	}
	if i < len(m.Attachments) && partName(m.Attachments[i].ID) == "" {
		return m.Attachments[i], nil
	}
	return nil, fmt.Errorf("the MIME part %s is missing (no attachment's Content-ID names it, none without a part name stands at its place, %d)", name, i+1)
}

// CallParts is Call for an operation whose binding carries MIME parts
// (SOAP with Attachments): parts are the request's, sent in an SwA package
// (core.SwA: the envelope the root part, text/xml for SOAP 1.1), each with
// a Content-ID of the Attachments Profile's form (PartContentID);
// replyParts are the reply's, found by the part name in their Content-ID,
// else by position, each one's Attachment set (a missing one is a
// *ReplyError). The reply is not closed: its parts stay readable (a
// spooled part's file is released when the Attachment is no longer
// referenced).
func (s *Stub) CallParts(ctx context.Context, op *StubOperation, write func(*xsd.Encoder) error, headers []StubHeader, parts []StubPart,
	read func(*xsd.Decoder) error, replyHeaders []StubHeader, replyParts []StubPart, opts ...CallOption) error {
	return s.call(ctx, op, write, headers, parts, read, replyHeaders, replyParts, opts)
}

// Part returns the request's MIME part of the message part name, the i-th
// of the operation's (0-based): the attachment whose Content-ID names it
// (the Attachments Profile's form), else the i-th attachment when its
// Content-ID names no part. A missing part is a Sender fault naming it
// (rpc:BadArguments). The part is the request's: it is released once the
// reply is sent (return it, or copy it, to keep it).
func (c *SkeletonCall) Part(name string, i int) (*core.Attachment, error) {
	a, err := partOf(c.m, name, i)
	if err != nil {
		c.refused = true
		return nil, &core.Fault{Code: core.CodeSender, Version: c.m.Version(), Reason: "wsdl: " + c.op.Name + ": " + err.Error(), Cause: err,
			Subcodes: []xml.Name{{Space: core.NamespaceRPC, Local: "BadArguments"}}}
	}
	return a, nil
}

// WritePart adds a MIME part to the reply: the message part name's, of
// content type typ when a has none, with a Content-ID of the Attachments
// Profile's form. The reply is then an SwA package. A nil a is the
// server's error: the reply does not fit the contract.
func (c *SkeletonCall) WritePart(name, typ string, a *core.Attachment) error {
	if a == nil {
		return fmt.Errorf("wsdl: %s: the MIME part %s of the reply is missing: the operation returned none", c.op.Name, name)
	}
	c.parts = append(c.parts, outboundPart(StubPart{Name: name, Type: typ, Attachment: a}))
	return nil
}
