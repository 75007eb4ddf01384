package smtp

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// replayJournals brings back what the journal files left by a crash
// promise (see journal.go): every mail they hold that is neither in the
// Maildir, whole, nor acknowledged is written again, into the folder where
// its file is or else into new/; a mail acknowledged but found in new/ or
// work/ is removed. Then the segments are removed. Segments another live
// process holds (locked) are left alone. It returns how many mails it wrote
// again.
func (m *Maildir) replayJournals() (int, error) {
	dir := filepath.Join(m.root, FolderJournal)
	names, err := listNames(dir)
	if isNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("smtp: maildir: journal: %w", err)
	}
	var segs []segment
	defer func() {
		for _, s := range segs {
			s.f.Close()
		}
	}()
	for _, n := range names {
		if !strings.HasSuffix(n, journalSuffix) {
			continue
		}
		path := filepath.Join(dir, n)
		f, err := openFile(path, os.O_RDONLY, 0)
		if err != nil {
			continue
		}
		if ok, _ := tryLock(f); !ok {
			f.Close() // another process's, still being written
			continue
		}
		segs = append(segs, segment{f: f, path: path})
	}
	if len(segs) == 0 {
		return 0, nil
	}

	// What the segments say, in order: the last record of a name wins.
	type mailRec struct {
		seg    int
		off, n int64
	}
	mails := make(map[string]mailRec)
	var order []string
	acked := make(map[string]bool)
	var buf []byte
	for i, s := range segs {
		fi, err := s.f.Stat()
		if err != nil {
			return 0, fmt.Errorf("smtp: maildir: journal: %w", err)
		}
		buf, err = readJournal(s.f, fi.Size(), buf, func(r journalRecord) {
			if r.kind == recAck {
				acked[r.name] = true
				return
			}
			if _, seen := mails[r.name]; !seen {
				order = append(order, r.name)
			}
			mails[r.name] = mailRec{seg: i, off: r.off, n: r.n}
			delete(acked, r.name)
		})
		if err != nil {
			// Not a journal (or unreadable): leave it for a person.
			segs[i].path = ""
		}
	}

	// Where the mails are now. cur/ names may carry ":2,FLAGS".
	type place struct{ folder, file string }
	where := make(map[string]place)
	for _, folder := range []string{FolderNew, FolderWork, FolderCur, FolderFailed, FolderDone} {
		names, err := listNames(filepath.Join(m.root, folder))
		if err != nil && !isNotExist(err) {
			return 0, fmt.Errorf("smtp: maildir: journal: %w", err)
		}
		for _, n := range names {
			base, _, _ := strings.Cut(n, ":")
			where[base] = place{folder, n}
		}
	}

	restored := 0
	touched := make(map[string]bool)
	for _, name := range order {
		rec := mails[name]
		at, found := where[name]
		if acked[name] {
			if found && (at.folder == FolderNew || at.folder == FolderWork) {
				if err := os.Remove(m.Path(at.folder, at.file)); err != nil && !isNotExist(err) {
					return restored, fmt.Errorf("smtp: maildir: journal: %w", err)
				}
				touched[at.folder] = true
			}
			continue
		}
		data := make([]byte, rec.n)
		if _, err := segs[rec.seg].f.ReadAt(data, rec.off); err != nil {
			return restored, fmt.Errorf("smtp: maildir: journal: %w", err)
		}
		if found {
			if have, err := os.ReadFile(m.Path(at.folder, at.file)); err == nil && bytes.Equal(have, data) {
				continue
			}
		} else {
			at = place{FolderNew, name}
		}
		if err := m.writeDurable(at.folder, at.file, func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		}); err != nil {
			return restored, fmt.Errorf("smtp: maildir: journal: restoring %s: %w", name, err)
		}
		touched[at.folder] = true
		restored++
	}
	for _, folder := range slices.Sorted(maps.Keys(touched)) {
		if err := syncDir(filepath.Join(m.root, folder)); err != nil {
			return restored, fmt.Errorf("smtp: maildir: journal: %w", err)
		}
	}
	for _, s := range segs {
		if s.path != "" {
			if err := os.Remove(s.path); err != nil && !isNotExist(err) {
				return restored, fmt.Errorf("smtp: maildir: journal: %w", err)
			}
		}
	}
	if err := syncDir(dir); err != nil {
		return restored, fmt.Errorf("smtp: maildir: journal: %w", err)
	}
	return restored, nil
}
