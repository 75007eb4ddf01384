package core

import (
	"crypto/rand"
	"io"
)

// Message is an envelope with what the transport and the WS-Addressing
// headers say about it. Bindings fill Action, ID and the addresses from what
// their transport knows, but the envelope stays the unit of truth: when a
// Message is written, its addressing fields become WS-Addressing 1.0 headers.
type Message struct {
	Envelope  *Envelope
	Action    string // SOAPAction / 1.2 action parameter / wsa:Action
	ID        string // wsa:MessageID
	RelatesTo string // wsa:RelatesTo (reply relationship)
	To        string // wsa:To: where the message goes (https://…, mailto:…, ftp://host/dir, nats:subject)
	ReplyTo   string // wsa:ReplyTo address; AnonymousAddress = the back-channel, NoneAddress = no reply
	FaultTo   string // wsa:FaultTo address
	// Meta holds binding properties, prefixed by binding: "smtp.message-id",
	// "http.status". Never written into the envelope.
	Meta map[string]string
	// Attachments are the MIME parts besides the root (the envelope), in
	// package order: read by ReadPackage, written by WriteTo when
	// Packaging is MTOM or SwA.
	Attachments []*Attachment
	Packaging   Packaging // how m was read, how it is written

	pkg *packageState // nil until m has package IDs or spool files (most messages never do)
}

// NewMessage returns a message of version v with the given body.
func NewMessage(v Version, body Body) *Message {
	me := &struct {
		m Message
		e Envelope
	}{e: Envelope{Version: v, Body: body}} // one allocation
	me.m.Envelope = &me.e
	return &me.m
}

// ReadMessage reads an envelope (see ReadEnvelope) and moves its
// WS-Addressing 1.0 headers into the Message fields.
//
// A header block holding an xop:Include is refused (a Sender fault): only
// an MTOM package (ReadPackage) has parts for it to name.
func ReadMessage(r io.Reader, lim Limits) (*Message, error) {
	m, err := readMessage(r, lim)
	if err != nil {
		return nil, err
	}
	if err := m.refuseHeaderIncludes("an envelope alone"); err != nil {
		return nil, err
	}
	return m, nil
}

// readMessage is ReadMessage without the header blocks' includes checked.
func readMessage(r io.Reader, lim Limits) (*Message, error) {
	st, err := readEnvelope(r, lim)
	if err != nil {
		return nil, err
	}
	return st.message()
}

// ReadMessageBytes is ReadMessage reading the envelope in data, as bindings
// that receive a whole message in memory have it. data is not modified;
// the body is read from it when consumed, so data must not change until
// then.
func ReadMessageBytes(data []byte, lim Limits) (*Message, error) {
	m, err := readMessageBytes(data, lim)
	if err != nil {
		return nil, err
	}
	if err := m.refuseHeaderIncludes("an envelope alone"); err != nil {
		return nil, err
	}
	return m, nil
}

// readMessageBytes is ReadMessageBytes without the header blocks' includes
// checked.
func readMessageBytes(data []byte, lim Limits) (*Message, error) {
	st, err := readEnvelopeBytes(data, lim)
	if err != nil {
		return nil, err
	}
	return st.message()
}

// message is the Message of st, with its WS-Addressing headers taken.
func (st *readState) message() (*Message, error) {
	m := &st.msg
	m.Envelope = &st.env
	if err := m.takeAddressing(); err != nil {
		return nil, err
	}
	return m, nil
}

// Version is the envelope's version (0 without an envelope).
func (m *Message) Version() Version {
	if m == nil || m.Envelope == nil {
		return 0
	}
	return m.Envelope.Version
}

// Body returns the envelope's body.
func (m *Message) Body() Body {
	if m == nil || m.Envelope == nil {
		return Body{}
	}
	return m.Envelope.Body
}

// Fault returns the fault the body holds, or nil.
func (m *Message) Fault() *Fault { return m.Body().Fault() }

// SetMeta sets a binding property, allocating Meta when needed.
func (m *Message) SetMeta(key, value string) {
	if m.Meta == nil {
		m.Meta = make(map[string]string)
	}
	m.Meta[key] = value
}

// Reply returns a message of the same version answering m: RelatesTo is m's
// ID and, when m has one, the reply gets a fresh ID.
func (m *Message) Reply(body Body) *Message {
	r := NewMessage(m.Version(), body)
	r.RelatesTo = m.ID
	if m.ID != "" {
		r.ID = NewMessageID()
	}
	return r
}

// FaultReply returns the fault message answering m (version of m, RelatesTo
// m's ID); use it to send a fault where a reply would go.
func (m *Message) FaultReply(f *Fault) *Message {
	return m.Reply(FaultBody(f))
}

// WriteTo writes the envelope with the addressing headers; with Packaging
// MTOM or SwA, the whole MIME package (see ContentType), else the envelope
// alone (a message with Attachments then fails: they need a package; but
// see Write for a body read as MTOM).
func (m *Message) WriteTo(w io.Writer) (int64, error) {
	return m.Write(w, WriteOptions{})
}

// Write writes the envelope with the addressing headers, with options.
//
// A body read as MTOM (m's own, or one a StreamBody copies into m's body)
// has its xop:Include elements written as m.Packaging asks, never the
// part's base64 beside the part:
//   - MTOM: the Include stays, naming the same part; a part m does not carry
//     under that Content-ID is written after m.Attachments, once;
//   - SwA: the swaRef text "cid:ID" (as a Binary is written under SwA), the
//     part carried as under MTOM;
//   - Inline: the part's base64 in its place, no part. Parts read from a
//     package may stay in m.Attachments, but each must be inlined by an
//     Include of the envelope: one that is not fails the write once the
//     envelope is written.
func (m *Message) Write(w io.Writer, o WriteOptions) (int64, error) {
	if m.Packaging != Inline {
		return m.writePackage(w, o)
	}
	var need []*Attachment // parts read from a package: an Include must inline each
	for _, a := range m.Attachments {
		switch {
		case a == nil:
			return 0, errInlineAttachments
		case a.binary:
		case a.read:
			need = append(need, a)
		default:
			return 0, errInlineAttachments
		}
	}
	if need == nil {
		return m.writeEnvelope(w, o, nil)
	}
	xo := new(xopOut)
	n, err := m.writeEnvelope(w, o, xo)
	if err == nil {
		err = checkInlined(need, xo)
	}
	return n, err
}

// writeEnvelope writes the envelope alone; xo, when not nil, collects the
// parts its includes name.
func (m *Message) writeEnvelope(w io.Writer, o WriteOptions, xo *xopOut) (int64, error) {
	env := m.Envelope
	if env == nil {
		env = &Envelope{}
	}
	x := newXMLWriter(w)
	defer x.release()
	x.msg, x.xout = m, xo
	err := writeEnvelope(x, env, o, m.addressingHeaders(o.Prefix))
	if ferr := x.flush(); err == nil {
		err = ferr
	}
	return x.n, err
}

// NewMessageID returns a fresh "urn:uuid:…" message id (a random UUID).
func NewMessageID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	const hex = "0123456789abcdef"
	var out [45]byte // urn:uuid: and 36
	n := copy(out[:], "urn:uuid:")
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out[n] = '-'
			n++
		}
		out[n], out[n+1] = hex[c>>4], hex[c&0x0f]
		n += 2
	}
	return string(out[:])
}
