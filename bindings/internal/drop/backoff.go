package drop

import (
	"context"
	"log/slog"
	"time"
)

// A file whose claim or download fails is tried again later, not at once:
// each name backs off on its own, from retryMin doubling to retryMax, so a
// file the server will not let go of is not claimed five times a second
// forever, and a file whose download stalls does not take a transfer slot
// again at once. Each such name is logged once, with the count of
// failures so far, and once more (with the count) when it is finally taken
// or leaves the inbox.

// Backoff bounds for a name whose claim or download failed.
const (
	retryMin = time.Second
	retryMax = 5 * time.Minute
)

// maxRetries bounds the names remembered.
const maxRetries = 4096

type retry struct {
	fails  int
	next   time.Time
	logged bool
}

// gone is a logged name that left the backoff.
type gone struct {
	name  string
	fails int
}

// failed notes that what (a claim, a download) failed for name, and logs it
// once the name has failed logAt times.
func (p *Poller) failed(ctx context.Context, name, what string, err error, logAt int) {
	p.mu.Lock()
	r := p.retries[name]
	if r == nil {
		if len(p.retries) >= maxRetries {
			clear(p.retries)
		}
		r = &retry{}
		p.retries[name] = r
	}
	r.fails++
	wait := min(retryMin<<min(r.fails-1, 20), retryMax)
	r.next = time.Now().Add(wait)
	log := !r.logged && r.fails >= logAt
	if log {
		r.logged = true
	}
	fails := r.fails
	p.mu.Unlock()
	if log {
		p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": "+what+" failed; the file is tried again with backoff (logged once)", slog.String("folder", p.f.inbox), slog.String("name", Escape(name)), slog.Int("failures", fails), slog.Duration("retry_in", wait), slog.Any("err", err))
	}
}

// succeeded forgets a name's failures once it was claimed.
func (p *Poller) succeeded(ctx context.Context, name string) {
	p.mu.Lock()
	r := p.retries[name]
	delete(p.retries, name)
	p.mu.Unlock()
	if r != nil && r.logged {
		p.cfg.Log.InfoContext(ctx, p.cfg.Scheme+": file claimed after failed attempts", slog.String("name", Escape(name)), slog.Int("failures", r.fails))
	}
}

// retryDue reports whether a listed name may be claimed now; p.mu held.
func (p *Poller) retryDue(name string, now time.Time) bool {
	r := p.retries[name]
	return r == nil || !now.Before(r.next)
}

// pruneRetries forgets the names a listing no longer shows, and returns
// the logged ones; p.mu held.
func (p *Poller) pruneRetries(listed map[string]struct{}) []gone {
	var out []gone
	for name, r := range p.retries {
		if _, ok := listed[name]; ok {
			continue
		}
		if _, busy := p.inflight[name]; busy {
			continue
		}
		delete(p.retries, name)
		if r.logged {
			out = append(out, gone{name, r.fails})
		}
	}
	return out
}
