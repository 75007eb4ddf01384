package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/soapwire/soapwire/core"
)

// Receiver is a core.Receiver on a durable JetStream consumer: what a
// Publisher (or Transport.Send to an address with a stream) stored is
// received here, by one of the Receivers sharing the durable consumer, and
// survives the Receiver's process and the server restarting (with file
// storage).
//
// Settling a delivery: Ack tells the server it was processed (and waits
// for the server's confirmation). Nack asks for redelivery after a backoff
// (WithBackoff) until the message was delivered WithMaxDeliveries times;
// then it is published, with its fault, to the dead-letter subject and
// terminated, never dropped. A message that cannot be read as SOAP, or whose
// headers are missing or contradict its envelope, is dead-lettered at once
// with the Sender fault that refuses it. See the package documentation.
type Receiver struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	cc      jetstream.ConsumeContext
	stream  string
	durable string
	filter  string
	dead    string
	o       receiverConfig
	objs    *objects // WithObjectStore; nil: none

	msgs       chan jetstream.Msg
	closed     chan struct{}
	closedOnce sync.Once     // closes closed
	shut       sync.Once     // Close's work
	stopped    chan struct{} // the keep-alive goroutine ended

	wait *time.Timer // onMsg's (nats.go calls it for one message at a time)

	mu        sync.Mutex
	waiting   jetstream.Msg // the message onMsg holds until Receive takes it; nil: none
	unsettled map[*delivery]struct{}
	unparked  map[uint64]*core.Fault // stream sequence → the fault of a message whose dead-lettering failed
}

var _ core.Receiver = (*Receiver)(nil)

// NewReceiver receives from addr (a "nats:" address or a subject; a pattern
// such as "orders.>" is fine) through the durable consumer named durable,
// which it creates, or updates, on the stream named in addr or else the
// stream that captures addr's subject. The consumer acknowledges
// explicitly, with WithAckWait; it never gives up on a message itself (the
// Receiver dead-letters). The dead-letter subject (WithDeadLetter, default
// "soapwire.dead." + durable) must be captured by a stream, which
// NewReceiver checks. ctx bounds the setup only.
func NewReceiver(ctx context.Context, nc *nats.Conn, addr, durable string, opts ...ReceiverOption) (*Receiver, error) {
	a, err := ParseAddress(addr)
	if err != nil {
		return nil, err
	}
	if err := checkStreamName(durable); err != nil {
		return nil, fmt.Errorf("nats: durable consumer: %v", err)
	}
	o := newReceiverConfig(opts)
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("nats: jetstream: %w", err)
	}
	stream := a.Stream
	if stream == "" {
		if stream, err = js.StreamNameBySubject(ctx, a.Subject); err != nil {
			return nil, fmt.Errorf("nats: receive from %s: %w (%w)", a.Subject, ErrNoStream, err)
		}
	}
	dead := o.deadLetter
	if dead == "" {
		dead = "soapwire.dead." + durable
	}
	if err := checkSubject(dead, false); err != nil {
		return nil, fmt.Errorf("%w: dead-letter subject: %v", ErrAddress, err)
	}
	deadStream, err := js.StreamNameBySubject(ctx, dead)
	if err != nil {
		return nil, fmt.Errorf("nats: dead-letter subject %s: %w: create a stream for it, e.g. one with subjects %q (%w)", dead, ErrNoStream, "soapwire.dead.>", err)
	}
	if deadStream == stream && subjectMatches(a.Subject, dead) {
		return nil, fmt.Errorf("%w: dead-letter subject %s is one the consumer receives from (%s)", ErrAddress, dead, a.Subject)
	}
	cons, err := js.CreateOrUpdateConsumer(ctx, stream, jetstream.ConsumerConfig{
		Durable:       durable,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       o.ackWait,
		MaxDeliver:    -1,
		FilterSubject: a.Subject,
	})
	if err != nil {
		return nil, fmt.Errorf("nats: durable consumer %s on stream %s: %w", durable, stream, err)
	}
	r := &Receiver{
		nc: nc, js: js, stream: stream, durable: durable, filter: a.Subject, dead: dead, o: o,
		msgs: make(chan jetstream.Msg), closed: make(chan struct{}), stopped: make(chan struct{}),
		unsettled: make(map[*delivery]struct{}), unparked: make(map[uint64]*core.Fault),
		objs: newObjects(nc, o.objects),
	}
	r.cc, err = cons.Consume(r.onMsg, jetstream.PullMaxMessages(o.prefetch),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			o.log.Warn("soap: jetstream consumer", slog.String("consumer", durable), slog.Any("err", err))
		}))
	if err != nil {
		return nil, fmt.Errorf("nats: consume %s on stream %s: %w", durable, stream, err)
	}
	go r.keepAlive()
	return r, nil
}

// Stream returns the name of the stream received from.
func (r *Receiver) Stream() string { return r.stream }

// DeadLetter returns the dead-letter subject.
func (r *Receiver) DeadLetter() string { return r.dead }

// closeRedelivery is how long after Close a message pulled ahead is
// redelivered: long enough for the closing subscription to be gone, so the
// server does not hand it straight back to it.
const closeRedelivery = time.Second

// onMsg runs in nats.go's delivery goroutine: it hands msg to Receive, or,
// once the Receiver is closed, gives it back for redelivery (to another
// Receiver of the durable consumer, or this one's successor). Until Receive
// takes it, msg is kept in progress like an unsettled delivery: the server
// gave it to this Receiver, and redelivering it elsewhere after AckWait
// would leave this copy to be handed out as well.
func (r *Receiver) onMsg(msg jetstream.Msg) {
	select {
	case <-r.closed:
		_ = msg.NakWithDelay(closeRedelivery)
		return
	default:
	}
	r.hold(msg)
	defer r.hold(nil)
	// Marked in progress (AckWait starts again) once it has waited
	// AckWait/10, unless a Receive took it by then; keepAlive goes on
	// every AckWait/3.
	if r.wait == nil {
		r.wait = time.NewTimer(r.o.ackWait / 10)
	} else {
		r.wait.Reset(r.o.ackWait / 10)
	}
	defer r.wait.Stop()
	for {
		select {
		case r.msgs <- msg:
			return
		case <-r.closed:
			_ = msg.NakWithDelay(closeRedelivery)
			return
		case <-r.wait.C:
			_ = msg.InProgress()
		}
	}
}

// hold records msg as the message waiting for Receive (nil: none).
func (r *Receiver) hold(msg jetstream.Msg) {
	r.mu.Lock()
	r.waiting = msg
	r.mu.Unlock()
}

// Receive returns the next message. It returns ctx's error when ctx ends
// first, and core.ErrClosed after Close. Messages refused on arrival (not
// SOAP, bad headers, delivered too often without being settled) are
// dead-lettered and not returned.
func (r *Receiver) Receive(ctx context.Context) (core.Delivery, error) {
	for {
		select {
		case <-r.closed:
			return nil, core.ErrClosed
		default:
		}
		select {
		case <-r.closed:
			return nil, core.ErrClosed
		case <-ctx.Done():
			return nil, fmt.Errorf("nats: receive: %w", ctx.Err())
		case msg := <-r.msgs:
			if d := r.deliver(ctx, msg); d != nil {
				return d, nil
			}
		}
	}
}

// deliver turns msg into a delivery, or dead-letters it and returns nil.
func (r *Receiver) deliver(ctx context.Context, msg jetstream.Msg) *delivery {
	md, err := msg.Metadata()
	if err != nil {
		r.o.log.ErrorContext(ctx, "soap: jetstream message without metadata: redelivering", slog.Any("err", err))
		_ = msg.NakWithDelay(r.backoff(1))
		return nil
	}
	m, f := decode(msg.Data(), msg.Headers(), r.o.limits, true)
	var objs []object
	if f == nil {
		objs, f = r.objs.fetch(ctx, m, len(msg.Data()), r.o.limits)
	}
	if f == nil && md.NumDelivered > uint64(r.o.maxDeliveries) {
		if f = r.recall(md.Sequence.Stream); f == nil {
			f = &core.Fault{Code: core.CodeReceiver, Version: m.Version(),
				Reason: fmt.Sprintf("the message was delivered %d times without being settled", md.NumDelivered)}
		}
	}
	if f != nil {
		if m != nil {
			m.Close() // a package's spooled parts
		}
		r.o.log.WarnContext(ctx, "soap: message refused on arrival", slog.String("stream", md.Stream),
			slog.Uint64("seq", md.Sequence.Stream), slog.String("fault", f.Error()))
		if err := r.park(ctx, msg, md, f); err != nil {
			r.remember(md.Sequence.Stream, f)
			r.o.log.ErrorContext(ctx, "soap: dead-lettering failed: the message will be redelivered", slog.Any("err", err))
			_ = msg.NakWithDelay(r.backoff(int(md.NumDelivered)))
		}
		return nil
	}
	if m.Meta == nil {
		m.Meta = make(map[string]string, 5)
	}
	m.Meta[MetaSubject] = msg.Subject()
	m.Meta[MetaStream] = md.Stream
	m.Meta[MetaSequence] = strconv.FormatUint(md.Sequence.Stream, 10)
	m.Meta[MetaDeliveries] = strconv.FormatUint(md.NumDelivered, 10)
	m.Meta[MetaConsumer] = md.Consumer
	d := &delivery{r: r, msg: msg, m: m, md: md, objs: objs}
	r.mu.Lock()
	r.unsettled[d] = struct{}{}
	r.mu.Unlock()
	return d
}

// Close stops receiving: a blocked Receive returns core.ErrClosed (as it
// does once the connection is closed), messages
// pulled ahead and not yet returned are given back for redelivery (after
// a second).
// Deliveries already returned can still be settled while the connection is
// open; one left unsettled is redelivered after AckWait. Close is
// idempotent.
func (r *Receiver) Close() error {
	r.shut.Do(func() {
		r.markClosed()
		r.cc.Drain()
		select {
		case <-r.cc.Closed():
		case <-time.After(5 * time.Second):
			r.cc.Stop()
		}
		<-r.stopped
	})
	return nil
}

func (r *Receiver) markClosed() { r.closedOnce.Do(func() { close(r.closed) }) }

// keepAlive tells the server the unsettled deliveries, and the message
// waiting for Receive, are in progress, so a handler slower than AckWait
// does not see its message redelivered, nor does a message this Receiver
// holds while its caller is busy. When
// consuming ends by itself (the connection was closed), the Receiver is
// closed: Receive returns core.ErrClosed.
func (r *Receiver) keepAlive() {
	defer close(r.stopped)
	t := time.NewTicker(max(r.o.ackWait/3, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-r.closed:
			return
		case <-r.cc.Closed():
			r.o.log.Warn("soap: jetstream consumer stopped (connection closed): the Receiver is closed", slog.String("consumer", r.durable))
			r.markClosed()
			return
		case <-t.C:
		}
		r.mu.Lock()
		msgs := make([]jetstream.Msg, 0, len(r.unsettled)+1)
		for d := range r.unsettled {
			msgs = append(msgs, d.msg)
		}
		if r.waiting != nil {
			msgs = append(msgs, r.waiting)
		}
		r.mu.Unlock()
		for _, msg := range msgs {
			_ = msg.InProgress()
		}
	}
}

func (r *Receiver) settled(d *delivery) {
	r.mu.Lock()
	delete(r.unsettled, d)
	r.mu.Unlock()
}

// remember keeps the fault of a message whose dead-lettering failed, so
// that when it comes back it is parked with that fault.
func (r *Receiver) remember(seq uint64, f *core.Fault) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.unparked) >= 1024 {
		for k := range r.unparked {
			delete(r.unparked, k)
			break
		}
	}
	r.unparked[seq] = f
}

func (r *Receiver) recall(seq uint64) *core.Fault {
	r.mu.Lock()
	defer r.mu.Unlock()
	f := r.unparked[seq]
	delete(r.unparked, seq)
	return f
}

// backoff is the redelivery delay after the n-th delivery.
func (r *Receiver) backoff(n int) time.Duration {
	d := r.o.backoffFirst
	for i := 1; i < n && d < r.o.backoffMax; i++ {
		d *= 2
	}
	return min(d, r.o.backoffMax)
}

// delivery is one received message.
type delivery struct {
	r   *Receiver
	msg jetstream.Msg
	m   *core.Message
	md  *jetstream.MsgMetadata
	// objs are the objects its external parts named (WithObjectStore),
	// deleted once it is Acked
	objs []object

	mu    sync.Mutex
	state int // 0 unsettled, 1 acked, 2 nacked
}

func (d *delivery) Message() *core.Message { return d.m }

// Ack tells the server the message was processed and waits for its
// confirmation (until ctx ends). The message is then done with: the rest of
// a body not read is read and dropped (up to 64 KiB), so its tokenizer is
// reused (see Subscription.recycle).
func (d *delivery) Ack(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case 1:
		return nil
	case 2:
		return core.ErrSettled
	}
	if err := d.msg.DoubleAck(ctx); err != nil {
		return fmt.Errorf("nats: ack %s seq %d: %w", d.md.Stream, d.md.Sequence.Stream, err)
	}
	d.state = 1
	d.r.settled(d)
	if err := deleteObjects(ctx, d.objs); err != nil {
		d.r.o.log.WarnContext(ctx, "soap: deleting an acked message's objects failed", slog.String("stream", d.md.Stream), slog.Uint64("seq", d.md.Sequence.Stream), slog.Any("err", err))
	}
	if len(d.msg.Data()) <= recycleBytes {
		if err := d.m.Body().Discard(); err != nil {
			d.r.o.log.DebugContext(ctx, "soap: the rest of a message's body did not read after its ack", slog.String("stream", d.md.Stream), slog.Uint64("seq", d.md.Sequence.Stream), slog.Any("err", err))
		}
	}
	return nil
}

// Nack asks for redelivery after the backoff, or, on the last allowed
// delivery, dead-letters the message with cause's fault. A message Nacked
// as malformed (core.ErrMalformed in cause: core.Serve's verdict found its
// envelope broken) is dead-lettered at once: redelivering the same bytes
// cannot mend it.
func (d *delivery) Nack(ctx context.Context, cause error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case 2:
		return nil
	case 1:
		return core.ErrSettled
	}
	d.state = 2
	d.r.settled(d)
	n := int(d.md.NumDelivered)
	log := d.r.o.log
	attrs := []any{slog.String("id", d.m.ID), slog.String("stream", d.md.Stream), slog.Uint64("seq", d.md.Sequence.Stream), slog.Int("delivery", n), slog.Any("cause", cause)}
	if n < d.r.o.maxDeliveries && !errors.Is(cause, core.ErrMalformed) {
		delay := d.r.backoff(n)
		log.InfoContext(ctx, "soap: message nacked: redelivery after a backoff", append(attrs, slog.Duration("backoff", delay))...)
		if err := d.msg.NakWithDelay(delay); err != nil {
			return fmt.Errorf("nats: nack %s seq %d: %w", d.md.Stream, d.md.Sequence.Stream, err)
		}
		return nil
	}
	f := core.FaultOf(cause)
	if f == nil {
		f = core.ReceiverFault("the message was not processed")
	}
	if err := d.r.park(ctx, d.msg, d.md, f); err != nil {
		d.r.remember(d.md.Sequence.Stream, f)
		log.ErrorContext(ctx, "soap: dead-lettering failed: the message will be redelivered", append(attrs, slog.Any("err", err))...)
		_ = d.msg.NakWithDelay(d.r.backoff(n))
		return err
	}
	return nil
}

// subjectMatches reports whether subject (no wildcards) matches pattern.
func subjectMatches(pattern, subject string) bool {
	p, s := splitTokens(pattern), splitTokens(subject)
	for i, tok := range p {
		if tok == ">" {
			return len(s) > i
		}
		if i >= len(s) || tok != "*" && tok != s[i] {
			return false
		}
	}
	return len(p) == len(s)
}

func splitTokens(s string) []string {
	var toks []string
	for {
		i := 0
		for i < len(s) && s[i] != '.' {
			i++
		}
		toks = append(toks, s[:i])
		if i == len(s) {
			return toks
		}
		s = s[i+1:]
	}
}
