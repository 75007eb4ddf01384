package document

import (
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Option configures NewHandler or NewCorrelator. Each option says which of
// them it applies to; the other ignores it.
type Option func(*options)

type options struct {
	store      Store
	outbox     core.Sender
	policy     *Policy
	receipts   bool
	lease      time.Duration
	retention  time.Duration
	maxHandled int
	maxReplay  int
	fallback   core.Handler
	timeout    time.Duration
	log        *slog.Logger
}

// Defaults of the Handler's duplicate suppression.
const (
	DefaultLease      = time.Minute    // see WithLease
	DefaultRetention  = 24 * time.Hour // see WithRetention
	DefaultMaxHandled = 1024           // see WithRetention
	DefaultMaxReplay  = 1 << 20        // see WithMaxReplay
)

func newOptions(opts []Option) options {
	o := options{lease: DefaultLease, retention: DefaultRetention, maxHandled: DefaultMaxHandled, maxReplay: DefaultMaxReplay}
	for _, fn := range opts {
		fn(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	return o
}

// WithStore keeps conversation state in s. Handler: it also turns on
// duplicate suppression (a processed message id is answered from s, not
// processed again). Correlator: requests are recorded awaiting a reply,
// then completed, failed or expired, so a restarted process knows what it
// still waits for.
func WithStore(s Store) Option { return func(o *options) { o.store = s } }

// WithOutbox makes the Handler send replies, receipts and faults addressed
// to ReplyTo or FaultTo through out (usually an *Outbox, which picks a
// Sender by the address's scheme). Without it only the back-channel
// (anonymous or absent ReplyTo) is answered.
func WithOutbox(out core.Sender) Option { return func(o *options) { o.outbox = out } }

// WithPolicy makes the Handler check ReplyTo and FaultTo against p. The
// default allows the schemes the Outbox has (when it is an *Outbox; nothing
// otherwise), besides anonymous and none.
func WithPolicy(p Policy) Option { return func(o *options) { o.policy = &p } }

// WithReceipts makes the Handler send a business-level receipt (a Receipt
// document, action ReceiptAction) to ReplyTo when its HandleFunc accepts a
// document without a reply, and ReplyTo is present and not none.
func WithReceipts() Option { return func(o *options) { o.receipts = true } }

// WithLease sets how long a message claimed by another Handler sharing the
// Store keeps duplicates away (default DefaultLease): within it a duplicate
// is refused with ErrInFlight (retry later); after it the claim is taken
// over, as its owner is presumed dead. Handler only.
func WithLease(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.lease = d
		}
	}
}

// WithRetention bounds the duplicate-suppression records the Handler keeps
// per conversation: records older than d are dropped, and beyond max the
// oldest go first (defaults DefaultRetention, DefaultMaxHandled). A
// duplicate that arrives after its record is gone is processed again.
// Handler only.
func WithRetention(d time.Duration, max int) Option {
	return func(o *options) {
		if d > 0 {
			o.retention = d
		}
		if max > 0 {
			o.maxHandled = max
		}
	}
}

// WithMaxReplay sets the largest reply (in bytes, as written) the Handler
// keeps to answer duplicates with (default DefaultMaxReplay). A larger
// reply is still sent; a duplicate of its request is suppressed but not
// answered again. Handler only.
func WithMaxReplay(n int) Option { return func(o *options) { o.maxReplay = n } }

// WithFallback hands late and unmatched replies to h (Correlator only).
// Without it they are refused with ErrUnmatched, so the binding parks or
// redelivers them: a reply is never dropped.
func WithFallback(h core.Handler) Option { return func(o *options) { o.fallback = h } }

// WithTimeout bounds a Correlator.RoundTrip whose ctx has no deadline
// (default: none, the ctx alone decides).
func WithTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithLogger logs refusals, duplicates, late replies and store failures
// (both). The default discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }
