package smtp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/mail"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// Sender sends SOAP messages as mail through one SMTP server (a relay, the
// peer's MTA, or a Server): a core.Sender, safe for concurrent use. It keeps
// up to WithMaxSessions sessions open and reuses them (a session per mail
// costs several times a reused one).
type Sender struct {
	addr   string
	from   *mail.Address
	o      senderConfig
	sem    chan struct{}
	bufs   sync.Pool // of *bytes.Buffer, for composing mails
	lastTo atomic.Pointer[lastTo]

	mu     sync.Mutex
	idle   []*client
	closed bool
}

var _ core.Sender = (*Sender)(nil)

// NewSender returns a Sender submitting to the SMTP server at addr
// ("host:port") with from as the mail's From, envelope sender and X-Loop.
// It fails if from is not one plain mail address.
func NewSender(addr, from string, opts ...SenderOption) (*Sender, error) {
	a, err := mailfmt.ParseMailto(from)
	if err != nil {
		return nil, err
	}
	o := newSenderConfig(opts)
	return &Sender{addr: addr, from: a, o: o, sem: make(chan struct{}, max(o.maxSessions, 1))}, nil
}

// Send mails m to m.To, a mailto: address, and returns once the server
// accepted it (250). The mail's Message-ID stands for m.ID (Send gives m a
// fresh ID when it has none, so the mail and the envelope agree); a reply
// (RelatesTo set) carries In-Reply-To and References for it and
// Auto-Submitted: auto-replied. See the package documentation for the
// mail's form.
//
// Before anything is sent, CR, LF or NUL in an address, the subject or the
// action is ErrHeaderInjection, and an address that is not one mail address
// ErrAddress. A 4xx reply or a network error is tried again with backoff
// (WithRetry); a 5xx is a *StatusError (ErrRefused), as is a 4xx that
// lasted through the tries (ErrTemporary). ctx bounds all of it.
//
// On success m.Meta holds MetaMessageID, MetaInReplyTo (for a reply) and
// MetaQueuedAs, the server's answer to the data.
func (s *Sender) Send(ctx context.Context, m *core.Message) error {
	to, err := s.recipient(m.To)
	if err != nil {
		return err
	}
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	c, err := s.compose(m, to)
	if err != nil {
		return err
	}
	defer c.release(s)
	var last error
	for attempt := range s.o.attempts {
		if attempt > 0 {
			d := s.o.backoff << (attempt - 1)
			d += rand.N(d/2 + 1)
			s.o.log.WarnContext(ctx, "smtp: send failed; retrying", slog.String("to", to.Address), slog.Any("err", last), slog.Duration("in", d))
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("smtp: send to %s: %w (last: %v)", to.Address, ctx.Err(), last)
			}
		}
		resp, err := s.try(ctx, to.Address, c.data)
		if err == nil {
			m.SetMeta(MetaMessageID, c.messageID)
			if c.inReplyTo != "" {
				m.SetMeta(MetaInReplyTo, c.inReplyTo)
			}
			m.SetMeta(MetaQueuedAs, resp)
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("smtp: send to %s: %w", to.Address, ctx.Err())
		}
		var se *StatusError
		var ce *tls.CertificateVerificationError
		if errors.As(err, &se) && !se.Temporary() || errors.As(err, &ce) ||
			errors.Is(err, ErrClosed) || errors.Is(err, ErrNoTLS) || errors.Is(err, ErrNoAuth) || errors.Is(err, errNoRetry) {
			s.o.log.WarnContext(ctx, "smtp: mail refused", slog.String("to", to.Address), slog.Any("err", err))
			return err
		}
		last = err
	}
	return fmt.Errorf("smtp: send to %s: gave up after %d tries: %w", to.Address, s.o.attempts, last)
}

// lastTo is the last recipient parsed, kept: a Sender mostly mails the same
// address again.
type lastTo struct {
	raw  string
	addr *mail.Address
}

// recipient parses a mailto: address (see mailfmt.ParseMailto), reusing the last
// one parsed when it is the same.
func (s *Sender) recipient(raw string) (*mail.Address, error) {
	if l := s.lastTo.Load(); l != nil && l.raw == raw {
		a := *l.addr
		return &a, nil
	}
	a, err := mailfmt.ParseMailto(raw)
	if err != nil {
		return nil, err
	}
	c := *a
	s.lastTo.Store(&lastTo{raw: raw, addr: &c})
	return a, nil
}

// try sends data once: on a pooled session (once more on a fresh one if the
// pooled one turns out dead before the data went), or a new one.
func (s *Sender) try(ctx context.Context, rcpt string, data []byte) (string, error) {
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.sem }()
	for {
		cl, err := s.get(ctx)
		if err != nil {
			return "", err
		}
		resp, cmd, err := cl.transact(ctx, s.from.Address, rcpt, data)
		if err == nil {
			s.put(cl)
			return resp, nil
		}
		var se *StatusError
		if errors.As(err, &se) && ctx.Err() == nil {
			if se.Code == 421 && cl.reused && cmd == "MAIL" {
				cl.close() // a pooled session the server had timed out
				continue
			}
			// The server refused: the session is still good, unless the
			// server is closing it (421).
			if se.Code != 421 && cl.reset() == nil {
				s.put(cl)
			} else {
				cl.close()
			}
			return "", se
		}
		cl.close()
		if cl.reused && cmd == "MAIL" && ctx.Err() == nil {
			continue // a pooled session the server had closed
		}
		return "", fmt.Errorf("smtp: %s: %w", cmd, err)
	}
}

// get returns a pooled session or a new one.
func (s *Sender) get(ctx context.Context) (*client, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	for len(s.idle) > 0 {
		cl := s.idle[len(s.idle)-1]
		s.idle = s.idle[:len(s.idle)-1]
		if time.Since(cl.used) < s.o.idleTimeout {
			s.mu.Unlock()
			cl.reused = true
			return cl, nil
		}
		go cl.quit()
	}
	s.mu.Unlock()
	return s.dial(ctx)
}

func (s *Sender) put(cl *client) {
	cl.used = time.Now()
	s.mu.Lock()
	if s.closed || len(s.idle) >= cap(s.sem) {
		s.mu.Unlock()
		go cl.quit()
		return
	}
	s.idle = append(s.idle, cl)
	s.mu.Unlock()
}

// dial opens a session: EHLO, STARTTLS (WithTLS) and AUTH (WithCredentials),
// all within WithDialTimeout.
func (s *Sender) dial(parent context.Context) (*client, error) {
	ctx, cancel := context.WithTimeout(parent, s.o.dialTimeout)
	defer cancel()
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		if parent.Err() != nil {
			err = parent.Err()
		}
		return nil, fmt.Errorf("smtp: dial %s: %w", s.addr, err)
	}
	cc := newCapConn(raw)
	cc.idle = s.o.ioTimeout
	cl := newClient(cc)
	stop := cl.watch(ctx)
	fail := func(stage string, err error) (*client, error) {
		stop()
		cl.close()
		var se *StatusError
		if errors.As(err, &se) {
			return nil, se
		}
		if parent.Err() != nil {
			err = parent.Err()
		} else if ctx.Err() != nil {
			err = fmt.Errorf("%w (WithDialTimeout %v)", os.ErrDeadlineExceeded, s.o.dialTimeout)
		}
		return nil, fmt.Errorf("smtp: %s %s: %w", stage, s.addr, err)
	}
	if stage, err := cl.greet(s.o.hostname); err != nil {
		return fail(stage, err)
	}
	if s.o.tls != nil {
		cfg := s.o.tls.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(s.addr)
		}
		if err := cl.startTLS(ctx, cfg, s.o.hostname); err != nil {
			return fail("STARTTLS", err)
		}
	}
	switch {
	case s.o.token != nil:
		if err := s.oauth(ctx, cl); err != nil {
			return fail("AUTH", err)
		}
	case s.o.hasCreds:
		if err := cl.auth(s.o.user, s.o.pass); err != nil {
			return fail("AUTH", err)
		}
	}
	if ctx.Err() != nil {
		return fail("EHLO", ctx.Err())
	}
	stop()
	return cl, nil
}

// oauth authenticates cl with WithOAuth's token.
func (s *Sender) oauth(ctx context.Context, cl *client) error {
	mech := cl.oauthMech()
	if mech == "" {
		return fmt.Errorf("%w: the server offers neither AUTH OAUTHBEARER nor AUTH XOAUTH2", ErrNoAuth)
	}
	token, err := s.o.token(ctx)
	if err != nil {
		return fmt.Errorf("%w: the OAuth token: %w", errNoRetry, err)
	}
	user := s.o.user
	if user == "" {
		user = s.from.Address
	}
	host, portText, _ := net.SplitHostPort(s.addr)
	port, _ := strconv.Atoi(portText)
	ir, err := mailfmt.OAuthResponse(mech, user, token, host, port)
	if err != nil {
		return fmt.Errorf("%w: %w", errNoRetry, err)
	}
	return cl.authWith(&mailfmt.OAuthClient{Mech: mech, IR: ir})
}

// errNoRetry marks an error Send does not try again.
var errNoRetry = errors.New("smtp: not tried again")

// Close ends the idle sessions (QUIT); Sends in progress finish, and later
// ones fail with ErrClosed.
func (s *Sender) Close() error {
	s.mu.Lock()
	s.closed = true
	idle := s.idle
	s.idle = nil
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, cl := range idle {
		wg.Add(1)
		go func() { defer wg.Done(); cl.quit() }()
	}
	wg.Wait()
	return nil
}
