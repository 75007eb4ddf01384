package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// Transport sends SOAP messages over a NATS connection. It is a
// core.RoundTripper (a NATS request: many in flight on one connection, each
// bounded by its ctx) and a core.Sender (a publish, or a JetStream publish
// for an address with a stream). It is safe for concurrent use; reuse one
// for the connection's life: it subscribes to a reply inbox of its own on
// its first request, released when the Transport is garbage collected.
type Transport struct {
	nc      *nats.Conn
	def     Address // the default destination; zero: none
	defAddr string  // def.String()
	o       transportConfig
	outs    outgoings
	replies *replies // not referring to the Transport, so that it can be collected
	max     payloadLimit
	jsOnce  func() (*Publisher, error)
	objs    *objects // WithObjectStore; nil: none
}

var (
	_ core.RoundTripper = (*Transport)(nil)
	_ core.Sender       = (*Transport)(nil)
)

// NewTransport returns a Transport on nc. to is the default destination (a
// subject or a "nats:" address, "" for none): a message goes to its To when
// that is a nats: address, else to it. It panics if to is not a valid
// destination (a setup error).
func NewTransport(nc *nats.Conn, to string, opts ...TransportOption) *Transport {
	o := newTransportConfig(opts)
	t := &Transport{nc: nc, o: o, max: payloadLimit{nc: nc}, replies: &replies{nc: nc, timeout: o.timeout, limits: o.limits}}
	// The reply inbox subscription lives as long as the Transport.
	runtime.AddCleanup(t, (*replies).close, t.replies)
	if to != "" {
		a, err := destination(to)
		if err != nil {
			panic(err)
		}
		t.def, t.defAddr = a, a.String()
	}
	t.objs = newObjects(nc, o.objects)
	t.jsOnce = onceValues(func() (*Publisher, error) {
		p, err := NewPublisher(nc, "", WithLogger(o.log))
		if p != nil {
			p.objs = t.objs
		}
		return p, err
	})
	return t
}

// dest returns where m goes: its To when that is a nats: address, else the
// Transport's default.
func (t *Transport) dest(m *core.Message) (Address, error) {
	if isNATS(m.To) {
		return destination(m.To)
	}
	if t.def.Subject == "" {
		return Address{}, fmt.Errorf("%w: To is %q", ErrNoDestination, m.To)
	}
	return t.def, nil
}

// target is a's "nats:" form, written as the target service of a message
// without a To.
func (t *Transport) target(a Address) string {
	if a == t.def {
		return t.defAddr
	}
	return a.String()
}

// RoundTrip sends m as a NATS request and returns the reply. The request
// carries the SOAP headers (see the package documentation) and waits until
// ctx ends, or WithTimeout when ctx has no deadline.
//
//   - a reply envelope: the reply, with Meta "nats.subject";
//   - a fault: a nil reply and the *core.Fault (Remote set);
//   - an empty reply (the handler accepted a one-way message): (nil, nil);
//   - nothing subscribes to the subject: a *NoRespondersError at once
//     (errors.Is ErrNoResponders), never a timeout;
//   - no reply in time: an error with ctx's error in its chain
//     (context.DeadlineExceeded or context.Canceled);
//   - a message over the server's max payload: ErrTooLarge, not sent.
//
// A reply whose parts travelled through the object store (WithObjectStore)
// is read whole before RoundTrip returns, its objects read within ctx (or
// WithTimeout) into the reply's own parts and deleted from the bucket.
// Close a reply with attachments when done: that removes its spool file.
//
// Read a reply's body to its end, or Discard it, when done: until then it
// holds a pooled tokenizer, which otherwise becomes garbage with it.
func (t *Transport) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	a, err := t.dest(m)
	if err != nil {
		return nil, err
	}
	if a.Stream != "" {
		return nil, fmt.Errorf("%w %s: a JetStream destination takes one-way messages (Send), not requests", ErrAddress, a)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("nats: request to %s: %w", a.Subject, err)
	}
	restore, put, err := t.objs.offload(ctx, m)
	if err != nil {
		return nil, err
	}
	defer restore()
	o := t.outs.get()
	out, err := encode(o, m, a.Subject, t.target(a), &t.max)
	if err != nil {
		t.outs.put(o)
		t.dropObjects(ctx, put)
		return nil, err
	}
	resp, err := t.replies.request(ctx, out)
	if err != nil && len(put) > 0 && (errors.Is(err, nats.ErrNoResponders) || errors.Is(err, nats.ErrMaxPayload)) {
		t.dropObjects(ctx, put) // nobody got the request
	}
	runtime.KeepAlive(t) // its inbox stays subscribed until the reply is in
	t.outs.put(o)
	switch {
	case errors.Is(err, nats.ErrNoResponders):
		return nil, &NoRespondersError{Subject: a.Subject}
	case err != nil && ctx.Err() != nil:
		return nil, fmt.Errorf("nats: request to %s: no reply: %w", a.Subject, ctx.Err())
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("nats: request to %s: no reply in %s: %w", a.Subject, t.o.timeout, err)
	case err != nil:
		return nil, fmt.Errorf("nats: request to %s: %w", a.Subject, t.max.tooLarge(err, a.Subject))
	}
	return t.reply(ctx, a.Subject, resp, m.Version())
}

// reply is resp, the answer to a request sent in version sent, as the
// Transport's reply inbox read it (see replies.deliver).
func (t *Transport) reply(ctx context.Context, subject string, resp answer, sent core.Version) (*core.Message, error) {
	if len(resp.msg.Data) == 0 {
		return nil, nil
	}
	r, f := resp.m, resp.f
	if f == nil {
		var objs []object
		objs, f = t.objs.fetch(ctx, r, len(resp.msg.Data), t.o.limits)
		if f == nil && len(objs) > 0 {
			r, f = t.localReply(ctx, subject, resp.msg, r, objs)
		}
	}
	if f != nil {
		if r != nil {
			r.Close()
		}
		return nil, fmt.Errorf("%w from %s: %w", ErrBadReply, subject, f)
	}
	if err := core.CheckReplyVersion(sent, r); err != nil {
		return nil, fmt.Errorf("%w from %s: %w", ErrBadReply, subject, err)
	}
	if rf := r.Fault(); rf != nil {
		r.Close() // the fault is read: its parts, if any, are of no use
		return nil, rf
	}
	if r.Meta == nil {
		r.Meta = make(map[string]string, 1)
	}
	r.Meta[MetaSubject] = subject
	return r, nil
}

// Send publishes m to its destination (see NewTransport). To a core NATS
// subject it is a plain publish: it returns once the message is in the
// connection's buffer, and is delivered at most once, to whoever
// subscribes at that moment. To an address with a stream
// ("nats:orders?stream=ORDERS") it is a JetStream publish, as Publisher.Send
// does: it returns once the stream stored the message, with Meta
// "nats.stream" and "nats.seq" set on m.
func (t *Transport) Send(ctx context.Context, m *core.Message) error {
	a, err := t.dest(m)
	if err != nil {
		return err
	}
	if a.Stream != "" {
		p, err := t.jsOnce()
		if err != nil {
			return err
		}
		return p.send(ctx, m, a)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("nats: publish to %s: %w", a.Subject, err)
	}
	restore, put, err := t.objs.offload(ctx, m)
	if err != nil {
		return err
	}
	defer restore()
	o := t.outs.get()
	defer t.outs.put(o)
	out, err := encode(o, m, a.Subject, t.target(a), &t.max)
	if err != nil {
		t.dropObjects(ctx, put)
		return err
	}
	if err := t.nc.PublishMsg(out); err != nil {
		t.dropObjects(ctx, put)
		return fmt.Errorf("nats: publish to %s: %w", a.Subject, t.max.tooLarge(err, a.Subject))
	}
	m.SetMeta(MetaSubject, a.Subject)
	return nil
}

// onceValues is sync.OnceValues for a func returning a *Publisher; it
// retries after an error.
func onceValues(f func() (*Publisher, error)) func() (*Publisher, error) {
	var (
		mu sync.Mutex
		p  *Publisher
	)
	return func() (*Publisher, error) {
		mu.Lock()
		defer mu.Unlock()
		if p != nil {
			return p, nil
		}
		var err error
		p, err = f()
		return p, err
	}
}

// dropObjects deletes the objects put for a message that was not sent.
func (t *Transport) dropObjects(ctx context.Context, put []object) {
	if err := deleteObjects(ctx, put); err != nil {
		t.o.log.WarnContext(ctx, "soap: deleting the objects of a message not sent failed", slog.Any("err", err))
	}
}
