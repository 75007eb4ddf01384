package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path"
	"time"

	"github.com/jlaffaye/ftp"

	"github.com/soapwire/soapwire/core"
)

// MetaFile is the Meta key of the file's path on the server: set by Send
// after the message was stored (so document.Send's Receipt carries it), and
// by the Poller on what it receives (the name the file had in the inbox).
const MetaFile = "ftp.file"

// MetaClaim is the Meta key of a received file's path in the work folder.
const MetaClaim = "ftp.claim"

// cleanupTimeout bounds removing a partial upload after a failed Send.
const cleanupTimeout = 5 * time.Second

// Sender stores messages as files in the folder their To address names:
// each is written under a temporary name starting with a dot, then renamed
// to FileName(m.ID), so a reader never sees a partial file. It is a
// core.Sender for ftp:// addresses on its Client's server.
type Sender struct {
	c   *Client
	log *slog.Logger
}

var _ core.Sender = (*Sender)(nil)

// NewSender returns a Sender that uses c's connections.
func NewSender(c *Client, opts ...SenderOption) *Sender {
	o := newSenderConfig(opts)
	return &Sender{c: c, log: o.log}
}

// Send stores m in the folder m.To names (ftp://host:port/folder, on the
// Client's server, else ErrForeignServer). A message without an ID gets a
// fresh one (m.ID is set). The body is streamed to the server as it is
// written. ctx bounds the whole upload; when it ends, or anything fails, the
// temporary file is removed and nothing appears under the final name. On
// success m.Meta[MetaFile] is the file's path.
func (s *Sender) Send(ctx context.Context, m *core.Message) error {
	if m == nil || m.Envelope == nil {
		return errors.New("ftp: send: no envelope")
	}
	dir, err := s.c.Dir(m.To)
	if err != nil {
		return fmt.Errorf("ftp: send: %w", err)
	}
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	file, err := s.store(ctx, dir, FileName(m.ID), messageReader{m})
	if err != nil {
		return fmt.Errorf("ftp: send %s to %s: %w", m.ID, m.To, err)
	}
	m.SetMeta(MetaFile, file)
	return nil
}

// store uploads r to dir/.name.<random>.part and renames it to dir/name.
func (s *Sender) store(ctx context.Context, dir, name string, r io.Reader) (string, error) {
	final := path.Join(dir, name)
	tmp := path.Join(dir, tempName(name))
	return final, s.c.storeAs(ctx, tmp, final, r, s.log)
}

// storeAs uploads r to tmp and renames it to final; on failure it removes
// tmp (on a fresh connection when the first one broke). When a connection
// reused from the pool turns out dead before any byte was read from r, the
// upload is tried once more on a fresh connection.
func (c *Client) storeAs(ctx context.Context, tmp, final string, r io.Reader, log *slog.Logger) error {
	src := &countingSource{r: r}
	stored := false
	err := c.retry(ctx, func() bool { return !src.touched }, func(sc *ftp.ServerConn) error {
		if err := sc.Stor(tmp, src); err != nil {
			return fmt.Errorf("upload: %w", err)
		}
		stored = true
		if err := sc.Rename(tmp, final); err != nil {
			return fmt.Errorf("rename %s: %w", path.Base(tmp), err)
		}
		return nil
	})
	if err == nil || !src.touched {
		return err
	}
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	derr := c.once(dctx, func(sc *ftp.ServerConn) error { return sc.Delete(tmp) })
	if derr != nil && (stored || !isFileUnavailable(derr)) {
		log.WarnContext(ctx, "ftp: temporary file not removed", slog.String("file", tmp), slog.Any("err", derr))
	}
	return err
}

// countingSource notes whether an upload started reading its source.
type countingSource struct {
	r       io.Reader
	touched bool
}

func (s *countingSource) Read(p []byte) (int, error) {
	s.touched = true
	return s.r.Read(p)
}

func (s *countingSource) WriteTo(w io.Writer) (int64, error) {
	s.touched = true
	if wt, ok := s.r.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{s.r})
}

// messageReader streams a message into an upload: io.Copy uses WriteTo, so
// the envelope is written straight into the data connection.
type messageReader struct{ m *core.Message }

func (r messageReader) WriteTo(w io.Writer) (int64, error) { return r.m.WriteTo(w) }

// Read is never called: io.Copy prefers WriteTo.
func (r messageReader) Read([]byte) (int, error) {
	return 0, errors.New("ftp: messageReader is read with WriteTo")
}
