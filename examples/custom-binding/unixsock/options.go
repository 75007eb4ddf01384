package unixsock

import (
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// TransportOption configures NewTransport.
type TransportOption interface{ applyTransport(*transportConfig) }

// ServerOption configures NewServer.
type ServerOption interface{ applyServer(*serverConfig) }

// InboxOption configures NewInbox.
type InboxOption interface{ applyInbox(*inboxConfig) }

// Option is an option of every constructor of the package.
type Option interface {
	TransportOption
	ServerOption
	InboxOption
}

// ListenerOption is an option of the constructors that accept connections:
// NewServer and NewInbox.
type ListenerOption interface {
	ServerOption
	InboxOption
}

type transportConfig struct {
	limits core.Limits
}

// listenConfig is what a Server and an Inbox share: how they accept and
// serve connections.
type listenConfig struct {
	limits    core.Limits
	log       *slog.Logger
	ioTimeout time.Duration
	maxConns  int
}

type serverConfig struct {
	listenConfig
}

type inboxConfig struct {
	listenConfig
	maxAttempts int
}

func newTransportConfig(opts []TransportOption) transportConfig {
	var c transportConfig
	for _, o := range opts {
		o.applyTransport(&c)
	}
	return c
}

func newListenConfig() listenConfig {
	return listenConfig{ioTimeout: DefaultIOTimeout, maxConns: DefaultMaxConns}
}

func (c *listenConfig) resolve() {
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
}

func newServerConfig(opts []ServerOption) serverConfig {
	c := serverConfig{listenConfig: newListenConfig()}
	for _, o := range opts {
		o.applyServer(&c)
	}
	c.resolve()
	return c
}

func newInboxConfig(opts []InboxOption) inboxConfig {
	c := inboxConfig{listenConfig: newListenConfig(), maxAttempts: DefaultMaxAttempts}
	for _, o := range opts {
		o.applyInbox(&c)
	}
	c.resolve()
	return c
}

// maxBytes is the largest payload a frame may carry under l.
func maxBytes(l core.Limits) int64 {
	n := l.MaxBytes
	if n == 0 {
		n = core.DefaultLimits().MaxBytes
	}
	if n < 0 || n > maxPayload {
		n = maxPayload
	}
	return n
}

type limitsOption struct{ l core.Limits }

func (o limitsOption) applyTransport(c *transportConfig) { c.limits = o.l }
func (o limitsOption) applyServer(c *serverConfig)       { c.limits = o.l }
func (o limitsOption) applyInbox(c *inboxConfig)         { c.limits = o.l }

// WithLimits bounds what is read: requests, stored envelopes or replies.
// MaxBytes also bounds a frame's payload, checked before it is read. The
// zero Limits is core.DefaultLimits.
func WithLimits(l core.Limits) Option { return limitsOption{l} }

// listenOption sets what a Server and an Inbox share.
type listenOption func(*listenConfig)

func (f listenOption) applyServer(c *serverConfig) { f(&c.listenConfig) }
func (f listenOption) applyInbox(c *inboxConfig)   { f(&c.listenConfig) }

// WithLogger logs refusals, handler errors and failed writes. The default
// discards.
func WithLogger(l *slog.Logger) ListenerOption {
	return listenOption(func(c *listenConfig) { c.log = l })
}

// DefaultIOTimeout is how long a Server or an Inbox waits on a silent peer.
const DefaultIOTimeout = 30 * time.Second

// WithIOTimeout is how long a Server or an Inbox waits for the next bytes
// of a frame, or for its answer to be written, before it drops the
// connection (default DefaultIOTimeout). A Transport's exchanges are
// bounded by their ctx instead.
func WithIOTimeout(d time.Duration) ListenerOption {
	return listenOption(func(c *listenConfig) {
		if d > 0 {
			c.ioTimeout = d
		}
	})
}

// DefaultMaxConns is how many connections a Server or an Inbox serves at
// once.
const DefaultMaxConns = 64

// WithMaxConns is how many connections a Server or an Inbox serves at once
// (default DefaultMaxConns); further ones wait to be accepted.
func WithMaxConns(n int) ListenerOption {
	return listenOption(func(c *listenConfig) {
		if n > 0 {
			c.maxConns = n
		}
	})
}

type inboxOptionFunc func(*inboxConfig)

func (f inboxOptionFunc) applyInbox(c *inboxConfig) { f(c) }

// DefaultMaxAttempts is how many times an Inbox delivers a message before
// it parks it.
const DefaultMaxAttempts = 5

// WithMaxAttempts is how many times an Inbox delivers a message before a
// Nack parks it in failed/ instead of redelivering it (default
// DefaultMaxAttempts).
func WithMaxAttempts(n int) InboxOption {
	return inboxOptionFunc(func(c *inboxConfig) {
		if n > 0 {
			c.maxAttempts = n
		}
	})
}
