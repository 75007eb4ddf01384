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

// take claims the inbox mail uid and reads its message. It returns nil when
// another Receiver claimed it first, when the connection failed (the claim,
// if made, is returned to the inbox or left to recovery), or when the mail
// is not a SOAP message or too large (then it is parked).
func (r *Receiver) take(ctx context.Context, s *session, uid imap.UID) *delivery {
	c, err := r.claim(ctx, s, uid)
	puid := c.uid
	if err != nil {
		if isConnErr(err) {
			r.dropWatch(ctx, s, "MOVE", err)
		} else {
			r.o.log.WarnContext(ctx, "imap: claim refused", slog.Uint64("uid", uint64(uid)), slog.Any("err", err))
		}
		return nil
	}
	if puid == 0 {
		return nil // another Receiver's
	}
	d := &delivery{r: r, uid: puid, bucket: c.bucket}
	r.mu.Lock()
	r.inflight[puid] = d
	r.mu.Unlock()

	var (
		m       *core.Message
		readErr error
	)
	err = r.onWork(ctx, func(s *session) error {
		size := c.size
		if c.bucket < 0 {
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
		if c.bucket >= 0 {
			// The session learns of the mail moved in first: Dovecot
			// answered a FETCH of a mail it had not yet seen arrive in
			// 20-30 ms, a NOOP and then the FETCH in 5-7.
			if err := s.c.Noop().Wait(); err != nil {
				return err
			}
		}
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

// claim moves the inbox mail uid into the processing folder and returns its
// UID there (0 if another Receiver took it). Where the server has CONDSTORE
// the mail is first taken by a conditional STORE (condClaim), so only one
// Receiver moves it; else the MOVE (RFC 6851) is the claim. Without MOVE,
// go-imap's client copies, flags \Deleted and expunges that UID (UIDPLUS).
func (r *Receiver) claim(ctx context.Context, s *session, uid imap.UID) (claimed, error) {
	stop := s.watch(ctx)
	defer stop()
	c := claimed{bucket: -1}
	if s.caps().Has(imap.CapCondStore) && s.keywords {
		won, b, size, err := r.condClaim(s, uid)
		if err != nil || !won {
			return c, err
		}
		c.bucket, c.size = b, size
	}
	data, err := s.c.Move(imap.UIDSetNum(uid), r.o.processing).Wait()
	if err != nil {
		return c, err
	}
	c.uid = firstUID(data.DestUIDs)
	return c, nil
}

// claimed is a claim: the mail's UID in the processing folder (0: none),
// and, when the claim was a conditional STORE, its lease keyword (-1 none)
// and RFC822.SIZE (the keyword moved with the mail).
type claimed struct {
	uid    imap.UID
	bucket int
	size   int64
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
