package nats

import (
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Option configures Subscribe, NewTransport, NewPublisher and NewReceiver.
// Each option says which of them it applies to; the others ignore it.
type Option func(*options)

type options struct {
	limits        core.Limits
	log           *slog.Logger
	queue         string
	concurrency   int
	timeout       time.Duration
	ackWait       time.Duration
	maxDeliveries int
	backoffFirst  time.Duration
	backoffMax    time.Duration
	deadLetter    string
	prefetch      int
}

// Defaults of the options.
const (
	DefaultQueue         = "soapwire"       // the queue group Subscribe joins
	DefaultConcurrency   = 128              // requests one Subscription handles at once
	DefaultTimeout       = 60 * time.Second // a request whose ctx has no deadline
	DefaultAckWait       = 30 * time.Second // the durable consumer's AckWait
	DefaultMaxDeliveries = 5                // deliveries before a message is dead-lettered
	DefaultBackoff       = time.Second      // the delay before the first redelivery
	DefaultBackoffMax    = time.Minute      // the longest delay between redeliveries
	DefaultPrefetch      = 16               // messages a Receiver pulls ahead
)

func newOptions(opts []Option) options {
	o := options{
		queue:         DefaultQueue,
		concurrency:   DefaultConcurrency,
		timeout:       DefaultTimeout,
		ackWait:       DefaultAckWait,
		maxDeliveries: DefaultMaxDeliveries,
		backoffFirst:  DefaultBackoff,
		backoffMax:    DefaultBackoffMax,
		prefetch:      DefaultPrefetch,
	}
	for _, fn := range opts {
		fn(&o)
	}
	if o.log == nil {
		o.log = slog.New(slog.DiscardHandler)
	}
	return o
}

// WithLogger logs refusals, faults with nowhere to go, dropped replies,
// redeliveries and dead letters (all). The default discards.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.log = l } }

// WithLimits bounds the envelopes read: requests (Subscribe), replies
// (Transport) and deliveries (NewReceiver). The zero Limits is
// core.DefaultLimits; the server's max payload bounds a NATS message anyway.
func WithLimits(l core.Limits) Option { return func(o *options) { o.limits = l } }

// WithQueue sets the queue group Subscribe joins (default DefaultQueue).
// Every subscriber of a subject in the same group shares its requests: each
// request goes to one of them. "" subscribes outside any group, so every
// subscriber gets every message.
func WithQueue(name string) Option { return func(o *options) { o.queue = name } }

// WithConcurrency sets how many requests one Subscription handles at once
// (default DefaultConcurrency). Further requests wait in the connection's
// pending buffer.
func WithConcurrency(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.concurrency = n
		}
	}
}

// WithTimeout bounds a request whose ctx has no deadline (Transport;
// default DefaultTimeout), so a lost reply never hangs a caller.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithAckWait sets the durable consumer's AckWait (NewReceiver; default
// DefaultAckWait): how long the server waits for a delivery to be settled
// before it redelivers it. The Receiver tells the server a delivery is in
// progress every AckWait/3 while it is unsettled, so a slow handler does not
// see its message redelivered.
func WithAckWait(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.ackWait = d
		}
	}
}

// WithMaxDeliveries sets how many times a message is delivered before a
// Nack sends it to the dead-letter subject (NewReceiver; default
// DefaultMaxDeliveries). 1 dead-letters on the first Nack.
func WithMaxDeliveries(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.maxDeliveries = n
		}
	}
}

// WithBackoff sets the delay before a Nacked message is redelivered
// (NewReceiver): first after the first delivery, doubling with each further
// one, never more than max (defaults DefaultBackoff, DefaultBackoffMax).
func WithBackoff(first, max time.Duration) Option {
	return func(o *options) {
		if first > 0 {
			o.backoffFirst = first
		}
		if max > 0 {
			o.backoffMax = max
		}
	}
}

// WithDeadLetter sets the subject a Receiver publishes messages to that
// cannot be processed (NewReceiver). A stream must capture it: NewReceiver
// checks. The default is "soapwire.dead." + the durable consumer's name.
func WithDeadLetter(subject string) Option { return func(o *options) { o.deadLetter = subject } }

// WithPrefetch sets how many messages a Receiver pulls from the server
// ahead of Receive (NewReceiver; default DefaultPrefetch).
func WithPrefetch(n int) Option {
	return func(o *options) {
		if n > 0 {
			o.prefetch = n
		}
	}
}
