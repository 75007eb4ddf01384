package nats

import (
	"time"

	"github.com/nats-io/nats.go"
)

// expired is what a request waiting for its reply receives when its
// WithTimeout is up (see expiring).
var expired = &nats.Msg{}

// expiring ends the requests of a replies whose ctx has no deadline once
// the Transport's WithTimeout is up. They all wait that same time, so they
// expire in the order they were made (give or take the wait for the lock
// after the clock is read): a queue in that order and one timer,
// armed for the oldest request still waiting, do what a timer per request
// would, without setting and stopping a timer per request. A request
// answered stays in the queue until it reaches the front (settled drops
// it then); the queue is compacted when such requests are most of it, so
// it stays about as long as the number of requests waiting. Its methods
// run under replies.mu.
type expiring struct {
	q     []deadline // in the order made; q[:head] are gone
	head  int
	timer *time.Timer // runs replies.expire; made on the first request
	armed bool        // timer is set and has not run expire yet
}

// deadline is when the request with token times out, in nanoseconds on the
// monotonic clock (see monotonic).
type deadline struct {
	token uint64
	at    int64
}

// epoch is monotonic's origin.
var epoch = time.Now()

// monotonic returns the monotonic clock's time since epoch, in nanoseconds.
func monotonic() int64 { return int64(time.Since(epoch)) }

// add queues the request with token, which times out at at (monotonic),
// r.timeout from when it was made.
func (e *expiring) add(r *replies, token uint64, at int64) {
	switch live := len(e.q) - e.head; {
	case live > 64 && live > 2*len(r.waiting):
		e.compact(r)
	case e.head > 0 && e.head >= live:
		// Most of the slice is gone: move what is left to the front, so
		// the slice does not grow without end.
		e.q = e.q[:copy(e.q, e.q[e.head:])]
		e.head = 0
	}
	e.q = append(e.q, deadline{token: token, at: at})
	if !e.armed {
		e.arm(r, r.timeout)
	}
}

// settled drops the requests at the front of the queue that wait no more
// (answered, given up or failed): call it after taking a token out of
// r.waiting.
func (e *expiring) settled(r *replies) {
	for e.head < len(e.q) {
		if _, ok := r.waiting[e.q[e.head].token]; ok {
			return
		}
		e.head++
	}
	e.q, e.head = e.q[:0], 0
}

// compact keeps only the queued requests still waiting.
func (e *expiring) compact(r *replies) {
	kept := e.q[:0]
	for _, d := range e.q[e.head:] {
		if _, ok := r.waiting[d.token]; ok {
			kept = append(kept, d)
		}
	}
	e.q, e.head = kept, 0
}

// arm sets the timer to run r.expire in d.
func (e *expiring) arm(r *replies, d time.Duration) {
	if e.timer == nil {
		e.timer = time.AfterFunc(d, r.expire)
	} else {
		e.timer.Reset(d)
	}
	e.armed = true
}

// stop stops the timer and empties the queue (the requests waiting were
// failed otherwise: the subscription ended).
func (e *expiring) stop() {
	if e.timer != nil {
		e.timer.Stop()
	}
	e.armed = false
	e.q, e.head = e.q[:0], 0
}

// expire ends the queued requests whose time is up: each receives expired.
// It runs on the timer, and sets it again for the oldest request left.
func (r *replies) expire() {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := &r.exp
	e.armed = false
	now := monotonic()
	for e.head < len(e.q) {
		d := e.q[e.head]
		ch, ok := r.waiting[d.token]
		if ok && d.at > now {
			e.arm(r, time.Duration(d.at-now))
			return
		}
		e.head++
		if ok {
			delete(r.waiting, d.token)
			ch <- answer{msg: expired} // the one send for this token, into an empty channel of capacity 1
		}
	}
	e.q, e.head = e.q[:0], 0
}
