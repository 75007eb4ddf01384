package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/soapwire/soapwire/core"
)

// ErrTimeout is in the chain of a TimeoutError.
var ErrTimeout = errors.New("document: no reply in time")

// TimeoutError is returned by Correlator.RoundTrip when ctx ends before the
// reply comes. errors.Is(err, ErrTimeout) and errors.Is(err,
// context.DeadlineExceeded) both hold (the latter for a deadline).
type TimeoutError struct {
	MessageID string
	Err       error // ctx.Err()
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("document: no reply to %s: %v", e.MessageID, e.Err)
}

// Unwrap returns ErrTimeout and the ctx error.
func (e *TimeoutError) Unwrap() []error { return []error{ErrTimeout, e.Err} }

// Correlator turns a one-way Sender plus inbound replies into a
// core.RoundTripper: RoundTrip sends the request with ReplyTo set to the
// Correlator's address and waits for the message whose RelatesTo is the
// request's ID. The Correlator is also the core.Handler for the inbound side
// (serve the Receiver of ReplyTo with it): matched replies go to the waiting
// caller; late or unmatched ones go to Fallback, never dropped silently.
type Correlator struct {
	out     core.Sender
	replyTo string
	store   Store
	fb      core.Handler
	log     *slog.Logger

	mu      sync.Mutex
	pending map[string]chan *core.Message
}

var (
	_ core.RoundTripper = (*Correlator)(nil)
	_ core.Handler      = (*Correlator)(nil)
)

// CorrelatorOption configures a Correlator.
type CorrelatorOption func(*Correlator)

// WithStore records conversation state (awaiting reply, completed, failed,
// expired) in s.
func WithStore(s Store) CorrelatorOption { return func(c *Correlator) { c.store = s } }

// WithFallback hands late and unmatched replies to h.
func WithFallback(h core.Handler) CorrelatorOption { return func(c *Correlator) { c.fb = h } }

// WithLogger logs the Correlator's decisions.
func WithLogger(l *slog.Logger) CorrelatorOption { return func(c *Correlator) { c.log = l } }

// NewCorrelator returns a Correlator sending through out, with replies
// expected at replyTo (an address whose Receiver is served with the
// Correlator).
func NewCorrelator(out core.Sender, replyTo string, opts ...CorrelatorOption) *Correlator {
	c := &Correlator{out: out, replyTo: replyTo, log: slog.New(slog.DiscardHandler), pending: make(map[string]chan *core.Message)}
	for _, o := range opts {
		o(c)
	}
	return c
}

// Pending returns the number of requests waiting for a reply.
func (c *Correlator) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// RoundTrip sends m and waits for its reply until ctx ends. A fault reply is
// returned as a *core.Fault error.
func (c *Correlator) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	if m.ReplyTo == "" {
		m.ReplyTo = c.replyTo
	}
	if m.FaultTo == "" {
		m.FaultTo = m.ReplyTo
	}
	conv := ConversationOf(m)
	if conv == m.ID {
		SetConversation(m, conv)
	}
	ch := make(chan *core.Message, 1)
	c.mu.Lock()
	if _, dup := c.pending[m.ID]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("document: message id %s is already awaiting a reply", m.ID)
	}
	c.pending[m.ID] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, m.ID)
		c.mu.Unlock()
	}()
	c.state(ctx, conv, func(cv *Conversation) {
		cv.State = StateAwaitingReply
		if !slices.Contains(cv.Pending, m.ID) {
			cv.Pending = append(cv.Pending, m.ID)
		}
	})
	if err := c.out.Send(ctx, m); err != nil {
		c.state(ctx, conv, func(cv *Conversation) { cv.State = StateFailed; cv.Pending = remove(cv.Pending, m.ID) })
		return nil, fmt.Errorf("document: send %s: %w", m.ID, err)
	}
	select {
	case reply := <-ch:
		if f := reply.Fault(); f != nil {
			return nil, f
		}
		return reply, nil
	case <-ctx.Done():
		c.state(context.WithoutCancel(ctx), conv, func(cv *Conversation) { cv.State = StateExpired })
		return nil, &TimeoutError{MessageID: m.ID, Err: ctx.Err()}
	}
}

// ServeSOAP takes an inbound reply: the waiting caller gets it, or Fallback.
func (c *Correlator) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	// Detach the body from the transport: the caller reads it after the
	// delivery was settled.
	if m.Envelope != nil && m.Fault() == nil {
		var buf bytes.Buffer
		if _, err := m.Envelope.Body.WriteTo(&buf); err != nil {
			return nil, err
		}
		m.Envelope.Body = core.RawBody(buf.Bytes())
	}
	conv := ConversationOf(m)
	c.mu.Lock()
	ch, ok := c.pending[m.RelatesTo]
	if ok {
		delete(c.pending, m.RelatesTo)
	}
	c.mu.Unlock()
	c.state(ctx, conv, func(cv *Conversation) {
		cv.Pending = remove(cv.Pending, m.RelatesTo)
		if m.Fault() != nil {
			cv.State = StateFailed
		} else if len(cv.Pending) == 0 {
			cv.State = StateCompleted
		}
	})
	if ok {
		ch <- m
		return nil, nil
	}
	c.log.InfoContext(ctx, "document: late or unmatched reply", slog.String("relates_to", m.RelatesTo), slog.String("id", m.ID))
	if c.fb != nil {
		return c.fb.ServeSOAP(ctx, m)
	}
	return nil, fmt.Errorf("document: reply %s relates to no pending request (%q) and there is no fallback", m.ID, m.RelatesTo)
}

func (c *Correlator) state(ctx context.Context, conv string, fn func(*Conversation)) {
	if c.store == nil || conv == "" {
		return
	}
	if _, err := c.store.Update(ctx, conv, func(cv *Conversation) error { fn(cv); return nil }); err != nil {
		c.log.ErrorContext(ctx, "document: conversation state not recorded", slog.String("conversation", conv), slog.Any("err", err))
	}
}

func remove(ids []string, id string) []string {
	return slices.DeleteFunc(ids, func(s string) bool { return s == id })
}
