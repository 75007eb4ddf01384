package smtp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// Receiver takes mails out of a Maildir, one SOAP message each: a
// core.Receiver for core.Serve.
//
// Receive claims the oldest mail in new/ by locking it (flock) and renaming
// it into work/, so that Receivers in any number of processes never take
// the same mail; the lock is held until the delivery is settled. Ack
// removes the mail (its file is kept in tmp/ and overwritten by a later
// mail: creating files is what costs most) or, WithArchive, moves it to
// done/; Nack parks it in
// failed/ with a NAME.fault.xml beside it holding the fault and the cause.
// A mail that is not a SOAP message (see ReadMail) is parked the same way
// by Receive itself, which goes on to the next mail.
//
// A mail claimed by a process that died is returned to new/ by any
// Receiver on the folder (its lock died with the process), when it starts
// and then every WithRecoverInterval; Close returns the Receiver's own
// unsettled mails to new/. Nothing is lost, and a mail may be received
// again only after its claimer died or closed without settling it.
//
// New mail is noticed at once when it comes through a Server on the same
// *Maildir, else within WithPollInterval.
type Receiver struct {
	mb *Maildir
	o  receiverConfig

	closed    chan struct{}
	closeOnce sync.Once

	mu          sync.Mutex
	inflight    map[*delivery]struct{}
	lastRecover time.Time
}

var _ core.Receiver = (*Receiver)(nil)

// NewReceiver returns a Receiver on mb. WithAddresses names the service's
// own addresses for the loop guard.
func NewReceiver(mb *Maildir, opts ...ReceiverOption) *Receiver {
	if mb == nil {
		panic("smtp: NewReceiver with a nil Maildir")
	}
	mb.receivers.Add(1)
	o := newReceiverConfig(opts)
	o.submitter = mb.verifySubmitter // the AUTH identity its Server recorded (core.MetaSubmitter)
	return &Receiver{mb: mb, o: o, closed: make(chan struct{}), inflight: map[*delivery]struct{}{}}
}

// Receive returns the next mail's message, waiting for one until ctx is
// done (its error is in the chain) or the Receiver is closed
// (core.ErrClosed).
func (r *Receiver) Receive(ctx context.Context) (core.Delivery, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-r.closed:
			return nil, core.ErrClosed
		default:
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("smtp: receive: %w", err)
		}
		r.mb.lastReceive.Store(time.Now().UnixNano())
		r.maybeRecover(ctx)
		name, held, ok, changed := r.mb.pop()
		if held != nil {
			if d := r.take(ctx, held); d != nil {
				return d, nil
			}
			continue
		}
		if ok {
			if d := r.claim(ctx, name); d != nil {
				return d, nil
			}
			continue
		}
		wait := r.mb.scanDue(r.o.poll)
		if wait <= 0 {
			n, err := r.mb.scan()
			if err != nil {
				return nil, err
			}
			if n > 0 {
				continue
			}
			wait = r.o.poll
		}
		if timer == nil {
			timer = time.NewTimer(wait)
		} else {
			timer.Reset(wait)
		}
		r.mb.waiting.Add(1)
		select {
		case <-changed:
		case <-timer.C:
		case <-r.closed:
			r.mb.waiting.Add(-1)
			return nil, core.ErrClosed
		case <-ctx.Done():
			r.mb.waiting.Add(-1)
			return nil, fmt.Errorf("smtp: receive: %w", ctx.Err())
		}
		r.mb.waiting.Add(-1)
	}
}

// claim takes the mail name from new/ into work/ and reads its message. It
// returns nil if the mail is gone, taken by someone else, or not SOAP (then
// it is parked).
func (r *Receiver) claim(ctx context.Context, name string) *delivery {
	src := r.mb.Path(FolderNew, name)
	f, err := openFile(src, os.O_RDONLY, 0)
	if err != nil {
		if !isNotExist(err) {
			r.o.log.ErrorContext(ctx, "smtp: cannot open a new mail", slog.String("file", name), slog.Any("err", err))
		}
		return nil
	}
	if ok, err := tryLock(f); !ok {
		f.Close()
		if err != nil {
			r.o.log.ErrorContext(ctx, "smtp: cannot lock a new mail", slog.String("file", name), slog.Any("err", err))
		}
		return nil
	}
	if err := rename(src, r.mb.Path(FolderWork, name)); err != nil {
		f.Close() // gone: another Receiver took it and settled it
		if !isNotExist(err) {
			r.o.log.ErrorContext(ctx, "smtp: cannot claim a new mail", slog.String("file", name), slog.Any("err", err))
		}
		return nil
	}
	m, err := readMail(f, &r.o.readConfig)
	return r.open(ctx, &delivery{r: r, f: f, name: name, spot: &spot{name: name, path: r.mb.Path(FolderWork, name)}}, m, err)
}

// take takes a mail a Server on the same *Maildir handed over: already in
// work/, its file open and locked.
func (r *Receiver) take(ctx context.Context, h *heldMail) *delivery {
	r.mb.handed.Add(1)
	d := &delivery{r: r, f: h.f, name: h.name, writable: true, size: h.size, spot: h.spot}
	if h.data != nil {
		m, err := readMailBytes(h.data, &r.o.readConfig)
		return r.open(ctx, d, m, err)
	}
	m, err := readMail(io.NewSectionReader(h.f, 0, h.size), &r.o.readConfig)
	return r.open(ctx, d, m, err)
}

// open completes a claim with the mail's message (m, err from readMail),
// or parks the mail when it is not SOAP.
func (r *Receiver) open(ctx context.Context, d *delivery, m *core.Message, err error) *delivery {
	name := d.name
	if err != nil {
		if id, rel := r.relation(d); rel != "" {
			// It answers a request: core.Serve parks it, and a caller
			// waiting for that answer (document.Correlator) learns at once.
			m = mailfmt.Unreadable(err, id, rel)
			m.SetMeta(MetaFile, name)
			return r.inflightDelivery(d, m)
		}
		f := core.FaultOf(err)
		r.o.log.WarnContext(ctx, "smtp: not a SOAP mail; parked", slog.String("file", name), slog.String("dir", r.mb.Dir()), slog.String("fault", f.Error()))
		if err := d.settle(ctx, false, f); err != nil {
			r.o.log.ErrorContext(ctx, "smtp: parking a mail failed; it stays in work/", slog.String("file", name), slog.Any("err", err))
			d.f.Close()
		}
		return nil
	}
	m.SetMeta(MetaFile, name)
	return r.inflightDelivery(d, m)
}

// relation returns the id of the mail d holds and the id it answers, from
// its header alone.
func (r *Receiver) relation(d *delivery) (id, relatesTo string) {
	if d.f == nil {
		return "", ""
	}
	return mailfmt.Relation(io.NewSectionReader(d.f, 0, mailfmt.MaxHeaderBytes+1))
}

// inflightDelivery hands out d with m, unless the Receiver was closed
// meanwhile (then d goes back to new/).
func (r *Receiver) inflightDelivery(d *delivery, m *core.Message) *delivery {
	d.m = m
	r.mu.Lock()
	select {
	case <-r.closed: // closed while claiming: give it back
		r.mu.Unlock()
		d.release()
		return nil
	default:
	}
	r.inflight[d] = struct{}{}
	r.mu.Unlock()
	return d
}

// maybeRecover returns abandoned claims to new/, at the first Receive and
// then every recoverEvery.
func (r *Receiver) maybeRecover(ctx context.Context) {
	r.mu.Lock()
	due := r.lastRecover.IsZero() || time.Since(r.lastRecover) >= r.o.recoverEvery
	if due {
		r.lastRecover = time.Now()
	}
	r.mu.Unlock()
	if !due {
		return
	}
	names, err := listNames(filepath.Join(r.mb.Dir(), FolderWork))
	if err != nil {
		r.o.log.ErrorContext(ctx, "smtp: cannot list work/", slog.Any("err", err))
		return
	}
	for _, name := range names {
		path := r.mb.Path(FolderWork, name)
		f, err := os.Open(path)
		if err != nil {
			continue
		}
		// A live claim holds the lock (in this process too: flock locks
		// belong to open files).
		if ok, _ := tryLock(f); ok {
			if err := rename(path, r.mb.Path(FolderNew, name)); err == nil {
				r.o.log.WarnContext(ctx, "smtp: returned a mail whose claimer died to new/", slog.String("file", name))
				r.mb.push(name)
			}
		}
		f.Close()
	}
	r.mb.cleanTmp()
}

// Close stops the Receiver: a blocked Receive returns core.ErrClosed, and
// the deliveries not yet settled go back to new/ for another Receiver (their
// Ack and Nack then return ErrReleased).
func (r *Receiver) Close() error {
	r.closeOnce.Do(func() {
		if r.mb.receivers.Add(-1) == 0 {
			r.mb.expireHeld() // none left to hand mail to
		}
		r.mu.Lock()
		close(r.closed)
		ds := make([]*delivery, 0, len(r.inflight))
		for d := range r.inflight {
			ds = append(ds, d)
		}
		r.mu.Unlock()
		for _, d := range ds {
			d.release()
		}
	})
	return nil
}

func (r *Receiver) forget(d *delivery) {
	r.mu.Lock()
	delete(r.inflight, d)
	r.mu.Unlock()
}
