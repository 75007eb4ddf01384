package sftp

import (
	"context"
	"fmt"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// Poller receives the messages dropped in an endpoint's inbox on an SFTP
// server: the file-drop engine (docs/bindings/file-drops.md) on the
// Client's connections. It claims a file by renaming it into the work
// folder (of several Pollers exactly one wins), downloads it within the
// Limits, and yields it as a core.Delivery; Ack deletes it (or moves it to
// done/), Nack parks it in failed/ with a .fault.xml beside it (a Nack for
// context.Canceled returns it to the inbox). Downloads run in the
// background, each cut off when the server stays silent for the Client's
// I/O timeout. It is a core.Receiver.
type Poller struct {
	d *drop.Poller
}

var _ core.Receiver = (*Poller)(nil)

// NewPoller returns a Poller for the endpoint at root (a folder on c's
// server) with the folders of its Layout below it (WithLayout). It creates
// them (MakeLayout) on its first Receive. A bad root or layout is
// ErrAddress.
func NewPoller(c *Client, root string, opts ...PollerOption) (*Poller, error) {
	return newPoller(&sftpFS{c: c}, root, opts)
}

func newPoller(fs *sftpFS, root string, opts []PollerOption) (*Poller, error) {
	o := newPollerConfig(opts)
	mem := o.spoolMem
	if mem == 0 {
		mem = -1
	}
	c := fs.c
	d, err := drop.NewPoller(fs, root, drop.Config{
		Scheme:      Scheme,
		URL:         c.URL,
		Layout:      o.layout,
		Log:         o.log,
		PollMin:     o.pollMin,
		PollMax:     o.pollMax,
		Lease:       o.lease,
		Settle:      o.settle,
		Limits:      o.limits,
		SpoolMemory: mem,
		SpoolDir:    o.spoolDir,
		Transfers:   max(1, min(drop.DefaultTransfers, c.o.poolSize-1)),
		Stall:       c.o.ioTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAddress, err)
	}
	return &Poller{d: d}, nil
}

// Address returns the sftp:// address of the inbox.
func (p *Poller) Address() string { return p.d.Address() }

// ReplyAddress returns the sftp:// address of the outbox ("" without one).
func (p *Poller) ReplyAddress() string { return p.d.ReplyAddress() }

// MakeLayout creates the endpoint's root and folders when they are
// missing. Receive calls it once.
func (p *Poller) MakeLayout(ctx context.Context) error { return p.d.MakeLayout(ctx) }

// Receive returns the next message dropped in the inbox, waiting (polling)
// until one arrives, ctx is done (ctx's error) or the Poller is closed
// (core.ErrClosed). Files it cannot read as a SOAP message are parked in
// the failed folder with a fault saying why, never returned.
func (p *Poller) Receive(ctx context.Context) (core.Delivery, error) { return p.d.Receive(ctx) }

// Close stops the Poller: a blocked or later Receive returns
// core.ErrClosed, and the files it holds are returned to the inbox
// unprocessed. Close does not close the Client.
func (p *Poller) Close() error { return p.d.Close() }
