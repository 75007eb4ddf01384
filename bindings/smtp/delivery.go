package smtp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// delivery is a claimed mail: its file in work/, open and locked.
type delivery struct {
	r    *Receiver
	f    *os.File
	name string
	m    *core.Message
	// writable: f was opened for writing (a mail handed over by a Server
	// on the same *Maildir), so it can be kept open as a spare; size is
	// then the mail's size.
	writable bool
	size     int64
	spot     *spot // where its file is: work/, or, handed over with SyncJournal, tmp/

	mu    sync.Mutex
	state int
}

const (
	open = iota
	acked
	nacked
	released
)

var _ core.Delivery = (*delivery)(nil)

func (d *delivery) Message() *core.Message { return d.m }

// Ack removes the mail (its file is kept in tmp/ to be overwritten by a
// later mail), or moves it to done/ WithArchive.
func (d *delivery) Ack(ctx context.Context) error { return d.settleOnce(ctx, true, nil) }

// Nack parks the mail in failed/ with its fault beside it. A cause of
// context.Canceled (a service shutting down, not a mail that failed) returns
// the mail to new/ instead, for the next Receiver.
func (d *delivery) Nack(ctx context.Context, cause error) error {
	return d.settleOnce(ctx, false, cause)
}

func (d *delivery) settleOnce(ctx context.Context, ack bool, cause error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case acked:
		if ack {
			return nil
		}
		return core.ErrSettled
	case nacked:
		if !ack {
			return nil
		}
		return core.ErrSettled
	case released:
		return ErrReleased
	}
	if err := d.settleLocked(ctx, ack, cause); err != nil {
		return err
	}
	d.r.forget(d)
	return nil
}

// settle settles a delivery no one else sees yet.
func (d *delivery) settle(ctx context.Context, ack bool, cause error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.settleLocked(ctx, ack, cause)
}

func (d *delivery) settleLocked(ctx context.Context, ack bool, cause error) error {
	// The spot stays locked while the file moves, so that a journal
	// checkpoint does not move it too (see spot).
	d.spot.mu.Lock()
	defer d.spot.mu.Unlock()
	work := d.spot.path
	if err := d.settleFrom(ctx, work, ack, cause); err != nil {
		return err
	}
	d.spot.path = ""
	return nil
}

// settleFrom settles the mail whose file is at work (in work/, or in tmp/:
// see spot).
func (d *delivery) settleFrom(ctx context.Context, work string, ack bool, cause error) error {
	mb := d.r.mb
	if ack {
		if !d.r.o.archive {
			if err := mb.recycle(work, d.f, d.writable, d.size); err != nil && !isNotExist(err) {
				return fmt.Errorf("smtp: ack %s: %w", d.name, err)
			} else if err != nil {
				d.f.Close()
			} else {
				mb.commit.jn.noteAck(d.name)
			}
			d.state = acked
			return nil
		}
		err := os.MkdirAll(mb.Path(FolderDone, ""), 0o700)
		if err == nil {
			err = rename(work, mb.Path(FolderDone, d.name))
		}
		if err != nil && !isNotExist(err) {
			return fmt.Errorf("smtp: ack %s: %w", d.name, err)
		}
		d.state = acked
		d.f.Close()
		return nil
	}
	if errors.Is(cause, context.Canceled) {
		if err := rename(work, mb.Path(FolderNew, d.name)); err != nil {
			return fmt.Errorf("smtp: nack %s: returning it to new/: %w", d.name, err)
		}
		mb.push(d.name)
		d.state = nacked
		d.f.Close()
		d.r.o.log.InfoContext(ctx, "smtp: mail returned to new/ (processing was cancelled)", slog.String("file", d.name))
		return nil
	}
	// The fault file is in the mail's SOAP version: the message's, or for a
	// mail parked on arrival the version its envelope was refused in.
	var v core.Version
	if d.m != nil {
		v = d.m.Version()
	}
	if v == 0 {
		v = core.FaultOf(cause).Version
	}
	if v == 0 {
		v = core.V12
	}
	if err := mb.writeDurable(FolderFailed, d.name+FaultSuffix, func(w io.Writer) error {
		return writeFault(w, v, cause)
	}); err != nil {
		return fmt.Errorf("smtp: nack %s: writing the fault: %w", d.name, err)
	}
	if err := rename(work, mb.Path(FolderFailed, d.name)); err != nil {
		return fmt.Errorf("smtp: nack %s: %w", d.name, err)
	}
	if err := syncDir(mb.Path(FolderFailed, "")); err != nil {
		d.r.o.log.ErrorContext(ctx, "smtp: fsync failed/", slog.Any("err", err))
	}
	d.state = nacked
	d.f.Close()
	d.r.o.log.InfoContext(ctx, "smtp: mail parked in failed/", slog.String("file", d.name), slog.Any("cause", cause))
	return nil
}

// release returns an unsettled mail to new/ (Close).
func (d *delivery) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != open {
		return
	}
	mb := d.r.mb
	d.spot.mu.Lock()
	if err := rename(d.spot.path, mb.Path(FolderNew, d.name)); err != nil {
		d.r.o.log.Error("smtp: returning a mail to new/ failed; a Receiver will recover it", slog.String("file", d.name), slog.Any("err", err))
	} else {
		d.spot.path = ""
		mb.push(d.name)
	}
	d.spot.mu.Unlock()
	d.state = released
	d.f.Close()
}

// FaultNamespace is the namespace of the Cause element a parked mail's
// fault file holds in its detail.
const FaultNamespace = "urn:soapwire:smtp"

// writeFault writes the fault envelope of a parked mail. Its detail also
// holds the cause's text (the file stays local, so internal text may
// appear in it).
func writeFault(w io.Writer, v core.Version, cause error) error {
	return mailfmt.WriteFault(w, v, cause, FaultNamespace)
}
