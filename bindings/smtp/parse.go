package smtp

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// MaxMailHeaderBytes bounds the header of a mail ReadMail reads (trace
// headers included). A MIME part's header is bounded by mime/multipart
// (10 MiB), and the whole mail by the Server's WithMaxMessageBytes.
const MaxMailHeaderBytes = 256 << 10

// maxPartDepth bounds the nesting of multipart bodies searched for the
// envelope.
const maxPartDepth = 4

// ReadMail reads a SOAP message from a mail (RFC 5322 text, as a Maildir
// file holds it). The envelope is the mail's body when its Content-Type is
// application/soap+xml, text/xml or application/xml (or absent), or the
// first part of such a type in a multipart body, searched depth first;
// quoted-printable and base64 transfer encodings are decoded. The envelope
// is read with core.ReadMessage under WithLimits: its header blocks now,
// its body lazily, from r.
//
// The message's fields come from the envelope's WS-Addressing headers and,
// where the envelope has none, from the mail (the W3C SOAP 1.2 Email
// Binding): ID from Message-ID and RelatesTo from In-Reply-To, else the
// last id of References (see
// IDFromMessageID), Action from the content type's action parameter or a
// SOAPAction header, To from Delivered-To or To, and ReplyTo (also when the
// envelope's is anonymous) from Reply-To, else From, as a mailto: address.
// Meta holds the mail's headers under the Meta* keys.
//
// A mail the loop guard flags (a bounce, an auto-reply, a mailing list, or
// a mail carrying an X-Loop header naming one of WithAddresses) gets
// MetaLoop set to the reason and NoneAddress for the ReplyTo and FaultTo it
// would have taken from the mail, so core.Serve answers nothing; a mail
// naming this service in X-Loop gets NoneAddress even for addresses its
// envelope gives.
//
// Errors are *core.Fault: a Sender fault for a mail that is not a SOAP
// mail or is malformed, or the fault core.ReadMessage returned.
func ReadMail(r io.Reader, opts ...ReadMailOption) (*core.Message, error) {
	o := newReadConfig(opts)
	return readMail(r, &o)
}

func readMail(r io.Reader, o *readConfig) (*core.Message, error) {
	h, body, err := readHeader(r)
	return readMailBody(h, body, err, o)
}

// readMailBytes is readMail for a mail in memory (a Server's handover): it
// reads the header without a buffer of its own and decodes a single-part
// body at once instead of through readers. It may change data.
func readMailBytes(data []byte, o *readConfig) (*core.Message, error) {
	end := headerEnd(data)
	if end < 0 || end > MaxMailHeaderBytes {
		return readMail(bytes.NewReader(data), o)
	}
	h, err := textproto.NewReader(bufio.NewReaderSize(bytes.NewReader(data[:end]), end)).ReadMIMEHeader()
	return readMailBody(h, &memBody{b: data[end:]}, err, o)
}

// headerEnd returns where the body of a mail starts: after the first empty
// line (as net/textproto reads lines: "\n" or "\r\n"); -1 if there is none.
func headerEnd(data []byte) int {
	switch {
	case bytes.HasPrefix(data, []byte("\n")):
		return 1
	case bytes.HasPrefix(data, []byte("\r\n")):
		return 2
	}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return -1
		}
		i += j + 1
		switch {
		case i < len(data) && data[i] == '\n':
			return i + 1
		case i+1 < len(data) && data[i] == '\r' && data[i+1] == '\n':
			return i + 2
		}
	}
}

// memBody is a mail's body in memory.
type memBody struct {
	b    []byte
	read bool
}

func (m *memBody) Read(p []byte) (int, error) {
	m.read = true
	if len(m.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, m.b)
	m.b = m.b[n:]
	return n, nil
}

func readMailBody(h textproto.MIMEHeader, body io.Reader, err error, o *readConfig) (*core.Message, error) {
	if err != nil {
		return nil, &core.Fault{Code: core.CodeSender, Reason: "malformed mail header", Cause: err}
	}
	part, err := findEnvelope(textproto.MIMEHeader(h), body, 0)
	if err != nil {
		return nil, err
	}
	m, err := core.ReadMessage(part.body, o.limits)
	if err != nil {
		return nil, err
	}
	mapMail(m, mail.Header(h), part, o)
	return m, nil
}

// readHeader reads a mail header of at most MaxMailHeaderBytes and returns
// it with a reader of the body.
func readHeader(r io.Reader) (textproto.MIMEHeader, io.Reader, error) {
	lr := &io.LimitedReader{R: r, N: MaxMailHeaderBytes}
	br := bufio.NewReaderSize(lr, 4096)
	h, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil {
		if lr.N == 0 {
			return nil, nil, fmt.Errorf("header larger than %d bytes", MaxMailHeaderBytes)
		}
		if err == io.EOF && len(h) > 0 {
			return h, strings.NewReader(""), nil
		}
		return nil, nil, err
	}
	// What br buffered beyond the header, then the rest of r.
	return h, io.MultiReader(br, r), nil
}

// envelopePart is where the envelope was found.
type envelopePart struct {
	body        io.Reader
	contentType string
	action      string // the action parameter
	soapAction  string // the part's SOAPAction header
}

func senderFault(format string, args ...any) *core.Fault {
	return &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf(format, args...)}
}

// findEnvelope returns the envelope part of a body with header h.
func findEnvelope(h textproto.MIMEHeader, body io.Reader, depth int) (*envelopePart, error) {
	p, err := envelopeIn(h, body, depth)
	if err != nil {
		return nil, err
	}
	if p == nil {
		ct := h.Get("Content-Type")
		return nil, senderFault("not a SOAP mail: no application/soap+xml or text/xml part in %q", ct)
	}
	return p, nil
}

// envelopeIn returns the envelope part of body, nil if it holds none.
func envelopeIn(h textproto.MIMEHeader, body io.Reader, depth int) (*envelopePart, error) {
	ct := strings.TrimSpace(h.Get("Content-Type"))
	mt, params := "", map[string]string{}
	if ct != "" {
		var err error
		mt, params, err = parseMediaType(ct)
		if err != nil {
			return nil, &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf("malformed Content-Type %q", ct), Cause: err}
		}
	}
	switch {
	case mt == "" || mt == core.MediaTypeV11 || mt == core.MediaTypeV12 || mt == "application/xml":
		switch cs := strings.ToLower(params["charset"]); cs {
		case "", "utf-8", "utf8", "us-ascii", "utf-16", "utf-16le", "utf-16be":
		default:
			return nil, senderFault("unsupported charset %q", cs)
		}
		dec, err := decodeTransfer(h.Get("Content-Transfer-Encoding"), body)
		if err != nil {
			return nil, err
		}
		if cs := params["charset"]; cs != "" {
			// UTF-16 without a byte order mark is read when the label says so
			dec = core.CharsetReader(cs, dec)
		}
		return &envelopePart{body: dec, contentType: ct, action: params["action"], soapAction: unquote(strings.TrimSpace(h.Get("Soapaction")))}, nil
	case strings.HasPrefix(mt, "multipart/"):
		if depth >= maxPartDepth {
			return nil, senderFault("multipart mail nested deeper than %d", maxPartDepth)
		}
		boundary := params["boundary"]
		if boundary == "" {
			return nil, senderFault("multipart mail without a boundary")
		}
		mr := multipart.NewReader(body, boundary)
		for {
			p, err := mr.NextRawPart()
			if err == io.EOF {
				return nil, nil
			}
			if err != nil {
				return nil, &core.Fault{Code: core.CodeSender, Reason: "malformed multipart mail", Cause: err}
			}
			found, err := envelopeIn(p.Header, p, depth+1)
			if err != nil || found != nil {
				return found, err
			}
		}
	}
	return nil, nil
}

// parseMediaType parses a Content-Type, accepting unquoted parameter values
// with characters MIME wants quoted (action=urn:x), as SOAP peers send them.
func parseMediaType(ct string) (string, map[string]string, error) {
	mt, params, err := mime.ParseMediaType(ct)
	if err == mime.ErrInvalidMediaParameter || (err != nil && mt != "") {
		parts := strings.Split(ct, ";")
		params = make(map[string]string, len(parts)-1)
		for _, p := range parts[1:] {
			if strings.TrimSpace(p) == "" {
				continue
			}
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			k = strings.ToLower(strings.TrimSpace(k))
			if !ok || k == "" {
				return "", nil, err
			}
			params[k] = unquote(strings.TrimSpace(v))
		}
		return strings.ToLower(strings.TrimSpace(parts[0])), params, nil
	}
	return mt, params, err
}

func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// decodeTransfer undoes a Content-Transfer-Encoding. Text encodings have
// their CRLF line ends turned back into LF (XML treats both alike).
func decodeTransfer(cte string, r io.Reader) (io.Reader, error) {
	if m, ok := r.(*memBody); ok && !m.read {
		// In memory: decoded at once, in place.
		switch strings.ToLower(strings.TrimSpace(cte)) {
		case "", "7bit", "8bit":
			return bytes.NewReader(crlfToLF(m.b)), nil
		case "quoted-printable":
			if out, ok := decodeQP(m.b); ok {
				return bytes.NewReader(crlfToLF(out)), nil
			}
			// Malformed: the Reader's error, where it finds it.
		}
	}
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "", "7bit", "8bit":
		return &crlfReader{r: r}, nil
	case "binary":
		return r, nil
	case "quoted-printable":
		return &crlfReader{r: quotedprintable.NewReader(r)}, nil
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &spaceDropper{r: r}), nil
	}
	return nil, senderFault("unsupported Content-Transfer-Encoding %q", cte)
}

// crlfToLF turns CRLF into LF in b (a lone CR stays), as crlfReader does,
// and returns the shortened b.
func crlfToLF(b []byte) []byte {
	i := bytes.Index(b, []byte("\r\n"))
	if i < 0 {
		return b
	}
	out := b[:i]
	for rest := b[i+1:]; ; {
		// rest starts with the LF of a CRLF.
		j := bytes.Index(rest[1:], []byte("\r\n"))
		if j < 0 {
			return append(out, rest...)
		}
		out = append(out, rest[:j+1]...)
		rest = rest[j+2:]
	}
}

// maxQPLine is the longest line mime/quotedprintable's Reader reads (its
// bufio buffer), less one.
const maxQPLine = 4095

// decodeQP decodes quoted-printable src in one pass, with the rules (and
// leniencies) of mime/quotedprintable's Reader, into a new slice. ok is
// false wherever that Reader would fail: the caller then streams the body
// through it, which reports the error where it finds it.
func decodeQP(src []byte) (out []byte, ok bool) {
	out = make([]byte, 0, len(src))
	for len(src) > 0 {
		var whole []byte
		last := false
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			whole, src = src[:i+1], src[i+1:]
		} else {
			whole, src, last = src, nil, true
		}
		if len(whole) > maxQPLine {
			return nil, false
		}
		t := bytes.TrimRight(whole, " \t\r\n")
		var eol []byte
		if len(t) > 0 && t[len(t)-1] == '=' {
			right := whole[len(t):]
			t = t[:len(t)-1]
			if !bytes.HasPrefix(right, []byte("\n")) && !bytes.HasPrefix(right, []byte("\r\n")) &&
				!(len(right) == 0 && len(t) > 0 && last) {
				return nil, false
			}
		} else if !last {
			eol = whole[len(whole)-1:]
			if bytes.HasSuffix(whole, []byte("\r\n")) {
				eol = whole[len(whole)-2:]
			}
		}
		// The Reader decodes t+eol; an = looks at the two bytes after it.
		n := len(t) + len(eol)
		at := func(k int) byte {
			if k < len(t) {
				return t[k]
			}
			return eol[k-len(t)]
		}
		for j := 0; j < len(t); {
			// A run of bytes that stand for themselves.
			k := j
			for k < len(t) {
				if c := t[k]; c == '=' || c < ' ' && c != '\t' && c != '\r' || c == 0x7f {
					break
				}
				k++
			}
			out = append(out, t[j:k]...)
			if j = k; j == len(t) {
				break
			}
			if t[j] != '=' {
				return nil, false // a control byte
			}
			if j+2 < n {
				hi, ok1 := unhex(at(j + 1))
				lo, ok2 := unhex(at(j + 2))
				if ok1 && ok2 {
					out = append(out, hi<<4|lo)
					j += 3
					continue
				}
			}
			if n-j >= 2 && at(j+1) != '\r' && at(j+1) != '\n' {
				out = append(out, '=') // a literal =
				j++
				continue
			}
			return nil, false
		}
		out = append(out, eol...)
	}
	return out, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// crlfReader turns CRLF into LF; a lone CR stays.
type crlfReader struct {
	r    io.Reader
	buf  []byte
	data []byte // read, not yet returned
	err  error
}

func (c *crlfReader) Read(p []byte) (int, error) {
	if c.buf == nil {
		c.buf = make([]byte, 4<<10)
	}
	n := 0
	for n < len(p) {
		if len(c.data) == 0 {
			if c.err != nil || n > 0 {
				break
			}
			k, err := c.r.Read(c.buf)
			c.data, c.err = c.buf[:k], err
			continue
		}
		i := bytes.IndexByte(c.data, '\r')
		switch {
		case i < 0:
			k := copy(p[n:], c.data)
			n, c.data = n+k, c.data[k:]
		case i > 0:
			k := copy(p[n:], c.data[:i])
			n, c.data = n+k, c.data[k:]
		case len(c.data) == 1 && c.err == nil:
			// A CR ends what was read: see what follows it first.
			if n > 0 {
				return n, nil
			}
			c.buf[0] = '\r'
			k, err := c.r.Read(c.buf[1:])
			c.data, c.err = c.buf[:1+k], err
		case len(c.data) > 1 && c.data[1] == '\n':
			c.data = c.data[1:]
		default:
			p[n] = '\r'
			n, c.data = n+1, c.data[1:]
		}
	}
	if n == 0 && c.err != nil {
		return 0, c.err
	}
	return n, nil
}

// spaceDropper drops the whitespace MUAs put into base64 bodies beside
// line ends (encoding/base64 skips only CR and LF).
type spaceDropper struct{ r io.Reader }

func (s *spaceDropper) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		out := 0
		for _, b := range p[:n] {
			if b != ' ' && b != '\t' {
				p[out] = b
				out++
			}
		}
		if out > 0 || err != nil {
			return out, err
		}
	}
}

// mapMail fills what the envelope did not say from the mail's header.
func mapMail(m *core.Message, h mail.Header, part *envelopePart, o *readConfig) {
	dec := new(mime.WordDecoder)
	set := func(k, v string) {
		if v = strings.TrimSpace(v); v != "" {
			m.SetMeta(k, v)
		}
	}
	msgID := h.Get("Message-Id")
	inReplyTo := h.Get("In-Reply-To")
	set(MetaMessageID, msgID)
	set(MetaInReplyTo, inReplyTo)
	set(MetaReferences, h.Get("References"))
	from := addressOnly(h.Get("From"))
	replyTo := addressOnly(h.Get("Reply-To"))
	set(MetaFrom, from)
	set(MetaReplyTo, replyTo)
	set(MetaTo, h.Get("To"))
	deliveredTo := addressOnly(h.Get("Delivered-To"))
	set(MetaDeliveredTo, deliveredTo)
	if rp, ok := h["Return-Path"]; ok && len(rp) > 0 {
		m.SetMeta(MetaReturnPath, strings.Trim(strings.TrimSpace(rp[0]), "<>"))
	}
	subject := h.Get("Subject")
	if d, err := dec.DecodeHeader(subject); err == nil {
		subject = d
	}
	set(MetaSubject, subject)
	set(MetaDate, h.Get("Date"))
	soapAction := part.soapAction
	if soapAction == "" {
		soapAction = unquote(strings.TrimSpace(h.Get("Soapaction")))
	}
	set(MetaSOAPAction, soapAction)
	set(MetaContentType, part.contentType)

	if m.ID == "" {
		m.ID = IDFromMessageID(msgID)
	}
	if m.RelatesTo == "" {
		parent := inReplyTo
		if strings.TrimSpace(parent) == "" {
			parent = lastMsgID(h.Get("References"))
		}
		m.RelatesTo = IDFromMessageID(parent)
	}
	if m.Action == "" {
		m.Action = part.action
		if m.Action == "" {
			m.Action = soapAction
		}
	}
	if m.To == "" {
		to := deliveredTo
		if to == "" {
			to = addressOnly(h.Get("To"))
		}
		if to != "" {
			m.To = mailto(to)
		}
	}
	loop, ours := loopReason(h, o.addresses)
	explicitReply := m.ReplyTo != "" && m.ReplyTo != core.AnonymousAddress
	if loop != "" {
		m.SetMeta(MetaLoop, loop)
		if ours {
			m.ReplyTo, m.FaultTo = core.NoneAddress, core.NoneAddress
			return
		}
		if !explicitReply {
			m.ReplyTo = core.NoneAddress
			if m.FaultTo == "" || m.FaultTo == core.AnonymousAddress {
				m.FaultTo = core.NoneAddress
			}
		}
		return
	}
	if !explicitReply {
		back := replyTo
		if back == "" {
			back = from
		}
		if back != "" {
			m.ReplyTo = mailto(back)
		} else if m.ReplyTo == core.AnonymousAddress {
			m.ReplyTo = ""
		}
	}
	if m.FaultTo == core.AnonymousAddress {
		m.FaultTo = ""
	}
}
