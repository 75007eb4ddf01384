package nats

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/soapwire/soapwire/core"
)

// replies carries the replies of a Transport's requests: one subscription
// to a wildcard inbox ("_INBOX.<id>.*") for all of them, each request
// waiting on its own token, as nats.go's Request does. Unlike Request it
// takes its own lock, not the connection's (which nats.go's flusher holds
// while it writes to the socket), reuses the channels replies arrive on,
// and needs no context per request. Requests whose ctx has no deadline
// share one timer (see expiring). The subscription's goroutine reads each
// reply's envelope up to its body before handing it over (see deliver).
// The subscription is made on the first request and ends with the
// Transport (when it is garbage collected) or the connection.
type replies struct {
	nc      *nats.Conn
	timeout time.Duration // for a request whose ctx has no deadline
	limits  core.Limits   // of the replies read

	mu      sync.Mutex
	sub     *nats.Subscription // nil before the first request and after it ended
	prefix  string             // the inbox subscribed to, with a trailing "."
	next    uint64             // the last token given
	waiting map[uint64]chan answer
	exp     expiring

	chans sync.Pool // of chan answer, capacity 1, empty
}

// close unsubscribes the inbox: the Transport is gone (garbage collected).
func (r *replies) close() {
	r.mu.Lock()
	sub := r.sub
	r.sub = nil
	r.mu.Unlock()
	if sub != nil {
		_ = sub.Unsubscribe()
	}
}

// errReplySubscriptionEnded: the inbox subscription ended (the connection
// closed or drained) with the request unanswered.
var errReplySubscriptionEnded = errors.New("nats: the reply subscription ended")

// request publishes msg with a reply subject of its own and waits for the
// reply until ctx ends or, when ctx has no deadline, for r.timeout (see
// expiring). A request nothing subscribes to returns nats.ErrNoResponders
// as soon as the server says so; no reply in time returns ctx's error or
// context.DeadlineExceeded; the connection closing returns
// nats.ErrConnectionClosed.
func (r *replies) request(ctx context.Context, msg *nats.Msg) (answer, error) {
	ch := r.getChan()
	_, hasDeadline := ctx.Deadline()
	var at int64 // when a request without a deadline times out: the clock read outside the lock
	if !hasDeadline {
		at = monotonic() + int64(r.timeout)
	}
	r.mu.Lock()
	if r.sub == nil {
		if err := r.subscribe(); err != nil {
			r.mu.Unlock()
			r.chans.Put(ch)
			return answer{}, err
		}
	}
	r.next++
	token := r.next
	r.waiting[token] = ch
	if !hasDeadline {
		r.exp.add(r, token, at)
	}
	var b [64]byte
	msg.Reply = string(strconv.AppendUint(append(b[:0], r.prefix...), token, 36)) // one allocation
	r.mu.Unlock()

	if err := r.nc.PublishMsg(msg); err != nil {
		r.forget(token, ch)
		return answer{}, err
	}

	var resp answer
	if done := ctx.Done(); done == nil {
		resp = <-ch // a ctx that never ends (Background): no select
	} else {
		select {
		case resp = <-ch:
		case <-done:
			r.forget(token, ch)
			return answer{}, ctx.Err()
		}
	}
	r.chans.Put(ch)
	switch {
	case resp.msg == expired:
		return answer{}, context.DeadlineExceeded
	case resp.msg == nil && r.nc.IsClosed():
		return answer{}, nats.ErrConnectionClosed
	case resp.msg == nil:
		return answer{}, errReplySubscriptionEnded
	case len(resp.msg.Data) == 0 && resp.msg.Header.Get("Status") == "503":
		return answer{}, nats.ErrNoResponders
	}
	return resp, nil
}

// subscribe subscribes to a new inbox; r.mu is held.
func (r *replies) subscribe() error {
	prefix := r.nc.NewInbox() + "."
	sub, err := r.nc.Subscribe(prefix+"*", r.deliver)
	if err != nil {
		return err
	}
	sub.SetClosedHandler(func(string) { r.ended(sub) })
	r.sub, r.prefix = sub, prefix
	if r.waiting == nil {
		r.waiting = make(map[uint64]chan answer)
	}
	return nil
}

// deliver hands a reply to the request waiting for its token, its
// envelope read up to the body (or the fault refusing it); a reply no
// request waits for any more (it came after the request gave up) is
// dropped unread. Reading the envelope here, on the subscription's one
// goroutine, rather than on each caller's, keeps the callers' stacks
// small: a caller shrunk by the garbage collector while it waits would
// otherwise grow its stack again for every reply (docs/benchmarks.md,
// "NATS request-reply ratio, issue 22"). The body is read by the caller.
func (r *replies) deliver(m *nats.Msg) {
	r.mu.Lock()
	s, ok := strings.CutPrefix(m.Subject, r.prefix)
	if !ok {
		r.mu.Unlock()
		return
	}
	token, err := strconv.ParseUint(s, 36, 64)
	ch := r.waiting[token]
	if err != nil || ch == nil {
		r.mu.Unlock()
		return
	}
	delete(r.waiting, token)
	r.exp.settled(r)
	r.mu.Unlock()
	a := answer{msg: m}
	if len(m.Data) > 0 {
		a.m, a.f = decode(m.Data, m.Header, r.limits, false)
	}
	ch <- a // one send per token, into an empty channel of capacity 1
}

// ended fails the requests waiting on sub, which has ended; the next
// request subscribes again.
func (r *replies) ended(sub *nats.Subscription) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sub != sub {
		return
	}
	r.sub = nil
	for token, ch := range r.waiting {
		delete(r.waiting, token)
		ch <- answer{}
	}
	r.exp.stop()
}

// forget gives up waiting for token. When deliver or ended has already
// taken the token, its send into ch is on its way: wait for it, so ch goes
// back to the pool empty.
func (r *replies) forget(token uint64, ch chan answer) {
	r.mu.Lock()
	_, waiting := r.waiting[token]
	delete(r.waiting, token)
	r.exp.settled(r)
	r.mu.Unlock()
	if !waiting {
		<-ch
	}
	r.chans.Put(ch)
}

func (r *replies) getChan() chan answer {
	if ch, ok := r.chans.Get().(chan answer); ok {
		return ch
	}
	return make(chan answer, 1)
}

// answer is what a request receives: the reply message and, for one with
// a payload, its envelope read (m), or the fault it is refused with (f).
type answer struct {
	msg *nats.Msg
	m   *core.Message
	f   *core.Fault
}
