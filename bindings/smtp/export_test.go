package smtp

import (
	"time"

	"github.com/soapwire/soapwire/core"
)

// Hooks for the black-box tests (package smtp_test).

// SetSyncHook makes mb call hook before each sync of a batch of mails:
// stage "data" (the mails' files) or "dir" (new/, after the renames), with
// the batch's names. An error fails that sync. Set it before mb is used.
func SetSyncHook(mb *Maildir, hook func(stage string, names []string) error) {
	mb.commit.hook = hook
}

// QueuedCommits returns how many mails wait for mb's next batch.
func QueuedCommits(mb *Maildir) int {
	mb.commit.mu.Lock()
	defer mb.commit.mu.Unlock()
	return len(mb.commit.queue)
}

// CloseOpenSpares closes the spares mb keeps open (as its process's exit
// would), making them spares any Maildir may take.
func CloseOpenSpares(mb *Maildir) {
	for {
		select {
		case s := <-mb.openSpares:
			s.f.Close()
		default:
			return
		}
	}
}

// Held returns how many mails mb holds for its Receivers.
func Held(mb *Maildir) int {
	mb.mu.Lock()
	defer mb.mu.Unlock()
	return len(mb.held)
}

// HandedOver returns how many mails mb's Receivers took as handed over by
// a Server (not claimed from new/).
func HandedOver(mb *Maildir) int64 { return mb.handed.Load() }

// MarkReceiving makes mb hand the mails it commits over to its Receivers
// as if one had just called Receive, for the next hour.
func MarkReceiving(mb *Maildir) { mb.lastReceive.Store(time.Now().Add(time.Hour).UnixNano()) }

// Waiting returns how many Receive calls on mb wait for mail.
func Waiting(mb *Maildir) int32 { return mb.waiting.Load() }

// HoldJournal makes mb checkpoint its journal (SyncJournal) only when
// CheckpointJournal says so. Call it before mb is used.
func HoldJournal(mb *Maildir) { mb.commit.jn.manual = true }

// CheckpointJournal checkpoints mb's journal now and waits for it.
func CheckpointJournal(mb *Maildir) error { return mb.commit.checkpointNow() }

// Replayed returns how many mails OpenMaildir wrote again from a journal.
func Replayed(mb *Maildir) int { return mb.replayed }

// MailName returns the Maildir name of a mail a Receiver gave.
func MailName(d core.Delivery) string { return d.(*delivery).name }

// FailJournalSync makes mb's journal call fail after writing each batch and
// before syncing it; an error fails that batch. Set it before mb is used.
func FailJournalSync(mb *Maildir, fail func() error) { mb.commit.jn.failSync = fail }

// SubmitterRecord returns the submitter header line mb's Server writes for
// user ("" when it writes none).
func SubmitterRecord(mb *Maildir, user string) string { return mb.submitterHeader(user) }

// WithLogInterval sets the least time between two refusal lines of a kind
// (negative: every line is written).
func WithLogInterval(d time.Duration) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.logInterval = d })
}
