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

// Correlator turns a one-way Sender plus inbound replies into a
// core.RoundTripper: a request by mail answered by file drop looks to the
// caller like one call with a ctx deadline.
//
// RoundTrip sends the request with ReplyTo (and FaultTo, unless set) to the
// Correlator's reply address and waits for the message whose RelatesTo is
// the request's ID. The Correlator is also the core.Handler of that address:
// serve its Receiver with it (core.Serve), or mount it on an HTTP endpoint.
// A reply that a caller waits for goes to that caller; a late one (its
// caller gave up), an unmatched one (no such request, or one sent before a
// restart) and any other message go to the fallback handler (WithFallback),
// never dropped: without a fallback they are refused with ErrUnmatched so
// the binding keeps them.
//
// With a Store (WithStore) each request's conversation is recorded awaiting
// a reply before it is sent, and completed, failed (a fault reply, or the
// send failed) or expired (ctx ended first) after; a late reply still
// completes it. As the Store outlives the process, a Correlator started
// after a restart settles the conversations its predecessor was waiting on
// when their replies come, and hands the replies to the fallback.
type Correlator struct {
	out     core.Sender
	replyTo string
	o       correlatorConfig

	mu      sync.Mutex
	waiters map[string]*waiter  // request id → its caller
	gaveUp  map[string]struct{} // ids of recent requests whose caller stopped waiting
	ring    []string            // gaveUp in order, bounded by maxGaveUp
	next    int                 // where the next id goes in a full ring
}

// maxGaveUp bounds how many timed-out request ids a Correlator remembers in
// memory to tell a late reply from an unmatched one (a Store remembers more).
const maxGaveUp = 4096

type waiter struct {
	ch   chan *core.Message // buffered: the reply is handed over without blocking
	conv string
	sent core.Version // the request's: a reply in the other one is refused
}

var (
	_ core.RoundTripper      = (*Correlator)(nil)
	_ core.Handler           = (*Correlator)(nil)
	_ core.UnreadableHandler = (*Correlator)(nil)
)

// MetaMatch is the Meta key the Correlator sets on a message it hands to its
// fallback: "late" (its request timed out, or was sent by a process that
// since restarted and is recorded in the Store) or "unmatched" (it answers
// no request known here).
const MetaMatch = "document.match"

// NewCorrelator returns a Correlator sending requests through out (an
// *Outbox picks the Sender by the request's To), with replies expected at
// replyTo, an address whose inbound side is served with the Correlator.
func NewCorrelator(out core.Sender, replyTo string, opts ...CorrelatorOption) *Correlator {
	return &Correlator{out: out, replyTo: replyTo, o: newCorrelatorConfig(opts), waiters: make(map[string]*waiter), gaveUp: make(map[string]struct{})}
}

// Pending returns the number of callers waiting for a reply.
func (c *Correlator) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.waiters)
}

// RoundTrip sends m and waits for its reply until ctx ends (or the
// WithTimeout bound, when ctx has no deadline). It fills in what m lacks: an
// ID, ReplyTo (the Correlator's address), FaultTo (ReplyTo) and a
// Conversation header (a new conversation named by the ID). A fault reply is
// returned as a *core.Fault error; a reply in the other SOAP version than
// m as a VersionMismatch *core.Fault this side found
// (core.CheckReplyVersion; the conversation fails and ServeSOAP returns the
// fault, so core.Serve parks that reply); no reply in time as a
// *TimeoutError, also when ctx ended while the request was being sent (it
// may have gone out).
func (c *Correlator) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	if m == nil || m.Envelope == nil {
		return nil, errors.New("document: round trip: no envelope")
	}
	if _, ok := ctx.Deadline(); !ok && c.o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.o.timeout)
		defer cancel()
	}
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	if m.ReplyTo == "" {
		m.ReplyTo = c.replyTo
	}
	if m.FaultTo == "" {
		m.FaultTo = m.ReplyTo
	}
	if !hasConversation(m) {
		SetConversation(m, ConversationOf(m))
	}
	conv := ConversationOf(m)
	w := &waiter{ch: make(chan *core.Message, 1), conv: conv, sent: m.Version()}
	c.mu.Lock()
	if _, dup := c.waiters[m.ID]; dup {
		c.mu.Unlock()
		return nil, fmt.Errorf("%w: %s", ErrAwaiting, m.ID)
	}
	c.waiters[m.ID] = w
	c.mu.Unlock()

	deadline, _ := ctx.Deadline()
	if err := c.track(ctx, conv, func(cv *Conversation) error { awaitReply(cv, m.ID, deadline); return nil }); err != nil {
		c.unregister(m.ID, w)
		return nil, err
	}
	if err := c.out.Send(ctx, m); err != nil {
		if !c.unregister(m.ID, w) { // the reply came all the same
			return replyOf(<-w.ch)
		}
		if ctx.Err() != nil {
			// The deadline cut the send short: the request may have gone
			// out, so a reply may still come. It is a timeout, and the
			// request is kept as expired so that reply is recognised.
			return nil, c.expire(ctx, m.ID, conv, err)
		}
		_ = c.track(context.WithoutCancel(ctx), conv, func(cv *Conversation) error {
			if !slices.Contains(cv.Pending, m.ID) {
				return errSkip
			}
			cv.Pending = remove(cv.Pending, m.ID)
			cv.State = StateFailed
			return nil
		})
		return nil, fmt.Errorf("document: round trip: send %s: %w", m.ID, err)
	}
	select {
	case r := <-w.ch:
		return replyOf(r)
	case <-ctx.Done():
		if !c.unregister(m.ID, w) { // the reply won the race: it is (or is about to be) in ch
			return replyOf(<-w.ch)
		}
		return nil, c.expire(ctx, m.ID, conv, nil)
	}
}

// expire records that the caller of request id stopped waiting, and
// returns its *TimeoutError.
func (c *Correlator) expire(ctx context.Context, id, conv string, sendErr error) error {
	c.mu.Lock()
	c.gaveUp[id] = struct{}{}
	if len(c.ring) < maxGaveUp {
		c.ring = append(c.ring, id)
	} else {
		delete(c.gaveUp, c.ring[c.next])
		c.ring[c.next] = id
		c.next = (c.next + 1) % maxGaveUp
	}
	c.mu.Unlock()
	_ = c.track(context.WithoutCancel(ctx), conv, func(cv *Conversation) error {
		if !expireOne(cv, id) {
			return errSkip // a late reply settled it meanwhile
		}
		return nil
	})
	c.o.log.InfoContext(ctx, "document: no reply in time", slog.String("id", id), slog.String("conversation", conv), slog.Any("err", ctx.Err()), slog.Any("send_err", sendErr))
	return &TimeoutError{MessageID: id, Conversation: conv, Err: ctx.Err()}
}

func replyOf(r *core.Message) (*core.Message, error) {
	if f := r.Fault(); f != nil {
		return nil, f
	}
	return r, nil
}

// unregister removes id's waiter if it is still w, and reports whether it
// did (false: ServeSOAP took it and hands it a reply).
func (c *Correlator) unregister(id string, w *waiter) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiters[id] != w {
		return false
	}
	delete(c.waiters, id)
	return true
}

// ServeSOAP takes an inbound message: the reply a caller waits for goes to
// it; anything else to the fallback (see Correlator).
func (c *Correlator) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	// Detach the body from the transport: the caller reads it after the
	// delivery was settled.
	if m.Envelope != nil && m.Fault() == nil {
		var buf bytes.Buffer
		if _, err := m.Envelope.Body.WriteTo(&buf); err != nil {
			// a malformed reply: its caller is told at once (and the
			// binding parks it, as core.Serve's verdict says)
			c.fail(ctx, m, core.FaultOf(err))
			return nil, err
		}
		m.Envelope.Body = core.RawBody(buf.Bytes())
	}
	var w *waiter
	late := false
	if m.RelatesTo != "" {
		c.mu.Lock()
		if w = c.waiters[m.RelatesTo]; w != nil {
			delete(c.waiters, m.RelatesTo)
		}
		_, late = c.gaveUp[m.RelatesTo]
		c.mu.Unlock()
	}
	if w != nil {
		if err := core.CheckReplyVersion(w.sent, m); err != nil {
			// a reply in the other SOAP version answers no request of
			// ours: its caller gets the VersionMismatch fault at once, the
			// conversation fails, and the reply is parked with the fault
			f := core.FaultOf(err)
			c.hand(ctx, w, m, f)
			parked := *f // ErrMalformed: core.Serve parks the reply at once
			parked.Cause = fmt.Errorf("%w: a reply in the other SOAP version than its request", core.ErrMalformed)
			return nil, &parked
		}
	}
	conv := ConversationOf(m)
	if w != nil {
		conv = w.conv
	}
	known := c.settle(ctx, conv, m) || late
	if w != nil {
		w.ch <- m
		return nil, nil
	}
	match := "unmatched"
	if known {
		match = "late"
	}
	m.SetMeta(MetaMatch, match)
	c.o.log.InfoContext(ctx, "document: reply for no waiting caller", slog.String("match", match), slog.String("relates_to", m.RelatesTo), slog.String("id", m.ID), slog.String("conversation", conv))
	if c.o.fallback == nil {
		return nil, fmt.Errorf("%w: %s relates to %q", ErrUnmatched, m.ID, m.RelatesTo)
	}
	return c.o.fallback.ServeSOAP(ctx, m)
}

// ServeUnreadable ends the call waiting for the reply m stands for (by its
// RelatesTo), a reply its binding could not read (core.UnreadableMessage: a
// mail that is not SOAP, an envelope that is malformed or over a bound),
// with f at once, as a malformed reply over request-reply ends its call:
// RoundTrip returns f (Remote false). The conversation is failed. A reply
// no caller waits for changes nothing here; core.Serve parks it either way.
func (c *Correlator) ServeUnreadable(ctx context.Context, m *core.Message, f *core.Fault) {
	c.fail(ctx, m, f)
}

// fail hands f to the caller waiting for m, if any, and reports whether
// there was one.
func (c *Correlator) fail(ctx context.Context, m *core.Message, f *core.Fault) bool {
	if m.RelatesTo == "" {
		return false
	}
	c.mu.Lock()
	w := c.waiters[m.RelatesTo]
	if w != nil {
		delete(c.waiters, m.RelatesTo)
	}
	c.mu.Unlock()
	if w == nil {
		return false
	}
	c.hand(ctx, w, m, f)
	return true
}

// hand ends w's call with f, which m (a reply to it) was found to be: the
// conversation is failed and RoundTrip returns f.
func (c *Correlator) hand(ctx context.Context, w *waiter, m *core.Message, f *core.Fault) {
	fm := core.NewMessage(m.Version(), core.FaultBody(f))
	fm.ID, fm.RelatesTo, fm.Meta = m.ID, m.RelatesTo, m.Meta
	c.settle(ctx, w.conv, fm)
	c.o.log.WarnContext(ctx, "document: a malformed reply ends its call", slog.String("relates_to", m.RelatesTo), slog.String("id", m.ID), slog.String("fault", f.Error()))
	w.ch <- fm
}

// settle records a reply in its conversation: the request it answers is no
// longer pending (or expired), and the conversation is completed when
// nothing else is pending, failed for a fault. It reports whether the reply
// answers a request the Store knows. A message that answers none changes
// nothing (and creates no conversation).
func (c *Correlator) settle(ctx context.Context, conv string, m *core.Message) bool {
	if c.o.store == nil || m.RelatesTo == "" || conv == "" {
		return false
	}
	rel := m.RelatesTo
	err := c.track(ctx, conv, func(cv *Conversation) error {
		switch {
		case slices.Contains(cv.Pending, rel):
			cv.Pending = remove(cv.Pending, rel)
		case slices.Contains(cv.Expired, rel):
			cv.Expired = remove(cv.Expired, rel)
		default:
			return errSkip
		}
		switch {
		case m.Fault() != nil:
			cv.State = StateFailed
		case len(cv.Pending) == 0:
			cv.State = StateCompleted
		}
		return nil
	})
	return err == nil
}

// track applies fn to conversation conv in the Store, if there is one. An
// errSkip from fn is returned (nothing changed); a Store error is logged and
// returned.
func (c *Correlator) track(ctx context.Context, conv string, fn func(*Conversation) error) error {
	if c.o.store == nil || conv == "" {
		return nil
	}
	err := c.o.store.Update(ctx, conv, fn)
	if err != nil && !errors.Is(err, errSkip) {
		c.o.log.ErrorContext(ctx, "document: conversation state not recorded", slog.String("conversation", conv), slog.Any("err", err))
		return fmt.Errorf("document: conversation %s: %w", conv, err)
	}
	return err
}
