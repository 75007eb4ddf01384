package document

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/soapwire/soapwire/core"
)

// serveOnce processes in's message unless its id was processed before, in
// which case the recorded outcome is delivered again.
func (h *Handler) serveOnce(ctx context.Context, in *Incoming) (*core.Message, error) {
	m, conv := in.Message, in.Conversation
	key := msgKey{conv, m.ID}
	if err := h.enter(ctx, key); err != nil {
		return nil, h.park(m, &core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: err})
	}
	defer h.leave(key)
	prior, err := h.claim(ctx, conv, m.ID)
	switch {
	case errors.Is(err, ErrInFlight):
		h.o.log.InfoContext(ctx, "document: duplicate of a message being processed elsewhere", slog.String("id", m.ID))
		return nil, h.park(m, &core.Fault{Code: core.CodeReceiver, Reason: "the message is being processed; send it again later", Cause: err})
	case err != nil:
		h.o.log.ErrorContext(ctx, "document: conversation store failed", slog.String("id", m.ID), slog.String("conversation", conv), slog.Any("err", err))
		return nil, h.park(m, &core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: err})
	case prior != nil:
		return h.replay(ctx, m, prior)
	}
	r := h.process(ctx, in)
	if err := h.record(ctx, m, conv, &r); err != nil {
		h.o.log.ErrorContext(ctx, "document: recording the outcome failed", slog.String("id", m.ID), slog.String("conversation", conv), slog.Any("err", err))
	}
	return h.deliver(ctx, m, r.reply, r.to)
}

// enter waits until no other delivery of key is being processed in this
// Handler, then marks key in flight; leave ends that.
func (h *Handler) enter(ctx context.Context, key msgKey) error {
	for {
		h.mu.Lock()
		done, busy := h.inflight[key]
		if !busy {
			h.inflight[key] = nil // a channel is made only if a duplicate waits
			h.mu.Unlock()
			return nil
		}
		if done == nil {
			done = make(chan struct{})
			h.inflight[key] = done
		}
		h.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// leave ends what enter began, waking the deliveries of key waiting.
func (h *Handler) leave(key msgKey) {
	h.mu.Lock()
	done := h.inflight[key]
	delete(h.inflight, key)
	h.mu.Unlock()
	if done != nil {
		close(done)
	}
}

// claim records that this Handler is processing id, or returns the outcome
// recorded for it. A claim by another Handler younger than the lease is
// ErrInFlight; an older one, or a leftover of this Handler's (a panic), is
// taken over.
func (h *Handler) claim(ctx context.Context, conv, id string) (*Outcome, error) {
	op := h.storeOp(id, time.Now())
	defer op.release()
	err := h.update(ctx, conv, op.now, op.claimFn)
	if errors.Is(err, errSkip) {
		prior := op.out
		return &prior, nil
	}
	return nil, err
}

// storeOp is a claim or record of one message: what its Store.Update
// function works on. The functions are made once per storeOp, and storeOps
// are reused, so that an update allocates no closure (a Store calls fn
// within Update only).
type storeOp struct {
	h           *Handler
	id          string
	now         time.Time
	out         Outcome // record: the outcome to store; claim: the recorded one found
	keep, fault bool    // record: as in result

	claimFn, recordFn func(*Conversation) error
}

var storeOps = sync.Pool{New: func() any {
	op := new(storeOp)
	op.claimFn, op.recordFn = op.claim, op.record
	return op
}}

func (h *Handler) storeOp(id string, now time.Time) *storeOp {
	op := storeOps.Get().(*storeOp)
	op.h, op.id, op.now = h, id, now
	return op
}

func (op *storeOp) release() {
	*op = storeOp{claimFn: op.claimFn, recordFn: op.recordFn}
	storeOps.Put(op)
}

// claim is claim's Update function: errSkip with op.out set when id has a
// recorded outcome.
func (op *storeOp) claim(c *Conversation) error {
	h, id, now := op.h, op.id, op.now
	h.prune(c, now)
	if o := c.Outcome(id); o != nil {
		if o.Done {
			op.out = *o
			return errSkip
		}
		if o.Owner != h.owner && now.Sub(o.At) < h.o.lease {
			return ErrInFlight
		}
		o.Owner, o.At = h.owner, now // take it over
		return nil
	}
	c.Handled = append(c.Handled, Outcome{MessageID: id, Owner: h.owner, At: now})
	return nil
}

// record is record's Update function.
func (op *storeOp) record(c *Conversation) error {
	i := slices.IndexFunc(c.Handled, func(o Outcome) bool { return o.MessageID == op.id })
	if !op.keep {
		if i >= 0 {
			c.Handled = slices.Delete(c.Handled, i, i+1)
		}
		return nil
	}
	if i >= 0 {
		c.Handled[i] = op.out
	} else {
		c.Handled = append(c.Handled, op.out)
	}
	if c.State == StateOpen {
		if op.fault {
			c.State = StateFailed
		} else {
			c.State = StateAcknowledged
		}
	}
	return nil
}

// prune drops the Done records older than the retention and, to make room
// for one more within the maximum, the oldest Done records.
func (h *Handler) prune(c *Conversation, now time.Time) {
	if len(c.Handled) == 0 {
		return
	}
	cut := now.Add(-h.o.retention)
	c.Handled = slices.DeleteFunc(c.Handled, func(o Outcome) bool { return o.Done && o.At.Before(cut) })
	for excess := len(c.Handled) - h.o.maxHandled + 1; excess > 0; excess-- {
		i := slices.IndexFunc(c.Handled, func(o Outcome) bool { return o.Done }) // oldest first
		if i < 0 {
			return
		}
		c.Handled = slices.Delete(c.Handled, i, i+1)
	}
}

// record stores r as the outcome of id (or forgets the claim, for an
// outcome not kept), and moves the conversation on. A reply is written out
// and read back, so that what is delivered now is what a duplicate gets.
func (h *Handler) record(ctx context.Context, m *core.Message, conv string, r *result) error {
	id := m.ID
	o := Outcome{MessageID: id, Done: true, At: time.Now(), To: r.to}
	if r.keep && r.reply != nil {
		var buf bytes.Buffer
		_, err := r.reply.WriteTo(&buf)
		var reread *core.Message
		if err == nil {
			reread, err = core.ReadMessageBytes(buf.Bytes(), core.Unlimited())
		}
		if err != nil {
			// the handler's reply cannot be written: a Receiver fault,
			// not kept, so a redelivery is processed again
			f := &core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: err}
			h.o.log.ErrorContext(ctx, "document: the reply cannot be written", slog.String("id", id), slog.Any("err", err))
			*r = result{reply: h.faultReply(m, conv, f), to: destination(m, true), fault: true}
		} else {
			reread.Meta = r.reply.Meta
			r.reply = reread
			if buf.Len() <= h.o.maxReplay {
				o.Reply = buf.Bytes()
			}
		}
	}
	// Recorded even when the requester has gone away meanwhile.
	if ctx.Done() != nil {
		ctx = context.WithoutCancel(ctx)
	}
	op := h.storeOp(id, o.At)
	defer op.release()
	op.out, op.keep, op.fault = o, r.keep, r.fault
	return h.update(ctx, conv, op.now, op.recordFn)
}

// update updates conversation conv in the Store. A MemoryStore is told the
// time the Handler has just read, to save reading the clock again.
func (h *Handler) update(ctx context.Context, conv string, now time.Time, fn func(*Conversation) error) error {
	if s, ok := h.o.store.(*MemoryStore); ok {
		return s.update(conv, now, fn)
	}
	return h.o.store.Update(ctx, conv, fn)
}

// replay delivers a recorded outcome again.
func (h *Handler) replay(ctx context.Context, m *core.Message, o *Outcome) (*core.Message, error) {
	h.o.log.InfoContext(ctx, "document: duplicate delivery answered from the store", slog.String("id", m.ID), slog.Bool("reply", o.Reply != nil))
	if o.Reply == nil {
		return nil, nil
	}
	reply, err := core.ReadMessageBytes(o.Reply, core.Unlimited())
	if err != nil {
		h.o.log.ErrorContext(ctx, "document: recorded reply unreadable", slog.String("id", m.ID), slog.Any("err", err))
		return nil, h.park(m, &core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: err})
	}
	return h.deliver(ctx, m, reply, o.To)
}
