package nats

import (
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// SubscribeOption configures Subscribe.
type SubscribeOption interface{ applySubscribe(*subscribeConfig) }

// TransportOption configures NewTransport.
type TransportOption interface{ applyTransport(*transportConfig) }

// PublisherOption configures NewPublisher.
type PublisherOption interface{ applyPublisher(*publisherConfig) }

// ReceiverOption configures NewReceiver.
type ReceiverOption interface{ applyReceiver(*receiverConfig) }

// ServerOption configures StartServer.
type ServerOption interface{ applyServer(*serverConfig) }

// Option is an option of every constructor of the package.
type Option interface {
	SubscribeOption
	TransportOption
	PublisherOption
	ReceiverOption
	ServerOption
}

// ReadOption is an option of the constructors that read envelopes:
// Subscribe (requests), NewTransport (replies) and NewReceiver
// (deliveries).
type ReadOption interface {
	SubscribeOption
	TransportOption
	ReceiverOption
}

type subscribeConfig struct {
	limits       core.Limits
	log          *slog.Logger
	queue        string
	concurrency  int
	pendingMsgs  int
	pendingBytes int // 0: DefaultPendingBytes, or twice the max payload when more
	objects      objectConfig
}

type transportConfig struct {
	limits  core.Limits
	log     *slog.Logger // its Publisher's, for JetStream destinations
	timeout time.Duration
	objects objectConfig
}

type publisherConfig struct {
	log     *slog.Logger
	objects objectConfig
}

type receiverConfig struct {
	limits        core.Limits
	log           *slog.Logger
	ackWait       time.Duration
	maxDeliveries int
	backoffFirst  time.Duration
	backoffMax    time.Duration
	deadLetter    string
	prefetch      int
	objects       objectConfig
}

func newSubscribeConfig(opts []SubscribeOption) subscribeConfig {
	c := subscribeConfig{queue: DefaultQueue, concurrency: DefaultConcurrency, pendingMsgs: DefaultPendingMsgs}
	for _, o := range opts {
		o.applySubscribe(&c)
	}
	c.log = orDiscard(c.log)
	return c
}

func newTransportConfig(opts []TransportOption) transportConfig {
	c := transportConfig{timeout: DefaultTimeout}
	for _, o := range opts {
		o.applyTransport(&c)
	}
	c.log = orDiscard(c.log)
	return c
}

func newPublisherConfig(opts []PublisherOption) publisherConfig {
	c := publisherConfig{}
	for _, o := range opts {
		o.applyPublisher(&c)
	}
	c.log = orDiscard(c.log)
	return c
}

func newReceiverConfig(opts []ReceiverOption) receiverConfig {
	c := receiverConfig{
		ackWait:       DefaultAckWait,
		maxDeliveries: DefaultMaxDeliveries,
		backoffFirst:  DefaultBackoff,
		backoffMax:    DefaultBackoffMax,
		prefetch:      DefaultPrefetch,
	}
	for _, o := range opts {
		o.applyReceiver(&c)
	}
	c.log = orDiscard(c.log)
	return c
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}

type subscribeOptionFunc func(*subscribeConfig)

func (f subscribeOptionFunc) applySubscribe(c *subscribeConfig) { f(c) }

type transportOptionFunc func(*transportConfig)

func (f transportOptionFunc) applyTransport(c *transportConfig) { f(c) }

type receiverOptionFunc func(*receiverConfig)

func (f receiverOptionFunc) applyReceiver(c *receiverConfig) { f(c) }

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applySubscribe(c *subscribeConfig) { c.log = o.l }
func (o loggerOption) applyTransport(c *transportConfig) { c.log = o.l }
func (o loggerOption) applyPublisher(c *publisherConfig) { c.log = o.l }
func (o loggerOption) applyReceiver(c *receiverConfig)   { c.log = o.l }
func (o loggerOption) applyServer(c *serverConfig)       { c.log = o.l }

// WithLogger logs refusals, faults with nowhere to go, dropped replies,
// redeliveries and dead letters, and an embedded server's notices,
// warnings and errors (no debug or trace). The default discards.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

type limitsOption struct{ l core.Limits }

func (o limitsOption) applySubscribe(c *subscribeConfig) { c.limits = o.l }
func (o limitsOption) applyTransport(c *transportConfig) { c.limits = o.l }
func (o limitsOption) applyReceiver(c *receiverConfig)   { c.limits = o.l }

// WithLimits bounds the envelopes read: requests, replies or deliveries.
// The zero Limits is core.DefaultLimits; the server's max payload bounds a
// NATS message anyway.
func WithLimits(l core.Limits) ReadOption { return limitsOption{l} }

// DefaultQueue is the queue group Subscribe joins.
const DefaultQueue = "soapwire"

// WithQueue sets the queue group a subscription joins (default
// DefaultQueue). Every subscriber of a subject in the same group shares its
// requests: each request goes to one of them. "" subscribes outside any
// group, so every subscriber gets every message.
func WithQueue(name string) SubscribeOption {
	return subscribeOptionFunc(func(c *subscribeConfig) { c.queue = name })
}

// DefaultConcurrency is how many requests one Subscription handles at once.
const DefaultConcurrency = 128

// WithConcurrency sets how many requests one Subscription handles at once
// (default DefaultConcurrency). Further requests wait in the
// Subscription's pending buffer (WithPendingLimits).
func WithConcurrency(n int) SubscribeOption {
	return subscribeOptionFunc(func(c *subscribeConfig) {
		if n > 0 {
			c.concurrency = n
		}
	})
}

// Defaults of WithPendingLimits.
const (
	DefaultPendingMsgs  = 4096    // requests received and not yet taken by a worker
	DefaultPendingBytes = 8 << 20 // their bytes on the wire (payload and headers)
)

// WithPendingLimits bounds the requests a Subscription has received and
// no worker has taken yet (all WithConcurrency of them are busy): at most
// msgs requests and bytes bytes (payloads and NATS headers, as on the
// wire). A request that arrives beyond either limit is dropped by nats.go
// (a slow consumer): its caller gets no reply and times out, and the
// Subscription counts and logs the drops (see Subscribe). The defaults,
// DefaultPendingMsgs and DefaultPendingBytes (or twice the server's max
// payload when that is more), keep a flood of requests within a few tens
// of MiB (docs/security.md). bytes must be at least the server's max
// payload, or the largest requests would always be dropped: Subscribe
// refuses a smaller one. A zero or negative value keeps the default; the
// connection's nats.SyncQueueLen (64 Ki by default) caps msgs.
func WithPendingLimits(msgs, bytes int) SubscribeOption {
	return subscribeOptionFunc(func(c *subscribeConfig) {
		if msgs > 0 {
			c.pendingMsgs = msgs
		}
		if bytes > 0 {
			c.pendingBytes = bytes
		}
	})
}

// DefaultTimeout bounds a request whose ctx has no deadline.
const DefaultTimeout = 60 * time.Second

// WithTimeout bounds a request whose ctx has no deadline (default
// DefaultTimeout), so a lost reply never hangs a caller.
func WithTimeout(d time.Duration) TransportOption {
	return transportOptionFunc(func(c *transportConfig) {
		if d > 0 {
			c.timeout = d
		}
	})
}

// DefaultAckWait is the durable consumer's AckWait.
const DefaultAckWait = 30 * time.Second

// WithAckWait sets the durable consumer's AckWait (default DefaultAckWait):
// how long the server waits for a delivery to be settled before it
// redelivers it. The Receiver tells the server a delivery is in progress
// every AckWait/3 while it is unsettled, so a slow handler does not see its
// message redelivered.
func WithAckWait(d time.Duration) ReceiverOption {
	return receiverOptionFunc(func(c *receiverConfig) {
		if d > 0 {
			c.ackWait = d
		}
	})
}

// DefaultMaxDeliveries is how many times a message is delivered before it
// is dead-lettered.
const DefaultMaxDeliveries = 5

// WithMaxDeliveries sets how many times a message is delivered before a
// Nack sends it to the dead-letter subject (default DefaultMaxDeliveries).
// 1 dead-letters on the first Nack.
func WithMaxDeliveries(n int) ReceiverOption {
	return receiverOptionFunc(func(c *receiverConfig) {
		if n > 0 {
			c.maxDeliveries = n
		}
	})
}

// Defaults of WithBackoff.
const (
	DefaultBackoff    = time.Second // the delay before the first redelivery
	DefaultBackoffMax = time.Minute // the longest delay between redeliveries
)

// WithBackoff sets the delay before a Nacked message is redelivered: first
// after the first delivery, doubling with each further one, never more than
// max (defaults DefaultBackoff, DefaultBackoffMax).
func WithBackoff(first, max time.Duration) ReceiverOption {
	return receiverOptionFunc(func(c *receiverConfig) {
		if first > 0 {
			c.backoffFirst = first
		}
		if max > 0 {
			c.backoffMax = max
		}
	})
}

// WithDeadLetter sets the subject a Receiver publishes messages to that
// cannot be processed. A stream must capture it: NewReceiver checks. The
// default is "soapwire.dead." + the durable consumer's name.
func WithDeadLetter(subject string) ReceiverOption {
	return receiverOptionFunc(func(c *receiverConfig) { c.deadLetter = subject })
}

// DefaultPrefetch is how many messages a Receiver pulls ahead.
const DefaultPrefetch = 16

// WithPrefetch sets how many messages a Receiver pulls from the server
// ahead of Receive (default DefaultPrefetch).
func WithPrefetch(n int) ReceiverOption {
	return receiverOptionFunc(func(c *receiverConfig) {
		if n > 0 {
			c.prefetch = n
		}
	})
}
