package smtp

import (
	"bytes"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core"
)

// maxHeaderLine is RFC 5322's limit on a line, without its CRLF.
const maxHeaderLine = 998

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

// compose writes m as an RFC 5322 + MIME mail from from to to: the
// envelope is the body, in the media type of its version with the action,
// 8bit when its lines allow, quoted-printable when not. It refuses header
// injection and over-long header values before anything is sent.
func (s *Sender) compose(m *core.Message, to *mail.Address) (*composed, error) {
	v := m.Version()
	if v == 0 {
		v = core.V12
	}
	if hasCtl(m.Action) {
		return nil, fmt.Errorf("smtp: action %q: %w", m.Action, ErrHeaderInjection)
	}
	subject := m.Meta[MetaSubject]
	if subject == "" {
		subject = s.o.subject
	}
	if subject == "" {
		subject = m.Action
	}
	if subject == "" {
		subject = "SOAP message"
	}
	if hasCtl(subject) {
		return nil, fmt.Errorf("smtp: subject %q: %w", subject, ErrHeaderInjection)
	}
	if !utf8.ValidString(subject) {
		return nil, fmt.Errorf("smtp: subject is not UTF-8: %w", ErrAddress)
	}
	if len(subject) > 200 {
		return nil, fmt.Errorf("smtp: subject of %d bytes: %w", len(subject), ErrHeaderTooLong)
	}

	env := s.getBuf()
	defer s.putBuf(env)
	if _, err := m.Write(env, core.WriteOptions{XMLDeclaration: true}); err != nil {
		return nil, fmt.Errorf("smtp: writing the envelope: %w", err)
	}
	c := &composed{messageID: MessageIDHeader(m.ID), inReplyTo: MessageIDHeader(m.RelatesTo)}

	b := s.getBuf()
	ok := false
	defer func() {
		if !ok {
			s.putBuf(b)
		}
	}()
	b.Grow(env.Len() + env.Len()/8 + 1024)
	hdr := func(name, value string) {
		b.WriteString(name)
		b.WriteString(": ")
		b.WriteString(value)
		b.WriteString("\r\n")
	}
	hdr("From", s.from.String())
	hdr("To", to.String())
	hdr("Subject", mime.QEncoding.Encode("utf-8", subject))
	hdr("Date", time.Now().Format(time.RFC1123Z))
	hdr("Message-ID", c.messageID)
	if c.inReplyTo != "" {
		hdr("In-Reply-To", c.inReplyTo)
		hdr("References", c.inReplyTo)
		hdr("Auto-Submitted", "auto-replied")
	}
	hdr("X-Loop", s.from.Address)
	hdr("MIME-Version", "1.0")
	params := map[string]string{"charset": "utf-8"}
	if v == core.V12 && m.Action != "" {
		params["action"] = m.Action
	}
	ct := mime.FormatMediaType(v.MediaType(), params)
	if ct == "" {
		return nil, fmt.Errorf("smtp: action %q cannot be written in a Content-Type: %w", m.Action, ErrHeaderInjection)
	}
	if len("Content-Type: ")+len(ct) > maxHeaderLine {
		return nil, fmt.Errorf("smtp: action of %d bytes: %w", len(m.Action), ErrHeaderTooLong)
	}
	hdr("Content-Type", ct)
	if v == core.V11 {
		if len(m.Action) > maxHeaderLine-20 {
			return nil, fmt.Errorf("smtp: action of %d bytes: %w", len(m.Action), ErrHeaderTooLong)
		}
		hdr("SOAPAction", `"`+strings.ReplaceAll(m.Action, `"`, `\"`)+`"`)
	}
	body := env.Bytes()
	if cte := textEncoding(body); cte != "" {
		hdr("Content-Transfer-Encoding", cte)
		b.WriteString("\r\n")
		b.Write(body) // the DATA writer turns LF into CRLF
	} else {
		hdr("Content-Transfer-Encoding", "quoted-printable")
		b.WriteString("\r\n")
		qp := quotedprintable.NewWriter(b)
		qp.Write(body)
		qp.Close()
	}
	c.data, c.buf, ok = b.Bytes(), b, true
	return c, nil
}

// textEncoding returns "7bit" or "8bit" when body can travel as it is
// (lines of at most 998 bytes, no CR, no NUL), "" when it needs
// quoted-printable.
func textEncoding(body []byte) string {
	line, ascii := 0, true
	for _, c := range body {
		switch {
		case c == '\n':
			line = 0
			continue
		case c == '\r' || c == 0:
			return ""
		case c >= 0x80:
			ascii = false
		}
		if line++; line > maxHeaderLine {
			return ""
		}
	}
	if ascii {
		return "7bit"
	}
	return "8bit"
}
