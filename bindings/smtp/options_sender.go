package smtp

import (
	"context"
	"log/slog"
	"time"
)

// senderConfig is what NewSender takes.
type senderConfig struct {
	sessionConfig
	log         *slog.Logger
	user, pass  string
	hasCreds    bool
	token       func(ctx context.Context) (string, error)
	dialTimeout time.Duration
	idleTimeout time.Duration
	attempts    int
	backoff     time.Duration
	subject     string
}

func newSenderConfig(opts []SenderOption) senderConfig {
	c := senderConfig{
		sessionConfig: sessionConfig{maxSessions: DefaultMaxConns, ioTimeout: DefaultIOTimeout},
		dialTimeout:   DefaultDialTimeout,
		idleTimeout:   DefaultIdleTimeout,
		attempts:      DefaultAttempts,
		backoff:       DefaultBackoff,
	}
	for _, o := range opts {
		o.applySender(&c)
	}
	if c.log == nil {
		c.log = discard()
	}
	if c.hostname == "" {
		c.hostname = defaultHostname()
	}
	return c
}

// senderOptionFunc is an option of the Sender alone.
type senderOptionFunc func(*senderConfig)

func (f senderOptionFunc) applySender(c *senderConfig) { f(c) }

// WithCredentials makes the Sender authenticate with AUTH PLAIN, or AUTH
// LOGIN when the server offers only that.
func WithCredentials(user, pass string) SenderOption {
	return senderOptionFunc(func(c *senderConfig) { c.user, c.pass, c.hasCreds = user, pass, true })
}

// WithOAuth makes the Sender authenticate with an OAuth 2.0 bearer token,
// as Microsoft 365's and Gmail's submission servers require: AUTH
// OAUTHBEARER (RFC 7628) when the server offers it, else AUTH XOAUTH2
// (ErrNoAuth when it offers neither). token is called for each session, so
// it may return a fresh token; its error fails that session (not tried
// again). user is the mailbox's user (the From address when empty).
func WithOAuth(user string, token func(ctx context.Context) (string, error)) SenderOption {
	return senderOptionFunc(func(c *senderConfig) { c.user, c.token = user, token })
}

// DefaultDialTimeout bounds opening a session.
const DefaultDialTimeout = time.Minute

// WithDialTimeout bounds opening a session: connecting, the server's
// greeting, EHLO, STARTTLS and AUTH (default DefaultDialTimeout; d <= 0
// keeps the default). A Send's ctx bounds it too. A session that could not
// be opened in time is a network error: Send tries again (WithRetry).
func WithDialTimeout(d time.Duration) SenderOption {
	return senderOptionFunc(func(c *senderConfig) {
		if d > 0 {
			c.dialTimeout = d
		}
	})
}

// DefaultIdleTimeout is how long an unused session is kept for reuse.
const DefaultIdleTimeout = 30 * time.Second

// WithIdleTimeout is how long the Sender keeps an unused session open for
// reuse. Default DefaultIdleTimeout.
func WithIdleTimeout(d time.Duration) SenderOption {
	return senderOptionFunc(func(c *senderConfig) { c.idleTimeout = d })
}

// Defaults of WithRetry.
const (
	DefaultAttempts = 4 // tries for a 4xx or a network error
	DefaultBackoff  = 100 * time.Millisecond
)

// WithRetry sets how many times the Sender tries a mail that meets a
// temporary (4xx) refusal or a network error, and the first pause between
// tries (doubled each time, with jitter). Defaults DefaultAttempts and
// DefaultBackoff.
func WithRetry(attempts int, backoff time.Duration) SenderOption {
	return senderOptionFunc(func(c *senderConfig) { c.attempts, c.backoff = max(attempts, 1), backoff })
}

// WithSubject is the Subject of the mails the Sender writes when a
// message's Meta has no MetaSubject (default: the action, else "SOAP
// message").
func WithSubject(s string) SenderOption {
	return senderOptionFunc(func(c *senderConfig) { c.subject = s })
}
