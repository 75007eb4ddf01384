package imap

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/textproto"
	"os"
	"strings"
	"sync"

	"github.com/emersion/go-imap/v2"

	"github.com/soapwire/soapwire/core"
)

// FaultNamespace is the namespace of the Cause element a parked mail's note
// holds in its fault's detail.
const FaultNamespace = "urn:soapwire:imap"

// delivery is a claimed mail: in the processing folder under uid.
type delivery struct {
	r      *Receiver
	uid    imap.UID // in the processing folder
	m      *core.Message
	file   *os.File // the spooled mail, nil when it was read in memory
	bucket int      // the lease keyword it carries (see lease.go), -1 none
	size   int64    // RFC822.SIZE, when the claim read it

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

// Ack deletes the mail (STORE \Deleted and UID EXPUNGE of its UID), or
// moves it to the done folder WithArchive. ErrLeaseLost if it was no longer
// in the processing folder.
func (d *delivery) Ack(ctx context.Context) error { return d.settleOnce(ctx, true, nil) }

// Nack parks the mail in the failed folder, beside a note mail holding its
// fault. A cause of context.Canceled (a service shutting down, not a mail
// that failed) returns the mail to the inbox instead, for the next
// Receiver.
func (d *delivery) Nack(ctx context.Context, cause error) error {
	return d.settleOnce(ctx, false, cause)
}

func (d *delivery) settleOnce(ctx context.Context, ack bool, cause error) error {
	d.mu.Lock()
	switch d.state {
	case acked:
		d.mu.Unlock()
		if ack {
			return nil
		}
		return core.ErrSettled
	case nacked:
		d.mu.Unlock()
		if !ack {
			return nil
		}
		return core.ErrSettled
	case released:
		d.mu.Unlock()
		return ErrReleased
	}
	d.mu.Unlock()
	return d.settle(ctx, ack, cause)
}

// settle settles the delivery (d.state open).
func (d *delivery) settle(ctx context.Context, ack bool, cause error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != open {
		return core.ErrSettled
	}
	r := d.r
	var err error
	switch {
	case ack && !r.o.archive:
		err = r.onWork(ctx, func(s *session) error { return deleteUID(s, d.uid) })
	case ack:
		err = r.onWork(ctx, func(s *session) error { return moveUID(s, d.uid, r.o.done) })
	case errors.Is(cause, context.Canceled):
		err = r.onWork(ctx, func(s *session) error { return r.returnToInbox(s, d.uid) })
	default:
		err = r.park(ctx, d, cause)
	}
	if err != nil && !errors.Is(err, errGone) {
		return fmt.Errorf("imap: settle UID %d: %w", d.uid, err)
	}
	switch {
	case ack:
		d.state = acked
	default:
		d.state = nacked
	}
	r.forget(d)
	if errors.Is(err, errGone) {
		r.o.log.ErrorContext(ctx, "imap: claim lost before it was settled; the mail will be processed again", slog.Uint64("uid", uint64(d.uid)))
		return fmt.Errorf("imap: UID %d: %w", d.uid, ErrLeaseLost)
	}
	if !ack && !errors.Is(cause, context.Canceled) {
		r.o.log.InfoContext(ctx, "imap: mail parked in the failed folder", slog.Uint64("uid", uint64(d.uid)), slog.String("folder", r.o.failed), slog.Any("cause", cause))
	}
	return nil
}

// release returns an unsettled mail to the inbox (Close, a fetch that
// failed). If that fails, recovery returns it after its lease.
func (d *delivery) release(ctx context.Context) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.state != open {
		return
	}
	err := d.r.onWork(ctx, func(s *session) error { return d.r.returnToInbox(s, d.uid) })
	if err != nil && !errors.Is(err, errGone) {
		d.r.o.log.WarnContext(ctx, "imap: returning a mail to the inbox failed; recovery will return it after its lease", slog.Uint64("uid", uint64(d.uid)), slog.Any("err", err))
	}
	d.state = released
	d.r.forget(d)
}

func (r *Receiver) forget(d *delivery) {
	r.mu.Lock()
	if r.inflight[d.uid] == d {
		delete(r.inflight, d.uid)
	}
	r.mu.Unlock()
	if d.file != nil {
		d.file.Close()
	}
}

// deleteUID flags uid \Deleted and expunges it; errGone if it is not there.
func deleteUID(s *session, uid imap.UID) error {
	set := imap.UIDSetNum(uid)
	msgs, err := s.c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Collect()
	if err != nil {
		return err
	}
	found := false
	for _, m := range msgs {
		found = found || m.UID == uid || m.UID == 0
	}
	if err := s.c.UIDExpunge(set).Close(); err != nil {
		return err
	}
	if !found {
		return errGone
	}
	return nil
}

// moveUID moves uid to folder; errGone if it is not there.
func moveUID(s *session, uid imap.UID, folder string) error {
	data, err := s.c.Move(imap.UIDSetNum(uid), folder).Wait()
	if err != nil {
		return err
	}
	if firstUID(data.DestUIDs) == 0 {
		return errGone
	}
	return nil
}

// returnToInbox takes the lease keywords off uid and moves it back to the
// inbox.
func (r *Receiver) returnToInbox(s *session, uid imap.UID) error {
	if !s.keywords {
		return moveUID(s, uid, r.e.folder)
	}
	if err := s.c.Store(imap.UIDSetNum(uid), &imap.StoreFlags{Op: imap.StoreFlagsDel, Silent: true, Flags: leaseFlags()}, nil).Close(); err != nil {
		return err
	}
	return moveUID(s, uid, r.e.folder)
}

// park moves the mail to the failed folder and appends a note beside it:
// a mail relating to it whose body is the fault envelope with the cause.
func (r *Receiver) park(ctx context.Context, d *delivery, cause error) error {
	about := ""
	if d.m != nil {
		about = d.m.Meta[MetaMessageID]
	} else {
		// Parked on arrival (too large, or not SOAP): its Message-ID alone.
		r.onWork(ctx, func(s *session) error {
			about = fetchMessageID(s, d.uid)
			return nil
		})
	}
	var fuid imap.UID
	err := r.onWork(ctx, func(s *session) error {
		data, err := s.c.Move(imap.UIDSetNum(d.uid), r.o.failed).Wait()
		if err != nil {
			return err
		}
		if fuid = firstUID(data.DestUIDs); fuid == 0 {
			return errGone
		}
		return nil
	})
	if err != nil {
		return err
	}
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
	note, err := r.noteFor(about, v, cause, d.uid, fuid)
	if err != nil {
		return err
	}
	err = r.onWork(ctx, func(s *session) error {
		_, err := appendMail(s, r.o.failed, note, []imap.Flag{NoteKeyword})
		return err
	})
	if err != nil {
		// The mail is parked; only its note is missing.
		r.o.log.ErrorContext(ctx, "imap: the parked mail's note could not be appended", slog.Uint64("uid", uint64(fuid)), slog.Any("err", err))
	}
	return nil
}

// NoteKeyword is the keyword of the notes a Receiver appends to the failed
// folder beside the mails it parks.
const NoteKeyword = imap.Flag("soapwire-fault")

// noteFrom is the address the notes are from: the first of WithAddresses,
// else the account's user at its host.
func (r *Receiver) noteFrom() *netmail.Address {
	for _, a := range r.o.addresses {
		a = strings.TrimPrefix(strings.TrimSpace(a), "mailto:")
		if strings.Contains(a, "@") && !strings.HasPrefix(a, "@") {
			return &netmail.Address{Address: a}
		}
	}
	user := r.o.user
	if user == "" {
		user = r.e.user
	}
	if user == "" {
		user = "soapwire"
	}
	if strings.Contains(user, "@") {
		return &netmail.Address{Address: user}
	}
	return &netmail.Address{Address: user + "@" + r.e.host}
}

// fetchMessageID returns the Message-ID header of the processing folder's
// mail uid, "" if it has none or the fetch fails.
func fetchMessageID(s *session, uid imap.UID) string {
	sec := &imap.FetchItemBodySection{Specifier: imap.PartSpecifierHeader, HeaderFields: []string{"Message-ID"}, Peek: true}
	msgs, err := s.c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{sec}}).Collect()
	if err != nil {
		return ""
	}
	for _, m := range msgs {
		for _, b := range m.BodySection {
			h, err := textproto.NewReader(bufio.NewReader(bytes.NewReader(b.Bytes))).ReadMIMEHeader()
			if err == nil || len(h) > 0 {
				return strings.TrimSpace(h.Get("Message-Id"))
			}
		}
	}
	return ""
}
