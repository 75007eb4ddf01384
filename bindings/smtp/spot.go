package smtp

import (
	"path/filepath"
	"sync"
)

// spot is where the file of a mail handed over to a Receiver is, from the
// moment it is held until it is settled.
//
// With SyncFiles and SyncFilesystem a handed-over mail is renamed into
// work/, synced, like a claim. With SyncJournal it need not be: its journal
// record makes it durable, so its file stays where it was written, in tmp/
// (locked, as every file being written or claimed is), and an Ack keeps
// that file as a spare in place: no rename at all for a mail taken and
// acknowledged before its journal segment is checkpointed. A checkpoint
// moves the handed-over mails of its segment still unsettled into work/
// first (see journal.checkpoint), so a mail whose journal record is gone
// is in work/ like any claim. A crash before then leaves the mail to the
// journal's replay, which writes it into new/.
type spot struct {
	mu   sync.Mutex
	name string
	path string // the file's path; "" once the mail left (settled or returned to new/)
}

// inTmp reports whether path is in m's tmp/.
func (m *Maildir) inTmp(path string) bool {
	return filepath.Dir(path) == filepath.Join(m.root, FolderTmp)
}

// toWork moves a handed-over mail still in tmp/ into work/ (a checkpoint is
// about to remove the journal record that made it durable).
func (m *Maildir) toWork(s *spot) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" || !m.inTmp(s.path) {
		return nil
	}
	work := m.Path(FolderWork, s.name)
	if err := rename(s.path, work); err != nil {
		return err
	}
	s.path = work
	return nil
}
