package drop

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"time"
)

// housekeeping does, before a listing of the inbox, what is due: return
// stale claims (every quarter lease), remove stale temporary files (every
// quarter of their grace, at most every 15 minutes) and look at the parked
// files that are watched (every settle time). Its failures are logged; the
// inbox may still be served.
func (p *Poller) housekeeping(ctx context.Context) {
	now := time.Now()
	p.mu.Lock()
	recover := now.Sub(p.recovered) >= p.cfg.Lease/4
	if recover {
		p.recovered = now
	}
	sweep := now.Sub(p.swept) >= min(p.cfg.TempGrace/4, 15*time.Minute)
	if sweep {
		p.swept = now
	}
	watch := len(p.parked) > 0 && now.Sub(p.watched) >= p.cfg.Settle
	if watch {
		p.watched = now
	}
	p.mu.Unlock()
	if recover {
		if err := p.recoverStale(ctx); err != nil && ctx.Err() == nil {
			p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": stale claims not checked", slog.String("folder", p.f.work), slog.Any("err", err))
		}
	}
	if sweep {
		p.sweep(ctx)
	}
	if watch {
		if err := p.checkParked(ctx); err != nil && ctx.Err() == nil {
			p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": parked files not checked", slog.String("folder", p.f.failed), slog.Any("err", err))
		}
	}
}

// recoverStale returns to the inbox the claims in the work folder whose
// lease ran out.
func (p *Poller) recoverStale(ctx context.Context) error {
	list, err := p.fs.List(ctx, p.f.work)
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	for _, e := range list {
		if e.Kind != File || e.Problem != "" {
			continue
		}
		cl, ok := parseClaim(e.Name)
		if !ok {
			if k, _ := classify(e.Name); k != nameIgnore {
				p.skip(ctx, p.f.work, e.Name, e.Name, "not a claim this binding writes")
			}
			continue
		}
		if time.Since(cl.at) < p.cfg.Lease || p.holds(e.Name) {
			continue
		}
		to, err := p.freeName(ctx, p.f.inbox, cl.name)
		if err == nil {
			err = p.fs.Rename(ctx, path.Join(p.f.work, e.Name), path.Join(p.f.inbox, to))
		}
		switch {
		case err == nil:
			p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": stale claim returned to the inbox", slog.String("name", Escape(cl.name)), slog.String("owner", cl.owner), slog.Time("claimed", cl.at))
		case notExist(err) || refused(err):
			// Another Poller returned it first, or its owner settled it.
		default:
			return fmt.Errorf("return stale claim %s: %w", e.Name, err)
		}
	}
	return nil
}

// sweep removes, from every folder of the endpoint, the temporary files a
// sender (this binding's, or a Poller writing a fault or reply) left older
// than the grace: what a sender that crashed mid-upload leaves. Only names
// of the binding's own temporary form (.<name>.<hex>.part) are removed; a
// file whose time the server does not give is left.
func (p *Poller) sweep(ctx context.Context) {
	for _, dir := range p.f.all() {
		list, err := p.fs.List(ctx, dir)
		if err != nil {
			if ctx.Err() == nil {
				p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": temporary files not checked", slog.String("folder", dir), slog.Any("err", err))
			}
			continue
		}
		for _, e := range list {
			if e.Kind != File || !isTemp(e.Name) || e.ModTime.IsZero() || time.Since(e.ModTime) < p.cfg.TempGrace {
				continue
			}
			err := p.fs.Remove(ctx, path.Join(dir, e.Name))
			switch {
			case err == nil:
				p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": stale temporary file removed", slog.String("folder", dir), slog.String("name", Escape(e.Name)), slog.Time("modified", e.ModTime))
			case notExist(err):
			default:
				p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": stale temporary file not removed", slog.String("folder", dir), slog.String("name", Escape(e.Name)), slog.Any("err", err))
			}
		}
	}
}
