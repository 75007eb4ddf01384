package imap

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// maxInMemory is the largest mail read into memory; a larger one is
// streamed from the socket into an unnamed temporary file, and its envelope
// from there.
const maxInMemory = 256 << 10

// claimBatch is how many inbox mails a Receiver claims at once: one
// conditional STORE and one UID MOVE for all of them.
const claimBatch = 8

// claimSome claims the inbox mails uids (claimMany) and returns their
// deliveries, already counted as this Receiver's (inflight), to be opened
// one by one. It drops the inbox session when the connection failed.
func (r *Receiver) claimSome(ctx context.Context, s *session, uids []imap.UID) []*delivery {
	cs, err := r.claimMany(ctx, s, uids)
	if err != nil {
		if isConnErr(err) {
			r.dropWatch(ctx, s, "MOVE", err)
		} else {
			r.o.log.WarnContext(ctx, "imap: claim refused", slog.String("uids", imap.UIDSetNum(uids...).String()), slog.Any("err", err))
		}
	}
	ds := make([]*delivery, 0, len(cs))
	r.mu.Lock()
	for _, c := range cs {
		d := &delivery{r: r, uid: c.uid, bucket: c.bucket, size: c.size}
		r.inflight[c.uid] = d
		ds = append(ds, d)
	}
	r.mu.Unlock()
	return ds
}

// open reads the message of a claimed mail. It returns nil when the
// connection failed (the mail is returned to the inbox, or left to
// recovery), when the mail is not a SOAP message or too large (then it is
// parked), or when another Receiver's copy of it is handled (twin.go).
func (r *Receiver) open(ctx context.Context, d *delivery) *delivery {
	puid := d.uid
	var (
		m       *core.Message
		readErr error
	)
	r.mu.Lock()
	claimedByStore := d.bucket >= 0
	r.mu.Unlock()
	err := r.onWork(ctx, func(s *session) error {
		size := d.size
		if !claimedByStore {
			// Claimed by MOVE alone: the keyword and size now.
			b := r.stamp(s, puid)
			r.mu.Lock()
			d.bucket = b
			r.mu.Unlock()
			var err error
			if size, err = fetchSize(s, puid); err != nil {
				return err
			}
		}
		if size > r.o.maxBytes {
			readErr = core.SenderFault("mail of %d bytes, over the limit of %d (WithMaxMessageBytes)", size, r.o.maxBytes)
			return nil
		}
		if claimedByStore {
			// The session learns of the mail moved in first: Dovecot
			// answered a FETCH of a mail it had not yet seen arrive in
			// 20-30 ms, a NOOP and then the FETCH in 5-7.
			if err := s.c.Noop().Wait(); err != nil {
				return err
			}
		}
		var err error
		m, readErr, err = r.fetchMessage(s, d)
		return err
	})
	if err != nil {
		// The fetch failed and reconnecting did not help: give the mail
		// back (or leave it to recovery) and go on.
		r.o.log.WarnContext(ctx, "imap: fetching a claimed mail failed; returning it to the inbox", slog.Uint64("uid", uint64(puid)), slog.Any("err", err))
		d.release(ctx)
		return nil
	}
	if readErr != nil {
		f := core.FaultOf(readErr)
		r.o.log.WarnContext(ctx, "imap: not a SOAP mail or too large; parked", slog.Uint64("uid", uint64(puid)), slog.String("fault", f.Error()))
		if err := d.settle(ctx, false, readErr); err != nil {
			r.o.log.ErrorContext(ctx, "imap: parking a mail failed; recovery will return it", slog.Uint64("uid", uint64(puid)), slog.Any("err", err))
			r.forget(d)
		}
		return nil
	}
	if m != nil {
		var yielded bool
		err := r.onWork(ctx, func(s *session) error {
			var err error
			yielded, err = yields(s, puid, m.Meta[MetaMessageID])
			return err
		})
		if err != nil {
			r.o.log.WarnContext(ctx, "imap: looking for a twin of a claimed mail failed; handling it", slog.Uint64("uid", uint64(puid)), slog.Any("err", err))
		} else if yielded {
			r.o.log.InfoContext(ctx, "imap: another Receiver claimed the same mail too; its copy is handled, this one expunged", slog.Uint64("uid", uint64(puid)))
			d.mu.Lock()
			d.state = acked
			d.mu.Unlock()
			r.forget(d)
			return nil
		}
	}
	m.SetMeta(MetaFolder, r.e.folder)
	m.SetMeta(MetaUID, strconv.FormatUint(uint64(puid), 10))
	d.m = m
	if r.isClosed() {
		d.release(ctx)
		return nil
	}
	return d
}

// claimMany moves the inbox mails uids into the processing folder and
// returns the claims this Receiver won, each with the mail's UID there.
// Where the server has CONDSTORE and takes keywords, the mails are first
// taken by a conditional STORE (condClaim), so only one Receiver moves each;
// else the MOVE (RFC 6851) is the claim. Without MOVE, go-imap's client
// copies, flags \Deleted and expunges those UIDs (UIDPLUS).
func (r *Receiver) claimMany(ctx context.Context, s *session, uids []imap.UID) ([]claimed, error) {
	stop := s.watch(ctx)
	defer stop()
	won := map[imap.UID]claimed{}
	for _, uid := range uids {
		won[uid] = claimed{bucket: -1}
	}
	if s.caps().Has(imap.CapCondStore) && s.keywords {
		var err error
		if won, err = r.condClaim(s, uids); err != nil || len(won) == 0 {
			return nil, err
		}
	}
	var set imap.UIDSet
	for uid := range won {
		set.AddNum(uid)
	}
	data, err := s.c.Move(set, r.o.processing).Wait()
	if err != nil {
		return nil, err
	}
	src, dst := uidList(data.SourceUIDs), uidList(data.DestUIDs)
	if len(src) != len(dst) {
		return nil, fmt.Errorf("imap: COPYUID maps %d UIDs to %d", len(src), len(dst))
	}
	out := make([]claimed, 0, len(src))
	for i, u := range src {
		if c, ok := won[u]; ok {
			c.uid = dst[i]
			out = append(out, c)
		}
	}
	return out, nil
}

// uidList returns the UIDs of a COPYUID set, in order.
func uidList(set imap.NumSet) []imap.UID {
	us, ok := set.(imap.UIDSet)
	if !ok {
		return nil
	}
	uids, _ := us.Nums()
	return uids
}

// firstUID returns the first UID of a COPYUID set, 0 if none.
func firstUID(set imap.NumSet) imap.UID {
	us, ok := set.(imap.UIDSet)
	if !ok {
		return 0
	}
	uids, _ := us.Nums()
	if len(uids) == 0 {
		return 0
	}
	return uids[0]
}

// fetchSize returns the RFC822.SIZE of the processing folder's mail uid.
func fetchSize(s *session, uid imap.UID) (int64, error) {
	msgs, err := s.c.Fetch(imap.UIDSetNum(uid), &imap.FetchOptions{UID: true, RFC822Size: true}).Collect()
	if err != nil {
		return 0, err
	}
	for _, m := range msgs {
		if m.UID == uid {
			return m.RFC822Size, nil
		}
	}
	return 0, fmt.Errorf("imap: UID %d: %w", uid, errGone)
}

// fetchMessage fetches the mail (BODY.PEEK[]) into memory or a temporary
// file and reads its message. readErr is the mail's fault (not SOAP, too
// large); err a command's or the connection's.
func (r *Receiver) fetchMessage(s *session, d *delivery) (m *core.Message, readErr, err error) {
	cmd := s.c.Fetch(imap.UIDSetNum(d.uid), &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}})
	// A literal that failed half-read (the connection lost) must not be
	// read again: go-imap's reader goroutine has taken the connection
	// back. The connection is closed and the command left unconsumed.
	broken := func(err error) (*core.Message, error, error) {
		s.close()
		return nil, nil, err
	}
	var (
		data []byte
		file *os.File
		size int64
	)
	found := false
	for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
		for item := msg.Next(); item != nil; item = msg.Next() {
			body, ok := item.(imapclient.FetchItemDataBodySection)
			if !ok || body.Literal == nil || found {
				continue
			}
			found = true
			size = body.Literal.Size()
			if size > r.o.maxBytes {
				readErr = core.SenderFault("mail of %d bytes, over the limit of %d (WithMaxMessageBytes)", size, r.o.maxBytes)
				continue
			}
			if size <= maxInMemory {
				data = make([]byte, size)
				if _, err := io.ReadFull(body.Literal, data); err != nil {
					return broken(err)
				}
				continue
			}
			if file, err = spool(body.Literal, size); err != nil {
				return broken(err)
			}
		}
	}
	if err := cmd.Close(); err != nil {
		if file != nil {
			file.Close()
		}
		return nil, nil, err
	}
	if readErr != nil {
		return nil, readErr, nil
	}
	if !found {
		return nil, nil, fmt.Errorf("imap: UID %d: %w", d.uid, errGone)
	}
	cfg := &mailfmt.ReadConfig{Limits: r.o.limits, Addresses: r.o.addresses, Prefix: metaPrefix}
	if file != nil {
		d.file = file
		m, readErr = mailfmt.Read(io.NewSectionReader(file, 0, size), cfg)
		return m, readErr, nil
	}
	m, readErr = mailfmt.ReadBytes(data, cfg)
	return m, readErr, nil
}

// spool copies a literal of size bytes into an unnamed temporary file.
func spool(r io.Reader, size int64) (*os.File, error) {
	f, err := os.CreateTemp("", "soapwire-imap-*")
	if err != nil {
		return nil, fmt.Errorf("imap: spooling a mail: %w", err)
	}
	os.Remove(f.Name()) // unnamed: gone when closed, or when the process dies
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// noteFor composes the note parked beside a mail: the fault (and cause) of
// the mail whose Message-ID is about.
func (r *Receiver) noteFor(about string, v core.Version, cause error, puid, fuid imap.UID) ([]byte, error) {
	var b bytes.Buffer
	from := r.noteFrom()
	err := mailfmt.ComposeNote(&b, mailfmt.Note{
		From:   from,
		About:  about,
		Reason: core.FaultOf(cause).Reason,
		Extra: [][2]string{
			{"X-Soapwire-Parked-Folder", r.o.failed},
			{"X-Soapwire-Parked-UID", strconv.FormatUint(uint64(fuid), 10)},
		},
	}, v, cause, FaultNamespace)
	return b.Bytes(), err
}

// claimed is a claim: the mail's UID in the processing folder, and, when
// the claim was a conditional STORE, its lease keyword (-1 none) and
// RFC822.SIZE (the keyword moved with the mail).
type claimed struct {
	uid    imap.UID
	bucket int
	size   int64
}
