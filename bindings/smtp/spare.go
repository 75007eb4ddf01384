package smtp

import (
	"os"
)

// Spares. Creating a file (an inode) costs more than anything else a
// delivery does, so an acknowledged mail's file is kept in tmp/ under a
// dot name (.spare.*) and overwritten by a later mail, which is then
// renamed into new/ from there.
//
// Several processes may know a spare: each Maildir adopts those it finds
// in tmp/ when it opens. A spare is taken by locking it (flock, without
// waiting) and checking that its name still leads to the file locked: whoever
// moves or removes a spare holds its lock while doing so, so once both
// hold, the spare is the taker's alone until it closes it. A taker that
// comes second fails to lock, or finds the name gone or leading elsewhere,
// and leaves it.

// addSpare keeps path (in tmp/) for reuse, or removes it when there are
// enough.
func (m *Maildir) addSpare(path string) {
	select {
	case m.spares <- path:
	default:
		removeSpare(path)
	}
}

// takeSpare returns a spare file, open for writing and locked, with its
// path and size; ok is false when there is none.
func (m *Maildir) takeSpare() (f *os.File, path string, size int64, ok bool) {
	select {
	case s := <-m.openSpares:
		return s.f, s.path, s.size, true
	default:
	}
	for {
		select {
		case path = <-m.spares:
		default:
			return nil, "", 0, false
		}
		if f, size, ok = lockSpare(path, os.O_RDWR); ok {
			return f, path, size, true
		}
	}
}

// lockSpare opens path and locks it, and reports whether path still names
// the file locked.
func lockSpare(path string, flag int) (*os.File, int64, bool) {
	f, err := openFile(path, flag, 0)
	if err != nil {
		return nil, 0, false // gone: taken by another process
	}
	if ok, _ := tryLock(f); !ok {
		f.Close() // being written by another process
		return nil, 0, false
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, false
	}
	if pi, err := os.Stat(path); err != nil || !os.SameFile(fi, pi) {
		f.Close() // taken and moved on before we locked it
		return nil, 0, false
	}
	return f, fi.Size(), true
}

// removeSpare removes the spare at path unless another process is using
// it.
func removeSpare(path string) {
	if f, _, ok := lockSpare(path, os.O_RDONLY); ok {
		os.Remove(path)
		f.Close()
	}
}

// recycle moves the mail at path, locked through f, out of its folder into
// a spare. A writable f of size bytes is kept open (and so locked) for the
// next delivery, when there is room; else it is closed. On an error f stays
// open.
//
// A mail still in tmp/ (handed over with SyncJournal: see spot) is a
// spare where it is.
func (m *Maildir) recycle(path string, f *os.File, writable bool, size int64) error {
	spare := path
	if !m.inTmp(path) {
		spare = m.Path(FolderTmp, sparePrefix+m.uniqueName())
		if err := rename(path, spare); err != nil {
			return err
		}
	}
	if writable {
		select {
		case m.openSpares <- openSpare{f: f, path: spare, size: size}:
			return nil
		default:
		}
	}
	f.Close() // unlocked before another delivery tries to take it
	m.addSpare(spare)
	return nil
}
