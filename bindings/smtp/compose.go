package smtp

import (
	"bytes"
	"net/mail"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// composed is a mail ready to send.
type composed struct {
	data      []byte // in buf
	buf       *bytes.Buffer
	messageID string
	inReplyTo string
}

// maxPooled bounds the buffers a Sender keeps for reuse.
const maxPooled = 256 << 10

// getBuf returns an empty buffer from the Sender's pool.
func (s *Sender) getBuf() *bytes.Buffer {
	if b, ok := s.bufs.Get().(*bytes.Buffer); ok {
		return b
	}
	return new(bytes.Buffer)
}

// putBuf returns b to the pool, unless it grew large.
func (s *Sender) putBuf(b *bytes.Buffer) {
	if b.Cap() <= maxPooled {
		b.Reset()
		s.bufs.Put(b)
	}
}

// release returns the mail's buffer; c.data is invalid afterwards.
func (c *composed) release(s *Sender) {
	s.putBuf(c.buf)
	c.buf, c.data = nil, nil
}

// compose writes m as an RFC 5322 + MIME mail from the Sender's From to to
// (mailfmt.Compose). It refuses header injection and over-long header
// values before anything is sent.
func (s *Sender) compose(m *core.Message, to *mail.Address) (*composed, error) {
	subject := m.Meta[MetaSubject]
	if subject == "" {
		subject = s.o.subject
	}
	env := s.getBuf()
	defer s.putBuf(env)
	b := s.getBuf()
	w, err := mailfmt.Compose(b, env, m, mailfmt.Header{From: s.from, To: to, Subject: subject})
	if err != nil {
		s.putBuf(b)
		return nil, err
	}
	return &composed{data: b.Bytes(), buf: b, messageID: w.MessageID, inReplyTo: w.InReplyTo}, nil
}
