package core

import (
	"crypto/rand"
	"errors"
	"strings"
)

// Packaging says how a message with attachments is written, and how one
// was read.
type Packaging uint8

const (
	// Inline: no MIME package, the envelope alone. Binary values are
	// written as inline base64; a message with Attachments cannot be
	// written.
	Inline Packaging = iota
	// MTOM: an XOP package (W3C MTOM, XOP 1.0): multipart/related with
	// type="application/xop+xml", the envelope in an application/xop+xml
	// root part; Binary values are written as xop:Include elements naming
	// their parts.
	MTOM
	// SwA: SOAP Messages with Attachments (W3C Note 2000, WS-I AP 1.0):
	// multipart/related with a text/xml (1.1) or application/soap+xml
	// (1.2) root part; Binary values are written as swaRef text "cid:ID".
	SwA
)

// String returns "inline", "MTOM" or "SwA".
func (p Packaging) String() string {
	switch p {
	case Inline:
		return "inline"
	case MTOM:
		return "MTOM"
	case SwA:
		return "SwA"
	}
	return "unknown packaging"
}

// Media types of packages.
const (
	MediaTypeXOP          = "application/xop+xml"
	MediaTypeMultipartRel = "multipart/related"
)

// errInlineAttachments is the error of writing a message with attachments
// and Packaging Inline.
var errInlineAttachments = errors.New("core: a message with attachments (other than Binary values, written inline) needs Packaging MTOM or SwA")

// packageState is what a Message keeps of its MIME package besides its
// fields: one pointer in Message, so that the messages without one (most)
// do not carry room for it.
type packageState struct {
	ids    packageIDs   // the boundary and root Content-ID, fixed on first use
	spools []*spoolFile // what Close releases
}

// packageIDs are a package's boundary and root Content-ID, chosen once per
// Message so that ContentType and WriteTo agree.
type packageIDs struct {
	boundary, root string
}

// pkgState returns m's package state, made on first use.
func (m *Message) pkgState() *packageState {
	if m.pkg == nil {
		m.pkg = new(packageState)
	}
	return m.pkg
}

func (m *Message) ids() *packageIDs {
	ids := &m.pkgState().ids
	if ids.boundary == "" {
		var b [12]byte
		rand.Read(b[:])
		const hex = "0123456789abcdef"
		out := make([]byte, 0, len("MIMEBoundary_")+24)
		out = append(out, "MIMEBoundary_"...)
		for _, c := range b {
			out = append(out, hex[c>>4], hex[c&0x0f])
		}
		ids.boundary = string(out)
		ids.root = "root." + NewContentID()
	}
	return ids
}

// ContentType returns the Content-Type a transport announces for m as
// WriteTo writes it:
//   - Inline: the version's media type, text/xml; charset=utf-8 or
//     application/soap+xml; charset=utf-8, with action="…" for 1.2 when
//     m.Action is set;
//   - MTOM: multipart/related; type="application/xop+xml";
//     boundary="…"; start="<…>"; start-info="text/xml" (1.1) or
//     start-info="application/soap+xml; action=\"…\"" (1.2);
//   - SwA: multipart/related; type="text/xml" (1.1) or
//     type="application/soap+xml" (1.2); boundary="…"; start="<…>" (the
//     1.2 action is on the root part's own Content-Type).
//
// The boundary and the root's Content-ID are chosen on the first call (or
// write) and kept in m.
func (m *Message) ContentType() string {
	v := m.Version().orV11()
	var b strings.Builder
	switch m.Packaging {
	case MTOM, SwA:
		ids := m.ids()
		b.WriteString(MediaTypeMultipartRel)
		if m.Packaging == MTOM {
			param(&b, "type", MediaTypeXOP)
		} else {
			param(&b, "type", v.MediaType())
		}
		param(&b, "boundary", ids.boundary)
		param(&b, "start", "<"+ids.root+">")
		if m.Packaging == MTOM {
			param(&b, "start-info", m.envelopeType(false))
		}
	default:
		b.WriteString(m.envelopeType(true))
	}
	return b.String()
}

// envelopeType is the media type of m's envelope: the version's, with
// charset=utf-8 if asked, and the 1.2 action parameter when m has an
// action.
func (m *Message) envelopeType(charset bool) string {
	v := m.Version().orV11()
	var b strings.Builder
	b.WriteString(v.MediaType())
	if charset {
		b.WriteString("; charset=utf-8")
	}
	if v == V12 && m.Action != "" {
		param(&b, "action", m.Action)
	}
	return b.String()
}

// param appends `; name="value"`, the value a quoted-string (RFC 2045,
// RFC 822): '"' and '\' escaped. A value a header cannot hold (control
// characters, non-ASCII) is left out.
func param(b *strings.Builder, name, value string) {
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < 0x20 || c >= 0x7f {
			return
		}
	}
	b.WriteString("; ")
	b.WriteString(name)
	b.WriteString(`="`)
	for i := 0; i < len(value); i++ {
		if c := value[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(value[i])
	}
	b.WriteByte('"')
}
