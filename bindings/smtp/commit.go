package smtp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// SyncMode says how a Maildir makes the data of new mails durable before
// it moves them into new/: see WithSyncMode.
type SyncMode int

const (
	// SyncFiles syncs each mail's file (fdatasync(2) on Linux, fsync(2)
	// elsewhere), all the files of a batch at once, then new/. It touches
	// nothing but the mails, and leaves no journal. The default outside
	// Linux.
	SyncFiles SyncMode = iota
	// SyncFilesystem syncs the whole file system the Maildir is on with one
	// syncfs(2) per batch (Linux; elsewhere it is SyncFiles). It is faster
	// when little else writes to that file system, and slower when much
	// does: it also writes out every other process's unsaved data there.
	SyncFilesystem
	// SyncJournal appends each batch's mails, whole, to one journal file
	// and syncs that file alone (one fdatasync(2) per batch, however many
	// mails it holds) before the deliveries return; the mails' own files
	// and folders are made durable in the background, by one syncfs(2)
	// about once a second, after which the journal file is removed. After
	// a crash, OpenMaildir writes again from the journal every mail whose
	// file is missing or incomplete. A mail acknowledged within the second
	// before a crash may be delivered again (never lost), as in the other
	// modes a mail whose removal was not yet synced may. The default
	// (DefaultSyncMode). Linux only; elsewhere it is SyncFiles.
	SyncJournal
)

// String names the mode.
func (m SyncMode) String() string {
	switch m {
	case SyncFiles:
		return "files"
	case SyncFilesystem:
		return "filesystem"
	case SyncJournal:
		return "journal"
	}
	return fmt.Sprintf("SyncMode(%d)", int(m))
}

// errNoSyncFS: syncfs(2) is not available here; sync file by file.
var errNoSyncFS = errors.New("smtp: syncfs not available")

// maxSyncs bounds the files SyncFiles syncs at once.
const maxSyncs = 16

// pending is a mail written into tmp/ (f still open), waiting to be made
// durable and moved into new/.
type pending struct {
	f    *os.File
	tmp  string // its path: in tmp/, in new/ once renamed
	name string
	data []byte // the mail, when it may be handed over in memory
	size int64
	held bool // goes to work/, handed over to a Receiver
	// seg, with SyncJournal, is the journal segment that holds its record
	// (see place).
	seg  *segState
	err  error
	done chan struct{}
}

// committer moves mails from tmp/ into new/ durably, in batches (group
// commit). A mail's data is synced, then it is renamed into new/, then new/
// is synced; only then does its delivery return. Every mail that arrives
// while a batch is being committed joins the next batch, so that one round
// of syncs serves them all: under load a batch holds about as many mails as
// there are sessions waiting.
type committer struct {
	mb   *Maildir
	mode SyncMode
	jn   journal // SyncJournal's

	mu      sync.Mutex
	queue   []*pending
	running bool

	// hook, when set (tests only), runs before each sync of a batch:
	// stage is "data" or "dir", names the batch's mails. A non-nil error
	// fails the sync.
	hook func(stage string, names []string) error
}

// commit makes p durable in new/ and returns nil, or returns an error and
// leaves nothing of p in tmp/ or new/. It closes p.f.
func (c *committer) commit(p *pending) error {
	p.done = make(chan struct{})
	c.mu.Lock()
	c.queue = append(c.queue, p)
	if !c.running {
		c.running = true
		go c.run()
	}
	c.mu.Unlock()
	<-p.done
	if p.err == nil && p.seg != nil {
		return c.place(p)
	}
	return p.err
}

// place moves a mail whose journal record is synced from tmp/ into new/,
// the way flush does for the other modes, or hands it over to a Receiver
// on the same *Maildir where it is, in tmp/ (see spot). Each delivery does
// this itself, after the batch: the renames of a batch's mails run in
// parallel, and the committer goes on to the next batch's journal write at
// once. The segment's checkpoint waits for them (p.seg.placing).
func (c *committer) place(p *pending) error {
	defer p.seg.placing.Done()
	if c.mb.handingOver() && c.mb.holdRoom() > 0 {
		s := &spot{name: p.name, path: p.tmp}
		p.seg.hold(s)
		c.mb.hold([]*heldMail{{name: p.name, f: p.f, data: p.data, size: p.size, at: time.Now(), spot: s}})
		return nil
	}
	if err := rename(p.tmp, c.mb.Path(FolderNew, p.name)); err != nil {
		c.discard([]*pending{p})
		// Its record is in the journal: say it is gone, so that a replay
		// does not bring back a mail its sender was told failed.
		c.jn.noteAck(p.name)
		return fmt.Errorf("smtp: maildir: %w", err)
	}
	p.f.Close() // its data is in the journal: nothing is left to fail
	c.mb.push(p.name)
	return nil
}

// run commits batches until none is waiting.
func (c *committer) run() {
	var spare []*pending
	for {
		c.mu.Lock()
		batch := c.queue
		if len(batch) == 0 {
			c.running = false
			c.mu.Unlock()
			return
		}
		c.queue = spare[:0]
		c.mu.Unlock()
		c.flush(batch)
		clear(batch)
		spare = batch
		if c.mode == SyncJournal {
			c.checkpointIfDue()
		}
	}
}

// checkpointIfDue checkpoints the journal when its segment is large or old
// enough, and otherwise makes sure it will be looked at again: a segment
// is never left unchecked for long once batches stop coming.
func (c *committer) checkpointIfDue() {
	if c.jn.due() {
		c.jn.rotate()
		return
	}
	if c.jn.f == nil || c.jn.manual {
		return
	}
	c.jn.mu.Lock()
	defer c.jn.mu.Unlock()
	if c.jn.timer == nil {
		c.jn.timer = time.AfterFunc(journalMaxAge, c.idleCheckpoint)
	} else {
		c.jn.timer.Reset(journalMaxAge)
	}
}

// checkpointNow checkpoints the journal at once, between batches, and
// waits until that is done. It returns the checkpoint's error, if any.
func (c *committer) checkpointNow() error {
	for {
		c.mu.Lock()
		if !c.running {
			c.running = true
			c.mu.Unlock()
			break
		}
		c.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
	c.jn.rotate()
	c.run()
	c.jn.wait()
	c.jn.mu.Lock()
	defer c.jn.mu.Unlock()
	if c.jn.timer != nil {
		c.jn.timer.Stop()
	}
	if len(c.jn.retry) > 0 {
		return fmt.Errorf("smtp: maildir: journal: a checkpoint failed; %d segments kept for replay", len(c.jn.retry))
	}
	return nil
}

// idleCheckpoint runs when no batch came for a while: it checkpoints the
// journal unless a batch is being committed (which then does).
func (c *committer) idleCheckpoint() {
	c.mu.Lock()
	if c.running {
		c.mu.Unlock()
		c.jn.mu.Lock()
		c.jn.timer.Reset(journalMaxAge / 10)
		c.jn.mu.Unlock()
		return
	}
	c.running = true
	c.mu.Unlock()
	c.jn.rotate()
	c.run()
}

// flush commits one batch and answers each of its mails.
func (c *committer) flush(batch []*pending) {
	names := make([]string, 0, len(batch))
	for _, p := range batch {
		names = append(names, p.name)
	}
	defer func() {
		for _, p := range batch {
			close(p.done)
		}
	}()
	fail := func(ps []*pending, err error) {
		for _, p := range ps {
			p.err = err
		}
	}
	// 1. The mails' data.
	err := c.callHook("data", names)
	if err == nil && c.mode == SyncJournal {
		err = c.jn.write(batch)
	} else if err == nil {
		err = c.syncData(batch)
	}
	if err != nil {
		fail(batch, fmt.Errorf("smtp: maildir: sync: %w", err))
		c.discard(batch)
		return
	}
	if c.mode == SyncJournal {
		for _, p := range batch {
			p.seg = c.jn.cur
		}
		c.jn.cur.placing.Add(len(batch))
		return // each delivery places its own mail (see place)
	}
	// 2. Into new/, or, handed over to a Receiver on the same *Maildir,
	// into work/. The files stay open, and so locked (see spare.go), until
	// the mails are safe: a Receiver in another process that lists new/
	// meanwhile cannot claim them.
	room := 0
	if c.mb.handingOver() {
		room = c.mb.holdRoom()
	}
	moved := batch[:0:0]
	var toNew, toWork bool
	for _, p := range batch {
		folder := FolderNew
		if p.held = room > 0; p.held {
			folder = FolderWork
			room--
		}
		if err := rename(p.tmp, c.mb.Path(folder, p.name)); err != nil {
			p.err = fmt.Errorf("smtp: maildir: %w", err)
			c.discard([]*pending{p})
			continue
		}
		p.tmp = c.mb.Path(folder, p.name)
		toNew, toWork = toNew || !p.held, toWork || p.held
		moved = append(moved, p)
	}
	// 3. The folders themselves, so that the names survive a crash (with
	// the journal, its checkpoint does that).
	if len(moved) > 0 && c.mode != SyncJournal {
		err := c.callHook("dir", names)
		if err == nil && toNew {
			err = syncDir(filepath.Join(c.mb.root, FolderNew))
		}
		if err == nil && toWork {
			err = syncDir(filepath.Join(c.mb.root, FolderWork))
		}
		if err != nil {
			// The mails are in new/ (or work/) and may or may not survive
			// a crash: take them out, so that no sender is told they are
			// safe and none is taken by a Receiver.
			fail(moved, fmt.Errorf("smtp: maildir: fsync new/: %w", err))
			c.discard(moved)
			moved = moved[:0]
		}
	}
	done := make([]string, 0, len(moved))
	var held []*heldMail
	now := time.Now()
	for _, p := range moved {
		if p.held {
			s := &spot{name: p.name, path: p.tmp}
			held = append(held, &heldMail{name: p.name, f: p.f, data: p.data, size: p.size, at: now, spot: s})
			continue
		}
		p.f.Close() // its data is safe (synced, or in the journal): nothing is left to fail
		done = append(done, p.name)
	}
	c.mb.hold(held)
	c.mb.push(done...)
}

func (c *committer) callHook(stage string, names []string) error {
	if c.hook == nil {
		return nil
	}
	return c.hook(stage, names)
}

// discard removes the mails' files (in tmp/, or in new/ once renamed), then
// closes those still open.
func (c *committer) discard(ps []*pending) {
	for _, p := range ps {
		os.Remove(p.tmp)
		if p.f != nil {
			p.f.Close()
		}
	}
}

// syncData makes the data of every file of the batch durable.
func (c *committer) syncData(batch []*pending) error {
	if c.mode == SyncFilesystem {
		err := syncFS(batch[0].f)
		if !errors.Is(err, errNoSyncFS) {
			return err
		}
	}
	if len(batch) == 1 {
		return syncData(batch[0].f)
	}
	// All at once (up to maxSyncs): the file system merges the syncs that
	// run together into one journal commit.
	errs := make([]error, len(batch))
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < len(batch); i = int(next.Add(1)) - 1 {
			errs[i] = syncData(batch[i].f)
		}
	}
	var wg sync.WaitGroup
	for range min(len(batch), maxSyncs) - 1 {
		wg.Go(work)
	}
	work()
	wg.Wait()
	return errors.Join(errs...)
}
