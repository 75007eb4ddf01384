package coretest

import (
	"testing"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Features says what a binding can do. The suites check what every binding
// must do, and what a feature promises only when it is set; a subtest a
// binding cannot pass is skipped with the feature it needs as the reason.
// The zero Features asks for the least: at-least-once delivery of both
// versions, no redelivery, no order, nothing kept across a reopen.
type Features struct {
	// Versions are the SOAP versions the binding carries; nil means both.
	Versions []core.Version

	// ExactlyOnce: every message sent is received once. Without it the
	// suites accept duplicates (at-least-once) but never a loss.
	ExactlyOnce bool

	// Redelivery: a Nacked delivery is received again from the same
	// Receiver. Without it a Nacked message is parked (not seen again).
	Redelivery bool

	// Ordered: messages sent one after another by one goroutine are
	// received in that order.
	Ordered bool

	// Persistent: sent messages, and received ones never settled, survive
	// closing the Receiver: Reopen gives a new Receiver that gets them.
	Persistent bool

	// Reopen opens a new Receiver on the storage behind addr, as a
	// restarted process would, after the old one was closed. Required when
	// Persistent is set.
	Reopen func(t *testing.T, addr string) core.Receiver

	// OneWay: the RoundTripper returns (nil, nil) when the handler accepts a
	// message without a reply (HTTP 202).
	OneWay bool

	// MaxBodyBytes is the size of the large body the suites send
	// (0: 1 MiB; negative: skip the large-body subtests).
	MaxBodyBytes int

	// AttachmentBytes is the size of the large part the attachment suites
	// send (0: 3 MiB; negative: the large part is left out).
	AttachmentBytes int

	// Concurrency is how many goroutines send at once in the concurrent
	// subtests (0: 8 for Sender, 32 calls in flight for RoundTripper).
	Concurrency int

	// Messages is how many messages the concurrent Sender subtest sends
	// (0: 64).
	Messages int

	// Timeout bounds every wait for something the suite expects (0: 10 s).
	// It is not a timing assertion: it only turns a hang into a failure.
	Timeout time.Duration
}

func (f Features) versions() []core.Version {
	if len(f.Versions) == 0 {
		return []core.Version{core.V11, core.V12}
	}
	return f.Versions
}

func (f Features) timeout() time.Duration {
	if f.Timeout <= 0 {
		return 10 * time.Second
	}
	return f.Timeout
}

func (f Features) maxBody() int {
	if f.MaxBodyBytes == 0 {
		return 1 << 20
	}
	return f.MaxBodyBytes
}

func (f Features) attachmentBytes() int {
	if f.AttachmentBytes == 0 {
		return 3 << 20
	}
	return f.AttachmentBytes
}

func (f Features) concurrency(def int) int {
	if f.Concurrency <= 0 {
		return def
	}
	return f.Concurrency
}

func (f Features) messages() int {
	if f.Messages <= 0 {
		return 64
	}
	return f.Messages
}
