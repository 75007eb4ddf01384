package mail

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	netmail "net/mail"
	"net/textproto"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// MaxHeaderBytes bounds the header of a mail Read reads (trace headers
// included). A MIME part's header is bounded by mime/multipart (10 MiB), and
// the whole mail by what the binding accepts.
const MaxHeaderBytes = 256 << 10

// maxPartDepth bounds the nesting of multipart bodies searched for the
// envelope.
const maxPartDepth = 4

// ReadConfig is how a mail is read into a message.
type ReadConfig struct {
	// Limits bound the envelope (the zero Limits is core's defaults).
	Limits core.Limits
	// Addresses are the service's own mail addresses, for the loop guard.
	Addresses []string
	// Prefix of the Meta keys set ("smtp.", "imap."): Prefix+KeyMessageID...
	Prefix string
	// Submitter, when set, verifies the value of the mail's first
	// SubmitterHeader (written by the server that authenticated the
	// submission) and returns the identity it records; Read sets
	// core.MetaSubmitter to it. A value it does not vouch for is ignored.
	Submitter func(value string) (identity string, ok bool)
}

// SubmitterHeader is the header in which the SMTP binding's server records
// the identity a session authenticated (SMTP AUTH), above the mail, with a
// MAC only its Maildir can make: "Soapwire-Submitter: user; mac=…".
const SubmitterHeader = "Soapwire-Submitter"

// Read reads a SOAP message from a mail (RFC 5322 text, as a Maildir file
// or an IMAP FETCH of BODY[] holds it). The envelope is the mail's body when
// its Content-Type is application/soap+xml, text/xml or application/xml (or
// absent), or the first part of such a type in a multipart body, searched
// depth first; quoted-printable and base64 transfer encodings are decoded.
// The envelope is read with core.ReadMessage under c.Limits: its header
// blocks now, its body lazily, from r.
//
// The message's fields come from the envelope's WS-Addressing headers and,
// where the envelope has none, from the mail (the W3C SOAP 1.2 Email
// Binding): ID from Message-ID and RelatesTo from In-Reply-To, else the
// last id of References (see IDFromMessageID), Action from the content
// type's action parameter or a SOAPAction header, To from Delivered-To or
// To, and ReplyTo (also when the envelope's is anonymous) from Reply-To,
// else From, as a mailto: address. Meta holds the mail's headers under
// c.Prefix and the Key* names.
//
// A mail the loop guard flags (a bounce, an auto-reply, a mailing list, or
// a mail carrying an X-Loop header naming one of c.Addresses) gets KeyLoop
// set to the reason and NoneAddress for the ReplyTo and FaultTo it would
// have taken from the mail, so core.Serve answers nothing; a mail naming
// this service in X-Loop gets NoneAddress even for addresses its envelope
// gives.
//
// Errors are *core.Fault: a Sender fault for a mail that is not a SOAP
// mail or is malformed, or the fault core.ReadMessage returned.
func Read(r io.Reader, c *ReadConfig) (*core.Message, error) {
	h, body, err := readHeader(r)
	return readMailBody(h, body, err, c)
}

// ReadBytes is Read for a mail in memory: it reads the header without a
// buffer of its own and decodes a single-part body at once instead of
// through readers (FuzzReadBytes: it reads as Read does). It may change
// data.
func ReadBytes(data []byte, c *ReadConfig) (*core.Message, error) {
	end := headerEnd(data)
	if end < 0 || end > MaxHeaderBytes {
		return Read(bytes.NewReader(data), c)
	}
	h, err := textproto.NewReader(bufio.NewReaderSize(bytes.NewReader(data[:end]), end)).ReadMIMEHeader()
	return readMailBody(h, &memBody{b: data[end:]}, err, c)
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

func readMailBody(h textproto.MIMEHeader, body io.Reader, err error, c *ReadConfig) (*core.Message, error) {
	if err != nil {
		return nil, &core.Fault{Code: core.CodeSender, Reason: "malformed mail header", Cause: err}
	}
	part, err := findEnvelope(textproto.MIMEHeader(h), body, 0, c.Limits)
	if err != nil {
		return nil, err
	}
	m := part.msg
	if m == nil {
		if m, err = core.ReadMessage(part.body, c.Limits); err != nil {
			return nil, err
		}
	}
	mapMail(m, netmail.Header(h), part, c)
	return m, nil
}

// readHeader reads a mail header of at most MaxHeaderBytes and returns
// it with a reader of the body.
func readHeader(r io.Reader) (textproto.MIMEHeader, io.Reader, error) {
	lr := &io.LimitedReader{R: r, N: MaxHeaderBytes}
	br := bufio.NewReaderSize(lr, 4096)
	h, err := textproto.NewReader(br).ReadMIMEHeader()
	if err != nil {
		if lr.N == 0 {
			return nil, nil, fmt.Errorf("header larger than %d bytes", MaxHeaderBytes)
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
	msg         *core.Message // read from a package (multipart/related), nil for a plain part
	body        io.Reader
	contentType string
	action      string // the action parameter
	soapAction  string // the part's SOAPAction header
}

func senderFault(format string, args ...any) *core.Fault {
	return &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf(format, args...)}
}

// findEnvelope returns the envelope part of a body with header h.
func findEnvelope(h textproto.MIMEHeader, body io.Reader, depth int, lim core.Limits) (*envelopePart, error) {
	p, err := envelopeIn(h, body, depth, lim)
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
func envelopeIn(h textproto.MIMEHeader, body io.Reader, depth int, lim core.Limits) (*envelopePart, error) {
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
	case mt == core.MediaTypeMultipartRel && packageType(params["type"]):
		return readPackage(h, ct, mt, params, body, lim)
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
			found, err := envelopeIn(p.Header, p, depth+1, lim)
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
