package core_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// A message read as MTOM and written again (forwarded, stored, copied by a
// stream body): each xop:Include as the packaging written asks, the part
// carried once, never its base64 beside it.

// fwDoc holds two Binary values.
type fwDoc struct {
	XMLName xml.Name    `xml:"urn:example:pk Upload"`
	Name    string      `xml:"urn:example:pk name"`
	Doc     core.Binary `xml:"urn:example:pk doc"`
	Scan    core.Binary `xml:"urn:example:pk scan"`
}

// fwParts are the parts of fwRead's package: two a Binary names, and one
// no Include names (SwA style).
type fwParts struct{ doc, scan, loose []byte }

func fwData() fwParts {
	return fwParts{doc: pkData(3<<20 + 1), scan: pkData(10 << 10), loose: []byte("loose part")}
}

// fwRead writes an MTOM message of version v (with the loose part if
// asked) and reads it back as a transport would, parts spooled.
func fwRead(t *testing.T, v core.Version, d fwParts, loose bool) (*core.Message, string, string) {
	t.Helper()
	m := core.NewMessage(v, core.Body{})
	m.Packaging, m.Action = core.MTOM, "urn:example:upload"
	doc := m.AttachBinary(core.BytesAttachment("application/pdf", d.doc))
	scan := m.AttachBinary(core.BytesAttachment("image/png", d.scan))
	scan.ContentType = "image/png"
	if loose {
		m.Attachments = append(m.Attachments, core.BytesAttachment("text/plain", d.loose))
	}
	m.Envelope.Body = core.ValueBody(&fwDoc{Name: "invoice", Doc: doc, Scan: scan})
	wire, ct := pkWire(t, m)
	got, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{SpoolThreshold: 64 << 10, SpoolDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { got.Close() })
	require.Equal(t, core.MTOM, got.Packaging)
	return got, doc.Attachment().ID, scan.Attachment().ID
}

// fwB64 is a stretch of a value's base64 as any inline copy would hold it
// (the first 3 KiB encoded).
func fwB64(b []byte) string {
	return base64.StdEncoding.EncodeToString(b[:min(len(b), 3<<10)])
}

// fwCheckPackage checks the bytes of a package written from a read MTOM
// message: one xop:Include per part, no base64 copy, each part once.
func fwCheckPackage(t *testing.T, wire string, d fwParts, docID, scanID string) {
	t.Helper()
	assert.Equal(t, 2, strings.Count(wire, "Include "), "one xop:Include per part")
	assert.Equal(t, 1, strings.Count(wire, `href="cid:`+docID+`"`))
	assert.Equal(t, 1, strings.Count(wire, `href="cid:`+scanID+`"`))
	assert.NotContains(t, wire, fwB64(d.doc), "no base64 copy of the part")
	assert.NotContains(t, wire, fwB64(d.scan), "no base64 copy of the part")
	assert.Equal(t, 1, strings.Count(wire, "Content-ID: <"+docID+">"), "the part once")
	assert.Equal(t, 1, strings.Count(wire, "Content-ID: <"+scanID+">"), "the part once")
	assert.Equal(t, 1, strings.Count(wire, string(d.doc)), "the part's bytes once")
}

// fwDecode reads a written package back and checks each Binary is its part.
func fwDecode(t *testing.T, wire []byte, ct string, d fwParts, docID, scanID string) *core.Message {
	t.Helper()
	back, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{})
	require.NoError(t, err)
	t.Cleanup(func() { back.Close() })
	var got fwDoc
	require.NoError(t, back.Body().Decode(&got))
	assert.Equal(t, "invoice", got.Name)
	if back.Packaging != core.Inline {
		assert.Same(t, back.Attachment(docID), got.Doc.Attachment(), "a Binary value is its part")
		assert.Same(t, back.Attachment(scanID), got.Scan.Attachment(), "a Binary value is its part")
	}
	assert.Equal(t, d.doc, coretest.PartBytes(t, got.Doc.Attachment()))
	assert.Equal(t, d.scan, coretest.PartBytes(t, got.Scan.Attachment()))
	assert.Equal(t, "image/png", got.Scan.ContentType)
	return back
}

// Written again as MTOM, the same message (a handler storing it, a Node
// forwarding it): the includes stay, each part once.
func TestXOPForwardMTOM(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			d := fwData()
			m, docID, scanID := fwRead(t, v, d, true)
			wire, ct := pkWire(t, m)
			fwCheckPackage(t, string(wire), d, docID, scanID)
			assert.Equal(t, 1, strings.Count(string(wire), "loose part"))
			back := fwDecode(t, wire, ct, d, docID, scanID)
			require.Len(t, back.Attachments, 3, "the same parts, in the same order")
			assert.Equal(t, []string{docID, scanID}, []string{back.Attachments[0].ID, back.Attachments[1].ID})
			if v == core.V12 {
				assert.Equal(t, "urn:example:upload", back.Action, "1.2: in the package's type")
			}
		})
	}
}

// Written Inline: each Include becomes its part's base64, and no part is
// written; a part no Include names cannot be written inline.
func TestXOPForwardInline(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			d := fwData()
			m, docID, scanID := fwRead(t, v, d, false)
			m.Packaging = core.Inline
			wire, ct := pkWire(t, m)
			s := string(wire)
			assert.NotContains(t, s, "Include")
			assert.NotContains(t, s, "Content-ID")
			assert.Contains(t, s, fwB64(d.doc))
			assert.Contains(t, s, fwB64(d.scan))
			assert.Equal(t, v.MediaType(), strings.SplitN(ct, ";", 2)[0])
			fwDecode(t, wire, ct, d, docID, scanID)
		})
	}
	t.Run("attachments dropped first", func(t *testing.T) {
		d := fwData()
		m, docID, scanID := fwRead(t, core.V11, d, false)
		m.Packaging, m.Attachments = core.Inline, nil
		wire, ct := pkWire(t, m)
		fwDecode(t, wire, ct, d, docID, scanID)
	})
	t.Run("a part no Include names", func(t *testing.T) {
		m, _, _ := fwRead(t, core.V11, fwData(), true)
		m.Packaging = core.Inline
		_, err := m.WriteTo(io.Discard)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "needs Packaging MTOM or SwA")
		assert.Contains(t, err.Error(), "is named by no xop:Include")
	})
}

// Written SwA: each Include becomes the swaRef text cid:ID (as a Binary is
// written under SwA), each part once; read back, a Binary is its part.
func TestXOPForwardSwA(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			d := fwData()
			m, docID, scanID := fwRead(t, v, d, true)
			m.Packaging = core.SwA
			wire, ct := pkWire(t, m)
			s := string(wire)
			assert.NotContains(t, s, "Include")
			assert.Contains(t, s, ">cid:"+docID+"</")
			assert.Contains(t, s, ">cid:"+scanID+"</")
			assert.NotContains(t, s, fwB64(d.doc))
			assert.Equal(t, 1, strings.Count(s, "Content-ID: <"+docID+">"))
			assert.Equal(t, 1, strings.Count(s, "loose part"))
			back := fwDecode(t, wire, ct, d, docID, scanID)
			assert.Equal(t, core.SwA, back.Packaging)
		})
	}
}

// A stream body copying the inbound body into another message: the
// includes follow that message's packaging; parts it does not carry are
// written after its own, once; parts it carries (the request's, or copies
// under the same Content-ID) are not written twice.
func TestXOPForwardStreamBody(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     core.Packaging
		carry bool // the reply carries the request's parts itself
	}{
		{"MTOM, parts added", core.MTOM, false},
		{"MTOM, parts carried", core.MTOM, true},
		{"SwA, parts added", core.SwA, false},
		{"Inline", core.Inline, true},
		{"Inline, no parts", core.Inline, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := fwData()
			req, docID, scanID := fwRead(t, core.V12, d, false)
			reply := req.Reply(core.StreamBody(req.Body().Name(), func(w io.Writer) error {
				_, err := req.Body().WriteTo(w)
				return err
			}))
			reply.Packaging = tc.p
			if tc.carry {
				reply.Attachments = req.Attachments
			}
			wire, ct := pkWire(t, reply)
			s := string(wire)
			if tc.p == core.MTOM {
				fwCheckPackage(t, s, d, docID, scanID)
			}
			if tc.p == core.SwA {
				assert.Equal(t, 1, strings.Count(s, "Content-ID: <"+docID+">"))
				assert.Equal(t, 1, strings.Count(s, "Content-ID: <"+scanID+">"))
				assert.NotContains(t, s, fwB64(d.doc))
			}
			back := fwDecode(t, wire, ct, d, docID, scanID)
			if tc.p != core.Inline {
				assert.Len(t, back.Attachments, 2)
			}
		})
	}
	t.Run("copies under the same Content-ID", func(t *testing.T) {
		d := fwData()
		req, docID, scanID := fwRead(t, core.V11, d, false)
		reply := req.Reply(core.StreamBody(req.Body().Name(), func(w io.Writer) error {
			_, err := req.Body().WriteTo(w)
			return err
		}))
		reply.Packaging = core.MTOM
		for _, a := range req.Attachments {
			c := core.BytesAttachment(a.Type, coretest.PartBytes(t, a))
			c.ID = a.ID
			reply.Attachments = append(reply.Attachments, c)
		}
		wire, ct := pkWire(t, reply)
		fwCheckPackage(t, string(wire), d, docID, scanID)
		fwDecode(t, wire, ct, d, docID, scanID)
	})
}

// A body written on its own has no package: its includes are inline.
func TestXOPBodyWriteToAloneInlines(t *testing.T) {
	d := fwData()
	m, _, _ := fwRead(t, core.V11, d, false)
	var buf bytes.Buffer
	_, err := m.Body().WriteTo(&buf)
	require.NoError(t, err)
	assert.NotContains(t, buf.String(), "Include")
	assert.Contains(t, buf.String(), fwB64(d.doc))
}

// A Node intermediary forwards a read MTOM message as it was: the next hop
// reads the same parts, named by the same includes.
func TestXOPNodeForwards(t *testing.T) {
	d := fwData()
	m, docID, scanID := fwRead(t, core.V12, d, false)
	next := &fwNext{}
	n := &core.Node{Intermediary: true, Next: next}
	_, err := n.ServeSOAP(t.Context(), m)
	require.NoError(t, err)
	fwCheckPackage(t, string(next.wire), d, docID, scanID)
	fwDecode(t, next.wire, next.ct, d, docID, scanID)
}

// fwNext is a next hop that writes what it is given as a transport would.
type fwNext struct {
	wire []byte
	ct   string
}

func (f *fwNext) RoundTrip(_ context.Context, out *core.Message) (*core.Message, error) {
	f.ct = out.ContentType()
	var buf bytes.Buffer
	if _, err := out.WriteTo(&buf); err != nil {
		return nil, err
	}
	f.wire = buf.Bytes()
	return out.Reply(core.RawBody([]byte(`<d:Done xmlns:d="urn:example:pk"/>`))), nil
}
