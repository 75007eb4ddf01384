package nats

import (
	"log/slog"
	"sync"
	"time"
)

// dropLogInterval is the least time between two log lines about dropped
// requests.
const dropLogInterval = 10 * time.Second

// drops logs the requests nats.go dropped for a Subscription because it
// fell behind (its pending limits overflowed, a slow consumer): the first
// drop at once, then at most one line per dropLogInterval with the number
// dropped since the line before, so that a flood of drops is a few lines,
// not one a drop. Every drop is in a line: one held back by the interval is
// written when the interval is up, or when the Subscription closes.
type drops struct {
	log      *slog.Logger
	subject  string
	count    func() (int, error) // nats.go's count of the subscription's drops
	interval time.Duration       // dropLogInterval

	mu     sync.Mutex
	seen   int         // the highest count read
	logged int         // drops in the lines written
	last   time.Time   // when the last line was written
	timer  *time.Timer // writes the line held back; nil when none is
	closed bool
}

// check looks for new drops: it writes a line now if the interval since
// the last one is up, else makes sure one is written when it is.
func (d *drops) check() {
	n, err := d.count()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.read(n, err)
	if d.seen == d.logged || d.closed || d.timer != nil {
		return
	}
	if wait := d.interval - time.Since(d.last); wait > 0 {
		d.timer = time.AfterFunc(wait, d.due)
		return
	}
	d.write()
}

// due writes the line held back by the interval.
func (d *drops) due() {
	n, err := d.count()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.read(n, err)
	d.timer = nil
	if !d.closed {
		d.write()
	}
}

// close writes a last line for the drops not logged yet, and no line after
// it. n and err are nats.go's count read just before the subscription
// ended (it has none after).
func (d *drops) close(n int, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.read(n, err)
	d.closed = true
	if d.timer != nil {
		d.timer.Stop()
		d.timer = nil
	}
	d.write()
}

// total returns the number of drops counted so far.
func (d *drops) total() int {
	n, err := d.count()
	d.mu.Lock()
	defer d.mu.Unlock()
	d.read(n, err)
	return d.seen
}

// read records the count n read from nats.go (none when err is set: the
// subscription has ended); d.mu is held.
func (d *drops) read(n int, err error) {
	if err == nil && n > d.seen {
		d.seen = n
	}
}

// write logs the drops seen and not logged yet; d.mu is held.
func (d *drops) write() {
	if d.seen <= d.logged {
		return
	}
	d.log.Warn("soap: requests dropped: the subscriber fell behind (raise WithConcurrency or WithPendingLimits, or run more instances)",
		slog.String("subject", d.subject), slog.Int("dropped", d.seen-d.logged), slog.Int("total", d.seen))
	d.logged, d.last = d.seen, time.Now()
}
