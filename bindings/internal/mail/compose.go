package mail

import (
	"bytes"
	"fmt"
	"mime"
	"mime/quotedprintable"
	netmail "net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core"
)

// MaxHeaderLine is RFC 5322's limit on a line, without its CRLF.
const MaxHeaderLine = 998

// maxSubject bounds the Subject Compose writes.
const maxSubject = 200

// Header is what Compose writes around the envelope.
type Header struct {
	From, To *netmail.Address
	// Subject; "" is the message's action, else "SOAP message".
	Subject string
	// Extra header fields written after the others (names and values are
	// the caller's, checked for CR, LF and NUL).
	Extra [][2]string
}

// Written is what Compose wrote of the correlation headers.
type Written struct {
	MessageID string // the Message-ID, "<…>"
	InReplyTo string // the In-Reply-To (and References), "" for a message that relates to none
}

// Compose appends to dst m as an RFC 5322 + MIME mail (the W3C SOAP 1.2
// Email Binding): the envelope is the body, in the media type of its
// version with the action (a SOAPAction header for 1.1), 7bit or 8bit when
// its lines allow, quoted-printable when not. The Message-ID stands for
// m.ID and In-Reply-To and References for m.RelatesTo (MessageIDHeader); a
// reply carries Auto-Submitted: auto-replied, and every mail X-Loop: From.
// scratch holds the envelope while it is composed.
//
// A message with Packaging MTOM or SwA is a multipart/related mail: its
// Content-Type is m.ContentType() (folded before each parameter), and its
// body the package, the root part 7bit or quoted-printable and every
// attachment base64, so the whole mail is 7bit (package.go). The action
// travels in the package's start-info or root type for 1.2, in the
// SOAPAction header for 1.1, as for a plain mail.
//
// CR, LF or NUL in the subject, the action or an extra field is
// ErrHeaderInjection, a subject or action too long for a header line
// ErrHeaderTooLong, and nothing is appended.
func Compose(dst, scratch *bytes.Buffer, m *core.Message, h Header) (Written, error) {
	v := m.Version()
	if v == 0 {
		v = core.V12
	}
	if HasCtl(m.Action) {
		return Written{}, fmt.Errorf("mail: action %q: %w", m.Action, ErrHeaderInjection)
	}
	subject := h.Subject
	if subject == "" {
		subject = m.Action
	}
	if subject == "" {
		subject = "SOAP message"
	}
	if HasCtl(subject) {
		return Written{}, fmt.Errorf("mail: subject %q: %w", subject, ErrHeaderInjection)
	}
	if !utf8.ValidString(subject) {
		return Written{}, fmt.Errorf("mail: subject is not UTF-8: %w", ErrAddress)
	}
	if len(subject) > maxSubject {
		return Written{}, fmt.Errorf("mail: subject of %d bytes: %w", len(subject), ErrHeaderTooLong)
	}
	for _, f := range h.Extra {
		if HasCtl(f[0]) || HasCtl(f[1]) || strings.ContainsAny(f[0], ": ") {
			return Written{}, fmt.Errorf("mail: header %q: %w", f[0], ErrHeaderInjection)
		}
		if len(f[0])+2+len(f[1]) > MaxHeaderLine {
			return Written{}, fmt.Errorf("mail: header %s: %w", f[0], ErrHeaderTooLong)
		}
	}
	pkg := m.Packaging == core.MTOM || m.Packaging == core.SwA
	var ct string
	if pkg {
		// The package's Content-Type, folded before each parameter.
		var err error
		if ct, err = foldParams(m.ContentType()); err != nil {
			return Written{}, err
		}
	} else {
		params := map[string]string{"charset": "utf-8"}
		if v == core.V12 && m.Action != "" {
			params["action"] = m.Action
		}
		ct = mime.FormatMediaType(v.MediaType(), params)
		if ct == "" {
			return Written{}, fmt.Errorf("mail: action %q cannot be written in a Content-Type: %w", m.Action, ErrHeaderInjection)
		}
		if len("Content-Type: ")+len(ct) > MaxHeaderLine {
			return Written{}, fmt.Errorf("mail: action of %d bytes: %w", len(m.Action), ErrHeaderTooLong)
		}
	}
	if v == core.V11 && len(m.Action) > MaxHeaderLine-20 {
		return Written{}, fmt.Errorf("mail: action of %d bytes: %w", len(m.Action), ErrHeaderTooLong)
	}

	scratch.Reset()
	if !pkg {
		if _, err := m.Write(scratch, core.WriteOptions{XMLDeclaration: true}); err != nil {
			return Written{}, fmt.Errorf("mail: writing the envelope: %w", err)
		}
	}
	start := dst.Len()
	w := Written{MessageID: MessageIDHeader(m.ID), InReplyTo: MessageIDHeader(m.RelatesTo)}

	grow := scratch.Len() + scratch.Len()/8 + 1024
	for _, a := range m.Attachments {
		if n := a.Size(); pkg && n > 0 {
			grow += int(n/3*4 + n/3*4/base64Line*2 + 512)
		}
	}
	dst.Grow(grow)
	hdr := func(name, value string) {
		dst.WriteString(name)
		dst.WriteString(": ")
		dst.WriteString(value)
		dst.WriteString("\r\n")
	}
	hdr("From", h.From.String())
	hdr("To", h.To.String())
	hdr("Subject", mime.QEncoding.Encode("utf-8", subject))
	hdr("Date", time.Now().Format(time.RFC1123Z))
	hdr("Message-ID", w.MessageID)
	if w.InReplyTo != "" {
		hdr("In-Reply-To", w.InReplyTo)
		hdr("References", w.InReplyTo)
		hdr("Auto-Submitted", "auto-replied")
	}
	hdr("X-Loop", h.From.Address)
	for _, f := range h.Extra {
		hdr(f[0], f[1])
	}
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", ct)
	if pkg {
		hdr("Content-Transfer-Encoding", "7bit")
	}
	if v == core.V11 {
		hdr("SOAPAction", `"`+strings.ReplaceAll(m.Action, `"`, `\"`)+`"`)
	}
	if pkg {
		// A package: its parts re-encoded for mail (package.go).
		dst.WriteString("\r\n")
		if err := writePackage(dst, m); err != nil {
			dst.Truncate(start)
			return Written{}, err
		}
		return w, nil
	}
	body := scratch.Bytes()
	if cte := textEncoding(body); cte != "" {
		hdr("Content-Transfer-Encoding", cte)
		dst.WriteString("\r\n")
		dst.Write(body) // LF line ends: an SMTP DATA writer or IMAP APPEND turns them into CRLF
	} else {
		hdr("Content-Transfer-Encoding", "quoted-printable")
		dst.WriteString("\r\n")
		qp := quotedprintable.NewWriter(dst)
		qp.Write(body)
		qp.Close()
	}
	return w, nil
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
		if line++; line > MaxHeaderLine {
			return ""
		}
	}
	if ascii {
		return "7bit"
	}
	return "8bit"
}
