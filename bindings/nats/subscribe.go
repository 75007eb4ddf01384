package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// Subscription serves a core.Handler on a subject: see Subscribe.
type Subscription struct {
	nc      *nats.Conn
	sub     *nats.Subscription // synchronous: the workers take requests from it
	subject string
	queue   string
	h       core.Handler
	o       subscribeConfig
	outs    outgoings
	max     payloadLimit
	objs    *objects           // WithObjectStore; nil: none
	cancel  context.CancelFunc // cancels the handlers' context
	workers atomic.Int64       // worker goroutines running
	waiting atomic.Int64       // workers waiting for a request

	mu       sync.Mutex
	inFlight int // worker goroutines running (under mu, for idle)
	closed   bool
	idle     chan struct{} // closed when closed and no worker runs

	served atomic.Uint64
	drops  drops       // requests nats.go dropped: counted, logged
	stop   func() bool // stops the context.AfterFunc that closes on ctx's end
}

// Subscribe serves h on subject (a subject, a pattern such as "orders.*",
// or a "nats:" address without a stream) until ctx ends or the
// Subscription is drained or closed. It joins a queue group (WithQueue,
// default DefaultQueue), so any number of instances, in this process or
// others, share the requests: NATS gives each request to one of them.
// Subscribe returns once the server knows the subscription, so a request
// sent after it returns finds a responder.
//
// Requests are handled concurrently, up to WithConcurrency at once, by
// worker goroutines with a context derived from ctx: a worker takes the
// next request waiting before it pauses, and one worker stays waiting when
// the Subscription is idle. Requests no worker has taken yet wait in the
// Subscription's pending buffer, bounded by WithPendingLimits: beyond it
// nats.go drops them (their callers time out), and the Subscription counts
// them (Dropped) and logs them, at most one line per ten seconds with the
// number dropped since the line before. A request's NATS headers are checked
// against its envelope (see the package documentation): a missing
// Content-Type, or a header contradicting the envelope, is answered with a
// Sender fault and logged. The reply, a fault, or for a one-way accept
// ((nil, nil)) an empty message, goes to the request's reply subject. A
// message published without a reply subject is one-way: the handler runs,
// and a reply or fault it returns is logged and dropped.
//
// A request ends with its reply: once the reply (or fault) is sent, the
// rest of a request body the handler did not read is read and dropped (for
// requests up to 64 KiB), as on HTTP, so that its tokenizer is reused. A
// handler must not read a request's body after it has returned its reply;
// a one-way message (no reply subject, or (nil, nil)) is left alone.
func Subscribe(ctx context.Context, nc *nats.Conn, subject string, h core.Handler, opts ...SubscribeOption) (*Subscription, error) {
	a, err := ParseAddress(subject)
	if err != nil {
		return nil, err
	}
	if a.Stream != "" {
		return nil, fmt.Errorf("%w %q: Subscribe serves core NATS subjects; receive from a stream with NewReceiver", ErrAddress, subject)
	}
	o := newSubscribeConfig(opts)
	hctx, cancel := context.WithCancel(ctx)
	s := &Subscription{
		nc: nc, max: payloadLimit{nc: nc}, subject: a.Subject, queue: o.queue, h: core.Recover(o.log)(h), o: o,
		cancel: cancel, idle: make(chan struct{}), objs: newObjects(nc, o.objects),
	}
	// A synchronous subscription: nats.go's reading goroutine hands each
	// request straight to a waiting worker, with no delivery goroutine in
	// between. Requests no worker has taken yet wait in its pending buffer
	// (bounded by WithPendingLimits).
	if o.queue != "" {
		s.sub, err = nc.QueueSubscribeSync(a.Subject, o.queue)
	} else {
		s.sub, err = nc.SubscribeSync(a.Subject)
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("nats: subscribe to %s: %w", a.Subject, err)
	}
	if err := s.limitPending(); err != nil {
		cancel()
		_ = s.sub.Unsubscribe()
		return nil, err
	}
	s.drops = drops{log: o.log, subject: a.Subject, count: s.sub.Dropped, interval: dropLogInterval}
	s.grow(hctx)
	fctx, fcancel := ctx, context.CancelFunc(func() {})
	if _, ok := ctx.Deadline(); !ok {
		fctx, fcancel = context.WithTimeout(ctx, 10*time.Second)
	}
	defer fcancel()
	if err := nc.FlushWithContext(fctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("nats: subscribe to %s: %w", a.Subject, err)
	}
	s.stop = context.AfterFunc(ctx, func() { s.Close() })
	return s, nil
}

// limitPending sets the subscription's pending limits (WithPendingLimits).
func (s *Subscription) limitPending() error {
	msgs, bytes, most := s.o.pendingMsgs, s.o.pendingBytes, int(s.nc.MaxPayload())
	switch {
	case bytes == 0:
		bytes = max(DefaultPendingBytes, 2*most)
	case bytes < most:
		return fmt.Errorf("nats: subscribe to %s: WithPendingLimits(%d, %d): %d bytes is less than the server's max payload, %d: the largest requests would always be dropped", s.subject, msgs, bytes, bytes, most)
	}
	if err := s.sub.SetPendingLimits(msgs, bytes); err != nil {
		return fmt.Errorf("nats: subscribe to %s: pending limits: %w", s.subject, err)
	}
	return nil
}

// Subject returns the subject served.
func (s *Subscription) Subject() string { return s.subject }

// Dropped returns how many requests nats.go has dropped so far because the
// Subscription fell behind (see WithPendingLimits): their callers got no
// reply. The Subscription logs them too, at most one line per ten seconds.
func (s *Subscription) Dropped() int { return s.drops.total() }

// Close unsubscribes at once (when it returns, the server routes no more
// requests here) and cancels the context of the requests in flight; it does
// not wait for them. Requests not yet handled are not answered (their
// callers time out). Close is idempotent.
func (s *Subscription) Close() error {
	if s.stop != nil {
		s.stop()
	}
	s.cancel()
	n, derr := s.sub.Dropped()
	err := s.sub.Unsubscribe()
	s.drops.close(n, derr)
	if err == nil {
		// So that when Close returns, the server no longer routes requests
		// here (they go to other instances, or get no responders).
		_ = s.nc.FlushTimeout(5 * time.Second)
	}
	s.markClosed()
	if err != nil && !errors.Is(err, nats.ErrBadSubscription) && !errors.Is(err, nats.ErrConnectionClosed) {
		return fmt.Errorf("nats: unsubscribe %s: %w", s.subject, err)
	}
	return nil
}

// Drain stops taking new requests, handles those already delivered to this
// process, and returns once every request in flight is answered, or with
// ctx's error when ctx ends first (then it closes the Subscription).
func (s *Subscription) Drain(ctx context.Context) error {
	if err := s.sub.Drain(); err != nil && !errors.Is(err, nats.ErrBadSubscription) && !errors.Is(err, nats.ErrConnectionClosed) {
		s.Close()
		return fmt.Errorf("nats: drain %s: %w", s.subject, err)
	}
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for s.sub.IsValid() {
		s.drops.check() // the count is gone once the subscription is
		select {
		case <-ctx.Done():
			s.Close()
			return fmt.Errorf("nats: drain %s: %w", s.subject, ctx.Err())
		case <-tick.C:
		}
	}
	s.markClosed()
	select {
	case <-s.idle:
		s.Close()
		return nil
	case <-ctx.Done():
		s.Close()
		return fmt.Errorf("nats: drain %s: %w", s.subject, ctx.Err())
	}
}

// markClosed records that no more requests will be taken: idle is closed
// once the last worker has exited (workers exit when the subscription ends:
// unsubscribed, drained, its context done or its connection closed).
func (s *Subscription) markClosed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		if s.inFlight == 0 {
			close(s.idle)
		}
	}
}

// grow starts a worker, counted as waiting for a request, unless
// WithConcurrency of them run or the Subscription is closed.
//
// Workers keep one of them waiting for the next request while fewer than
// WithConcurrency run: the one that takes the last waiting place starts
// another before it serves its request, so a request never waits for a
// handler to finish below the limit (a handler may block). At the limit,
// requests wait in the subscription's pending buffer (the backpressure of
// WithConcurrency). A worker that has served a request takes the next one
// already waiting without pausing, and when none is, stays only if no other
// worker waits; so replies of requests that arrived together are published
// together (nats.go writes them to the socket at once), instead of each
// request going to its own waiting worker.
func (s *Subscription) grow(ctx context.Context) {
	for {
		n := s.workers.Load()
		if n >= int64(s.o.concurrency) {
			return
		}
		if s.workers.CompareAndSwap(n, n+1) {
			break
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.workers.Add(-1)
		return
	}
	s.inFlight++
	s.mu.Unlock()
	s.waiting.Add(1)
	go s.worker(ctx)
}

// worker takes requests from the subscription and serves them, until the
// subscription ends or it is not needed (see grow). It starts counted as
// waiting.
func (s *Subscription) worker(ctx context.Context) {
	defer s.done()
	for {
		msg, err := s.sub.NextMsgWithContext(ctx)
		waiting := s.waiting.Add(-1)
		if err != nil {
			if errors.Is(err, nats.ErrSlowConsumer) {
				// nats.go dropped requests: counted and logged.
				s.drops.check()
				s.waiting.Add(1)
				continue
			}
			// Unsubscribed, drained, ctx done or the connection closed: no
			// more requests will come.
			s.markClosed()
			return
		}
		if waiting == 0 {
			s.grow(ctx)
		}
		s.serve(ctx, msg)
		if s.served.Add(1)%128 == 0 {
			s.drops.check()
		}
		if !s.stay() {
			return
		}
	}
}

// stay reports whether a worker that has served a request waits for the
// next one (counting it as waiting): yes when requests are pending, or when
// no other worker waits.
func (s *Subscription) stay() bool {
	if n, _, err := s.sub.Pending(); err == nil && n > 0 {
		s.waiting.Add(1)
		return true
	}
	for {
		w := s.waiting.Load()
		if w > 0 {
			return false
		}
		if s.waiting.CompareAndSwap(w, w+1) {
			return true
		}
	}
}

func (s *Subscription) done() {
	s.workers.Add(-1)
	s.mu.Lock()
	s.inFlight--
	if s.closed && s.inFlight == 0 {
		close(s.idle)
	}
	s.mu.Unlock()
}

// serve handles one request. What is not the common path (a refusal, a
// fault, a one-way message, a failed send) is in methods of its own.
func (s *Subscription) serve(ctx context.Context, msg *nats.Msg) {
	m, f := decode(msg.Data, msg.Header, s.o.limits, true)
	if m != nil {
		defer m.Close() // a package's spooled parts
	}
	if f == nil {
		var objs []object
		if objs, f = s.objs.fetch(ctx, m, len(msg.Data), s.o.limits); len(objs) > 0 {
			// consumed once the reply (or fault) is sent
			defer func() {
				if err := deleteObjects(ctx, objs); err != nil {
					s.o.log.WarnContext(ctx, "soap: deleting a request's objects failed", slog.String("subject", msg.Subject), slog.Any("err", err))
				}
			}()
		}
	}
	if f != nil {
		s.refused(ctx, msg, m, f)
		return
	}
	if m.Meta == nil {
		m.Meta = make(map[string]string, 3)
	}
	m.Meta[MetaSubject] = msg.Subject
	if msg.Reply != "" {
		m.Meta[MetaReply] = msg.Reply
	}
	if s.queue != "" {
		m.Meta[MetaQueue] = s.queue
	}
	// the reply waits for the verdict on the whole request (a reply that
	// reads the request as it is written is judged at its end: publish
	// then fails, and replyFailed answers the request's fault)
	reply, err := m.Verdict(s.h.ServeSOAP(ctx, m))
	switch {
	case err != nil:
		s.failed(ctx, msg, m, err)
		return
	case msg.Reply == "" || reply == nil:
		s.noReply(ctx, msg, m, reply)
		return
	}
	defer reply.Close() // a reply read from a package (an intermediary's next hop)
	if reply.Packaging == core.Inline && len(reply.Attachments) > 0 {
		// attachments go back in the request's packaging
		reply.Packaging = m.Packaging
	}
	if reply.Envelope == nil {
		reply.Envelope = &core.Envelope{}
	}
	if reply.Envelope.Version == 0 {
		reply.Envelope.Version = m.Version()
	}
	if err := s.publish(msg.Reply, reply); err != nil {
		s.replyFailed(ctx, msg, m, err)
		return
	}
	s.recycle(ctx, msg, m)
}

// recycleBytes is the largest request whose body, when the handler left
// it unread, is read to its end once the reply is sent (see recycle); a
// larger one is left to the garbage collector.
const recycleBytes = 64 << 10

// recycle reads the rest of a request's body the handler did not read, once
// its reply (or fault) is sent, as the HTTP binding does: a request-reply
// exchange ends with its reply, and the body's tokenizer then goes back to
// its pool at once instead of becoming garbage (about 15 KB) with the
// message. A rest that does not read is logged (Debug): the reply is sent.
func (s *Subscription) recycle(ctx context.Context, msg *nats.Msg, m *core.Message) {
	if len(msg.Data) > recycleBytes {
		return
	}
	if err := m.Body().Discard(); err != nil {
		s.o.log.DebugContext(ctx, "soap: the rest of a request's body did not read after its reply", slog.String("subject", msg.Subject), slog.Any("err", err))
	}
}

// refused answers a request refused on arrival (f) with f.
func (s *Subscription) refused(ctx context.Context, msg *nats.Msg, m *core.Message, f *core.Fault) {
	s.o.log.InfoContext(ctx, "soap: request refused", slog.String("subject", msg.Subject), slog.String("fault", f.Error()))
	s.fault(ctx, msg, m, f)
}

// failed answers request m, whose handler failed with err, with err's
// fault in m's version.
func (s *Subscription) failed(ctx context.Context, msg *nats.Msg, m *core.Message, err error) {
	f := core.FaultOf(err).WithVersion(m.Version())
	s.o.log.InfoContext(ctx, "soap: fault", slog.String("subject", msg.Subject), slog.String("id", m.ID), slog.String("fault", f.Error()))
	s.fault(ctx, msg, m, f)
	if msg.Reply != "" {
		s.recycle(ctx, msg, m)
	}
}

// noReply ends a request published without a reply subject (a reply is
// dropped), or one the handler accepted as one-way (reply nil: an empty
// message answers it).
func (s *Subscription) noReply(ctx context.Context, msg *nats.Msg, m, reply *core.Message) {
	if msg.Reply == "" {
		if reply != nil {
			s.o.log.WarnContext(ctx, "soap: reply dropped: the request was published without a reply subject",
				slog.String("subject", msg.Subject), slog.String("id", m.ID))
		}
		return
	}
	if err := s.nc.Publish(msg.Reply, nil); err != nil {
		s.o.log.ErrorContext(ctx, "soap: sending the one-way acceptance failed", slog.String("subject", msg.Subject), slog.Any("err", err))
	}
}

// replyFailed answers request m with a fault when its reply could not be
// sent (err).
func (s *Subscription) replyFailed(ctx context.Context, msg *nats.Msg, m *core.Message, err error) {
	f := core.FaultOf(err)
	switch berr := m.Body().Err(); {
	case berr != nil:
		// the reply read the request as it was written, and the
		// request's rest turned out wrong
		f = core.FaultOf(berr)
	case errors.Is(err, ErrTooLarge):
		f = &core.Fault{Code: core.CodeReceiver, Reason: "the reply is larger than the NATS server's max payload", Cause: err}
	}
	s.o.log.WarnContext(ctx, "soap: sending the reply failed", slog.String("subject", msg.Subject), slog.Any("err", err))
	s.fault(ctx, msg, m, f.WithVersion(m.Version()))
}

// fault answers msg with f; req, when known, is the request (for
// RelatesTo).
func (s *Subscription) fault(ctx context.Context, msg *nats.Msg, req *core.Message, f *core.Fault) {
	if msg.Reply == "" {
		s.o.log.WarnContext(ctx, "soap: fault dropped: the message was published without a reply subject",
			slog.String("subject", msg.Subject), slog.String("fault", f.Error()))
		return
	}
	var fm *core.Message
	if req != nil && req.ID != "" {
		fm = req.FaultReply(f)
		fm.Action = core.FaultAction
	} else {
		fm = core.NewMessage(f.Version, core.FaultBody(f))
	}
	if fm.Envelope.Version == 0 {
		fm.Envelope.Version = core.V11
	}
	if err := s.publish(msg.Reply, fm); err != nil {
		s.o.log.ErrorContext(ctx, "soap: sending a fault failed", slog.String("subject", msg.Subject), slog.Any("err", err))
	}
}

func (s *Subscription) publish(subject string, m *core.Message) error {
	restore, put, err := s.objs.offload(context.Background(), m)
	if err != nil {
		return err
	}
	defer restore()
	o := s.outs.get()
	defer s.outs.put(o)
	out, err := encode(o, m, subject, "", &s.max)
	if err == nil {
		err = s.max.tooLarge(s.nc.PublishMsg(out), subject)
	}
	if err != nil {
		_ = deleteObjects(context.Background(), put)
	}
	return err
}
