package smtp

import (
	"log/slog"
	"time"
)

// receiverConfig is what NewReceiver takes.
type receiverConfig struct {
	readConfig
	log          *slog.Logger
	poll         time.Duration
	recoverEvery time.Duration
	archive      bool
}

func newReceiverConfig(opts []ReceiverOption) receiverConfig {
	c := receiverConfig{poll: DefaultPollInterval, recoverEvery: DefaultRecoverInterval}
	for _, o := range opts {
		o.applyReceiver(&c)
	}
	if c.log == nil {
		c.log = discard()
	}
	return c
}

func newReadConfig(opts []ReadMailOption) readConfig {
	var c readConfig
	for _, o := range opts {
		o.applyReadMail(&c)
	}
	return c
}

// maildirConfig is what OpenMaildir takes.
type maildirConfig struct {
	syncMode SyncMode
}

func newMaildirConfig(opts []MaildirOption) maildirConfig {
	c := maildirConfig{syncMode: DefaultSyncMode}
	for _, o := range opts {
		o.applyMaildir(&c)
	}
	return c
}

// receiverOptionFunc is an option of the Receiver alone.
type receiverOptionFunc func(*receiverConfig)

func (f receiverOptionFunc) applyReceiver(c *receiverConfig) { f(c) }

// DefaultSyncMode is SyncJournal: one sync per batch, the fastest way to a
// durable 250 (see docs/bindings/smtp.md for the measurements).
const DefaultSyncMode = SyncJournal

// WithSyncMode chooses how the Maildir makes new mails durable:
// SyncJournal (DefaultSyncMode), SyncFiles or SyncFilesystem. In every mode
// a mail's bytes are on disk (in its file, or in the journal) and it is in
// new/ before a delivery returns (before the Server answers 250), so a
// crash after 250 loses nothing; mails delivered at the same time share
// the syncs.
func WithSyncMode(m SyncMode) MaildirOption { return syncModeOption(m) }

type syncModeOption SyncMode

func (m syncModeOption) applyMaildir(c *maildirConfig) { c.syncMode = SyncMode(m) }

// DefaultPollInterval is how often the Receiver looks for mail delivered
// by another process.
const DefaultPollInterval = 100 * time.Millisecond

// WithPollInterval is how often the Receiver looks for mail that another
// process delivered (mail delivered by a Server on the same *Maildir is
// noticed at once): the wait after each look that found nothing. Default
// DefaultPollInterval. A look is a listing of a local folder, so the
// interval does not grow while the folder stays empty.
func WithPollInterval(d time.Duration) ReceiverOption {
	return receiverOptionFunc(func(c *receiverConfig) { c.poll = d })
}

// DefaultRecoverInterval is how often the Receiver looks for mails whose
// claimer died.
const DefaultRecoverInterval = 5 * time.Second

// WithRecoverInterval is how often the Receiver looks for mails claimed by
// a process that died, to return them to new/. It also looks when it
// starts. Default DefaultRecoverInterval.
func WithRecoverInterval(d time.Duration) ReceiverOption {
	return receiverOptionFunc(func(c *receiverConfig) { c.recoverEvery = d })
}

// WithArchive makes the Receiver's Ack move a mail to the done/ folder
// instead of deleting it.
func WithArchive() ReceiverOption {
	return receiverOptionFunc(func(c *receiverConfig) { c.archive = true })
}
