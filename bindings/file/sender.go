package file

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// MetaFile is the Meta key of the file's path: set by Send after the
// message was stored (so document.Send's Receipt carries it), and by the
// Poller on what it receives (the name the file had in the inbox).
const MetaFile = "file.file"

// MetaClaim is the Meta key of a received file's path in the work folder
// (below the endpoint's folder).
const MetaClaim = "file.claim"

// Sender stores messages as files in the folder their To address names,
// below its root folder: each is written under a temporary name starting
// with a dot (created with O_EXCL), synced, renamed to FileName(m.ID), and
// its folder synced, so a reader never sees a partial file and a message
// Send reported survives a power loss. It is a core.Sender for file://
// addresses below its root.
type Sender struct {
	root string
	fs   *localFS
	log  *slog.Logger
}

var _ core.Sender = (*Sender)(nil)

// NewSender returns a Sender that writes into folders below root (an
// absolute folder that exists). Addresses outside it are refused
// (ErrOutsideRoot), and so is a symbolic link below it that leads out.
func NewSender(root string, opts ...SenderOption) (*Sender, error) {
	o := newSenderConfig(opts)
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("%w: root %q: %v", ErrAddress, root, err)
	}
	abs = filepath.Clean(abs)
	fs := &localFS{base: abs}
	if _, err := fs.open(false); err != nil {
		return nil, fmt.Errorf("%w: root %q: %v", ErrAddress, root, err)
	}
	return &Sender{root: filepath.ToSlash(abs), fs: fs, log: o.log}, nil
}

// Root returns the Sender's root folder.
func (s *Sender) Root() string { return s.root }

// Close releases the root folder.
func (s *Sender) Close() error { return s.fs.close() }

// Send stores m in the folder m.To names (file:///folder, below the
// Sender's root, else ErrOutsideRoot). A message without an ID gets a
// fresh one (m.ID is set). On success m.Meta[MetaFile] is the file's path;
// on failure nothing appears under the final name.
func (s *Sender) Send(ctx context.Context, m *core.Message) error {
	if m == nil || m.Envelope == nil {
		return errors.New("file: send: no envelope")
	}
	dir, err := s.dir(m.To)
	if err != nil {
		return fmt.Errorf("file: send: %w", err)
	}
	if m.ID == "" {
		m.ID = core.NewMessageID()
	}
	p, err := drop.Store(ctx, s.fs, dir, FileName(m.ID), drop.MessageReader(m), s.log, Scheme)
	if err != nil {
		return fmt.Errorf("file: send %s to %s: %w", m.ID, m.To, err)
	}
	m.SetMeta(MetaFile, strings.TrimSuffix(s.root, "/")+p)
	return nil
}

// dir returns the engine path (below the root) of the folder an address
// names.
func (s *Sender) dir(address string) (string, error) {
	a, err := ParseAddress(address)
	if err != nil {
		return "", err
	}
	root := strings.TrimSuffix(s.root, "/")
	switch {
	case a.Dir == root || root == "":
		return strings.TrimPrefix(a.Dir, root) + "/", nil
	case strings.HasPrefix(a.Dir, root+"/"):
		return strings.TrimPrefix(a.Dir, root), nil
	}
	return "", fmt.Errorf("%w: %s is not below %s", ErrOutsideRoot, a.Dir, s.root)
}

// FileName returns the name of the file a message with the given id is
// stored in (the same rule in every file-drop binding): the id made safe
// as a single path element, then ".xml".
func FileName(id string) string { return drop.FileName(id) }

// CheckName reports whether name is safe to use as a single path element,
// and why not (an error wrapping ErrUnsafeName).
func CheckName(name string) error { return drop.CheckName(name) }
