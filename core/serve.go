package core

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// FaultAction is the wsa:Action of a fault message (WS-Addressing 1.0 SOAP
// Binding §6).
const FaultAction = "http://www.w3.org/2005/08/addressing/soap/fault"

// ServeOption configures Serve.
type ServeOption func(*serveConfig)

type serveConfig struct {
	log         *slog.Logger
	concurrency int
	settle      time.Duration
	grace       time.Duration
	policy      ReplyPolicy
}

// WithLogger logs Serve's decisions (faults, parked messages, send failures).
func WithLogger(l *slog.Logger) ServeOption { return func(c *serveConfig) { c.log = l } }

// WithConcurrency lets Serve handle up to n deliveries at once (default 1).
func WithConcurrency(n int) ServeOption {
	return func(c *serveConfig) {
		if n > 0 {
			c.concurrency = n
		}
	}
}

// WithShutdownGrace lets the handlers in flight when Serve's ctx ends go on
// for up to d before their own ctx is cancelled, the way http.Server's
// Shutdown lets requests finish. Serve stops receiving at once either way.
// The default, 0, cancels the handlers' ctx together with Serve's.
func WithShutdownGrace(d time.Duration) ServeOption {
	return func(c *serveConfig) {
		if d > 0 {
			c.grace = d
		}
	}
}

// WithReplyPolicy sets where Serve lets answers go (see ReplyPolicy). A
// delivery whose ReplyTo or FaultTo p refuses, or that the replies Sender
// has no route for, is not handled: it is logged and Nacked with p's Sender
// fault (ErrReplyRefused, so the binding parks it at once), and nothing is
// sent to either address. The default is the zero ReplyPolicy: any scheme
// the replies Sender routes, no private host, mail only to the request's
// authenticated submitter. With a nil replies Sender, Serve sends nothing
// and checks nothing itself: a handler that sends answers on its own finds
// p in its ctx (ReplyPolicyOf; document.Handler checks with it).
func WithReplyPolicy(p ReplyPolicy) ServeOption { return func(c *serveConfig) { c.policy = p } }

// Serve drives a Receiver until ctx is done or the Receiver is closed, and
// then returns nil once the deliveries in flight are settled. For each
// delivery it first parks an unreadable message (UnreadableMessage: never
// handled; an UnreadableHandler hears of it), then checks where answers
// would go (WithReplyPolicy: a
// refused ReplyTo or FaultTo parks the delivery unhandled), then calls h
// (a panic becomes a Receiver fault) with the policy in its ctx
// (ReplyPolicyOf), then judges the
// rest of the message (Message.Verdict: nothing is sent or settled before
// the whole envelope was read and found sound), then:
//   - a reply goes to the request's ReplyTo through replies, with RelatesTo set
//     to the request's ID; a fault goes to FaultTo, else ReplyTo;
//   - a message that turned out malformed (its Body's fault, found by the
//     handler or by the verdict, whatever the handler answered) is never
//     Acked: its fault goes to FaultTo, else ReplyTo, when there is one,
//     and the delivery is Nacked with a cause holding ErrMalformed and the
//     fault, so the binding parks it at once;
//   - the delivery is Acked only after the reply or fault was handed to
//     replies, or when there is nothing to send (one-way; ReplyTo none);
//   - it is Nacked, with the reason, when sending fails, or when a fault has
//     no address to go to (the binding parks it with its fault). Answers
//     are sent with a ctx marked by WithAnswerPolicy, so a Sender that
//     connects where the address says refuses a host name that resolves to
//     a private address (DialControl); such a refusal (ErrReplyRefused) is
//     Nacked as malformed too: it is parked, not retried;
//   - when ctx ends (after WithShutdownGrace, if set) and the handler then
//     fails with the context's error, the message was not processed: it is
//     Nacked with an error wrapping context.Canceled, not faulted, so the
//     binding keeps it for the next Receiver (a shutdown is not a failure of
//     the message).
//
// Once a delivery is settled, Serve closes its message (Message.Close: the
// parts of a package it spooled are removed); a handler must not keep the
// message, or its attachments, beyond its return.
//
// A reply with no address (ReplyTo absent or anonymous, which an
// asynchronous transport has no back-channel for) is logged and dropped, and
// the request Acked: it was processed. Receive errors other than ErrClosed
// are logged and retried with backoff.
func Serve(ctx context.Context, r Receiver, h Handler, replies Sender, opts ...ServeOption) error {
	c := serveConfig{log: discard(), concurrency: 1, settle: 30 * time.Second}
	for _, o := range opts {
		o(&c)
	}
	unreadable, _ := h.(UnreadableHandler)
	h = Recover(c.log)(h)
	// hctx is the handlers' context: Serve's, or with a grace period, one
	// that outlives it by the grace.
	hctx := ctx
	if c.grace > 0 {
		var cancel context.CancelFunc
		hctx, cancel = context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		stop := context.AfterFunc(ctx, func() { time.AfterFunc(c.grace, cancel) })
		defer stop()
	}
	sem := make(chan struct{}, c.concurrency)
	var wg sync.WaitGroup
	defer wg.Wait()
	backoff := time.Duration(0)
	for {
		d, err := r.Receive(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, ErrClosed) {
				return nil
			}
			backoff = min(max(2*backoff, 50*time.Millisecond), 5*time.Second)
			c.log.WarnContext(ctx, "soap: receive failed", slog.Any("err", err), slog.Duration("retry_in", backoff))
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			c.settleNack(ctx, d, ctx.Err())
			d.Message().Close()
			return nil
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			c.handle(hctx, d, h, unreadable, replies)
		}()
	}
}

// allowAnswers checks m's ReplyTo and FaultTo against the policy and the
// routes of replies. With no replies Sender, Serve sends nothing itself:
// a handler that answers on its own (document.Handler) checks with
// ReplyPolicyOf.
func (c *serveConfig) allowAnswers(ctx context.Context, m *Message, replies Sender) error {
	if replies == nil {
		return nil
	}
	return c.policy.AllowAnswers(ctx, m, replies)
}

func (c *serveConfig) settleNack(ctx context.Context, d Delivery, cause error) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.settle)
	defer cancel()
	if err := d.Nack(sctx, cause); err != nil {
		c.log.ErrorContext(ctx, "soap: nack failed", slog.Any("err", err))
	}
}

func (c *serveConfig) handle(ctx context.Context, d Delivery, h Handler, unreadable UnreadableHandler, replies Sender) {
	m := d.Message()
	defer m.Close() // once settled: its spooled parts go
	attrs := []any{slog.String("id", m.ID), slog.String("action", m.Action)}
	if f := m.malformed(); f != nil {
		// unreadable before any handler (UnreadableMessage): parked, never
		// handled; a handler waiting for the reply it relates to learns
		if unreadable != nil && m.RelatesTo != "" {
			func() {
				defer func() {
					if p := recover(); p != nil {
						c.log.ErrorContext(ctx, "soap: panic in ServeUnreadable", append(attrs, slog.Any("panic", p))...)
					}
				}()
				unreadable.ServeUnreadable(ctx, m, f)
			}()
		}
		c.log.WarnContext(ctx, "soap: unreadable message parked", append(attrs, slog.String("relates_to", m.RelatesTo), slog.String("fault", f.Error()))...)
		c.settleNack(ctx, d, fmt.Errorf("%w: %w", ErrMalformed, f))
		return
	}
	if err := c.allowAnswers(ctx, m, replies); err != nil {
		f := FaultOf(err)
		if f.Version == 0 {
			f = f.WithVersion(m.Version())
		}
		c.log.WarnContext(ctx, "soap: reply address refused; the message is parked unhandled",
			append(attrs, slog.String("reply_to", m.ReplyTo), slog.String("fault_to", m.FaultTo), slog.String("fault", f.Error()))...)
		c.settleNack(ctx, d, fmt.Errorf("%w: %w", ErrMalformed, f))
		return
	}
	reply, err := h.ServeSOAP(withReplyPolicy(ctx, &c.policy), m)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.settle)
	defer cancel()
	// what is sent with sctx goes where the peer said: a Sender that
	// connects by name checks where it connects (WithAnswerPolicy)
	sctx = WithAnswerPolicy(sctx, c.policy)
	if err != nil && ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		// The handler stopped because Serve is stopping: the message was
		// not processed, and is no fault of its sender.
		c.log.InfoContext(ctx, "soap: handler stopped by shutdown; the message is handed back", attrs...)
		c.settleNack(ctx, d, fmt.Errorf("core: handler stopped by shutdown: %w (%w)", context.Canceled, err))
		return
	}
	reply, err = m.Verdict(reply, err)
	if err != nil {
		c.fault(ctx, sctx, d, m, FaultOf(err), replies, attrs)
		return
	}
	if reply != nil {
		switch to := m.ReplyTo; to {
		case NoneAddress:
		case "", AnonymousAddress:
			c.log.WarnContext(ctx, "soap: reply with no ReplyTo address dropped", attrs...)
		default:
			if replies == nil {
				c.log.WarnContext(ctx, "soap: reply dropped: Serve has no Sender for replies", attrs...)
				break
			}
			reply.To = to
			if reply.RelatesTo == "" {
				reply.RelatesTo = m.ID
			}
			if reply.ID == "" {
				reply.ID = NewMessageID()
			}
			if serr := replies.Send(sctx, reply); serr != nil {
				if f := m.malformed(); f != nil {
					// the reply read the request as it was written, and
					// the request's rest turned out wrong
					c.fault(ctx, sctx, d, m, f, replies, attrs)
					return
				}
				c.log.ErrorContext(ctx, "soap: sending the reply failed", append(attrs, slog.Any("err", serr))...)
				c.settleNack(ctx, d, sendCause("reply", to, m.Version(), serr))
				return
			}
		}
	}
	// a reply dropped unwritten had its check on the request deferred to
	// its writing: the request is judged here instead
	if derr := m.Body().Discard(); derr != nil {
		c.fault(ctx, sctx, d, m, m.bodyFault(derr), replies, attrs)
		return
	}
	c.ack(ctx, sctx, d, attrs)
}

// fault answers m, whose handling ended in f: f goes to FaultTo, else
// ReplyTo, and the delivery is Acked once it is sent. A fault with nowhere
// to go is Nacked with f (the binding parks the message). A malformed
// message is Nacked with ErrMalformed and f in any case, after its fault
// was sent where it could go: it was never processed.
func (c *serveConfig) fault(ctx, sctx context.Context, d Delivery, m *Message, f *Fault, replies Sender, attrs []any) {
	var cause error = f
	if bf := m.malformed(); bf != nil {
		f, cause = bf, fmt.Errorf("%w: %w", ErrMalformed, bf)
	} else if errors.Is(f, ErrReplyRefused) || errors.Is(f, ErrMalformed) {
		// a handler refused the reply address (document.Handler), or found
		// the message malformed in a way only it can see (a reply in the
		// other SOAP version than its request, to document.Correlator):
		// park at once, as Serve does for its own refusals
		cause = fmt.Errorf("%w: %w", ErrMalformed, f)
	}
	to := m.FaultTo
	if to == "" {
		to = m.ReplyTo
	}
	if to == "" || to == AnonymousAddress || to == NoneAddress || replies == nil {
		c.log.WarnContext(ctx, "soap: fault with nowhere to go; parking the message", append(attrs, slog.String("fault", f.Error()))...)
		c.settleNack(ctx, d, cause)
		return
	}
	fm := m.FaultReply(f)
	fm.To, fm.Action = to, FaultAction
	if serr := replies.Send(sctx, fm); serr != nil {
		c.log.ErrorContext(ctx, "soap: sending the fault failed", append(attrs, slog.Any("err", serr))...)
		c.settleNack(ctx, d, sendCause("fault", to, m.Version(), serr))
		return
	}
	c.log.InfoContext(ctx, "soap: fault sent", append(attrs, slog.String("to", to), slog.String("fault", f.Error()))...)
	if cause != error(f) {
		c.log.WarnContext(ctx, "soap: malformed message parked", append(attrs, slog.String("fault", f.Error()))...)
		c.settleNack(ctx, d, cause)
		return
	}
	c.ack(ctx, sctx, d, attrs)
}

func (c *serveConfig) ack(ctx, sctx context.Context, d Delivery, attrs []any) {
	if err := d.Ack(sctx); err != nil {
		c.log.ErrorContext(ctx, "soap: ack failed", append(attrs, slog.Any("err", err))...)
	}
}

// sendCause is what a delivery whose answer (what: reply or fault) could
// not be sent to `to` is Nacked with. An address refused where the Sender
// connects (ErrReplyRefused: a name that resolves to a private address,
// DialControl) is a Sender fault naming it, in the request's version v,
// and malformed: sending again cannot help, so the binding parks the
// message at once with that fault.
func sendCause(what, to string, v Version, err error) error {
	if errors.Is(err, ErrReplyRefused) {
		f := &Fault{Code: CodeSender, Version: v, Reason: fmt.Sprintf("reply address %q cannot be reached from here", to),
			Cause: fmt.Errorf("core: send %s to %s: %w", what, to, err)}
		return fmt.Errorf("%w: %w", ErrMalformed, f)
	}
	return fmt.Errorf("core: send %s to %s: %w", what, to, err)
}
