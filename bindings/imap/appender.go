package imap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	netmail "net/mail"
	"strconv"
	"strings"
	"sync"

	"github.com/emersion/go-imap/v2"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// Appender is a core.Sender that puts SOAP messages into a folder of an
// IMAP account by APPEND, as mails of the form bindings/smtp's Sender
// writes: a message's To is an imap:// or imaps:// address of the
// Appender's server and account, whose path names the folder. It serves
// tests, examples and queueing into a shared mailbox without an MTA; to
// mail a peer, use bindings/smtp's Sender. Safe for concurrent use (one
// connection, one APPEND at a time).
type Appender struct {
	e    endpoint
	from *netmail.Address
	to   *netmail.Address
	o    appenderConfig

	mu     sync.Mutex
	s      *session
	closed bool
}

var _ core.Sender = (*Appender)(nil)

// NewAppender returns an Appender into the account of addr (an imap:// or
// imaps:// address; its folder is the default of messages whose To has
// none) with from as the mails' From and X-Loop. It connects at the first
// Send.
func NewAppender(addr, from string, opts ...AppenderOption) (*Appender, error) {
	e, err := parseAddress(addr)
	if err != nil {
		return nil, err
	}
	f, err := mailfmt.ParseMailto(from)
	if err != nil {
		return nil, fmt.Errorf("imap: from %q: %w", from, err)
	}
	o := newAppenderConfig(opts)
	user := o.user
	if user == "" {
		user = e.user
	}
	to := &netmail.Address{Address: user}
	if !strings.Contains(user, "@") {
		to.Address = user + "@" + e.host
	}
	return &Appender{e: e, from: f, to: to, o: o}, nil
}

// Send appends m to the folder of m.To, which must name the Appender's
// server and account (else ErrAddress), as an RFC 5322 + MIME mail. On
// success m.Meta holds MetaMessageID and MetaAppendedUID.
func (a *Appender) Send(ctx context.Context, m *core.Message) error {
	to, err := parseAddress(m.To)
	if err != nil {
		return err
	}
	if !a.e.sameAccount(to) {
		return fmt.Errorf("imap: %q is not on the Appender's account %s: %w", m.To, a.e.withFolder(""), ErrAddress)
	}
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	subject := m.Meta[MetaSubject]
	if subject == "" {
		subject = a.o.subject
	}
	var data, scratch bytes.Buffer
	w, err := mailfmt.Compose(&data, &scratch, m, mailfmt.Header{From: a.from, To: a.to, Subject: subject})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("imap: append: %w", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return errors.New("imap: appender closed")
	}
	var uid imap.UID
	for attempt := 0; ; attempt++ {
		if a.s == nil {
			if a.s, err = dial(ctx, a.e, &a.o.clientConfig, ""); err != nil {
				return err
			}
		}
		stop := a.s.watch(ctx)
		uid, err = appendMail(a.s, to.folder, crlf(data.Bytes()), nil)
		stop()
		if err == nil {
			break
		}
		if isConnErr(err) {
			a.s.close()
			a.s = nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("imap: append to %s: %w", to.folder, ctx.Err())
		}
		if !isConnErr(err) || attempt > 0 {
			return fmt.Errorf("imap: append to %s: %w", to.folder, err)
		}
	}
	m.SetMeta(MetaMessageID, w.MessageID)
	if uid != 0 {
		m.SetMeta(MetaAppendedUID, strconv.FormatUint(uint64(uid), 10))
	}
	return nil
}

// crlf turns the LF line ends of a composed mail into CRLF, as IMAP wants
// them (an SMTP DATA writer does this for the smtp Sender).
func crlf(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/32)
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}

// Close logs out; later Sends fail.
func (a *Appender) Close() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.closed = true
	if a.s != nil {
		a.s.c.Logout().Wait()
		a.s.close()
		a.s = nil
	}
	return nil
}
