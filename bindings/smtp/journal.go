package smtp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// The journal (SyncJournal). Each batch of mails is appended, whole, to one
// journal file, and that one file is synced (fdatasync) before the batch's
// deliveries return: one sync per batch, however many mails it holds,
// instead of one per mail plus one per folder. The mails are then renamed
// into new/ (or work/) as usual, unsynced. About once a second (or every
// journalMaxBytes) the journal is checkpointed in the background: one
// syncfs(2) makes every mail file and folder written so far durable, then
// the journal file is removed. After a crash, OpenMaildir replays the
// journal files left behind (see replayJournals): a mail whose file is
// missing or differs from its record is written again from the record.
//
// A journal file (a segment) starts with journalMagic, then holds records:
//
//	kind     1 byte: recMail or recAck
//	nameLen  1 byte
//	dataLen  4 bytes, little endian (0 for recAck)
//	crc      4 bytes, little endian: CRC-32C of kind, nameLen, dataLen, name, data
//	name     nameLen bytes
//	data     dataLen bytes: the mail as in its file
//
// A record that is cut short or fails its CRC ends the segment: it is the
// tail of a batch that was never synced, so no sender was answered for it.

// FolderJournal holds the journal files of SyncJournal (the Maildir
// standard's readers ignore it, as they ignore work/ and failed/).
const FolderJournal = "journal"

const (
	journalMagic    = "soapwire-journal-1\n"
	journalSuffix   = ".journal"
	journalMaxBytes = 8 << 20     // a segment is checkpointed once it is this large
	journalMaxAge   = time.Second // or this old
	maxJournalAcks  = 1 << 16     // acks remembered for the next batch; beyond, dropped
	recHeaderLen    = 10
	recMail         = 'M'
	recAck          = 'A'
)

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// errJournalCorrupt ends the reading of a segment at a torn or bad record.
var errJournalCorrupt = errors.New("smtp: journal: torn or corrupt record")

// appendRecord appends one record to b.
func appendRecord(b []byte, kind byte, name string, data []byte) []byte {
	start := len(b)
	b = append(b, kind, byte(len(name)))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, 0, 0, 0, 0) // the CRC, below
	b = append(b, name...)
	b = append(b, data...)
	crc := crc32.Update(0, crc32c, b[start:start+6])
	crc = crc32.Update(crc, crc32c, b[start+recHeaderLen:])
	binary.LittleEndian.PutUint32(b[start+6:], crc)
	return b
}

// journalRecord is one record read back: its data is at off, n bytes, in
// the segment.
type journalRecord struct {
	kind byte
	name string
	off  int64
	n    int64
}

// readJournal reads the records of a segment of size bytes, in order, and
// calls fn for each sound one. It stops, without an error, at the end or
// at the first torn or corrupt record; it returns an error only when the
// segment cannot be read or does not start with journalMagic. buf is
// scratch space, returned grown.
func readJournal(r io.ReaderAt, size int64, buf []byte, fn func(journalRecord)) ([]byte, error) {
	head := make([]byte, len(journalMagic))
	if size < int64(len(head)) {
		return buf, fmt.Errorf("smtp: journal: %d bytes, too short for its header", size)
	}
	if _, err := r.ReadAt(head, 0); err != nil {
		return buf, fmt.Errorf("smtp: journal: %w", err)
	}
	if string(head) != journalMagic {
		return buf, errors.New("smtp: journal: not a journal file")
	}
	off := int64(len(journalMagic))
	for {
		rec, next, err := readRecord(r, size, off, &buf)
		if err != nil {
			if errors.Is(err, errJournalCorrupt) {
				return buf, nil
			}
			return buf, err
		}
		fn(rec)
		off = next
	}
}

// readRecord reads the record at off and returns it with the offset after
// it. It returns errJournalCorrupt at the end of the segment too.
func readRecord(r io.ReaderAt, size, off int64, buf *[]byte) (journalRecord, int64, error) {
	if size-off < recHeaderLen {
		return journalRecord{}, 0, errJournalCorrupt
	}
	var h [recHeaderLen]byte
	if _, err := r.ReadAt(h[:], off); err != nil {
		return journalRecord{}, 0, fmt.Errorf("smtp: journal: %w", err)
	}
	kind, nameLen := h[0], int64(h[1])
	dataLen := int64(binary.LittleEndian.Uint32(h[2:]))
	if (kind != recMail && kind != recAck) || nameLen == 0 || (kind == recAck && dataLen != 0) {
		return journalRecord{}, 0, errJournalCorrupt
	}
	body := nameLen + dataLen
	if body > size-off-recHeaderLen {
		return journalRecord{}, 0, errJournalCorrupt // cut short: never synced
	}
	if int64(cap(*buf)) < body {
		*buf = make([]byte, body)
	}
	b := (*buf)[:body]
	if _, err := r.ReadAt(b, off+recHeaderLen); err != nil {
		return journalRecord{}, 0, fmt.Errorf("smtp: journal: %w", err)
	}
	crc := crc32.Update(0, crc32c, h[:6])
	if crc32.Update(crc, crc32c, b) != binary.LittleEndian.Uint32(h[6:]) {
		return journalRecord{}, 0, errJournalCorrupt
	}
	name := string(b[:nameLen])
	if !validMailName(name) {
		return journalRecord{}, 0, errJournalCorrupt
	}
	rec := journalRecord{kind: kind, name: name, off: off + recHeaderLen + nameLen, n: dataLen}
	return rec, off + recHeaderLen + body, nil
}

// validMailName reports whether name can be a mail's file name in a folder:
// no separator, not a dot name.
func validMailName(name string) bool {
	return name != "" && !strings.HasPrefix(name, ".") && !strings.ContainsAny(name, "/\\\x00")
}

// journal is a committer's journal: the segment being written and the
// checkpoints of older ones.
type journal struct {
	mb *Maildir

	// Used by the committer's batches, one at a time.
	f      *os.File // the segment being written; nil until the next batch
	path   string
	size   int64
	opened time.Time
	buf    []byte
	cur    *segState // the segment being written's

	mu     sync.Mutex
	live   bool     // f is open: acks are worth writing
	acks   []string // mails acknowledged since the last batch
	timer  *time.Timer
	retry  []segment // segments whose checkpoint failed, kept locked
	queued []segment // segments waiting for their checkpoint
	// checkpointing: a goroutine runs checkpoints (pending counts it).
	checkpointing bool
	pending       sync.WaitGroup
	manual        bool // tests: checkpoint only when told (CheckpointJournal)
	// failSync, when set (tests), runs after a batch is written and before
	// it is synced; an error fails the sync.
	failSync func() error
}

// segment is a journal file being checkpointed.
type segment struct {
	f     *os.File
	path  string
	state *segState // nil: nothing to wait for
}

// segState is what a segment's checkpoint must wait for and see to.
type segState struct {
	// placing counts the segment's mails not yet placed into new/ or
	// handed over.
	placing sync.WaitGroup
	mu      sync.Mutex
	held    []*spot // its mails handed over while still in tmp/
}

// hold notes a mail of the segment handed over in tmp/.
func (s *segState) hold(sp *spot) {
	s.mu.Lock()
	s.held = append(s.held, sp)
	s.mu.Unlock()
}

// settle waits until every mail of the segment is placed, then moves
// those handed over and still unsettled from tmp/ into work/: once the
// segment is gone, their files must be where a claim's is.
func (s *segState) settle(m *Maildir) error {
	s.placing.Wait()
	s.mu.Lock()
	held := s.held
	s.held = nil
	s.mu.Unlock()
	var errs []error
	for _, sp := range held {
		if err := m.toWork(sp); err != nil {
			errs = append(errs, err)
			s.hold(sp) // tried again with the segment's next checkpoint
		}
	}
	return errors.Join(errs...)
}

// write appends the batch's mails (and the acks noted since the last batch)
// to the segment and syncs it. Small mails are gathered in one buffer and
// written at once; a mail larger than journalChunk is copied from its file
// in chunks, so that memory stays bounded whatever the mails' sizes. On an
// error the segment is cut back to where it was, so that no record of a
// batch that failed is replayed.
func (j *journal) write(batch []*pending) error {
	if j.f == nil {
		if err := j.open(); err != nil {
			return err
		}
	}
	j.mu.Lock()
	acks := j.acks
	j.acks = nil
	j.mu.Unlock()
	off := j.size
	err := func() error {
		b := j.buf[:0]
		defer func() {
			if cap(b) <= 1<<20 {
				j.buf = b[:0]
			}
		}()
		for _, name := range acks {
			b = appendRecord(b, recAck, name, nil)
		}
		for _, p := range batch {
			if p.data != nil || p.size <= journalChunk {
				data := p.data
				if data == nil {
					var err error
					if data, err = readPending(p); err != nil {
						return err
					}
				}
				b = appendRecord(b, recMail, p.name, data)
				continue
			}
			if _, err := j.f.WriteAt(b, off); err != nil {
				return err
			}
			off += int64(len(b))
			b = b[:0]
			n, err := j.copyRecord(off, p, &b)
			if err != nil {
				return err
			}
			off += n
		}
		if _, err := j.f.WriteAt(b, off); err != nil {
			return err
		}
		off += int64(len(b))
		return nil
	}()
	if err == nil && j.failSync != nil {
		err = j.failSync()
	}
	if err == nil {
		err = syncData(j.f)
	}
	if err != nil {
		if terr := j.f.Truncate(j.size); terr != nil {
			// The segment may hold records of mails that were refused:
			// start a new one, and let this one be checkpointed away.
			j.rotate()
		}
		return fmt.Errorf("smtp: maildir: journal: %w", err)
	}
	j.size = off
	return nil
}

// journalChunk is the largest mail copied into the journal in one piece,
// and the size of the pieces of larger ones.
const journalChunk = 64 << 10

// copyRecord writes p's record at off, its data copied from p's file in
// journalChunk pieces through *buf, and returns the record's length. The
// file is read twice: once for the CRC, which the header holds, once to
// copy it (the mail was just written, so both reads hit the page cache).
func (j *journal) copyRecord(off int64, p *pending, buf *[]byte) (int64, error) {
	if cap(*buf) < journalChunk {
		*buf = make([]byte, 0, journalChunk)
	}
	chunk := (*buf)[:journalChunk]
	head := appendRecord(nil, recMail, p.name, nil)
	binary.LittleEndian.PutUint32(head[2:], uint32(p.size))
	crc := crc32.Update(0, crc32c, head[:6])
	crc = crc32.Update(crc, crc32c, head[recHeaderLen:])
	each := func(fn func([]byte, int64) error) error {
		for at := int64(0); at < p.size; {
			n := min(int64(len(chunk)), p.size-at)
			if _, err := p.f.ReadAt(chunk[:n], at); err != nil {
				return fmt.Errorf("reading %s back: %w", p.name, err)
			}
			if err := fn(chunk[:n], at); err != nil {
				return err
			}
			at += n
		}
		return nil
	}
	if err := each(func(c []byte, _ int64) error {
		crc = crc32.Update(crc, crc32c, c)
		return nil
	}); err != nil {
		return 0, err
	}
	binary.LittleEndian.PutUint32(head[6:], crc)
	if _, err := j.f.WriteAt(head, off); err != nil {
		return 0, err
	}
	start := off + int64(len(head))
	if err := each(func(c []byte, at int64) error {
		_, err := j.f.WriteAt(c, start+at)
		return err
	}); err != nil {
		return 0, err
	}
	return int64(len(head)) + p.size, nil
}

// readPending reads a small pending mail back from its file.
func readPending(p *pending) ([]byte, error) {
	data := make([]byte, p.size)
	if _, err := p.f.ReadAt(data, 0); err != nil {
		return nil, fmt.Errorf("smtp: maildir: journal: reading %s back: %w", p.name, err)
	}
	return data, nil
}

// open starts a new segment: created, its header written, and its name
// synced into journal/.
func (j *journal) open() error {
	dir := filepath.Join(j.mb.root, FolderJournal)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("smtp: maildir: journal: %w", err)
	}
	path := filepath.Join(dir, j.mb.uniqueName()+journalSuffix)
	f, err := openFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("smtp: maildir: journal: %w", err)
	}
	// Locked while this process may still add to it or checkpoint it: a
	// Maildir opened by another process replays only segments it can lock.
	tryLock(f)
	_, err = f.WriteAt([]byte(journalMagic), 0)
	if err == nil {
		err = syncData(f)
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		os.Remove(path)
		f.Close()
		return fmt.Errorf("smtp: maildir: journal: %w", err)
	}
	j.f, j.path, j.size, j.opened = f, path, int64(len(journalMagic)), time.Now()
	j.cur = new(segState)
	j.mu.Lock()
	j.live = true
	j.mu.Unlock()
	return nil
}

// due reports whether the segment should be checkpointed now.
func (j *journal) due() bool {
	return j.f != nil && !j.manual && (j.size >= journalMaxBytes || time.Since(j.opened) >= journalMaxAge)
}

// noteAck remembers that a mail was acknowledged (its file removed), so
// that the next batch's records say so and a replay does not bring it back.
func (j *journal) noteAck(name string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.live && len(j.acks) < maxJournalAcks {
		j.acks = append(j.acks, name)
	}
}

// rotate closes the segment for new records and checkpoints it in the
// background. The acks noted so far are dropped: their removals happened
// before the checkpoint's sync, which makes them durable.
func (j *journal) rotate() {
	if j.f == nil {
		return
	}
	seg := segment{f: j.f, path: j.path, state: j.cur}
	j.f, j.path, j.size, j.cur = nil, "", 0, nil
	j.mu.Lock()
	j.live = false
	j.acks = nil
	j.queued = append(j.queued, seg)
	start := !j.checkpointing
	if start {
		j.checkpointing = true
		j.pending.Add(1)
	}
	j.mu.Unlock()
	if start {
		go j.checkpoints()
	}
}

// checkpoints checkpoints the segments queued, and those queued meanwhile,
// until none is left: one checkpoint at a time, so that a slow disk does
// not gather syncs running side by side, and segments queued during one
// share the next one's sync.
func (j *journal) checkpoints() {
	defer j.pending.Done()
	for {
		j.mu.Lock()
		segs := j.queued
		j.queued = nil
		if len(segs) == 0 {
			j.checkpointing = false
			j.mu.Unlock()
			return
		}
		segs = append(j.retry, segs...)
		j.retry = nil
		j.mu.Unlock()
		j.checkpoint(segs)
	}
}

// checkpoint makes everything written into the Maildir so far durable,
// then removes the segments. On a failure they are kept, locked, and
// tried again at the next checkpoint (or replayed by the next OpenMaildir).
func (j *journal) checkpoint(segs []segment) {
	var err error
	for _, s := range segs {
		if s.state != nil {
			err = errors.Join(err, s.state.settle(j.mb))
		}
	}
	if err == nil {
		err = syncEverything(segs[0].f)
	}
	if err == nil {
		for _, s := range segs {
			if rerr := os.Remove(s.path); rerr != nil && !isNotExist(rerr) {
				err = rerr
			}
		}
	}
	if err == nil {
		// So that a removed segment does not come back after a crash to
		// bring back mails acknowledged since.
		err = syncDir(filepath.Join(j.mb.root, FolderJournal))
	}
	if err != nil {
		j.mu.Lock()
		j.retry = append(j.retry, segs...)
		j.mu.Unlock()
		return
	}
	for _, s := range segs {
		s.f.Close()
	}
}

// wait waits for the checkpoints under way.
func (j *journal) wait() { j.pending.Wait() }
