package drop

import (
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Config is what a binding tells the engine. The zero value of a field is
// its default.
type Config struct {
	// Scheme names the binding ("ftp", "sftp", "file"): log lines start
	// with it, and received messages carry Meta[Scheme+".file"] and
	// Meta[Scheme+".claim"].
	Scheme string
	// URL returns the address of a folder on the file system (the inbox's
	// is the Poller's address; the outbox's is the ReplyTo it gives a
	// request with an anonymous or no ReplyTo).
	URL func(dir string) string
	// Layout names the endpoint's folders (DefaultLayout when zero).
	Layout Layout
	// Log receives what the Poller decides (discarded when nil).
	Log *slog.Logger

	// PollMin is the first wait after an empty listing (200 ms), PollMax
	// the cap of its doubling (1 s).
	PollMin, PollMax time.Duration
	// Lease is how long a claim holds without renewal (2 min).
	Lease time.Duration
	// Settle is how long an unfinished-looking file must keep its size and
	// time before it is taken as it is (2 s).
	Settle time.Duration
	// Limits bound what is read (zero: core.DefaultLimits).
	Limits core.Limits
	// SpoolMemory is how much of a download is held in memory (1 MiB;
	// negative: none), the rest in an unlinked file in SpoolDir
	// (os.TempDir()).
	SpoolMemory int64
	SpoolDir    string

	// Transfers is how many files may be claimed and downloaded at once,
	// in the background of Receive (2). Files are taken one after another;
	// another transfer starts beside one that has run for a second, so a
	// stalled transfer never holds up the listing or the others.
	Transfers int
	// Stall bounds a transfer's silence: a download that receives nothing
	// for this long is cut off, its file returned to the inbox and tried
	// again later (60 s).
	Stall time.Duration
	// TempGrace is how old a temporary file (.<name>.<hex>.part, what a
	// sender writes before its rename) must be before the Poller removes
	// it from the endpoint's folders: one a crashed sender left (1 h).
	TempGrace time.Duration
	// ParkWatch is how long a file parked because it was taken unfinished
	// is watched: if it changes meanwhile (the upload had only paused and
	// went on into it), it goes back to the inbox (15 min).
	ParkWatch time.Duration
	// Nameable says which names may be sent back to the file system in a
	// command (to quarantine them); Nameable when nil.
	Nameable func(string) bool
}

// Defaults of Config's fields.
const (
	DefaultPollInterval    = 200 * time.Millisecond
	DefaultMaxPollInterval = time.Second
	DefaultLease           = 2 * time.Minute
	DefaultSettle          = 2 * time.Second
	DefaultSpoolMemory     = 1 << 20
	DefaultTransfers       = 2
	DefaultStall           = 60 * time.Second
	DefaultTempGrace       = time.Hour
	DefaultParkWatch       = 15 * time.Minute
)

func (c Config) withDefaults() Config {
	if c.Scheme == "" {
		c.Scheme = "drop"
	}
	if c.URL == nil {
		c.URL = func(dir string) string { return dir }
	}
	if c.Layout == (Layout{}) {
		c.Layout = DefaultLayout()
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.PollMin, DefaultPollInterval)
	def(&c.PollMax, DefaultMaxPollInterval)
	c.PollMax = max(c.PollMax, c.PollMin)
	def(&c.Lease, DefaultLease)
	def(&c.Settle, DefaultSettle)
	def(&c.Stall, DefaultStall)
	def(&c.TempGrace, DefaultTempGrace)
	def(&c.ParkWatch, DefaultParkWatch)
	switch {
	case c.SpoolMemory == 0:
		c.SpoolMemory = DefaultSpoolMemory
	case c.SpoolMemory < 0:
		c.SpoolMemory = 0
	}
	if c.Transfers <= 0 {
		c.Transfers = DefaultTransfers
	}
	if c.Nameable == nil {
		c.Nameable = Nameable
	}
	return c
}
