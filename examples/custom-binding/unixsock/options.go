package unixsock

import (
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Option configures NewTransport, NewServer or NewInbox. Each option says
// which of them it applies to; the others ignore it.
type Option func(*options)

type options struct {
	limits      core.Limits
	log         *slog.Logger
	timeout     time.Duration
	maxAttempts int
	maxConns    int
}

// Defaults of the options.
const (
	DefaultTimeout     = 30 * time.Second
	DefaultMaxAttempts = 5
	DefaultMaxConns    = 64
)

func newOptions(opts []Option) options {
	o := options{timeout: DefaultTimeout, maxAttempts: DefaultMaxAttempts, maxConns: DefaultMaxConns}
	for _, fn := range opts {
		fn(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	return o
}

// maxBytes is the largest payload a frame may carry under o's limits.
func (o options) maxBytes() int64 {
	n := o.limits.MaxBytes
	if n == 0 {
		n = core.DefaultLimits().MaxBytes
	}
	if n < 0 || n > maxPayload {
		n = maxPayload
	}
	return n
}

// WithLimits bounds what is read: requests (NewServer), stored envelopes
// (NewInbox) and replies (NewTransport). MaxBytes also bounds a frame's
// payload, checked before it is read. The zero Limits is core.DefaultLimits.
func WithLimits(l core.Limits) Option { return func(o *options) { o.limits = l } }

// WithLogger logs refusals, handler errors and failed writes (NewServer,
// NewInbox). The default discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithTimeout is how long a Server or an Inbox waits for the next bytes of
// a frame, or for its answer to be written, before it drops the connection
// (default DefaultTimeout). A Transport's exchanges are bounded by their ctx
// instead.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithMaxAttempts is how many times an Inbox delivers a message before a
// Nack parks it in failed/ instead of redelivering it (default
// DefaultMaxAttempts).
func WithMaxAttempts(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxAttempts = n
		}
	}
}

// WithMaxConns is how many connections a Server or an Inbox serves at once
// (default DefaultMaxConns); further ones wait to be accepted.
func WithMaxConns(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxConns = n
		}
	}
}
