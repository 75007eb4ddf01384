package ftp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// MetaFile is the Meta key of the file's path on the server: set by Send
// after the message was stored (so document.Send's Receipt carries it), and
// by the Poller on what it receives (the name the file had in the inbox).
const MetaFile = "ftp.file"

// MetaClaim is the Meta key of a received file's path in the work folder.
const MetaClaim = "ftp.claim"

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
	file, err := drop.Store(ctx, ftpFS{s.c}, dir, FileName(m.ID), drop.MessageReader(m), s.log, Scheme)
	if err != nil {
		return fmt.Errorf("ftp: send %s to %s: %w", m.ID, m.To, err)
	}
	m.SetMeta(MetaFile, file)
	return nil
}
