package smtp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
)

type backend struct {
	s   *Server
	ctx context.Context
}

func (b *backend) NewSession(c *gosmtp.Conn) (gosmtp.Session, error) {
	return &session{s: b.s, ctx: b.ctx, c: c, cc: findCapConn(c.Conn())}, nil
}

// session is one SMTP session's state.
type session struct {
	s      *Server
	ctx    context.Context
	c      *gosmtp.Conn
	cc     *capConn
	authed bool
	user   string
	from   string
	rcpts  []string
}

var _ gosmtp.AuthSession = (*session)(nil)

func (ss *session) remote() string {
	if a := ss.c.Conn().RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}

func (ss *session) log() *slog.Logger {
	return ss.s.o.log.With(slog.String("remote", ss.remote()))
}

func smtpError(code int, enh gosmtp.EnhancedCode, msg string) *gosmtp.SMTPError {
	return &gosmtp.SMTPError{Code: code, EnhancedCode: enh, Message: msg}
}

func (ss *session) AuthMechanisms() []string {
	if ss.s.o.auth == nil {
		return nil
	}
	return []string{sasl.Plain, sasl.Login}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	switch mech {
	case sasl.Plain:
		return sasl.NewPlainServer(func(identity, user, pass string) error {
			return ss.check(identity, user, pass)
		}), nil
	case sasl.Login:
		return &loginServer{check: func(user, pass string) error { return ss.check("", user, pass) }}, nil
	}
	return nil, smtpError(504, gosmtp.EnhancedCode{5, 5, 4}, "Unrecognized authentication mechanism")
}

func (ss *session) check(identity, user, pass string) error {
	if ss.s.o.auth == nil {
		return gosmtp.ErrAuthUnsupported
	}
	if identity != "" && identity != user {
		ss.s.refused(ss.log(), "smtp: AUTH refused: authorization identity differs from the user", slog.String("user", user))
		return gosmtp.ErrAuthFailed
	}
	if !ss.s.o.auth(ss.ctx, user, pass) {
		ss.s.refused(ss.log(), "smtp: AUTH refused: wrong credentials", slog.String("user", user))
		return gosmtp.ErrAuthFailed
	}
	ss.authed, ss.user = true, user
	return nil
}

func (ss *session) isTLS() bool {
	_, ok := ss.c.TLSConnectionState()
	return ok
}

func (ss *session) Mail(from string, _ *gosmtp.MailOptions) error {
	if ss.s.o.requireTLS && !ss.isTLS() {
		ss.s.refused(ss.log(), "smtp: MAIL refused: STARTTLS required")
		return smtpError(530, gosmtp.EnhancedCode{5, 7, 0}, "Must issue a STARTTLS command first")
	}
	if ss.s.o.auth != nil && !ss.authed {
		ss.s.refused(ss.log(), "smtp: MAIL refused: AUTH required")
		return smtpError(530, gosmtp.EnhancedCode{5, 7, 0}, "Authentication required")
	}
	ss.from, ss.rcpts = from, ss.rcpts[:0]
	if ss.cc != nil {
		// A mail is being received from here to its end (Data, Reset): a
		// shutdown lets it finish. (go-smtp reads a BDAT chunk before it
		// calls Data, and answers a failed read of it 554.)
		ss.cc.setInData(true)
	}
	return nil
}

func (ss *session) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	if !ss.s.accepts(to) {
		ss.s.refused(ss.log(), "smtp: RCPT refused: not one of the server's addresses", slog.String("rcpt", to))
		return smtpError(550, gosmtp.EnhancedCode{5, 1, 1}, "No such mailbox here")
	}
	ss.rcpts = append(ss.rcpts, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	if ss.cc != nil {
		ss.cc.setInData(true)
		defer ss.cc.setInData(false)
	}
	name, err := ss.s.mb.deliver(ss.traceHeaders(), r)
	var rerr *readError
	switch {
	case err == nil:
		ss.log().Debug("smtp: mail delivered", slog.String("file", name), slog.String("from", ss.from))
		return smtpError(250, gosmtp.EnhancedCode{2, 0, 0}, "OK: queued as "+name)
	case errors.Is(err, gosmtp.ErrDataTooLarge):
		ss.s.refused(ss.log(), "smtp: mail refused: too large", slog.Int64("max", ss.s.o.maxMessageBytes))
		return gosmtp.ErrDataTooLarge
	case errors.Is(err, gosmtp.ErrTooLongLine):
		ss.s.refused(ss.log(), "smtp: mail refused: line too long", slog.Int("max", ss.s.o.maxLineLength))
		return smtpError(500, gosmtp.EnhancedCode{5, 5, 2}, "Line too long")
	case errors.As(err, &rerr):
		var ne net.Error
		if !errors.As(err, &ne) || !ne.Timeout() {
			// (a session cut by its budget is logged, at most once in a
			// while, by the Server)
			ss.s.refused(ss.log(), "smtp: mail not received", slog.Any("err", err))
		}
		return smtpError(451, gosmtp.EnhancedCode{4, 4, 2}, "Error reading the mail, try again")
	default:
		ss.log().Error("smtp: mail not stored; answered 451", slog.Any("err", err))
		return smtpError(451, gosmtp.EnhancedCode{4, 3, 0}, "Mailbox temporarily unavailable, try again later")
	}
}

// traceHeaders returns the Return-Path, Delivered-To and Received headers
// written above the mail (RFC 5321 §4.4).
func (ss *session) traceHeaders() []byte {
	var b bytes.Buffer
	if ss.authed {
		// first, above anything the mail carries: who authenticated
		b.WriteString(ss.s.mb.submitterHeader(ss.user))
	}
	b.WriteString("Return-Path: <")
	b.WriteString(ss.from)
	b.WriteString(">\r\n")
	for _, r := range ss.rcpts {
		b.WriteString("Delivered-To: ")
		b.WriteString(r)
		b.WriteString("\r\n")
	}
	with := "ESMTP"
	if ss.isTLS() {
		with += "S"
	}
	if ss.authed {
		with += "A"
	}
	ip := ss.remote()
	if h, _, err := net.SplitHostPort(ip); err == nil {
		ip = h
	}
	b.WriteString("Received: from ")
	b.WriteString(ss.c.Hostname())
	b.WriteString(" ([")
	b.WriteString(ip)
	b.WriteString("])\r\n\tby ")
	b.WriteString(ss.s.o.hostname)
	b.WriteString(" (soapwire) with ")
	b.WriteString(with)
	if len(ss.rcpts) == 1 {
		b.WriteString("\r\n\tfor <")
		b.WriteString(ss.rcpts[0])
		b.WriteString(">")
	}
	b.WriteString("; ")
	b.WriteString(time.Now().Format(time.RFC1123Z))
	b.WriteString("\r\n")
	return b.Bytes()
}

func (ss *session) Reset() {
	ss.from, ss.rcpts = "", ss.rcpts[:0]
	if ss.cc != nil {
		ss.cc.setInData(false)
	}
}

func (ss *session) Logout() error { return nil }

// loginServer is the server side of AUTH LOGIN (go-sasl has only the
// client): "Username:", then "Password:", each answered in base64.
type loginServer struct {
	check func(user, pass string) error
	state int
	user  string
}

func (l *loginServer) Next(resp []byte) ([]byte, bool, error) {
	switch l.state {
	case 0:
		if len(resp) == 0 {
			l.state = 1
			return []byte("Username:"), false, nil
		}
		l.user, l.state = string(resp), 2
		return []byte("Password:"), false, nil
	case 1:
		l.user, l.state = string(resp), 2
		return []byte("Password:"), false, nil
	case 2:
		l.state = 3
		return nil, true, l.check(l.user, string(resp))
	}
	return nil, false, sasl.ErrUnexpectedClientResponse
}
