package nats

import (
	"testing"
	"time"
)

// TestExpiringQueueStaysShort: with one request stuck at the front of the
// queue, thousands answered behind it do not pile up: the queue stays
// about as long as the requests waiting, and the stuck one still expires.
func TestExpiringQueueStaysShort(t *testing.T) {
	r := &replies{timeout: time.Hour, waiting: map[uint64]chan answer{}}
	stuck := make(chan answer, 1)
	r.mu.Lock()
	r.waiting[1] = stuck
	r.exp.add(r, 1, monotonic()+int64(r.timeout))
	longest := 0
	for token := uint64(2); token < 10_000; token++ {
		r.waiting[token] = make(chan answer, 1)
		r.exp.add(r, token, monotonic()+int64(r.timeout))
		if token%3 == 1 { // a few in flight at once (2 to 4, 5 to 7, …)
			for k := token - 2; k <= token; k++ {
				delete(r.waiting, k)
				r.exp.settled(r)
			}
		}
		longest = max(longest, len(r.exp.q)-r.exp.head)
	}
	if bound := 2*len(r.waiting) + 66; longest > bound {
		t.Errorf("the queue held %d requests with at most %d waiting (bound %d)", longest, len(r.waiting), bound)
	}
	if c := cap(r.exp.q); c > 1024 {
		t.Errorf("the queue's slice grew to %d", c)
	}
	r.exp.stop()
	// Time is up for the stuck request.
	r.exp.q = append(r.exp.q[:0], deadline{token: 1, at: monotonic() - 1})
	r.exp.head = 0
	r.mu.Unlock()
	r.expire()
	select {
	case m := <-stuck:
		if m.msg != expired {
			t.Fatalf("the stuck request received %v, want expired", m)
		}
	default:
		t.Fatal("the stuck request did not expire")
	}
	if _, ok := r.waiting[1]; ok {
		t.Error("an expired request is still waiting")
	}
}
