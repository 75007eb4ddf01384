package coretest

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// The attachment suites: messages carrying MIME parts (MTOM/XOP, SwA, and
// Binary values inline) cross the binding intact. A binding opts in by
// calling them beside the other suites:
//
//	func TestConformanceAttachments(t *testing.T) {
//		coretest.TestAttachmentsSendReceive(t, f, newPair)
//		coretest.TestAttachmentsRoundTrip(t, f, newRT)
//	}

// attDoc is the body of the attachment suites' messages: two Binary values
// (xop:Include under MTOM, swaRef under SwA, base64 inline otherwise).
type attDoc struct {
	XMLName xml.Name     `xml:"urn:soapwire:coretest Document"`
	Name    string       `xml:"urn:soapwire:coretest Name"`
	Scan    core.Binary  `xml:"urn:soapwire:coretest Scan"`
	PDF     *core.Binary `xml:"urn:soapwire:coretest PDF,omitempty"` // a struct is never empty: optional is a pointer
}

// attCase is one message shape the suites send.
type attCase struct {
	name string
	p    core.Packaging
	v    core.Version
}

func attCases(f Features) []attCase {
	var cs []attCase
	for _, p := range []core.Packaging{core.MTOM, core.SwA, core.Inline} {
		for _, v := range f.versions() {
			cs = append(cs, attCase{p.String() + "/" + versionName(v), p, v})
		}
	}
	return cs
}

// attData is n bytes of a pattern that shows a shifted or cut copy.
func attData(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+i/251) ^ seed
	}
	return b
}

// attSent is a message the suites sent, and what it held when it was made
// (a binding may change the message it is given).
type attSent struct {
	m         *core.Message
	packaging core.Packaging
	version   core.Version
	action    string
	parts     []attPart
	data      map[string][]byte // by Content-ID
	doc       attDoc
}

// attPart is what a part was sent with.
type attPart struct{ id, typ string }

// snap records what m holds now.
func (s *attSent) snap() *attSent {
	s.packaging, s.version, s.action = s.m.Packaging, s.m.Version(), s.m.Action
	s.parts = nil
	for _, a := range s.m.Attachments {
		s.parts = append(s.parts, attPart{a.ID, a.Type})
	}
	return s
}

// attMessage is a message of case c: under MTOM a small image and a large
// PDF (Features.AttachmentBytes) as xop:Include values; under SwA a text
// part by swaRef and an image no element names; inline, one small value
// written as base64.
func attMessage(f Features, c attCase, name string) *attSent {
	m := core.NewMessage(c.v, core.Body{})
	m.Packaging = c.p
	m.Action = Namespace + "/Document"
	m.ID = core.NewMessageID()
	s := &attSent{m: m, data: map[string][]byte{}}
	add := func(contentType string, data []byte) *core.Attachment {
		a := core.BytesAttachment(contentType, data)
		s.data[a.ID] = data
		return a
	}
	s.doc = attDoc{Name: name}
	switch c.p {
	case core.MTOM:
		s.doc.Scan = m.AttachBinary(add("image/png", attData(10<<10, 1)))
		s.doc.Scan.ContentType = "image/png"
		if n := f.attachmentBytes(); n > 0 {
			big := attData(n, 2)
			pdf := core.NewAttachment("application/pdf", func() (io.ReadCloser, error) {
				return io.NopCloser(bytes.NewReader(big)), nil
			}, int64(len(big)))
			s.data[pdf.ID] = big
			b := m.AttachBinary(pdf)
			s.doc.PDF = &b
		}
	case core.SwA:
		s.doc.Scan = m.AttachBinary(add("text/plain; charset=utf-8", []byte("scanned text, ünïcode\r\n")))
		m.Attachments = append(m.Attachments, add("image/jpeg", attData(20<<10, 3)))
	default:
		s.doc.Scan = m.AttachBinary(add("image/png", attData(3<<10, 4)))
		s.data = map[string][]byte{} // inline: no parts travel
	}
	m.Envelope.Body = core.ValueBody(&s.doc)
	return s.snap()
}

// requireAttachments checks that got carries what s sent: packaging,
// version, action, every part (Content-ID, Content-Type, bytes) and the
// Binary values of the body, resolved to the parts themselves.
func requireAttachments(t *testing.T, s *attSent, got *core.Message) {
	t.Helper()
	require.NotNil(t, got)
	assert.Equal(t, s.packaging, got.Packaging, "packaging")
	assert.Equal(t, s.version, got.Version(), "version")
	assert.Equal(t, s.action, got.Action, "action")
	if s.packaging == core.Inline {
		assert.Empty(t, got.Attachments, "an inline message has no parts")
	} else {
		require.Len(t, got.Attachments, len(s.parts), "parts")
		for i, w := range s.parts {
			g := got.Attachments[i]
			assert.Equal(t, w.id, g.ID, "part %d: Content-ID", i)
			assert.Equal(t, w.typ, g.Type, "part %d: Content-Type", i)
			assert.Equal(t, int64(len(s.data[w.id])), g.Size(), "part %d: size", i)
			assert.True(t, bytes.Equal(s.data[w.id], attBytes(t, g)), "part %d <%s>: bytes differ", i, w.id)
		}
	}
	var doc attDoc
	require.NoError(t, got.Body().Decode(&doc), "decode the body")
	assert.Equal(t, s.doc.Name, doc.Name)
	assert.Equal(t, s.doc.PDF == nil, doc.PDF == nil, "an optional Binary")
	pairs := [][2]core.Binary{{s.doc.Scan, doc.Scan}}
	if s.doc.PDF != nil && doc.PDF != nil {
		pairs = append(pairs, [2]core.Binary{*s.doc.PDF, *doc.PDF})
	}
	for _, pair := range pairs {
		w, g := pair[0], pair[1]
		assert.Equal(t, w.ContentType, g.ContentType, "xmime:contentType")
		require.NotNil(t, g.Attachment(), "a Binary value lost")
		assert.True(t, bytes.Equal(attBytes(t, w.Attachment()), attBytes(t, g.Attachment())), "a Binary value's bytes differ")
		if s.packaging != core.Inline {
			assert.Same(t, got.Attachment(w.Attachment().ID), g.Attachment(), "a Binary value is its part")
		}
	}
}

func attBytes(t *testing.T, a *core.Attachment) []byte {
	t.Helper()
	rc, err := a.Open()
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// TestAttachmentsSendReceive checks that messages with attachments sent
// to addr arrive intact: for MTOM, SwA and Inline in each version
// (subtests MTOM/SOAP11, SwA/SOAP12, inline/SOAP11, …), the packaging,
// action, every part's Content-ID, Content-Type and bytes (one of
// Features.AttachmentBytes, 3 MiB by default, under MTOM) and the body's
// Binary values, resolved to those parts.
func TestAttachmentsSendReceive(t *testing.T, f Features, newPair NewPairFunc) {
	for _, c := range attCases(f) {
		t.Run(c.name, func(t *testing.T) {
			s, r, addr := newPair(t)
			t.Cleanup(func() { _ = r.Close() })
			sent := attMessage(f, c, c.name)
			sent.m.To = addr
			require.NoError(t, f.within(t, "Send", func() error { return s.Send(f.ctx(t), sent.m) }))
			d := f.receive(t, r)
			got := d.Message()
			requireAttachments(t, sent, got)
			require.NoError(t, d.Ack(f.ctx(t)))
			require.NoError(t, got.Close())
		})
	}
}

// attEcho answers a request of the attachment suites with the same
// document: its parts attached to the reply, in the request's packaging.
func attEcho(_ context.Context, m *core.Message) (*core.Message, error) {
	var doc attDoc
	if err := m.Body().Decode(&doc); err != nil {
		return nil, err
	}
	reply := m.Reply(core.Body{})
	reply.Packaging = m.Packaging
	reply.Action = Namespace + "/DocumentResponse"
	out := attDoc{Name: doc.Name + " (echo)"}
	// the parts are read into memory: the request is closed once the
	// reply is written, and a part must outlive it
	copyPart := func(a *core.Attachment) (*core.Attachment, error) {
		rc, err := a.Open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		if err != nil {
			return nil, err
		}
		c := core.BytesAttachment(a.Type, b)
		c.ID = a.ID
		return c, nil
	}
	for _, a := range m.Attachments {
		c, err := copyPart(a)
		if err != nil {
			return nil, err
		}
		reply.Attachments = append(reply.Attachments, c)
	}
	bind := func(b core.Binary) (core.Binary, error) {
		if b.Attachment() == nil {
			return core.Binary{}, nil
		}
		a := reply.Attachment(b.Attachment().ID)
		if a == nil {
			var err error
			if a, err = copyPart(b.Attachment()); err != nil { // an inline value
				return core.Binary{}, err
			}
		}
		out := reply.AttachBinary(a)
		out.ContentType = b.ContentType
		return out, nil
	}
	var err error
	if out.Scan, err = bind(doc.Scan); err != nil {
		return nil, err
	}
	if doc.PDF != nil {
		pdf, err := bind(*doc.PDF)
		if err != nil {
			return nil, err
		}
		out.PDF = &pdf
	}
	reply.Envelope.Body = core.ValueBody(&out)
	return reply, nil
}

// TestAttachmentsRoundTrip checks that a request with attachments reaches
// the server intact and that a reply with attachments comes back intact,
// in the request's packaging: for MTOM, SwA and Inline in each version,
// what TestAttachmentsSendReceive checks, both ways (the suite's handler
// echoes the document with its parts).
func TestAttachmentsRoundTrip(t *testing.T, f Features, newRT NewRoundTripperFunc) {
	for _, c := range attCases(f) {
		t.Run(c.name, func(t *testing.T) {
			var checked error
			h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				if len(m.Attachments) == 0 && c.p != core.Inline {
					checked = fmt.Errorf("the request arrived with no parts (packaging %v)", m.Packaging)
				}
				return attEcho(ctx, m)
			})
			rt := newRT(t, h)
			sent := attMessage(f, c, c.name)
			var reply *core.Message
			require.NoError(t, f.within(t, "RoundTrip", func() error {
				var err error
				reply, err = rt.RoundTrip(f.ctx(t), sent.m)
				return err
			}))
			require.NoError(t, checked)
			echoed := *sent
			echoed.doc.Name = sent.doc.Name + " (echo)"
			echoed.action = Namespace + "/DocumentResponse"
			requireAttachments(t, &echoed, reply)
			require.NoError(t, reply.Close())
		})
	}
}
