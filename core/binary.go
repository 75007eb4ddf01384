package core

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"
)

// Binary is an xs:base64Binary value that travels as an attachment when
// its message is a package and inline otherwise. Put it in a body struct
// (a ValueBody); it implements xml.Marshaler and xml.Unmarshaler.
//
// Writing: a Binary made by m.AttachBinary is written as its message's
// Packaging says: under MTOM an xop:Include naming its part, under SwA
// the swaRef text "cid:ID", under Inline the base64 of its bytes (read from
// the attachment while the body is marshalled). A Binary made otherwise
// (decoded, or the zero value) is written inline: to send a received one
// as a part again, AttachBinary its Attachment to the new message.
// ContentType, when set, is written as the xmime:contentType attribute.
//
// Reading (Body.Decode): an xop:Include is taken as its part, without a
// copy; text "cid:ID" naming a part of the message (swaRef) is that part;
// any other text is base64, decoded into an attachment of its own, held in
// memory up to Limits.SpoolThreshold and in a temporary file beyond it,
// within Limits.MaxPartBytes (the message's Close releases it). The
// xmime:contentType attribute, if any, becomes ContentType.
type Binary struct {
	ContentType string // the xmime:contentType attribute ("" writes none)
	att         *Attachment
	msg         *Message // the message whose packaging decides how it is written
}

// AttachBinary appends a to m.Attachments (unless it is there already) and
// returns the Binary value standing for it in m's body.
func (m *Message) AttachBinary(a *Attachment) Binary {
	if a == nil {
		return Binary{}
	}
	a.binary = true
	if !slices.Contains(m.Attachments, a) {
		m.Attachments = append(m.Attachments, a)
	}
	return Binary{att: a, msg: m}
}

// Attachment returns the attachment the value stands for, nil for the zero
// Binary.
func (b Binary) Attachment() *Attachment { return b.att }

// Open returns the value's bytes (empty for the zero Binary).
func (b Binary) Open() (io.ReadCloser, error) {
	if b.att == nil {
		return io.NopCloser(bytes.NewReader(nil)), nil
	}
	return b.att.Open()
}

// cidURL is the cid: URL of a Content-ID (RFC 2392).
func cidURL(id string) string { return "cid:" + url.PathEscape(id) }

// MarshalXML writes the value as its message's Packaging says (see Binary).
func (b Binary) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if b.ContentType != "" {
		start.Attr = append(start.Attr, xml.Attr{Name: xml.Name{Space: NamespaceXMLMime, Local: "contentType"}, Value: b.ContentType})
	}
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	p := Inline
	if b.msg != nil {
		p = b.msg.Packaging
	}
	switch {
	case b.att == nil:
	case p == MTOM:
		inc := xml.StartElement{Name: xml.Name{Space: NamespaceXOP, Local: "Include"},
			Attr: []xml.Attr{{Name: xml.Name{Local: "href"}, Value: cidURL(b.att.ID)}}}
		if err := e.EncodeToken(inc); err != nil {
			return err
		}
		if err := e.EncodeToken(inc.End()); err != nil {
			return err
		}
	case p == SwA:
		if err := e.EncodeToken(xml.CharData(cidURL(b.att.ID))); err != nil {
			return err
		}
	default:
		if err := b.encodeInline(e); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}

// encodeInline writes the attachment's bytes as base64 text, a chunk at a
// time.
func (b Binary) encodeInline(e *xml.Encoder) error {
	rc, err := b.att.Open()
	if err != nil {
		return fmt.Errorf("core: binary %s: %w", b.att.ID, err)
	}
	defer rc.Close()
	raw := make([]byte, 3<<10)
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(raw)))
	for {
		n, err := io.ReadFull(rc, raw)
		if n > 0 {
			base64.StdEncoding.Encode(enc, raw[:n])
			if werr := e.EncodeToken(xml.CharData(enc[:base64.StdEncoding.EncodedLen(n)])); werr != nil {
				return werr
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("core: binary %s: %w", b.att.ID, err)
		}
	}
}

// UnmarshalXML reads the value (see Binary).
func (b *Binary) UnmarshalXML(d *xml.Decoder, start xml.StartElement) error {
	*b = Binary{}
	for _, a := range start.Attr {
		if a.Name.Space == NamespaceXMLMime && a.Name.Local == "contentType" {
			b.ContentType = a.Value
		}
	}
	c := binaryContextOf(d)
	var x *xopState
	if c.in != nil && c.in.xop != nil {
		x = c.in.xop
		x.take, x.taken = true, nil
		defer func() { x.take, x.taken = false, nil }()
	}
	s := &binarySpool{lim: c.lim, msg: c.msg()}
	var taken *Attachment // a header block's include
	for done := false; !done; {
		tok, err := d.Token()
		if err != nil {
			s.abort()
			return err
		}
		switch t := tok.(type) {
		case xml.CharData:
			if err := s.write(t); err != nil {
				s.abort()
				return err
			}
		case xml.StartElement:
			if c.hdr != nil && t.Name.Space == NamespaceXOP && t.Name.Local == "Include" && taken == nil {
				a, err := c.headerPart(d, t)
				if err != nil {
					s.abort()
					return err
				}
				taken = a
				continue
			}
			s.abort()
			return &Fault{Code: CodeSender, Reason: fmt.Sprintf("element %s inside the base64Binary value %s", t.Name.Local, start.Name.Local)}
		case xml.EndElement:
			done = true
		}
	}
	if x != nil && x.taken != nil {
		s.abort()
		b.att = x.taken
		return nil
	}
	if taken != nil {
		s.abort()
		b.att = taken
		return nil
	}
	if ref, ok := s.swaRef(); ok {
		if m := c.msg(); m != nil {
			if a := m.Attachment(ref); a != nil {
				s.abort()
				b.att = a
				return nil
			}
		}
	}
	a, err := s.finish()
	if err != nil {
		return err
	}
	a.Type = b.ContentType
	b.att = a
	return nil
}

// binaryContext is what Body.Decode tells a Binary being decoded: the body
// read (its XOP state, its message) and the message's limits. It reaches
// the Binary through the decoder's CharsetReader, which encoding/xml never
// calls for a token stream (it reads no bytes): a channel between the core
// and Binary that no other Unmarshaler sees.
type binaryContext struct {
	in  *inbound
	hdr *headerXOP // a header block's (HeaderBlock.Decode)
	lim Limits
}

// binaryContextLabel is the charset label the Binary asks with.
const binaryContextLabel = "x-soapwire-binary-context"

func (c *binaryContext) Read([]byte) (int, error) { return 0, io.EOF }

func (c *binaryContext) msg() *Message {
	switch {
	case c.in != nil:
		return c.in.msg
	case c.hdr != nil:
		return c.hdr.msg
	}
	return nil
}

// headerPart returns the part an xop:Include t in a header block names
// (checked when the package was read), its end read.
func (c *binaryContext) headerPart(d *xml.Decoder, t xml.StartElement) (*Attachment, error) {
	href := ""
	for _, a := range t.Attr {
		if a.Name.Space == "" && a.Name.Local == "href" {
			href = a.Value
		}
	}
	if err := d.Skip(); err != nil {
		return nil, err
	}
	id := normalizeCID(href)
	for _, a := range c.hdr.parts {
		if a.ID == id && id != "" {
			return a, nil
		}
	}
	return nil, &Fault{Code: CodeSender, Reason: fmt.Sprintf("an xop:Include names the part <%s>, which the package does not have", id)}
}

// binaryContextOf asks d for the context Body.Decode gave it; without one
// (a decoder of the caller's own), default limits and no message.
func binaryContextOf(d *xml.Decoder) *binaryContext {
	c := &binaryContext{}
	if d.CharsetReader != nil {
		d.CharsetReader(binaryContextLabel, c)
	}
	if c.lim == (Limits{}) {
		c.lim = Limits{}.resolved()
	}
	return c
}

// contextReader is the CharsetReader Body.Decode gives its decoder.
func (in *inbound) contextReader(lim Limits) func(string, io.Reader) (io.Reader, error) {
	return func(label string, r io.Reader) (io.Reader, error) {
		if c, ok := r.(*binaryContext); ok && label == binaryContextLabel {
			c.in, c.lim = in, lim
			return c, nil
		}
		return nil, fmt.Errorf("core: body: charset %q", label)
	}
}

// binarySpool decodes a base64Binary value's text as it comes into memory,
// then into a temporary file beyond the spool threshold.
type binarySpool struct {
	lim     Limits
	msg     *Message // its spools get the file
	head    []byte   // the text's first bytes, for a swaRef
	long    bool     // the text is longer than head
	pending []byte   // base64 characters not decoded yet (< 4)
	padded  bool     // a quantum with padding was decoded: the value has ended
	bad     error    // not base64 (reported unless the text is a swaRef)
	mem     bytes.Buffer
	spool   *spoolFile
	size    int64
	scratch []byte
}

// swaRefMax is the longest text read as a swaRef.
const swaRefMax = 1 << 10

func (s *binarySpool) write(text []byte) error {
	if !s.long {
		if len(s.head)+len(text) <= swaRefMax {
			s.head = append(s.head, text...)
		} else {
			s.long = true
		}
	}
	if s.bad != nil {
		return nil
	}
	buf := s.scratch[:0]
	buf = append(buf, s.pending...)
	for _, c := range text {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			buf = append(buf, c)
		}
	}
	n := len(buf) / 4 * 4
	if n > 0 && s.padded {
		s.bad = errors.New("base64 text after its padding")
		return nil
	}
	out := make([]byte, n/4*3) // decoded in place would overwrite what is still to read
	k, err := base64.StdEncoding.Decode(out, buf[:n])
	if err != nil {
		s.bad = err
		return nil
	}
	if n > 0 && buf[n-1] == '=' {
		s.padded = true
	}
	s.pending = append(s.pending[:0], buf[n:]...)
	s.scratch = buf
	return s.store(out[:k])
}

// store keeps decoded bytes.
func (s *binarySpool) store(b []byte) error {
	s.size += int64(len(b))
	if max := s.lim.MaxPartBytes; max > 0 && s.size > max {
		return &Fault{Code: CodeSender, Reason: fmt.Sprintf("a base64Binary value is larger than %d bytes", max), Cause: ErrTooLarge}
	}
	if s.spool == nil {
		if t := s.lim.SpoolThreshold; t == 0 || int64(s.mem.Len()+len(b)) <= t {
			s.mem.Write(b)
			return nil
		}
		f, err := os.CreateTemp(s.lim.SpoolDir, "soapwire-part-*")
		if err != nil {
			return &Fault{Code: CodeReceiver, Reason: "a base64Binary value cannot be spooled", Cause: err}
		}
		s.spool = &spoolFile{f: f, name: f.Name()}
		if os.Remove(f.Name()) == nil {
			s.spool.name = ""
		}
		if _, err := s.mem.WriteTo(f); err != nil {
			return &Fault{Code: CodeReceiver, Reason: "a base64Binary value cannot be spooled", Cause: err}
		}
		s.mem = bytes.Buffer{}
	}
	if _, err := s.spool.f.Write(b); err != nil {
		return &Fault{Code: CodeReceiver, Reason: "a base64Binary value cannot be spooled", Cause: err}
	}
	return nil
}

// swaRef returns the Content-ID a text "cid:ID" names.
func (s *binarySpool) swaRef() (string, bool) {
	if s.long {
		return "", false
	}
	t := strings.TrimSpace(string(s.head))
	if len(t) < 5 || !strings.EqualFold(t[:4], "cid:") {
		return "", false
	}
	return normalizeCID(t), true
}

// finish returns the decoded value as an attachment.
func (s *binarySpool) finish() (*Attachment, error) {
	if s.bad == nil && len(s.pending) > 0 {
		s.bad = errors.New("base64 text cut short")
	}
	if s.bad != nil {
		s.abort()
		return nil, &Fault{Code: CodeSender, Reason: "a base64Binary value is not base64: " + s.bad.Error(), Cause: s.bad}
	}
	a := &Attachment{ID: NewContentID(), size: s.size}
	if s.spool != nil {
		a.spool = s.spool
		if s.msg != nil {
			st := s.msg.pkgState()
			st.spools = append(st.spools, s.spool)
		}
		return a, nil
	}
	a.data = s.mem.Bytes()
	if a.data == nil {
		a.data = []byte{}
	}
	return a, nil
}

// abort drops what was spooled.
func (s *binarySpool) abort() {
	if s.spool != nil {
		s.spool.close()
		s.spool = nil
	}
}
