package smtp

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-sasl"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
)

// The Sender's SMTP client (RFC 5321). It is this package's own rather than
// go-smtp's because go-smtp's client cannot pipeline: with a server that
// offers PIPELINING (RFC 2920) a mail takes two round trips instead of four
// (MAIL, RCPT and DATA go out in one write; then the data), and one when
// the server offers CHUNKING too (RFC 3030: MAIL, RCPT, BDAT and the mail
// in one write); and it writes the data in one piece, not byte by byte.

// Bounds on what the client reads from a server.
const (
	maxReplyLine  = 4 << 10 // bytes in a reply line, with its CRLF
	maxReplyLines = 256     // lines in a multiline reply
)

// maxBDAT bounds the mails sent with BDAT in the same write as MAIL and
// RCPT: a larger one waits for their replies (DATA), so that megabytes are
// not sent to a server that refuses them.
const maxBDAT = 1 << 20

// tooLarge reports whether the server's SIZE (RFC 1870) says n bytes are
// too many: it will refuse the mail at MAIL.
func (cl *client) tooLarge(n int) bool {
	max, err := strconv.ParseInt(strings.TrimSpace(cl.ext["SIZE"]), 10, 64)
	return err == nil && max > 0 && int64(n) > max
}

// submissionTimeout bounds a transaction whose ctx has no deadline, as
// go-smtp's client did (SubmissionTimeout).
const submissionTimeout = 12 * time.Minute

// client is one SMTP session of a Sender.
type client struct {
	conn *capConn      // the TCP connection, deadlines capped by ctx
	nc   net.Conn      // conn, or a *tls.Conn over it
	br   *bufio.Reader // reads nc
	buf  []byte        // commands and data being written
	body []byte        // a mail's data for BDAT

	ext        map[string]string // EHLO keywords (upper case) and their parameters
	pipelining bool
	chunking   bool // CHUNKING (RFC 3030): BDAT
	size       bool

	used   time.Time
	reused bool
}

func newClient(c *capConn) *client {
	return &client{conn: c, nc: c, br: bufio.NewReaderSize(c, maxReplyLine)}
}

// reply is one SMTP reply.
type reply struct {
	code     int
	enhanced string // "2.0.0", or ""
	text     string // the lines' text without the code, joined by "\n"; the enhanced code taken off the first
}

// errorFor returns the reply as a refusal of cmd.
func (r reply) errorFor(cmd string) *StatusError {
	return &StatusError{Command: cmd, Code: r.code, Enhanced: r.enhanced, Message: r.text}
}

// readReply reads one reply, single or multiline.
func (cl *client) readReply() (reply, error) {
	var r reply
	var text strings.Builder
	for i := 0; ; i++ {
		if i == maxReplyLines {
			return r, fmt.Errorf("smtp: reply of more than %d lines", maxReplyLines)
		}
		line, err := cl.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			return r, fmt.Errorf("smtp: reply line longer than %d bytes", maxReplyLine)
		}
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return r, err
		}
		code, more, t, err := parseReplyLine(line)
		if err != nil {
			return r, err
		}
		if i == 0 {
			r.code = code
		} else if code != r.code {
			return r, fmt.Errorf("smtp: multiline reply with codes %d and %d", r.code, code)
		}
		if i > 0 {
			text.WriteByte('\n')
		}
		text.WriteString(t)
		if !more {
			break
		}
	}
	r.text = text.String()
	r.enhanced, r.text = cutEnhanced(r.code, r.text)
	return r, nil
}

// parseReplyLine splits a reply line ("250-text\r\n", "250 text\r\n",
// "250\r\n") into its code, whether more lines follow, and its text.
func parseReplyLine(line []byte) (code int, more bool, text string, err error) {
	s := strings.TrimRight(string(line), "\r\n")
	if len(s) < 3 || s[0] < '2' || s[0] > '5' || s[1] < '0' || s[1] > '9' || s[2] < '0' || s[2] > '9' {
		return 0, false, "", fmt.Errorf("smtp: malformed reply %q", truncate(s, 64))
	}
	code = int(s[0]-'0')*100 + int(s[1]-'0')*10 + int(s[2]-'0')
	if len(s) == 3 {
		return code, false, "", nil
	}
	switch s[3] {
	case ' ':
	case '-':
		more = true
	default:
		return 0, false, "", fmt.Errorf("smtp: malformed reply %q", truncate(s, 64))
	}
	return code, more, s[4:], nil
}

// cutEnhanced takes an enhanced status code (RFC 3463) off the start of
// text when its class matches code's.
func cutEnhanced(code int, text string) (string, string) {
	first, rest, _ := strings.Cut(text, " ")
	parts := strings.Split(first, ".")
	if len(parts) != 3 || parts[0] != strconv.Itoa(code/100) {
		return "", text
	}
	for _, p := range parts {
		if n, err := strconv.Atoi(p); err != nil || n < 0 || len(p) > 3 {
			return "", text
		}
	}
	return first, rest
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// send writes cl.buf.
func (cl *client) send() error {
	_, err := cl.nc.Write(cl.buf)
	return err
}

// cmd sends one command line and reads its reply.
func (cl *client) cmd(line string) (reply, error) {
	cl.buf = append(append(cl.buf[:0], line...), "\r\n"...)
	if err := cl.send(); err != nil {
		return reply{}, err
	}
	return cl.readReply()
}

// hello reads the greeting and says EHLO (HELO when the server refuses
// EHLO), and records the extensions.
func (cl *client) greet(hostname string) (string, error) {
	r, err := cl.readReply()
	if err != nil {
		return "CONNECT", err
	}
	if r.code != 220 {
		return "CONNECT", r.errorFor("CONNECT")
	}
	if err := cl.ehlo(hostname); err != nil {
		return "EHLO", err
	}
	return "", nil
}

func (cl *client) ehlo(hostname string) error {
	r, err := cl.cmd("EHLO " + hostname)
	if err != nil {
		return err
	}
	cl.ext, cl.pipelining, cl.chunking, cl.size = map[string]string{}, false, false, false
	if r.code/100 == 5 {
		r, err = cl.cmd("HELO " + hostname)
		if err != nil {
			return err
		}
		if r.code != 250 {
			return r.errorFor("HELO")
		}
		return nil
	}
	if r.code != 250 {
		return r.errorFor("EHLO")
	}
	lines := strings.Split(r.text, "\n")
	for _, l := range lines[1:] { // the first is the server's greeting
		k, v, _ := strings.Cut(strings.TrimSpace(l), " ")
		cl.ext[strings.ToUpper(k)] = v
	}
	_, cl.pipelining = cl.ext["PIPELINING"]
	_, cl.size = cl.ext["SIZE"]
	_, cl.chunking = cl.ext["CHUNKING"]
	return nil
}

// startTLS says STARTTLS and does the TLS handshake, then EHLO again.
func (cl *client) startTLS(ctx context.Context, cfg *tls.Config, hostname string) error {
	if _, ok := cl.ext["STARTTLS"]; !ok {
		return ErrNoTLS
	}
	r, err := cl.cmd("STARTTLS")
	if err != nil {
		return err
	}
	if r.code != 220 {
		return r.errorFor("STARTTLS")
	}
	tc := tls.Client(cl.conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return err
	}
	cl.nc = tc
	cl.br.Reset(tc)
	return cl.ehlo(hostname)
}

// auth authenticates with PLAIN or LOGIN, whichever the server offers.
func (cl *client) auth(user, pass string) error {
	mechs, ok := cl.ext["AUTH"]
	list := strings.Fields(strings.ToUpper(mechs))
	var a sasl.Client
	switch {
	case ok && slices.Contains(list, sasl.Plain):
		a = sasl.NewPlainClient("", user, pass)
	case ok && slices.Contains(list, sasl.Login):
		a = sasl.NewLoginClient(user, pass)
	default:
		return ErrNoAuth
	}
	return cl.authWith(a)
}

// oauthMech returns the OAuth mechanism the server offers: OAUTHBEARER,
// else XOAUTH2, else "".
func (cl *client) oauthMech() string {
	mechs, ok := cl.ext["AUTH"]
	list := strings.Fields(strings.ToUpper(mechs))
	switch {
	case ok && slices.Contains(list, mailfmt.MechOAuthBearer):
		return mailfmt.MechOAuthBearer
	case ok && slices.Contains(list, mailfmt.MechXOAuth2):
		return mailfmt.MechXOAuth2
	}
	return ""
}

// authWith runs the SASL exchange of a.
func (cl *client) authWith(a sasl.Client) error {
	mech, resp, err := a.Start()
	if err != nil {
		return err
	}
	line := "AUTH " + mech
	if resp != nil {
		line += " " + b64(resp)
	}
	r, err := cl.cmd(line)
	for {
		if err != nil {
			return err
		}
		switch r.code {
		case 235:
			return nil
		case 334:
		default:
			return r.errorFor("AUTH")
		}
		challenge, derr := base64.StdEncoding.DecodeString(r.text)
		if derr == nil {
			resp, derr = a.Next(challenge)
		}
		if derr != nil {
			cl.cmd("*") // cancels the exchange (RFC 4954)
			return fmt.Errorf("smtp: AUTH %s: %w", mech, derr)
		}
		if len(resp) == 0 {
			r, err = cl.cmd("") // an empty response (XOAUTH2 after its error challenge)
		} else {
			r, err = cl.cmd(b64(resp))
		}
	}
}

func b64(b []byte) string {
	if len(b) == 0 {
		return "="
	}
	return base64.StdEncoding.EncodeToString(b)
}

// watch makes ctx's deadline and cancellation reach the session's I/O
// (a ctx without a deadline gets submissionTimeout). stop unhooks ctx; the
// caps stay (nothing reads or writes an idle session, and its next use sets
// its own).
func (cl *client) watch(ctx context.Context) (stop func()) {
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(submissionTimeout)
	}
	cl.conn.setCaps(dl, dl)
	past := time.Unix(1, 0)
	unhook := context.AfterFunc(ctx, func() { cl.conn.setCaps(past, past) })
	return func() { unhook() }
}

// transact sends one mail and returns the server's answer to its data; on
// an error, cmd names the command that failed ("MAIL", "RCPT" or "DATA",
// which stands for BDAT too) and a refusal is a *StatusError. With
// PIPELINING, MAIL, RCPT and DATA go out together and their replies are
// read after; with CHUNKING too, MAIL, RCPT and BDAT with the whole mail go
// out in one write: one round trip. A refusal of any of them is reported
// for the command refused first.
func (cl *client) transact(ctx context.Context, from, rcpt string, data []byte) (resp, cmd string, err error) {
	if strings.ContainsAny(from, "\r\n") || strings.ContainsAny(rcpt, "\r\n") {
		return "", "MAIL", ErrHeaderInjection
	}
	stop := cl.watch(ctx)
	defer stop()
	bdat := cl.pipelining && cl.chunking && len(data) <= maxBDAT && !cl.tooLarge(len(data))
	size := int64(len(data))
	if bdat {
		cl.body = appendMessage(cl.body[:0], data, false)
		size = int64(len(cl.body))
	}
	b := append(cl.buf[:0], "MAIL FROM:<"...)
	b = append(b, from...)
	b = append(b, '>')
	if cl.size {
		b = append(b, " SIZE="...)
		b = strconv.AppendInt(b, size, 10)
	}
	b = append(b, "\r\n"...)
	cmds := [3]string{"MAIL", "RCPT", "DATA"}
	if cl.pipelining {
		b = append(b, "RCPT TO:<"...)
		b = append(b, rcpt...)
		b = append(b, ">\r\n"...)
		last := [3]int{250, 250, 354}
		if bdat {
			// The whole mail in one write: BDAT (RFC 3030) takes the data
			// without dot-stuffing and without waiting for a 354; a server
			// that refuses MAIL or RCPT still reads and drops it.
			b = append(b, "BDAT "...)
			b = strconv.AppendInt(b, int64(len(cl.body)), 10)
			b = append(b, " LAST\r\n"...)
			b = append(b, cl.body...)
			last[2] = 250
		} else {
			b = append(b, "DATA\r\n"...)
		}
		cl.buf = b
		if err := cl.send(); err != nil {
			return "", "MAIL", err
		}
		var refused *StatusError
		var r reply
		for i, want := range last {
			r, err = cl.readReply()
			if err != nil {
				if refused != nil {
					// The refusal explains it (a 421 closes the session
					// before the other replies).
					cl.close()
					return "", refused.Command, refused
				}
				return "", cmds[i], err
			}
			ok := want == 250 && r.code/100 == 2 || want == 354 && r.code == 354
			switch {
			case ok && refused != nil && i == 2 && !bdat:
				// A broken server took DATA after refusing MAIL or RCPT:
				// only closing the session stops an empty mail now.
				cl.close()
				return "", refused.Command, refused
			case !ok && refused == nil:
				refused = r.errorFor(cmds[i])
			}
		}
		if refused != nil {
			return "", refused.Command, refused
		}
		if bdat {
			return r.text, "", nil
		}
	} else {
		cl.buf = b
		for i, line := range [3]string{"", "RCPT TO:<" + rcpt + ">", "DATA"} {
			var r reply
			var err error
			if i == 0 {
				if err = cl.send(); err == nil {
					r, err = cl.readReply()
				}
			} else {
				r, err = cl.cmd(line)
			}
			if err != nil {
				return "", cmds[i], err
			}
			if want := [3]int{250, 250, 354}[i]; r.code != want && !(want == 250 && r.code/100 == 2) {
				return "", cmds[i], r.errorFor(cmds[i])
			}
		}
	}
	cl.buf = appendMessage(cl.buf[:0], data, true)
	if err := cl.send(); err != nil {
		return "", "DATA", err
	}
	r, err := cl.readReply()
	if err != nil {
		return "", "DATA", err
	}
	if r.code/100 != 2 {
		return "", "DATA", r.errorFor("DATA")
	}
	return r.text, "", nil
}

// appendDotStuffed appends data as the DATA command sends it.
func appendDotStuffed(dst, data []byte) []byte { return appendMessage(dst, data, true) }

// appendMessage appends data as the DATA command sends it (dot true): line
// ends made CRLF, a dot starting a line doubled, and the final ".\r\n"
// (the rules of net/textproto's DotWriter, which go-smtp's client used);
// or (dot false) as BDAT sends it: the same bytes without the doubled dots
// and the final ".\r\n", which is what a server stores either way.
func appendMessage(dst, data []byte, dot bool) []byte {
	const (
		beginLine = iota
		inData
		afterCR
	)
	state, empty := beginLine, len(data) == 0
	dst = slices.Grow(dst, len(data)+len(data)/64+8)
	for len(data) > 0 {
		if state == inData {
			// Copy up to the next CR or LF at once.
			i := 0
			for i < len(data) && data[i] != '\r' && data[i] != '\n' {
				i++
			}
			dst, data = append(dst, data[:i]...), data[i:]
			if len(data) == 0 {
				break
			}
		}
		c := data[0]
		switch state {
		case beginLine, inData:
			if dot && state == beginLine && c == '.' {
				dst = append(dst, '.')
			}
			state = inData
			switch c {
			case '\r':
				state = afterCR
			case '\n':
				dst = append(dst, '\r')
				state = beginLine
			}
		case afterCR:
			state = inData
			if c == '\n' {
				state = beginLine
			}
		}
		dst, data = append(dst, c), data[1:]
	}
	switch state {
	case inData:
		dst = append(dst, "\r\n"...)
	case afterCR:
		dst = append(dst, '\n')
	default:
		if empty {
			dst = append(dst, "\r\n"...)
		}
	}
	if dot {
		dst = append(dst, ".\r\n"...)
	}
	return dst
}

// reset says RSET, after a refusal, so the session can send another mail.
func (cl *client) reset() error {
	r, err := cl.cmd("RSET")
	if err != nil {
		return err
	}
	if r.code != 250 {
		return r.errorFor("RSET")
	}
	return nil
}

func (cl *client) close() {
	cl.conn.setCaps(time.Now().Add(time.Second), time.Now().Add(time.Second))
	cl.nc.Close()
}

// quit ends the session politely.
func (cl *client) quit() {
	cl.conn.setCaps(time.Now().Add(time.Second), time.Now().Add(time.Second))
	cl.cmd("QUIT")
	cl.nc.Close()
}
