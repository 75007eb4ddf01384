package core

import (
	"encoding/base64"
	"fmt"
	"io"
	"slices"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// NamespaceXOP is the namespace of the xop:Include element (XOP 1.0).
const NamespaceXOP = "http://www.w3.org/2004/08/xop/include"

// NamespaceXMLMime is the namespace of the xmime:contentType attribute
// (Describing Media Content of Binary Data in XML).
const NamespaceXMLMime = "http://www.w3.org/2005/05/xmlmime"

// Reading an XOP package's body: each xop:Include is replaced by the base64
// text of the part it names, read from the part in chunks as the body is
// consumed (Token, Next, Decode, WriteTo), never the whole part at once.
// Discard (and with it Verdict) checks each Include but does not read its
// part.

// xopState is what an MTOM message's body stream keeps to resolve its
// includes.
type xopState struct {
	rd    io.ReadCloser // the part being expanded, nil between includes
	raw   []byte        // a chunk of the part
	enc   []byte        // its base64
	tok   xmltok.Token  // the text token handed out (or an Include's start, copied)
	end   xmltok.Token  // a copied Include's end
	out   *xmlWriter    // the body is being copied into it (copyTo)
	synth bool          // the token handed out last is tok
	// fresh: the last significant token was a start tag (an Include must
	// be its element's only content)
	fresh bool
	// beside is the depth of the element an Include was in, while its
	// rest is read (only white space and comments may follow the Include);
	// -1 otherwise
	beside int
	// take: a Binary is being decoded: an Include in it is not expanded
	// but handed over (taken)
	take    bool
	taken   *Attachment
	discard bool           // the body is being discarded: includes are checked, not read
	parts   []*Attachment  // the package's parts, as read
	block   bool           // the stream is a header block's (resolveHeaderIncludes)
	named   *[]*Attachment // the parts the includes name, collected (a header block's)
}

// xopChunkBytes is how much of a part one text token holds (a multiple of
// 3: the chunks' base64 joins into the part's).
const xopChunkBytes = 48 << 10

// isInclude reports whether t is the start tag of an xop:Include.
func isInclude(t *xmltok.Token) bool {
	return len(t.Name.Local) == len("Include") && t.Name.Is(NamespaceXOP, "Include")
}

// enableXOP makes the inbound body of m resolve its xop:Include elements
// against m's attachments.
func (m *Message) enableXOP() {
	if m.Envelope == nil || m.Envelope.Body.src == nil || m.Envelope.Body.src.in == nil {
		return
	}
	in := m.Envelope.Body.src.in
	in.msg = m
	in.xop = &xopState{beside: -1, parts: m.Attachments}
	for _, a := range m.Attachments {
		a.read = true
	}
}

// part is the part of the package the body was read from whose Content-ID
// is id, nil if none: the parts as read, whatever the message's
// Attachments became since (a handler may drop them before writing the
// body inline); the same slice, so a part a binding replaced in place (the
// NATS object store's fetch) is the one found.
func (in *inbound) part(id string) *Attachment {
	for _, a := range in.xop.parts {
		if a.ID == id {
			return a
		}
	}
	return nil
}

// xopFault is the Sender fault of a wrong xop:Include.
func (in *inbound) xopFault(format string, args ...any) error {
	return in.fail(&Fault{Code: CodeSender, Version: in.v, Reason: fmt.Sprintf(format, args...)})
}

// include handles the start tag t of an xop:Include at depth d: it checks
// the Include (XOP 1.0 §3.2: only an href, a cid: URL naming a part of
// this package, no content, the only content of its element), reads it to
// its end, and starts expanding its part unless the body is being
// discarded or a Binary takes the part. It returns the next token.
func (in *inbound) include(t *xmltok.Token, d int) (*xmltok.Token, bool, error) {
	x := in.xop
	if x == nil {
		return nil, false, in.xopFault("an xop:Include in a message that is not an XOP package (MTOM)")
	}
	if d == in.depth+1 {
		if x.block {
			return nil, false, in.xopFault("an xop:Include as a header block (it must be inside one)")
		}
		return nil, false, in.xopFault("an xop:Include directly in the Body")
	}
	if !x.fresh {
		return nil, false, in.xopFault("an xop:Include beside other content: it must be its element's only content")
	}
	var href []byte
	seen := false
	for _, a := range t.Attr {
		switch {
		case len(a.Name.Space) == 0 && string(a.Name.Local) == "href":
			href, seen = a.Value, true
		case len(a.Name.Space) == 0:
			return nil, false, in.xopFault("an xop:Include with an attribute %s (only href is allowed)", a.Name.Local)
		}
	}
	if !seen {
		return nil, false, in.xopFault("an xop:Include without an href")
	}
	if len(href) < 4 || !equalFoldASCII(href[:4], "cid:") {
		return nil, false, in.xopFault("an xop:Include whose href %q is not a cid: URL", href)
	}
	id := normalizeCID(string(href))
	att := in.part(id)
	if att == nil || id == "" {
		return nil, false, in.xopFault("an xop:Include names the part <%s>, which the package does not have", id)
	}
	for { // to the Include's end: nothing but white space and comments
		c, err := in.r.Next()
		if err != nil {
			return nil, false, in.fail(in.wrapErr(err))
		}
		switch {
		case c.Kind == xmltok.EndElement:
			x.beside, x.fresh = d-1, false
			if x.named != nil && !slices.Contains(*x.named, att) {
				*x.named = append(*x.named, att)
			}
			if x.take {
				x.taken = att
				return in.next()
			}
			if x.discard {
				return in.next()
			}
			if x.out != nil {
				if t := in.copyInclude(x.out, att); t != nil {
					return t, false, nil
				}
			}
			rd, err := att.Open()
			if err != nil {
				return nil, false, in.fail(&Fault{Code: CodeReceiver, Version: in.v, Reason: "the part <" + id + "> cannot be read", Cause: err})
			}
			x.rd = rd
			return in.next()
		case c.Kind == xmltok.StartElement:
			return nil, false, in.xopFault("an xop:Include with a child element")
		case c.Kind == xmltok.CharData && !xmltok.IsSpace(c.Text):
			return nil, false, in.xopFault("an xop:Include with text in it")
		}
	}
}

// chunk returns the next text token of the part being expanded, or nil
// once it is read to its end (then the stream goes on).
func (in *inbound) chunk() (*xmltok.Token, error) {
	x := in.xop
	if x.discard || x.take {
		x.rd.Close()
		x.rd = nil
		return nil, nil
	}
	if x.raw == nil {
		x.raw = make([]byte, xopChunkBytes)
		x.enc = make([]byte, base64.StdEncoding.EncodedLen(xopChunkBytes))
	}
	n, err := io.ReadFull(x.rd, x.raw)
	if err != nil {
		x.rd.Close()
		x.rd = nil
		if err != io.EOF && err != io.ErrUnexpectedEOF {
			return nil, in.fail(&Fault{Code: CodeReceiver, Version: in.v, Reason: "an xop:Include's part cannot be read", Cause: err})
		}
	}
	if n == 0 {
		return nil, nil
	}
	base64.StdEncoding.Encode(x.enc, x.raw[:n])
	x.tok = xmltok.Token{Kind: xmltok.CharData, Text: x.enc[:base64.StdEncoding.EncodedLen(n)]}
	x.synth = true
	return &x.tok, nil
}

// track checks a token of an XOP body read at depth d (after it) against
// the Include rules, and notes what it was.
func (in *inbound) track(t *xmltok.Token, d int) error {
	x := in.xop
	if x.beside >= 0 {
		switch {
		case t.Kind == xmltok.EndElement && d < x.beside:
			x.beside = -1
		case t.Kind == xmltok.StartElement, t.Kind == xmltok.CharData && !xmltok.IsSpace(t.Text):
			return in.xopFault("content beside an xop:Include: it must be its element's only content")
		}
	}
	switch {
	case t.Kind == xmltok.StartElement:
		x.fresh = true
	case t.Kind == xmltok.EndElement, t.Kind == xmltok.CharData && !xmltok.IsSpace(t.Text):
		x.fresh = false
	}
	return nil
}

// raw is the input bytes of the token next returned last (see
// xmltok.Reader.Raw); nil for a part's text.
func (in *inbound) raw() []byte {
	if in.xop != nil && in.xop.synth {
		return nil
	}
	return in.r.Raw()
}

// equalFoldASCII reports whether b is s, ASCII case folded.
func equalFoldASCII(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
