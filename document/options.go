package document

import (
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// The options. NewHandler and NewCorrelator each take their own option
// type, and an option given to one that does not use it does not compile:
// the type of each With* function says where it applies. The options of a
// message (NewMessage, Send, Incoming.Reply) are MessageOptions (send.go).

// HandlerOption configures NewHandler.
type HandlerOption interface{ applyHandler(*handlerConfig) }

// CorrelatorOption configures NewCorrelator.
type CorrelatorOption interface{ applyCorrelator(*correlatorConfig) }

// Option is an option of both NewHandler and NewCorrelator (WithStore,
// WithLogger).
type Option interface {
	HandlerOption
	CorrelatorOption
}

type handlerConfig struct {
	store      Store
	outbox     core.Sender
	policy     *core.ReplyPolicy
	receipts   bool
	lease      time.Duration
	retention  time.Duration
	maxHandled int
	maxReplay  int
	log        *slog.Logger
}

type correlatorConfig struct {
	store    Store
	fallback core.Handler
	timeout  time.Duration
	log      *slog.Logger
}

func newHandlerConfig(opts []HandlerOption) handlerConfig {
	c := handlerConfig{lease: DefaultLease, retention: DefaultRetention, maxHandled: DefaultMaxHandled, maxReplay: DefaultMaxReplay}
	for _, o := range opts {
		o.applyHandler(&c)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

func newCorrelatorConfig(opts []CorrelatorOption) correlatorConfig {
	var c correlatorConfig
	for _, o := range opts {
		o.applyCorrelator(&c)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	return c
}

// Options of one constructor each.
type (
	handlerOptionFunc    func(*handlerConfig)
	correlatorOptionFunc func(*correlatorConfig)
)

func (f handlerOptionFunc) applyHandler(c *handlerConfig)          { f(c) }
func (f correlatorOptionFunc) applyCorrelator(c *correlatorConfig) { f(c) }

// WithStore keeps conversation state in s. Handler: it also turns on
// duplicate suppression (a processed message id is answered from s, not
// processed again). Correlator: requests are recorded awaiting a reply,
// then completed, failed or expired, so a restarted process knows what it
// still waits for.
func WithStore(s Store) Option { return storeOption{s} }

type storeOption struct{ s Store }

func (o storeOption) applyHandler(c *handlerConfig)       { c.store = o.s }
func (o storeOption) applyCorrelator(c *correlatorConfig) { c.store = o.s }

// WithLogger logs refusals, duplicates, late replies and store failures.
// The default discards.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applyHandler(c *handlerConfig)       { c.log = o.l }
func (o loggerOption) applyCorrelator(c *correlatorConfig) { c.log = o.l }

// WithOutbox makes the Handler send replies, receipts and faults addressed
// to ReplyTo or FaultTo through out (usually an *Outbox, which picks a
// Sender by the address's scheme). Without it only the back-channel
// (anonymous or absent ReplyTo) is answered.
func WithOutbox(out core.Sender) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.outbox = out })
}

// WithReplyPolicy makes the Handler check ReplyTo and FaultTo against p
// before its HandleFunc runs, and against the routes of its Outbox (an
// address the Outbox has no Sender for is refused too). Without it the
// Handler uses the policy of the core.Serve it runs under
// (core.ReplyPolicyOf), else the zero core.ReplyPolicy.
func WithReplyPolicy(p core.ReplyPolicy) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.policy = &p })
}

// WithReceipts makes the Handler send a business-level receipt (a Receipt
// document, action ReceiptAction) to ReplyTo when its HandleFunc accepts a
// document without a reply, and ReplyTo is present and not none.
func WithReceipts() HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.receipts = true })
}

// DefaultLease is how long a claimed message keeps duplicates away.
const DefaultLease = time.Minute

// WithLease sets how long a message claimed by another Handler sharing the
// Store keeps duplicates away (default DefaultLease): within it a duplicate
// is refused with ErrInFlight (retry later); after it the claim is taken
// over, as its owner is presumed dead.
func WithLease(d time.Duration) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) {
		if d > 0 {
			c.lease = d
		}
	})
}

// Defaults of WithRetention.
const (
	DefaultRetention  = 24 * time.Hour // how long a record is kept
	DefaultMaxHandled = 1024           // records kept per conversation
)

// WithRetention bounds the duplicate-suppression records the Handler keeps
// per conversation: records older than d are dropped, and beyond max the
// oldest go first (defaults DefaultRetention, DefaultMaxHandled). A
// duplicate that arrives after its record is gone is processed again.
func WithRetention(d time.Duration, max int) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) {
		if d > 0 {
			c.retention = d
		}
		if max > 0 {
			c.maxHandled = max
		}
	})
}

// DefaultMaxReplay is the largest reply kept to answer duplicates with.
const DefaultMaxReplay = 1 << 20

// WithMaxReplay sets the largest reply (in bytes, as written) the Handler
// keeps to answer duplicates with (default DefaultMaxReplay). A larger
// reply is still sent; a duplicate of its request is suppressed but not
// answered again.
func WithMaxReplay(n int) HandlerOption {
	return handlerOptionFunc(func(c *handlerConfig) { c.maxReplay = n })
}

// WithFallback hands late and unmatched replies to h. Without it they are
// refused with ErrUnmatched, so the binding parks or redelivers them: a
// reply is never dropped.
func WithFallback(h core.Handler) CorrelatorOption {
	return correlatorOptionFunc(func(c *correlatorConfig) { c.fallback = h })
}

// WithTimeout bounds a Correlator.RoundTrip whose ctx has no deadline
// (default: none, the ctx alone decides).
func WithTimeout(d time.Duration) CorrelatorOption {
	return correlatorOptionFunc(func(c *correlatorConfig) { c.timeout = d })
}
