package core

import (
	"context"
	"errors"
)

// RoundTripper sends a request and returns its reply: HTTP, NATS request.
// A fault reply is returned as a *Fault error with Remote set. A nil reply
// with a nil error means the peer accepted a one-way message.
type RoundTripper interface {
	RoundTrip(ctx context.Context, m *Message) (*Message, error)
}

// RoundTripFunc adapts a function to RoundTripper.
type RoundTripFunc func(ctx context.Context, m *Message) (*Message, error)

// RoundTrip calls f.
func (f RoundTripFunc) RoundTrip(ctx context.Context, m *Message) (*Message, error) {
	return f(ctx, m)
}

// Sender sends a one-way message to m.To: SMTP, FTP, NATS publish.
type Sender interface {
	Send(ctx context.Context, m *Message) error
}

// SendFunc adapts a function to Sender.
type SendFunc func(ctx context.Context, m *Message) error

// Send calls f.
func (f SendFunc) Send(ctx context.Context, m *Message) error { return f(ctx, m) }

// Receiver yields messages that arrive asynchronously: a mailbox, a file
// drop, a JetStream consumer. Receive blocks until a message arrives, ctx is
// done, or the Receiver is closed (then it returns ErrClosed).
type Receiver interface {
	Receive(ctx context.Context) (Delivery, error)
	Close() error
}

// Delivery is one received message. Ack says it was processed (the binding
// may delete it); Nack says it was not, with why (the binding redelivers it
// or parks it with its fault). Ack and Nack are idempotent and exclusive: the
// first call settles the delivery, a repeat of it returns nil, the other
// returns ErrSettled.
type Delivery interface {
	Message() *Message
	Ack(ctx context.Context) error
	Nack(ctx context.Context, cause error) error
}

// ErrClosed is returned by Receive after Close.
var ErrClosed = errors.New("core: receiver closed")

// ErrSettled is returned by Ack after Nack and by Nack after Ack.
var ErrSettled = errors.New("core: delivery already settled the other way")
