package smtp

import (
	"context"
	"log/slog"
	"time"
)

// serverConfig is what NewServer and StartServer take.
type serverConfig struct {
	sessionConfig
	log             *slog.Logger
	addresses       []string
	listen          string // "": NewServer's addr argument
	requireTLS      bool
	auth            func(ctx context.Context, user, pass string) bool
	maxMessageBytes int64
	maxRecipients   int
	maxLineLength   int
	sessionTimeout  time.Duration
	shutdownTimeout time.Duration
	minDataRate     int           // bytes per second a client's input keeps after rateGrace
	rateGrace       time.Duration // from a turn's first byte
	perIP           int           // sessions of one address; 0: half of maxSessions; < 0: no bound
	// logInterval: refusal lines of a kind at most once per it (0:
	// DefaultLogInterval; < 0: every line). Set by tests only.
	logInterval time.Duration
}

func newServerConfig(opts []ServerOption) serverConfig {
	c := serverConfig{
		sessionConfig:   sessionConfig{maxSessions: DefaultMaxSessions, ioTimeout: DefaultIOTimeout},
		maxMessageBytes: DefaultMaxMessageBytes,
		maxRecipients:   DefaultMaxRecipients,
		maxLineLength:   DefaultMaxLineLength,
		sessionTimeout:  DefaultSessionTimeout,
		shutdownTimeout: DefaultShutdownTimeout,
		minDataRate:     DefaultMinDataRate,
		rateGrace:       DefaultMinDataRateGrace,
	}
	for _, o := range opts {
		o.applyServer(&c)
	}
	if c.log == nil {
		c.log = discard()
	}
	if c.hostname == "" {
		c.hostname = defaultHostname()
	}
	return c
}

// serverOptionFunc is an option of the Server alone.
type serverOptionFunc func(*serverConfig)

func (f serverOptionFunc) applyServer(c *serverConfig) { f(c) }

// DefaultListenAddr is where StartServer listens: a free loopback port.
const DefaultListenAddr = "127.0.0.1:0"

// WithListenAddr sets the address ("host:port"; port 0 picks a free one)
// the Server listens on: StartServer's (default DefaultListenAddr), and
// ListenAndServe's in place of NewServer's addr argument.
func WithListenAddr(addr string) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.listen = addr })
}

// WithRequireTLS makes the Server refuse MAIL (530 5.7.0) on a session
// that did not STARTTLS. It needs WithTLS.
func WithRequireTLS() ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.requireTLS = true })
}

// WithAuth makes the Server offer AUTH PLAIN and LOGIN and require it
// before MAIL (530 5.7.0 otherwise). check reports whether the credentials
// are right (535 5.7.8 otherwise); ctx is Serve's. With WithTLS, AUTH is
// offered only after STARTTLS; without it, AUTH is offered in clear text.
func WithAuth(check func(ctx context.Context, user, pass string) bool) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.auth = check })
}

// DefaultMaxMessageBytes bounds a mail's size: 552 beyond.
const DefaultMaxMessageBytes = 32 << 20

// WithMaxMessageBytes bounds a mail's size (advertised as SIZE; 552
// beyond). Default DefaultMaxMessageBytes.
func WithMaxMessageBytes(n int64) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.maxMessageBytes = n })
}

// DefaultMaxRecipients bounds the recipients of one mail: 452 beyond.
const DefaultMaxRecipients = 50

// WithMaxRecipients bounds the recipients of one mail (452 beyond).
// Default DefaultMaxRecipients.
func WithMaxRecipients(n int) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.maxRecipients = n })
}

// DefaultMaxLineLength bounds a command or data line: 500 beyond (RFC
// 5321's 1000, doubled as go-smtp does).
const DefaultMaxLineLength = 2000

// WithMaxLineLength bounds a command or data line (500 and the connection
// closed beyond). Default DefaultMaxLineLength.
func WithMaxLineLength(n int) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.maxLineLength = n })
}

// DefaultSessionTimeout bounds a session's whole life.
const DefaultSessionTimeout = 10 * time.Minute

// WithSessionTimeout bounds the whole life of a session: when it is over,
// the session is answered 421 and closed. Default DefaultSessionTimeout.
func WithSessionTimeout(d time.Duration) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.sessionTimeout = d })
}

// DefaultShutdownTimeout is how long Serve waits for mails being received.
const DefaultShutdownTimeout = 10 * time.Second

// WithShutdownTimeout is how long Serve, once its ctx is done (or Close,
// for a Server from StartServer), waits for mails still being received
// before it cuts their sessions. Default DefaultShutdownTimeout.
func WithShutdownTimeout(d time.Duration) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.shutdownTimeout = d })
}

// DefaultMinDataRate is the pace, in bytes per second, a client's input
// keeps once DefaultMinDataRateGrace has passed in its turn (Postfix's
// smtpd_min_data_rate has the same default).
const DefaultMinDataRate = 500

// DefaultMinDataRateGrace is how long a client's input may take, from the
// first byte of a turn, before DefaultMinDataRate counts.
const DefaultMinDataRateGrace = 30 * time.Second

// WithMinDataRate sets the pace a client must keep (see "Session budget" in
// the package documentation): after the server answers, the client has
// WithIOTimeout for its first byte, and from that byte on, by time
// grace+n/bytesPerSecond it must have sent n bytes more; a session that
// falls behind is answered 421 4.4.2 and closed, whatever it does later,
// so a client dripping a byte at a time is cut within grace of its first
// byte. Defaults DefaultMinDataRate and DefaultMinDataRateGrace.
// WithMinDataRate(0, 0) turns the pace rule off: each byte may then come
// up to WithIOTimeout after the one before.
func WithMinDataRate(bytesPerSecond int, grace time.Duration) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.minDataRate, c.rateGrace = bytesPerSecond, grace })
}

// DefaultMaxSessionsPerIP bounds the sessions one address holds: half of
// DefaultMaxSessions (half of WithMaxSessions when that is set, at least
// one), so one address never takes every session.
const DefaultMaxSessionsPerIP = DefaultMaxSessions / 2

// WithMaxSessionsPerIP bounds the sessions one client address holds at once
// (an IPv6 client counts by its /64); a connection beyond is answered 421
// 4.7.0 and closed, the other addresses' sessions go on. Default: half of
// WithMaxSessions (DefaultMaxSessionsPerIP); n <= 0: no bound but
// WithMaxSessions.
func WithMaxSessionsPerIP(n int) ServerOption {
	return serverOptionFunc(func(c *serverConfig) {
		if n == 0 {
			n = -1
		}
		c.perIP = n
	})
}

// sessionsPerIP is the per-address bound in force.
func (c *serverConfig) sessionsPerIP() int {
	switch {
	case c.perIP < 0:
		return 0
	case c.perIP > 0:
		return c.perIP
	}
	return max(1, c.maxSessions/2)
}
