package drop

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core"
)

// maxQuarantinePerListing bounds the files one listing moves to the
// quarantine folder (a flood of them is moved over several listings).
const maxQuarantinePerListing = 100

// park writes the fault file into the failed folder, then moves the claimed
// file beside it; d.mu held. A crash between the two leaves the file
// claimed, so it returns to the inbox after its lease: never lost. It
// returns the name the file has in the failed folder.
func (p *Poller) park(ctx context.Context, d *delivery, m *core.Message, f *core.Fault) (string, error) {
	v := f.Version
	if m != nil && m.Version() != 0 {
		v = m.Version()
	}
	if v == 0 {
		v = core.V12
	}
	fm := core.NewMessage(v, core.FaultBody(f))
	fm.ID, fm.Action = core.NewMessageID(), core.FaultAction
	if m != nil {
		fm.RelatesTo = m.ID
	}
	target, err := p.freeName(ctx, p.f.failed, d.name)
	if err != nil {
		return "", err
	}
	fault := faultName(target)
	if _, err := Store(ctx, p.fs, p.f.failed, fault, MessageReader(fm), p.cfg.Log, p.cfg.Scheme); err != nil {
		return "", fmt.Errorf("write %s: %w", path.Join(p.f.failed, fault), err)
	}
	if err := p.fs.Rename(ctx, d.workPath(), path.Join(p.f.failed, target)); err != nil {
		return "", err
	}
	id := ""
	if m != nil {
		id = m.ID
	}
	p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": message parked in the failed folder", slog.String("name", Escape(d.name)), slog.String("id", id), slog.String("file", Escape(path.Join(p.f.failed, target))), slog.String("fault", f.Error()))
	return target, nil
}

// release returns a claimed file to the inbox, unprocessed; d.mu held.
func (p *Poller) release(ctx context.Context, d *delivery) error {
	to, err := p.freeName(ctx, p.f.inbox, d.name)
	if err != nil {
		return err
	}
	return p.fs.Rename(ctx, d.workPath(), path.Join(p.f.inbox, to))
}

// freeName returns name, or a variant of it, that is not taken in dir.
func (p *Poller) freeName(ctx context.Context, dir, name string) (string, error) {
	return FreeName(ctx, p.fs, dir, name)
}

// FreeName returns name, or a variant of it with a random part added, that
// is not taken in dir.
func FreeName(ctx context.Context, fsys FS, dir, name string) (string, error) {
	for i := 0; ; i++ {
		cand := name
		if i > 0 {
			cand = variant(name)
		}
		_, err := fsys.Stat(ctx, path.Join(dir, cand))
		switch {
		case notExist(err):
			return cand, nil
		case err != nil:
			return "", err
		case i >= 3:
			return "", fmt.Errorf("no free name for %s in %s", quote(name), dir)
		}
	}
}

// variant returns name with a random part added before Suffix (or at its
// end, for a name without it), within MaxNameLen when it can.
func variant(name string) string {
	if !strings.HasSuffix(name, Suffix) {
		return name + "." + newOwner()
	}
	stem, tail := strings.TrimSuffix(name, Suffix), "."+newOwner()+Suffix
	if len(stem)+len(tail) > MaxNameLen {
		stem = stem[:MaxNameLen-len(tail)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
	}
	stem = strings.TrimRight(stem, ". ")
	if stem == "" {
		stem = "file"
	}
	return stem + tail
}

// refuseName deals with a file in the inbox whose name the Poller refuses:
// moved to the quarantine folder when there is one and the name is safe to
// send to the server, else left where it is; logged once either way, its
// name escaped.
func (p *Poller) refuseName(ctx context.Context, name, reason string, budget *int) {
	if p.f.quarantine == "" || !p.cfg.Nameable(name) || *budget <= 0 {
		if *budget <= 0 && p.f.quarantine != "" && p.cfg.Nameable(name) {
			return // moved on a later listing
		}
		p.skip(ctx, p.f.inbox, name, name, reason)
		return
	}
	if !p.once("quarantine\x00" + name) {
		return // tried once already: logged then
	}
	*budget--
	to, err := p.freeName(ctx, p.f.quarantine, name)
	if err == nil {
		err = p.fs.Rename(ctx, path.Join(p.f.inbox, name), path.Join(p.f.quarantine, to))
	}
	switch {
	case err == nil:
		p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": file quarantined", slog.String("folder", p.f.inbox), slog.String("name", Escape(name)), slog.String("reason", reason), slog.String("file", Escape(path.Join(p.f.quarantine, to))))
	default:
		// Another Poller may have moved it first; or the server will not
		// let it go: it stays, logged once.
		p.skip(ctx, p.f.inbox, name, name, reason+" (not moved to the quarantine folder: "+err.Error()+")")
	}
}
