package drop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"sync"
	"time"

	"github.com/soapwire/soapwire/core"
)

// delivery is a claimed file: a core.Delivery once its download is read.
type delivery struct {
	p    *Poller
	name string // the file's name in the inbox

	mu      sync.Mutex
	m       *core.Message
	cl      claim // current claim (renewals move its time)
	sp      *spool
	state   settleState
	out     bool      // handed out by Receive
	readyAt time.Time // when it was read and waited for a Receive
}

type settleState uint8

const (
	unsettled settleState = iota
	acked
	nacked
	released // returned to the inbox (by Close, or not wanted)
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

// handOut marks the delivery as given to a Receive caller; false when it
// was returned to the inbox meanwhile.
func (d *delivery) handOut() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != unsettled {
		return false
	}
	d.out = true
	return true
}

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
		return fmt.Errorf("%s: ack %s: the Poller was closed and returned it to the inbox: %w", d.p.cfg.Scheme, d.name, core.ErrClosed)
	}
	p := d.p
	work := d.workPath()
	var err error
	if p.f.done == "" {
		err = p.fs.Remove(ctx, work)
	} else {
		var to string
		if to, err = p.freeName(ctx, p.f.done, d.name); err == nil {
			err = p.fs.Rename(ctx, work, path.Join(p.f.done, to))
		}
	}
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
		err = d.p.release(ctx, d)
	} else {
		_, err = d.p.park(ctx, d, d.m, core.FaultOf(cause))
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
	if notExist(err) {
		err = fmt.Errorf("%w: %w", ErrLeaseLost, err)
	}
	d.p.cfg.Log.ErrorContext(ctx, d.p.cfg.Scheme+": "+what+" failed", slog.String("name", Escape(d.name)), slog.String("id", d.m.ID), slog.Any("err", err))
	return fmt.Errorf("%s: %s %s: %w", d.p.cfg.Scheme, what, d.name, err)
}

// settle ends the delivery; d.mu held.
func (d *delivery) settle(s settleState) {
	d.state = s
	d.sp.close()
	d.p.forget(d)
}

// renew moves the claim's time to now, keeping the lease; d.mu held.
func (d *delivery) renew(ctx context.Context) {
	if d.state != unsettled {
		return
	}
	next := d.cl
	next.at = time.Now()
	from, to := d.workPath(), path.Join(d.p.f.work, next.String())
	err := d.p.fs.Rename(ctx, from, to)
	switch {
	case err == nil:
		d.cl = next
	case notExist(err):
		d.p.forget(d)
		id := ""
		if d.m != nil {
			id = d.m.ID
		}
		d.p.cfg.Log.ErrorContext(ctx, d.p.cfg.Scheme+": claim lost before it was settled; the file will be processed again", slog.String("name", Escape(d.name)), slog.String("id", id))
	default:
		d.p.cfg.Log.WarnContext(ctx, d.p.cfg.Scheme+": lease not renewed", slog.String("name", Escape(d.name)), slog.Any("err", err))
	}
}

// track registers a claim for renewal; false once closed.
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
		p.bg.Add(1)
		go p.renewLoop()
	}
	return true
}

func (p *Poller) forget(d *delivery) {
	p.mu.Lock()
	delete(p.live, d)
	p.mu.Unlock()
}

// holds reports whether one of the Poller's claims is claimName.
func (p *Poller) holds(claimName string) bool {
	for _, d := range p.liveList() {
		// d.mu is taken after p.mu is released: a delivery holds d.mu while
		// it calls into the Poller (forget), so p.mu never waits for d.mu.
		if d.claimName() == claimName {
			return true
		}
	}
	return false
}

func (p *Poller) liveList() []*delivery {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*delivery, 0, len(p.live))
	for d := range p.live {
		out = append(out, d)
	}
	return out
}

// renewLoop renews, every quarter lease, the claims that are a quarter
// lease old, until Close. A claim busy with an operation (its download
// starting, an Ack) is renewed on a later round. A delivery that waited
// for a Receive for half a lease (nobody serves the Poller) is returned to
// the inbox.
func (p *Poller) renewLoop() {
	defer p.bg.Done()
	every := max(p.cfg.Lease/4, 10*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.closed:
			return
		case <-t.C:
		}
		for _, d := range p.liveList() {
			if !d.mu.TryLock() {
				continue
			}
			unwanted := !d.out && !d.readyAt.IsZero() && time.Since(d.readyAt) >= p.cfg.Lease/2
			if unwanted {
				p.giveBackLocked(p.life, d, "not received for half a lease")
				d.mu.Unlock()
				p.forget(d)
				continue
			}
			if time.Since(d.cl.at) >= every {
				ctx, cancel := context.WithTimeout(p.life, every)
				d.renew(ctx)
				cancel()
			}
			d.mu.Unlock()
		}
	}
}

// Close stops the Poller: a blocked or later Receive returns
// core.ErrClosed, transfers in flight stop and return their files, and the
// deliveries still open are returned to the inbox unprocessed (a later Ack
// of one fails, a Nack is a no-op). Call it after core.Serve returned, so
// nothing is in flight. Close does not close the file system.
func (p *Poller) Close() error {
	p.closeOne.Do(func() {
		p.mu.Lock()
		close(p.closed)
		p.mu.Unlock()
		p.stop()
		p.bg.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), settleTimeout)
		defer cancel()
		for _, d := range p.liveList() {
			d.mu.Lock()
			if d.state == unsettled {
				if err := p.release(ctx, d); err != nil {
					p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": open delivery not returned at Close; it returns when its lease ends", slog.String("name", Escape(d.name)), slog.Any("err", err))
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
