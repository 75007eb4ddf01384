package drop

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"time"

	"github.com/soapwire/soapwire/core"
)

// take claims the file e names, downloads it and reads its envelope. It
// returns errLost when another Poller won the claim or the file looks
// unfinished and was given back, errParked when it was parked because it is
// not a message it can deliver; any other error is logged here, and the file
// returned to the inbox.
func (p *Poller) take(ctx context.Context, e Entry) (*delivery, error) {
	cl := claim{at: time.Now(), owner: p.owner, name: e.Name}
	work := path.Join(p.f.work, cl.String())
	// The claim is not cut short by Close: a rename the server did but whose
	// answer was lost would leave the file claimed until its lease ends.
	// Close waits for it, and returns the file.
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	var pre *opened
	var err error
	if ro, ok := p.fs.(RenameOpener); ok && !p.tooLarge(e) {
		// Claimed and opened at once (the open sent without waiting for the
		// rename's answer): the download's watch starts with the claim.
		pre = p.startDownload(ctx)
		pre.rc, err, pre.err = ro.RenameOpen(cctx, pre.ctx, path.Join(p.f.inbox, e.Name), work)
	} else {
		err = p.fs.Rename(cctx, path.Join(p.f.inbox, e.Name), work)
	}
	cancel()
	if err != nil {
		pre.end()
		switch {
		case notExist(err):
			// Another Poller claimed it first, or it is gone; or the server
			// says "missing" for "refused" (FTP's 550): if it is listed
			// again, it backs off.
			p.failed(ctx, e.Name, "claim", err, 2)
			return nil, errLost
		case refused(err):
			p.failed(ctx, e.Name, "claim", err, 1)
			return nil, errLost
		case systemic(err) || ctx.Err() != nil:
			return nil, err
		}
		p.failed(ctx, e.Name, "claim", err, 1)
		return nil, fmt.Errorf("claim %s: %w", e.Name, err)
	}
	d := &delivery{p: p, name: e.Name, cl: cl}
	if !p.track(d) {
		pre.end()
		p.giveBack(ctx, d, "the Poller was closed")
		return nil, core.ErrClosed
	}
	if p.tooLarge(e) {
		pre.end()
		return nil, p.refuse(ctx, d, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, e.Size, p.max.max()), false, e)
	}
	if pre == nil {
		pre = p.startDownload(ctx)
	}
	sp, err := p.download(ctx, d, e.Size, pre)
	var sl *spoolLimitError
	switch {
	case errors.As(err, &sl):
		return nil, p.refuse(ctx, d, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, sl.max), false, e)
	case err != nil:
		p.giveBack(ctx, d, "download failed")
		if systemic(err) || p.life.Err() != nil {
			return nil, err
		}
		p.failed(ctx, e.Name, "download", err, 1)
		return nil, fmt.Errorf("download %s: %w", e.Name, err)
	}
	whole := sp.finished()
	read := e
	read.Size = sp.size
	if whole {
		p.taken(e.Name)
	} else if !p.settled(e, sp.size) {
		// Maybe an upload still running under the final name: give it back
		// and look again once it stopped changing (settle.go).
		sp.close()
		p.giveBack(ctx, d, "")
		p.cfg.Log.DebugContext(ctx, p.cfg.Scheme+": file looks unfinished; taken when it stops changing", slog.String("name", Escape(e.Name)), slog.Int64("size", sp.size), slog.Time("mtime", e.ModTime))
		return nil, errLost
	}
	if sp.size == 0 {
		sp.close()
		return nil, p.refuse(ctx, d, core.SenderFault("%s: the file %s is empty", p.cfg.Scheme, e.Name), true, read)
	}
	if !whole {
		// Taken as it is: read it to its end first, so that a file cut short
		// in its Body is parked rather than delivered.
		if err := sp.check(p.cfg.Limits); err != nil {
			sp.close()
			return nil, p.refuse(ctx, d, err, true, read)
		}
	}
	head := sp.head(headLen)
	m, err := readFile(sp.reader(), head, p.cfg.Limits)
	if err != nil {
		sp.close()
		return nil, p.refuse(ctx, d, err, !whole, read)
	}
	if isMIME(head) {
		// Its parts are spooled by core: the file's spool is not needed.
		sp.close()
		sp = nil
	}
	m.SetMeta(p.cfg.Scheme+".file", e.Name)
	m.SetMeta(p.cfg.Scheme+".claim", work)
	if p.f.outbox != "" {
		out := p.cfg.URL(p.f.outbox)
		if m.ReplyTo == "" || m.ReplyTo == core.AnonymousAddress {
			m.ReplyTo = out
		}
		if m.FaultTo == core.AnonymousAddress {
			m.FaultTo = out
		}
	}
	d.mu.Lock()
	d.m, d.sp, d.readyAt = m, sp, time.Now()
	d.mu.Unlock()
	return d, nil
}

// tooLarge reports whether a listed file is over Limits.MaxBytes.
func (p *Poller) tooLarge(e Entry) bool {
	max := p.max.max()
	return max >= 0 && e.Size > max
}

// opened is a download's context, with its stall watch, and its reader
// when the file was opened with its claim (RenameOpener).
type opened struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	dog    *time.Timer
	rc     io.ReadCloser // opened with the claim, else nil
	err    error         // the open's error, with the claim
}

// startDownload starts a download's stall watch: when nothing arrives for
// Config.Stall, its context is cancelled with ErrStalled.
func (p *Poller) startDownload(ctx context.Context) *opened {
	tctx, cancel := context.WithCancelCause(ctx)
	return &opened{ctx: tctx, cancel: cancel, dog: time.AfterFunc(p.cfg.Stall, func() { cancel(ErrStalled) })}
}

// end closes what was opened, if anything, and ends the watch.
func (o *opened) end() {
	if o == nil {
		return
	}
	if o.rc != nil {
		o.rc.Close()
	}
	o.dog.Stop()
	o.cancel(nil)
}

// download reads the claimed file (listed with size bytes) into a spool,
// from the reader o holds or one it opens. The transfer has its own stall
// limit: when nothing arrives for Config.Stall, it is cut off with
// ErrStalled.
func (p *Poller) download(ctx context.Context, d *delivery, size int64, o *opened) (*spool, error) {
	tctx, cancel, dog, stall := o.ctx, o.cancel, o.dog, p.cfg.Stall
	defer cancel(nil)
	defer dog.Stop()
	rc, err := o.rc, o.err
	if rc == nil && err == nil {
		d.mu.Lock()
		rc, err = p.fs.Open(tctx, d.workPath())
		d.mu.Unlock()
	}
	if err == nil {
		if s, ok := rc.(SizeExpecter); ok && size > 0 {
			s.ExpectSize(size)
		}
		var sp *spool
		sp, err = fill(&watched{r: rc, dog: dog, every: stall}, size, p.max, p.cfg.SpoolMemory, p.cfg.SpoolDir)
		cerr := rc.Close()
		switch {
		case errors.Is(err, errSpoolLimit):
			return nil, err // stopped on purpose: the server's answer to the abort is expected
		case err == nil && cerr != nil:
			sp.close()
			err = cerr
		case err == nil:
			return sp, nil
		}
	}
	if context.Cause(tctx) == ErrStalled && ctx.Err() == nil {
		return nil, fmt.Errorf("%w: nothing received for %s (%v)", ErrStalled, stall, err)
	}
	return nil, err
}

// watched is a download's reader: every read that brings data puts the
// stall limit off again. Once the file's end was read, it is not asked
// for again (over SFTP each read is a round trip).
type watched struct {
	r     io.Reader
	dog   *time.Timer
	every time.Duration
	eof   bool
}

func (w *watched) Read(b []byte) (int, error) {
	if w.eof {
		return 0, io.EOF
	}
	n, err := w.r.Read(b)
	if n > 0 {
		w.dog.Reset(w.every)
	}
	w.eof = err == io.EOF
	return n, err
}

// giveBack returns a claimed file to the inbox, unprocessed, and forgets
// the delivery; a failure is logged (the claim returns when its lease
// ends).
func (p *Poller) giveBack(ctx context.Context, d *delivery, why string) {
	d.mu.Lock()
	p.giveBackLocked(ctx, d, why)
	d.mu.Unlock()
	p.forget(d)
}

// giveBackLocked is giveBack with d.mu held, without forgetting d.
func (p *Poller) giveBackLocked(ctx context.Context, d *delivery, why string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
	defer cancel()
	err := p.release(rctx, d)
	if d.state == unsettled {
		d.state = released
	}
	d.sp.close()
	if err != nil {
		msg := p.cfg.Scheme + ": claim not returned; it returns when its lease ends"
		p.cfg.Log.WarnContext(ctx, msg, slog.String("name", Escape(d.name)), slog.String("why", why), slog.Any("err", err))
	}
}

// refuse parks a claimed file that cannot be delivered, and logs why. Its
// error is errParked when it was parked, else the file system's (the claim
// then returns after its lease). An unfinished file taken as it is is
// watched after parking (watch.go).
func (p *Poller) refuse(ctx context.Context, d *delivery, why error, unfinished bool, e Entry) error {
	f := core.FaultOf(why)
	if f.Reason == core.InternalErrorReason {
		// Not a fault the reader made: say what happened (the text is ours).
		f = &core.Fault{Code: core.CodeSender, Reason: p.cfg.Scheme + ": " + d.name + ": " + why.Error(), Cause: why}
	}
	d.mu.Lock()
	target, err := p.park(ctx, d, nil, f)
	if err == nil {
		d.state = nacked
	}
	d.sp.close()
	d.mu.Unlock()
	p.forget(d)
	if err != nil {
		p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": file not parked; it returns when its lease ends", slog.String("name", Escape(d.name)), slog.Any("err", err))
		return fmt.Errorf("park %s: %w", d.name, err)
	}
	if unfinished {
		p.watch(target, d.name, e)
	}
	return errParked
}
