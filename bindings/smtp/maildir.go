package smtp

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Folders of a Maildir. tmp, new and cur are the Maildir standard's; the
// others are this binding's and sit beside them.
const (
	FolderTmp    = "tmp"    // mails being written
	FolderNew    = "new"    // mails delivered, not yet claimed
	FolderCur    = "cur"    // the standard's "seen" folder; created, not used
	FolderWork   = "work"   // mails claimed by a Receiver, being processed
	FolderFailed = "failed" // mails parked by Nack, each with a NAME.fault.xml beside it
	FolderDone   = "done"   // mails acknowledged, with WithArchive
)

// FaultSuffix ends the name of the fault file written beside a parked mail.
const FaultSuffix = ".fault.xml"

// maxSpares bounds the files a Maildir keeps for reuse.
const maxSpares = 128

// sparePrefix starts the names of the files kept in tmp/ for reuse.
const sparePrefix = ".spare."

// maxQueued bounds the names a Maildir remembers for its Receivers; beyond
// it, mail is found by scanning new/.
const maxQueued = 8192

// Handing mail over. A mail a Server commits while a Receiver on the same
// *Maildir is receiving goes into work/ instead of new/, claimed at once:
// its file stays open and locked (as a claim's), and the Receiver takes it
// with its bytes in memory, without opening, locking, renaming or reading
// anything. At most maxHeld mails are held so; one not taken within holdFor
// is put into new/ for anyone (a Receiver in another process too).
const (
	maxHeld       = 64
	holdFor       = time.Second
	maxHeldBytes  = 32 << 10 // larger mails are read from their file
	maxOpenSpares = 64       // spares kept open and locked, ready to write
)

// heldMail is a mail handed over in work/, its file open and locked.
type heldMail struct {
	name string
	f    *os.File // open for reading and writing
	data []byte   // the whole mail, or nil: read it from f
	size int64
	at   time.Time
	spot *spot // where its file is: work/, or with SyncJournal tmp/
}

// openSpare is a spare kept open (and locked) for the next delivery.
type openSpare struct {
	f    *os.File
	path string
	size int64
}

// Maildir is a mail folder in the Maildir format: a Server delivers into it,
// a Receiver takes mail out of it, and any MTA or delivery agent (Postfix,
// Dovecot's LDA, procmail) may deliver into it too. A Maildir is safe for
// concurrent use; several processes may open the same folder.
//
// A Server and Receivers sharing one *Maildir hand new mail over at once;
// a Receiver notices mail delivered by anyone else within its poll interval.
type Maildir struct {
	root string
	host string
	pid  int
	key  []byte // the submitter records' key (SubmitterKeyFile)
	seq  atomic.Uint64
	bufs sync.Pool // of *[]byte, for copying mails in
	// spares are files in tmp/ of acknowledged mails, reused for new ones:
	// creating a file (an inode) costs far more than rewriting one.
	spares chan string
	// openSpares are spares of this process still open and locked.
	openSpares chan openSpare
	commit     committer

	receivers   atomic.Int32 // open Receivers on this *Maildir
	waiting     atomic.Int32 // Receive calls waiting for mail
	lastReceive atomic.Int64 // when one last called Receive (UnixNano)
	handed      atomic.Int64 // mails taken as handed over (tests)
	replayed    int          // mails OpenMaildir wrote again from a journal

	mu       sync.Mutex
	queue    []string
	queued   map[string]struct{}
	changed  chan struct{} // closed and replaced when queue grows
	lastScan time.Time
	scanning bool
	held     []*heldMail
	holdT    *time.Timer
	holdOn   bool // holdT is armed
}

// OpenMaildir opens the Maildir at dir, creating it and its folders (mode
// 0700) when missing.
func OpenMaildir(dir string, opts ...MaildirOption) (*Maildir, error) {
	o := newMaildirConfig(opts)
	for _, f := range []string{FolderTmp, FolderNew, FolderCur, FolderWork, FolderFailed} {
		if err := os.MkdirAll(filepath.Join(dir, f), 0o700); err != nil {
			return nil, fmt.Errorf("smtp: open maildir %s: %w", dir, err)
		}
	}
	host, _ := os.Hostname()
	host = strings.NewReplacer("/", `\057`, ":", `\072`, ".", "_").Replace(host)
	if host == "" {
		host = "localhost"
	}
	key, err := loadSubmitterKey(dir)
	if err != nil {
		return nil, fmt.Errorf("smtp: open maildir %s: %w", dir, err)
	}
	m := &Maildir{
		root:    dir,
		key:     key,
		host:    host,
		pid:     os.Getpid(),
		queued:  make(map[string]struct{}),
		changed: make(chan struct{}),
		spares:  make(chan string, maxSpares),

		openSpares: make(chan openSpare, maxOpenSpares),
	}
	mode := o.syncMode
	if mode == SyncJournal && !haveSyncFS() {
		mode = SyncFiles
	}
	m.commit = committer{mb: m, mode: mode}
	m.commit.jn.mb = m
	n, err := m.replayJournals()
	if err != nil {
		return nil, fmt.Errorf("smtp: open maildir %s: %w", dir, err)
	}
	m.replayed = n
	if names, err := listAll(filepath.Join(dir, FolderTmp)); err == nil {
		for _, n := range names {
			if strings.HasPrefix(n, sparePrefix) {
				m.addSpare(m.Path(FolderTmp, n))
			}
		}
	}
	return m, nil
}

// Close makes every mail delivered so far durable in the Maildir itself
// (with SyncJournal: a last checkpoint, which leaves no journal file) and
// closes the files the Maildir keeps open for reuse. Call it once the
// Server and Receivers using m are done; m may still be used after, at the
// cost of reopening files.
func (m *Maildir) Close() error {
	var err error
	if m.commit.mode == SyncJournal {
		err = m.commit.checkpointNow()
	}
	for {
		select {
		case s := <-m.openSpares:
			s.f.Close()
			m.addSpare(s.path)
		default:
			return err
		}
	}
}

// Dir returns the Maildir's folder.
func (m *Maildir) Dir() string { return m.root }

// Path returns the path of a mail name in folder.
func (m *Maildir) Path(folder, name string) string { return filepath.Join(m.root, folder, name) }

// Deliver writes a mail (RFC 5322 text) durably into new/, the way the
// Maildir standard says: into tmp/ under a unique name, synced, renamed
// into new/, and new/ synced. It returns the mail's name once all of that
// is done; on an error nothing is left in new/. Concurrent deliveries share
// the syncs (see WithSyncMode).
func (m *Maildir) Deliver(r io.Reader) (string, error) {
	return m.deliver(nil, r)
}

func (m *Maildir) deliver(prefix []byte, r io.Reader) (name string, err error) {
	name = m.uniqueName()
	f, tmp, oldSize, reused := m.takeSpare()
	if !reused {
		if f, tmp, err = m.newFile(name); err != nil {
			return "", err
		}
	}
	defer func() {
		if err != nil && f != nil {
			os.Remove(tmp) // before Close: a spare is locked until then
			f.Close()
		}
	}()
	buf, _ := m.bufs.Get().(*[]byte)
	if buf == nil {
		b := make([]byte, 32<<10)
		buf = &b
	}
	size, err := copyMail(f, *buf, prefix, r)
	var data []byte
	if err == nil && size <= int64(len(*buf)) && size <= maxHeldBytes &&
		(m.commit.mode == SyncJournal || m.handingOver()) {
		data = bytes.Clone((*buf)[:size]) // all of it is still in buf
	}
	m.bufs.Put(buf)
	if err != nil {
		return "", err
	}
	if oldSize > size {
		if err = f.Truncate(size); err != nil {
			return "", fmt.Errorf("smtp: maildir: %w", err)
		}
	}
	// The committer takes f and tmp over: it renames tmp into new/ as name
	// (or removes it), then closes f.
	p := &pending{f: f, tmp: tmp, name: name, data: data, size: size}
	f = nil
	if err = m.commit.commit(p); err != nil {
		return "", err
	}
	return name, nil
}

// newFile creates a file in tmp/ for the mail name, locked. It has a
// spare's name from the start: once the mail is acknowledged, the file may
// be kept as a spare where it is (see spot). Locked like a spare, so that
// no Receiver claims it from new/ before its batch is safe; and since
// another process that listed tmp/ may take it for a spare between its
// creation and the lock, a file whose lock is taken is left to that
// process, and another name tried.
func (m *Maildir) newFile(name string) (*os.File, string, error) {
	for try := 0; ; try++ {
		tmp := m.Path(FolderTmp, sparePrefix+name)
		if try > 0 {
			tmp = m.Path(FolderTmp, sparePrefix+name+"."+strconv.Itoa(try))
		}
		f, err := openFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, "", fmt.Errorf("smtp: maildir: %w", err)
		}
		if ok, err := tryLock(f); ok || try == 3 {
			if !ok {
				f.Close()
				return nil, "", fmt.Errorf("smtp: maildir: cannot lock a new file in tmp/: %v", err)
			}
			return f, tmp, nil
		}
		f.Close() // another process's spare now
	}
}

// readError is a failure to read the mail being delivered (not to write
// it): a size limit, a line too long, the client gone.
type readError struct{ err error }

func (e *readError) Error() string { return "smtp: reading the mail: " + e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// copyMail writes prefix and then what r holds to f through buf (a small
// mail takes one write), and returns the bytes written. A failure to read
// r is a *readError.
func copyMail(f *os.File, buf, prefix []byte, r io.Reader) (int64, error) {
	var size int64
	n := 0
	flush := func() error {
		if n == 0 {
			return nil
		}
		// At an offset: a spare kept open has been written before.
		if _, err := f.WriteAt(buf[:n], size); err != nil {
			return fmt.Errorf("smtp: maildir: %w", err)
		}
		size += int64(n)
		n = 0
		return nil
	}
	for len(prefix) > 0 {
		k := copy(buf[n:], prefix)
		n, prefix = n+k, prefix[k:]
		if n == len(buf) {
			if err := flush(); err != nil {
				return size, err
			}
		}
	}
	for {
		k, rerr := r.Read(buf[n:])
		n += k
		if n == len(buf) || (rerr != nil && n > 0) {
			if err := flush(); err != nil {
				return size, err
			}
		}
		if rerr == io.EOF {
			return size, nil
		}
		if rerr != nil {
			return size, &readError{rerr}
		}
	}
}

// uniqueName returns a Maildir name: seconds, then microseconds, pid,
// a counter and random bits, then the host. Names sort by time.
func (m *Maildir) uniqueName() string {
	now := time.Now()
	var rnd [4]byte
	rand.Read(rnd[:])
	b := make([]byte, 0, 64)
	b = strconv.AppendInt(b, now.Unix(), 10)
	b = append(b, ".M"...)
	us := strconv.Itoa(now.Nanosecond() / 1000)
	b = append(b, "000000"[len(us):]...)
	b = append(b, us...)
	b = append(b, 'P')
	b = strconv.AppendInt(b, int64(m.pid), 10)
	b = append(b, 'Q')
	b = strconv.AppendUint(b, m.seq.Add(1), 10)
	b = append(b, 'R')
	b = hex.AppendEncode(b, rnd[:])
	b = append(b, '.')
	b = append(b, m.host...)
	return string(b)
}

// push tells the Receivers sharing m about a mail in new/.
func (m *Maildir) push(names ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	added := false
	for _, name := range names {
		if _, dup := m.queued[name]; dup || len(m.queue) >= maxQueued {
			continue
		}
		m.queue = append(m.queue, name)
		m.queued[name] = struct{}{}
		added = true
	}
	if added {
		close(m.changed)
		m.changed = make(chan struct{})
	}
}

// pop returns the next mail handed over, else the next name to try, or,
// when there is neither, a channel closed when there may be one.
func (m *Maildir) pop() (string, *heldMail, bool, <-chan struct{}) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.held) > 0 {
		h := m.held[0]
		m.held[0] = nil
		m.held = m.held[1:]
		if len(m.held) == 0 {
			m.held = nil
		}
		return h.name, h, true, m.changed
	}
	if len(m.queue) == 0 {
		return "", nil, false, m.changed
	}
	name := m.queue[0]
	m.queue[0] = ""
	m.queue = m.queue[1:]
	delete(m.queued, name)
	if len(m.queue) == 0 {
		m.queue = nil
	}
	return name, nil, true, m.changed
}

// handingOver reports whether a Receiver on m is receiving, so that new
// mail is better handed to it.
func (m *Maildir) handingOver() bool {
	return m.receivers.Load() > 0 &&
		(m.waiting.Load() > 0 || time.Now().UnixNano()-m.lastReceive.Load() < int64(holdFor))
}

// holdRoom returns how many more mails may be held.
func (m *Maildir) holdRoom() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maxHeld - len(m.held)
}

// hold hands mails in work/ (files open and locked) to m's Receivers.
func (m *Maildir) hold(hs []*heldMail) {
	if len(hs) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.held = append(m.held, hs...)
	if !m.holdOn {
		m.holdOn = true
		if m.holdT == nil {
			m.holdT = time.AfterFunc(holdFor, m.expireHeld)
		} else {
			m.holdT.Reset(holdFor)
		}
	}
	close(m.changed)
	m.changed = make(chan struct{})
}

// expireHeld puts the mails held longer than holdFor (all of them when no
// Receiver is left) into new/ for anyone.
func (m *Maildir) expireHeld() {
	m.mu.Lock()
	all := m.receivers.Load() == 0
	var out []*heldMail
	keep := m.held[:0]
	for _, h := range m.held {
		if all || time.Since(h.at) >= holdFor {
			out = append(out, h)
		} else {
			keep = append(keep, h)
		}
	}
	clear(m.held[len(keep):])
	m.held = keep
	if len(m.held) > 0 {
		m.holdT.Reset(holdFor - time.Since(m.held[0].at))
	} else {
		m.holdOn = false
	}
	m.mu.Unlock()
	names := make([]string, 0, len(out))
	for _, h := range out {
		// Renamed while still locked, so that no one claims it from
		// work/ meanwhile; if the rename fails, the mail stays in work/
		// and a Receiver's recovery returns it once it is unlocked (in
		// tmp/, the journal's replay or checkpoint takes care of it).
		h.spot.mu.Lock()
		if rename(h.spot.path, m.Path(FolderNew, h.name)) == nil {
			names = append(names, h.name)
			h.spot.path = ""
		}
		h.spot.mu.Unlock()
		h.f.Close()
	}
	m.push(names...)
}

// scanDue returns how long until new/ should be scanned again (<= 0: now).
func (m *Maildir) scanDue(every time.Duration) time.Duration {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.scanning {
		return every
	}
	return every - time.Since(m.lastScan)
}

// scan lists new/ and queues what it finds, oldest first. It returns how
// many names it queued.
func (m *Maildir) scan() (int, error) {
	m.mu.Lock()
	if m.scanning {
		m.mu.Unlock()
		return 0, nil
	}
	m.scanning = true
	m.mu.Unlock()
	names, err := listNames(filepath.Join(m.root, FolderNew))
	m.mu.Lock()
	m.scanning = false
	m.lastScan = time.Now()
	m.mu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("smtp: scan %s: %w", m.root, err)
	}
	before := m.queueLen()
	m.push(names...)
	return m.queueLen() - before, nil
}

func (m *Maildir) queueLen() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queue)
}

// listNames returns the sorted names of the files in dir, leaving out
// dot files.
func listNames(dir string) ([]string, error) {
	names, err := listAll(dir)
	if err != nil {
		return nil, err
	}
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, ".") })
	slices.Sort(names)
	return names, nil
}

// listAll returns the names in dir.
func listAll(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// cleanTmp removes files in tmp/ older than 36 hours (the Maildir
// standard's advice): deliveries that died before they were acknowledged.
func (m *Maildir) cleanTmp() {
	entries, err := os.ReadDir(filepath.Join(m.root, FolderTmp))
	if err != nil {
		return
	}
	for _, e := range entries {
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 36*time.Hour {
			if path := m.Path(FolderTmp, e.Name()); strings.HasPrefix(e.Name(), sparePrefix) {
				removeSpare(path)
			} else {
				os.Remove(path)
			}
		}
	}
}

// writeDurable writes data to folder/name through a temporary dot file,
// fsync'd, then renamed.
func (m *Maildir) writeDurable(folder, name string, write func(io.Writer) error) error {
	final := m.Path(folder, name)
	tmp := m.Path(folder, "."+name+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = rename(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// isNotExist reports whether err says a file is gone.
func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
