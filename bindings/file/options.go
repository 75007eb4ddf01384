package file

import (
	"log/slog"
	"time"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// SenderOption configures NewSender.
type SenderOption interface{ applySender(*senderConfig) }

// PollerOption configures NewPoller.
type PollerOption interface{ applyPoller(*pollerConfig) }

// Option is an option of every constructor of the package (WithLogger).
type Option interface {
	SenderOption
	PollerOption
}

type senderConfig struct {
	log *slog.Logger
}

type pollerConfig struct {
	log      *slog.Logger
	layout   Layout
	pollMin  time.Duration
	pollMax  time.Duration
	lease    time.Duration
	settle   time.Duration
	limits   core.Limits
	spoolMem int64
	spoolDir string
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func newSenderConfig(opts []SenderOption) senderConfig {
	var c senderConfig
	for _, o := range opts {
		o.applySender(&c)
	}
	if c.log == nil {
		c.log = discard()
	}
	return c
}

func newPollerConfig(opts []PollerOption) pollerConfig {
	c := pollerConfig{
		layout:   DefaultLayout(),
		pollMin:  DefaultPollInterval,
		pollMax:  DefaultMaxPollInterval,
		lease:    DefaultLease,
		settle:   DefaultSettle,
		spoolMem: DefaultSpoolMemory,
	}
	for _, o := range opts {
		o.applyPoller(&c)
	}
	c.pollMax = max(c.pollMax, c.pollMin)
	if c.log == nil {
		c.log = discard()
	}
	return c
}

type pollerOptionFunc func(*pollerConfig)

func (f pollerOptionFunc) applyPoller(c *pollerConfig) { f(c) }

// WithLogger logs what the component decides: files skipped, quarantined,
// parked or returned to the inbox (Poller), failed cleanups (Sender). The
// default discards.
func WithLogger(l *slog.Logger) Option { return loggerOption{l} }

type loggerOption struct{ l *slog.Logger }

func (o loggerOption) applySender(c *senderConfig) { c.log = o.l }
func (o loggerOption) applyPoller(c *pollerConfig) { c.log = o.l }

// Layout names the folders of a drop endpoint, each relative to the
// endpoint's folder: Inbox ("inbox"), Work ("work"), Outbox ("outbox"; ""
// for none), Failed ("failed"), Done ("": delete) and Quarantine
// ("quarantine"; "" leaves odd files in the inbox). See
// docs/bindings/file-drops.md.
type Layout = drop.Layout

// DefaultLayout returns inbox, work, outbox, failed and quarantine, and no
// done folder.
func DefaultLayout() Layout { return drop.DefaultLayout() }

// WithLayout sets the folder names of a drop endpoint (default
// DefaultLayout).
func WithLayout(l Layout) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) { c.layout = l })
}

// DefaultPollInterval is the first wait after an empty inbox.
const DefaultPollInterval = drop.DefaultPollInterval

// WithPollInterval sets how long the Poller waits after a listing that
// found the inbox empty before it lists again (default
// DefaultPollInterval); the wait doubles after each further empty listing,
// up to WithMaxPollInterval.
func WithPollInterval(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.pollMin = d
		}
	})
}

// DefaultMaxPollInterval is the longest wait when the inbox stays empty.
const DefaultMaxPollInterval = drop.DefaultMaxPollInterval

// WithMaxPollInterval caps the Poller's doubling wait while the inbox
// stays empty (default DefaultMaxPollInterval).
func WithMaxPollInterval(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.pollMax = d
		}
	})
}

// DefaultSettle is how long a file that looks unfinished must stay
// unchanged.
const DefaultSettle = drop.DefaultSettle

// WithSettle sets how long a file that looks unfinished (no Envelope end
// tag, or for a MIME file no closing delimiter: another program may still
// be writing it under its final name) must
// keep its size and modification time before the Poller takes it as it is
// (default DefaultSettle).
func WithSettle(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.settle = d
		}
	})
}

// DefaultLease is how long a claim is held without renewal.
const DefaultLease = drop.DefaultLease

// WithLease sets how long a claim stays valid without renewal (default
// DefaultLease). A Poller renews the claims it holds every quarter lease;
// a claim older than the lease (its process died) is returned to the
// inbox by any Poller of the endpoint.
func WithLease(d time.Duration) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if d > 0 {
			c.lease = d
		}
	})
}

// WithLimits bounds what is read from a file (the zero Limits is
// core.DefaultLimits). A plain envelope larger than MaxBytes, or a MIME
// file (a message with attachments) larger than MaxPackageBytes and its
// header, is parked in the failed folder unread: one listed larger than
// both at once, one with more bytes than its form allows once they are
// read.
func WithLimits(l core.Limits) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) { c.limits = l })
}

// DefaultSpoolMemory is how much of a file is held in memory before the
// rest spills to disk.
const DefaultSpoolMemory = drop.DefaultSpoolMemory

// WithSpool sets where files wait for their handler: up to memory bytes in
// memory (default DefaultSpoolMemory), the rest in a temporary file in dir
// (default os.TempDir()), removed when the delivery is settled.
func WithSpool(memory int64, dir string) PollerOption {
	return pollerOptionFunc(func(c *pollerConfig) {
		if memory >= 0 {
			c.spoolMem = memory
		}
		c.spoolDir = dir
	})
}
