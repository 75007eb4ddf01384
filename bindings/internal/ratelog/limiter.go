package ratelog

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// DefaultInterval is the least time between two lines of one kind.
const DefaultInterval = 10 * time.Second

// CountKey is the attribute of a line written for the lines held back: how
// many lines of its kind it stands for.
const CountKey = "count"

// Limiter writes lines of each kind (a message) at most once per interval:
// the first at once, as it is; those that come within the interval after
// it are counted, and when the interval is up one line is written for
// them: the message, the attributes of the last one, and CountKey, how
// many it stands for. A burst of any size is so at most two lines a kind,
// and a flood one line per interval, and every line handed to Log is in
// one. The zero Limiter is not usable; call New. A Limiter is safe for
// concurrent use.
type Limiter struct {
	interval time.Duration

	mu    sync.Mutex
	kinds map[string]*kind
}

// kind is the state of one message.
type kind struct {
	last  time.Time // when its last line was written
	held  int       // lines held back since
	log   *slog.Logger
	level slog.Level
	args  []any       // of the last line held back
	timer *time.Timer // writes the held lines; nil when none is due
}

// New returns a Limiter writing a kind at most once per interval
// (DefaultInterval when interval is 0; a negative interval writes every
// line).
func New(interval time.Duration) *Limiter {
	if interval == 0 {
		interval = DefaultInterval
	}
	return &Limiter{interval: interval, kinds: make(map[string]*kind)}
}

// Log writes msg with args to log at level, or holds it back (see Limiter).
func (l *Limiter) Log(ctx context.Context, log *slog.Logger, level slog.Level, msg string, args ...any) {
	if l.interval < 0 || !log.Enabled(ctx, level) {
		if l.interval < 0 {
			log.Log(ctx, level, msg, args...)
		}
		return
	}
	now := time.Now()
	l.mu.Lock()
	k := l.kinds[msg]
	if k == nil {
		k = &kind{}
		l.kinds[msg] = k
	}
	if k.last.IsZero() || now.Sub(k.last) >= l.interval && k.held == 0 {
		k.last = now
		l.mu.Unlock()
		log.Log(ctx, level, msg, args...)
		return
	}
	k.held++
	k.log, k.level, k.args = log, level, args
	if k.timer == nil {
		k.timer = time.AfterFunc(max(l.interval-now.Sub(k.last), 0), func() { l.due(msg) })
	}
	l.mu.Unlock()
}

// due writes the line for the lines of msg held back.
func (l *Limiter) due(msg string) {
	l.mu.Lock()
	k := l.kinds[msg]
	k.timer = nil
	w := k.take(time.Now())
	l.mu.Unlock()
	w(msg)
}

// take returns what writes the line for k's held lines (a no-op when none
// are), and resets k; l.mu is held.
func (k *kind) take(now time.Time) func(string) {
	if k.held == 0 {
		return func(string) {}
	}
	log, level, args, n := k.log, k.level, k.args, k.held
	k.held, k.args, k.log, k.last = 0, nil, nil, now
	return func(msg string) {
		log.Log(context.Background(), level, msg, append(args[:len(args):len(args)], slog.Int(CountKey, n))...)
	}
}

// Flush writes the lines held back now, instead of when their interval is
// up (a server that stops flushes, so that its last refusals are in its
// log). The lines after it are held back as before.
func (l *Limiter) Flush() {
	l.mu.Lock()
	var writes []func()
	for msg, k := range l.kinds {
		if k.timer != nil {
			k.timer.Stop()
			k.timer = nil
		}
		w := k.take(time.Now())
		writes = append(writes, func() { w(msg) })
	}
	l.mu.Unlock()
	for _, w := range writes {
		w()
	}
}
