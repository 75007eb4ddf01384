package ftp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sync"
	"time"

	"github.com/jlaffaye/ftp"

	"github.com/soapwire/soapwire/core"
)

// delivery is a claimed file: a core.Delivery.
type delivery struct {
	p    *Poller
	m    *core.Message
	name string // the file's name in the inbox

	mu    sync.Mutex
	cl    claim // current claim (renewals move its time)
	sp    *spool
	state settleState
}

type settleState uint8

const (
	unsettled settleState = iota
	acked
	nacked
	released // returned to the inbox by Close
)

var _ core.Delivery = (*delivery)(nil)

func (d *delivery) Message() *core.Message { return d.m }

func (d *delivery) claimName() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cl.String()
}

// workPath is the claimed file's path; d.mu held.
func (d *delivery) workPath() string { return path.Join(d.p.f.work, d.cl.String()) }

// Ack deletes the claimed file, or moves it to the done folder.
func (d *delivery) Ack(ctx context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case acked:
		return nil
	case nacked:
		return core.ErrSettled
	case released:
		return fmt.Errorf("ftp: ack %s: the Poller was closed and returned it to the inbox: %w", d.name, core.ErrClosed)
	}
	p := d.p
	work := d.workPath()
	err := p.c.once(ctx, func(sc *ftp.ServerConn) error {
		if p.f.done == "" {
			return sc.Delete(work)
		}
		to, err := freeName(sc, p.f.done, d.name)
		if err != nil {
			return err
		}
		return sc.Rename(work, path.Join(p.f.done, to))
	})
	if err != nil {
		return d.settleFailed(ctx, "ack", err)
	}
	d.settle(acked)
	return nil
}

// Nack parks the file in the failed folder with the fault of cause beside
// it; a cause of context.Canceled returns it to the inbox instead.
func (d *delivery) Nack(ctx context.Context, cause error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case nacked:
		return nil
	case acked:
		return core.ErrSettled
	case released:
		return nil
	}
	var err error
	if errors.Is(cause, context.Canceled) {
		err = d.p.release(ctx, d.workPath(), d.name)
	} else {
		err = d.p.park(ctx, d.workPath(), d.name, d.m, core.FaultOf(cause))
	}
	if err != nil {
		return d.settleFailed(ctx, "nack", err)
	}
	d.settle(nacked)
	return nil
}

// settleFailed reports a failed settlement. The delivery stays open (Ack or
// Nack may be tried again) but is no longer renewed, so if nobody settles
// it the lease runs out and the file is processed again: never lost.
func (d *delivery) settleFailed(ctx context.Context, what string, err error) error {
	d.p.forget(d)
	if isFileUnavailable(err) {
		err = fmt.Errorf("%w: %w", ErrLeaseLost, err)
	}
	d.p.o.log.ErrorContext(ctx, "ftp: "+what+" failed", slog.String("name", d.name), slog.String("id", d.m.ID), slog.Any("err", err))
	return fmt.Errorf("ftp: %s %s: %w", what, d.name, err)
}

// settle ends the delivery; d.mu held.
func (d *delivery) settle(s settleState) {
	d.state = s
	d.sp.close()
	d.p.forget(d)
}

// renew moves the claim's time to now, keeping the lease.
func (d *delivery) renew(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != unsettled {
		return
	}
	next := d.cl
	next.at = time.Now()
	from, to := d.workPath(), path.Join(d.p.f.work, next.String())
	err := d.p.c.once(ctx, func(sc *ftp.ServerConn) error { return sc.Rename(from, to) })
	switch {
	case err == nil:
		d.cl = next
	case isFileUnavailable(err):
		d.p.forget(d)
		d.p.o.log.ErrorContext(ctx, "ftp: claim lost before it was settled; the file will be processed again", slog.String("name", d.name), slog.String("id", d.m.ID))
	default:
		d.p.o.log.WarnContext(ctx, "ftp: lease not renewed", slog.String("name", d.name), slog.Any("err", err))
	}
}

// take claims the file e names, downloads it and reads its envelope. It
// returns a nil delivery when another Poller won the claim, or when the file
// was parked because it is not a message it can deliver.
func (p *Poller) take(ctx context.Context, e entry) (*delivery, error) {
	cl := claim{at: time.Now(), owner: p.owner, name: e.name}
	work := path.Join(p.f.work, cl.String())
	err := p.c.once(ctx, func(sc *ftp.ServerConn) error { return sc.Rename(path.Join(p.f.inbox, e.name), work) })
	if err != nil {
		if onlyReplies(err) && replyCode(err) == 550 {
			return nil, errLost // another Poller claimed it first, or it is gone
		}
		if onlyReplies(err) {
			// The server refuses to move it (permissions, a busy file):
			// leave it, say so once, and try again on a later listing.
			p.skip(ctx, p.f.inbox, e.name, "the server refused to move it to the work folder: "+err.Error())
			return nil, errLost
		}
		return nil, fmt.Errorf("claim %s: %w", e.name, err)
	}
	if p.max >= 0 && e.size > p.max {
		return nil, p.refuse(ctx, work, e.name, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, e.size, p.max))
	}
	var sp *spool
	tooLarge := false
	err = p.c.do(ctx, func(sc *ftp.ServerConn) error {
		sp.close() // a first attempt's
		r, err := sc.Retr(work)
		if err != nil {
			return err
		}
		sp, err = fill(r, p.max, p.o.spoolMem, p.o.spoolDir)
		cerr := r.Close()
		if tooLarge = errors.Is(err, errSpoolLimit); tooLarge {
			// Stopped on purpose, not a broken connection: the server's
			// answer to the aborted transfer (426) is expected, and the
			// download is not tried again.
			if onlyReplies(cerr) {
				return nil
			}
			return cerr
		}
		if err != nil {
			return err
		}
		return cerr
	})
	switch {
	case tooLarge:
		return nil, p.refuse(ctx, work, e.name, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, p.max))
	case err != nil:
		sp.close()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		defer cancel()
		if rerr := p.release(rctx, work, e.name); rerr != nil {
			p.o.log.WarnContext(ctx, "ftp: claim not returned after a failed download; it returns when its lease ends", slog.String("name", e.name), slog.Any("err", rerr))
		}
		return nil, fmt.Errorf("download %s: %w", e.name, err)
	}
	whole := sp.finished()
	if whole {
		p.taken(e.name)
	} else if !p.settled(e.name, sp.size) {
		// Maybe an upload still running under the final name: give it back
		// and look again once it stopped changing (settle.go).
		sp.close()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		defer cancel()
		if err := p.release(rctx, work, e.name); err != nil {
			p.o.log.WarnContext(ctx, "ftp: claim not returned; it returns when its lease ends", slog.String("name", e.name), slog.Any("err", err))
		}
		p.o.log.DebugContext(ctx, "ftp: file looks unfinished; taken when it stops changing", slog.String("name", e.name), slog.Int64("size", sp.size))
		return nil, errLost
	}
	if sp.size == 0 {
		sp.close()
		return nil, p.refuse(ctx, work, e.name, core.SenderFault("ftp: the file %s is empty", e.name))
	}
	if !whole {
		// Taken as it is: read it to its end first, so that a file cut short
		// in its Body is parked rather than delivered.
		if err := sp.check(p.o.limits); err != nil {
			sp.close()
			return nil, p.refuse(ctx, work, e.name, err)
		}
	}
	m, err := core.ReadMessage(sp.reader(), p.o.limits)
	if err != nil {
		sp.close()
		return nil, p.refuse(ctx, work, e.name, err)
	}
	m.SetMeta(MetaFile, e.name)
	m.SetMeta(MetaClaim, work)
	if p.f.outbox != "" {
		out := p.c.URL(p.f.outbox)
		if m.ReplyTo == "" || m.ReplyTo == core.AnonymousAddress {
			m.ReplyTo = out
		}
		if m.FaultTo == core.AnonymousAddress {
			m.FaultTo = out
		}
	}
	d := &delivery{p: p, m: m, name: e.name, cl: cl, sp: sp}
	if !p.track(d) {
		sp.close()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		defer cancel()
		p.release(rctx, work, e.name)
		return nil, core.ErrClosed
	}
	return d, nil
}

// refuse parks a claimed file that cannot be delivered, and logs why. Its
// error is only the server's, when parking failed.
func (p *Poller) refuse(ctx context.Context, work, name string, why error) error {
	f := core.FaultOf(why)
	if f.Reason == core.InternalErrorReason {
		// Not a fault the reader made: say what happened (the text is ours).
		f = &core.Fault{Code: core.CodeSender, Reason: "ftp: " + name + ": " + why.Error(), Cause: why}
	}
	if err := p.park(ctx, work, name, nil, f); err != nil {
		return fmt.Errorf("park %s: %w", name, err)
	}
	return nil
}

// park writes the fault file into the failed folder, then moves the claimed
// file beside it. A crash between the two leaves the file claimed, so it
// returns to the inbox after its lease: never lost.
func (p *Poller) park(ctx context.Context, work, name string, m *core.Message, f *core.Fault) error {
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
	var target string
	err := p.c.do(ctx, func(sc *ftp.ServerConn) error {
		var err error
		target, err = freeName(sc, p.f.failed, name)
		return err
	})
	if err != nil {
		return err
	}
	fault := path.Join(p.f.failed, faultName(target))
	if err := p.c.storeAs(ctx, path.Join(p.f.failed, tempName(faultName(target))), fault, messageReader{fm}, p.o.log); err != nil {
		return fmt.Errorf("write %s: %w", fault, err)
	}
	err = p.c.once(ctx, func(sc *ftp.ServerConn) error { return sc.Rename(work, path.Join(p.f.failed, target)) })
	if err != nil {
		return err
	}
	id := ""
	if m != nil {
		id = m.ID
	}
	p.o.log.WarnContext(ctx, "ftp: message parked in the failed folder", slog.String("name", name), slog.String("id", id), slog.String("file", path.Join(p.f.failed, target)), slog.String("fault", f.Error()))
	return nil
}

// release returns a claimed file to the inbox, unprocessed.
func (p *Poller) release(ctx context.Context, work, name string) error {
	return p.c.once(ctx, func(sc *ftp.ServerConn) error {
		to, err := freeName(sc, p.f.inbox, name)
		if err != nil {
			return err
		}
		return sc.Rename(work, path.Join(p.f.inbox, to))
	})
}

// track registers an open delivery for renewal; false once closed.
func (p *Poller) track(d *delivery) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.closed:
		return false
	default:
	}
	p.live[d] = struct{}{}
	if !p.renewing {
		p.renewing = true
		p.renewers.Add(1)
		go p.renewLoop()
	}
	return true
}

func (p *Poller) forget(d *delivery) {
	p.mu.Lock()
	delete(p.live, d)
	p.mu.Unlock()
}

// renewLoop renews, every quarter lease, the claims of the open deliveries
// that are a quarter lease old, until Close.
func (p *Poller) renewLoop() {
	defer p.renewers.Done()
	every := max(p.o.lease/4, 10*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.closed:
			return
		case <-t.C:
		}
		p.mu.Lock()
		var due []*delivery
		for d := range p.live {
			due = append(due, d)
		}
		p.mu.Unlock()
		for _, d := range due {
			d.mu.Lock()
			old := time.Since(d.cl.at) >= every
			d.mu.Unlock()
			if old {
				ctx, cancel := context.WithTimeout(context.Background(), every)
				d.renew(ctx)
				cancel()
			}
		}
	}
}

// Close stops the Poller: a blocked or later Receive returns
// core.ErrClosed, and the deliveries still open are returned to the inbox
// unprocessed (a later Ack of one fails, a Nack is a no-op). Call it after
// core.Serve returned, so nothing is in flight. Close does not close the
// Client.
func (p *Poller) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		close(p.closed)
		pending := make([]*delivery, 0, len(p.live))
		for d := range p.live {
			pending = append(pending, d)
		}
		p.mu.Unlock()
		p.renewers.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
		defer cancel()
		for _, d := range pending {
			d.mu.Lock()
			if d.state == unsettled {
				if err := p.release(ctx, d.workPath(), d.name); err != nil {
					p.o.log.WarnContext(ctx, "ftp: open delivery not returned at Close; it returns when its lease ends", slog.String("name", d.name), slog.Any("err", err))
				}
				d.state = released
				d.sp.close()
			}
			d.mu.Unlock()
			p.forget(d)
		}
	})
	return nil
}
