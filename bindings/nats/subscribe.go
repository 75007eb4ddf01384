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
	sub     *nats.Subscription
	subject string
	queue   string
	h       core.Handler
	o       options
	bufs    buffers
	max     payloadLimit
	cancel  context.CancelFunc // cancels the handlers' context
	work    chan *nats.Msg     // to idle workers
	workers atomic.Int64
	stopped chan struct{} // closed when no more requests will come: idle workers exit
	stopOne sync.Once

	mu       sync.Mutex
	inFlight int // worker goroutines running
	closed   bool
	idle     chan struct{} // closed when closed and no worker runs

	served  atomic.Uint64
	dropped atomic.Int64
	stop    func() bool // stops the context.AfterFunc that closes on ctx's end
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
// worker goroutines that stay for the next request, each with a context
// derived from ctx. Its NATS headers are checked
// against its envelope (see the package documentation): a missing
// Content-Type, or a header contradicting the envelope, is answered with a
// Sender fault and logged. The reply, a fault, or for a one-way accept
// ((nil, nil)) an empty message, goes to the request's reply subject. A
// message published without a reply subject is one-way: the handler runs,
// and a reply or fault it returns is logged and dropped.
func Subscribe(ctx context.Context, nc *nats.Conn, subject string, h core.Handler, opts ...Option) (*Subscription, error) {
	a, err := ParseAddress(subject)
	if err != nil {
		return nil, err
	}
	if a.Stream != "" {
		return nil, fmt.Errorf("%w %q: Subscribe serves core NATS subjects; receive from a stream with NewReceiver", ErrBadAddress, subject)
	}
	o := newOptions(opts)
	hctx, cancel := context.WithCancel(ctx)
	s := &Subscription{
		nc: nc, max: payloadLimit{nc: nc}, subject: a.Subject, queue: o.queue, h: core.Recover(o.log)(h), o: o,
		cancel: cancel, work: make(chan *nats.Msg), stopped: make(chan struct{}), idle: make(chan struct{}),
	}
	cb := func(msg *nats.Msg) { s.dispatch(hctx, msg) }
	if o.queue != "" {
		s.sub, err = nc.QueueSubscribe(a.Subject, o.queue, cb)
	} else {
		s.sub, err = nc.Subscribe(a.Subject, cb)
	}
	if err != nil {
		cancel()
		return nil, fmt.Errorf("nats: subscribe to %s: %w", a.Subject, err)
	}
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

// Subject returns the subject served.
func (s *Subscription) Subject() string { return s.subject }

// Close unsubscribes at once (when it returns, the server routes no more
// requests here) and cancels the context of the requests in flight; it does
// not wait for them. Requests not yet handled are not answered (their
// callers time out). Close is idempotent.
func (s *Subscription) Close() error {
	if s.stop != nil {
		s.stop()
	}
	s.cancel()
	err := s.sub.Unsubscribe()
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

// markClosed records that no more requests will be dispatched: idle
// workers exit, and idle is closed once the last one has.
func (s *Subscription) markClosed() {
	s.stopOne.Do(func() { close(s.stopped) })
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		if s.inFlight == 0 {
			close(s.idle)
		}
	}
}

// dispatch runs in nats.go's delivery goroutine: it hands msg to an idle
// worker goroutine, starts one while fewer than WithConcurrency run, or
// else waits for one to be free (the backpressure of WithConcurrency).
// Workers stay for the next request, so a busy Subscription does not start
// a goroutine per request.
func (s *Subscription) dispatch(ctx context.Context, msg *nats.Msg) {
	select {
	case s.work <- msg:
		return
	default:
	}
	if s.workers.Load() < int64(s.o.concurrency) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return
		}
		s.inFlight++
		s.mu.Unlock()
		s.workers.Add(1)
		go s.worker(ctx, msg)
		return
	}
	select {
	case s.work <- msg:
	case <-ctx.Done():
		s.o.log.WarnContext(ctx, "soap: request not handled: the subscription is closing", slog.String("subject", msg.Subject))
	}
}

// worker serves msg, then further requests, until the Subscription's
// context ends.
func (s *Subscription) worker(ctx context.Context, msg *nats.Msg) {
	defer s.done()
	for {
		s.serve(ctx, msg)
		if s.served.Add(1)%128 == 0 {
			s.checkDropped()
		}
		select {
		case msg = <-s.work:
		case <-s.stopped:
			return
		case <-ctx.Done():
			return
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

// checkDropped logs requests nats.go dropped because this process fell
// behind (a slow consumer): their callers time out.
func (s *Subscription) checkDropped() {
	n, err := s.sub.Dropped()
	if err != nil {
		return
	}
	if old := s.dropped.Swap(int64(n)); int64(n) > old {
		s.o.log.Warn("soap: requests dropped: the subscriber fell behind (raise WithConcurrency or run more instances)",
			slog.String("subject", s.subject), slog.Int64("dropped", int64(n)-old))
	}
}

// serve handles one request.
func (s *Subscription) serve(ctx context.Context, msg *nats.Msg) {
	m, f := decode(msg.Data, msg.Header, s.o.limits, true)
	if f != nil {
		s.o.log.InfoContext(ctx, "soap: request refused", slog.String("subject", msg.Subject), slog.String("fault", f.Error()))
		s.fault(ctx, msg, m, f)
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
	reply, err := s.h.ServeSOAP(ctx, m)
	if err != nil {
		f := core.FaultOf(err)
		if f.Version == 0 {
			c := *f
			c.Version = m.Version()
			f = &c
		}
		s.o.log.InfoContext(ctx, "soap: fault", slog.String("subject", msg.Subject), slog.String("id", m.ID), slog.String("fault", f.Error()))
		s.fault(ctx, msg, m, f)
		return
	}
	if msg.Reply == "" {
		if reply != nil {
			s.o.log.WarnContext(ctx, "soap: reply dropped: the request was published without a reply subject",
				slog.String("subject", msg.Subject), slog.String("id", m.ID))
		}
		return
	}
	if reply == nil {
		if err := s.nc.Publish(msg.Reply, nil); err != nil {
			s.o.log.ErrorContext(ctx, "soap: sending the one-way acceptance failed", slog.String("subject", msg.Subject), slog.Any("err", err))
		}
		return
	}
	if reply.Envelope == nil {
		reply.Envelope = &core.Envelope{}
	}
	if reply.Envelope.Version == 0 {
		reply.Envelope.Version = m.Version()
	}
	if err := s.publish(msg.Reply, reply); err != nil {
		f := core.FaultOf(err)
		if errors.Is(err, ErrTooLarge) {
			f = &core.Fault{Code: core.CodeReceiver, Reason: "the reply is larger than the NATS server's max payload", Cause: err}
		}
		c := *f
		c.Version = m.Version()
		s.o.log.WarnContext(ctx, "soap: sending the reply failed", slog.String("subject", msg.Subject), slog.Any("err", err))
		s.fault(ctx, msg, m, &c)
	}
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
	buf := s.bufs.get()
	defer s.bufs.put(buf)
	out, err := encode(buf, m, subject, "", s.max.get())
	if err != nil {
		return err
	}
	return tooLarge(s.nc.PublishMsg(out), subject)
}
