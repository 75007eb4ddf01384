package drop

import (
	"context"
	"log/slog"
	"path"
	"time"
)

// maxWatched bounds the parked files watched.
const maxWatched = 1024

// parkWatch is a file parked because it was taken unfinished: what it was
// when parked. An upload that only paused for longer than the settle time
// goes on into the parked file (the uploader's handle follows the rename);
// when the file changes, it goes back to the inbox to be looked at again.
type parkWatch struct {
	inbox string // the name it had in the inbox
	size  int64
	mtime time.Time
	until time.Time
}

// watch starts watching a file parked unfinished; e is the file as it was
// read (its size downloaded, its time listed).
func (p *Poller) watch(target, inboxName string, e Entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.parked) >= maxWatched {
		return
	}
	p.parked[target] = parkWatch{inbox: inboxName, size: e.Size, mtime: e.ModTime, until: time.Now().Add(p.cfg.ParkWatch)}
}

// checkParked lists the failed folder and returns to the inbox every
// watched file that changed since it was parked.
func (p *Poller) checkParked(ctx context.Context) error {
	list, err := p.fs.List(ctx, p.f.failed)
	if err != nil {
		return err
	}
	byName := make(map[string]Entry, len(list))
	for _, e := range list {
		byName[e.Name] = e
	}
	now := time.Now()
	var changed []string
	p.mu.Lock()
	for name, w := range p.parked {
		e, ok := byName[name]
		switch {
		case !ok || now.After(w.until):
			delete(p.parked, name) // moved away by someone, or watched long enough
		case e.Size != w.size || !e.ModTime.Equal(w.mtime):
			delete(p.parked, name)
			changed = append(changed, name)
		}
	}
	p.mu.Unlock()
	for _, name := range changed {
		to, err := p.freeName(ctx, p.f.inbox, name)
		if err == nil {
			err = p.fs.Rename(ctx, path.Join(p.f.failed, name), path.Join(p.f.inbox, to))
		}
		if err != nil {
			p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": parked file changed but was not returned to the inbox", slog.String("file", Escape(path.Join(p.f.failed, name))), slog.Any("err", err))
			continue
		}
		fault := path.Join(p.f.failed, faultName(name))
		if err := p.fs.Remove(ctx, fault); err != nil && !notExist(err) {
			p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": fault file of a returned file not removed", slog.String("file", Escape(fault)), slog.Any("err", err))
		}
		p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": parked file changed after it was parked (an upload that had paused); returned to the inbox", slog.String("name", Escape(to)), slog.String("was", Escape(path.Join(p.f.failed, name))))
	}
	return nil
}
