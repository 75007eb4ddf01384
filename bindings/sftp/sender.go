package sftp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

var timeNow = time.Now

// MetaFile is the Meta key of the file's path on the server: set by Send
// after the message was stored, and by the Poller on what it receives (the
// name the file had in the inbox).
const MetaFile = "sftp.file"

// MetaClaim is the Meta key of a received file's path in the work folder.
const MetaClaim = "sftp.claim"

// Sender stores messages as files in the folder their To address names:
// each is written under a temporary name starting with a dot, then renamed
// to FileName(m.ID), so a reader never sees a partial file. It is a
// core.Sender for sftp:// addresses on its Client's server and account.
type Sender struct {
	c       *Client
	log     *slog.Logger
	noPosix bool // tests
	plain   bool // tests: one request at a time (pipeline.go)
}

var _ core.Sender = (*Sender)(nil)

// NewSender returns a Sender that uses c's connections.
func NewSender(c *Client, opts ...SenderOption) *Sender {
	o := newSenderConfig(opts)
	return &Sender{c: c, log: o.log}
}

// Send stores m in the folder m.To names (sftp://[user@]host:port/folder,
// on the Client's server and account, else ErrForeignServer). A message
// without an ID gets a fresh one. The body is streamed to the server as it
// is written; when anything fails, or ctx ends, the temporary file is
// removed and nothing appears under the final name. On success
// m.Meta[MetaFile] is the file's path.
func (s *Sender) Send(ctx context.Context, m *core.Message) error {
	if m == nil || m.Envelope == nil {
		return errors.New("sftp: send: no envelope")
	}
	dir, err := s.c.Dir(m.To)
	if err != nil {
		return fmt.Errorf("sftp: send: %w", err)
	}
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	file, err := drop.Store(ctx, &sftpFS{c: s.c, noPosix: s.noPosix, plain: s.plain}, dir, FileName(m.ID), drop.MessageReader(m), s.log, Scheme)
	if err != nil {
		return fmt.Errorf("sftp: send %s to %s: %w", m.ID, m.To, err)
	}
	m.SetMeta(MetaFile, file)
	return nil
}

// FileName returns the name of the file a message with the given id is
// stored in (the same rule in every file-drop binding).
func FileName(id string) string { return drop.FileName(id) }

// CheckName reports whether name is safe to use as a single path element,
// and why not (an error wrapping ErrUnsafeName).
func CheckName(name string) error { return drop.CheckName(name) }
