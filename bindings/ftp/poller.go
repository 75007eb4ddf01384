package ftp

import (
	"context"
	"fmt"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// Poller receives the messages dropped in an endpoint's inbox: it lists
// the inbox, claims a file by renaming it into the work folder (the rename
// is the lock: of several Pollers on one endpoint exactly one wins),
// downloads it within the Limits, and yields it as a core.Delivery. Claims
// and downloads run in the background of Receive, one after another, each
// cut off when it stays silent for the Client's I/O timeout; the next
// starts beside one that has run for a second, so one stalled file never
// holds up the listing or the others. Ack deletes the claimed
// file (or moves it to the done folder); Nack parks it in the failed folder
// with a .fault.xml beside it, except that a Nack caused by
// context.Canceled (a shutdown) returns it to the inbox. Claims are leased:
// the Poller renews the ones it holds, and returns to the inbox any claim
// whose lease ran out (its Poller crashed). It is a core.Receiver; Receive
// may be called from several goroutines.
//
// The Poller is the file-drop engine every file-drop binding shares
// (docs/bindings/file-drops.md) on an FTP server.
type Poller struct {
	d *drop.Poller
}

var _ core.Receiver = (*Poller)(nil)

// NewPoller returns a Poller for the drop endpoint at root (a folder on c's
// server) with the folders of its Layout below it (WithLayout). It creates
// the folders (MakeLayout) on its first Receive. A bad root or layout is
// ErrAddress.
func NewPoller(c *Client, root string, opts ...PollerOption) (*Poller, error) {
	o := newPollerConfig(opts)
	mem := o.spoolMem
	if mem == 0 {
		mem = -1 // none in memory
	}
	d, err := drop.NewPoller(ftpFS{c}, root, drop.Config{
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
		// One connection of the pool stays free for the listing and the
		// replies.
		Transfers: max(1, min(drop.DefaultTransfers, c.o.poolSize-1)),
		Stall:     c.o.ioTimeout,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAddress, err)
	}
	return &Poller{d: d}, nil
}

// Address returns the ftp:// address of the inbox: where senders drop
// messages for this endpoint.
func (p *Poller) Address() string { return p.d.Address() }

// ReplyAddress returns the ftp:// address of the outbox ("" without one).
func (p *Poller) ReplyAddress() string { return p.d.ReplyAddress() }

// MakeLayout creates the endpoint's root and folders when they are missing.
// Receive calls it once; call it yourself to have the inbox before anything
// is sent.
func (p *Poller) MakeLayout(ctx context.Context) error { return p.d.MakeLayout(ctx) }

// Receive returns the next message dropped in the inbox, waiting (polling)
// until one arrives, ctx is done (ctx's error) or the Poller is closed
// (core.ErrClosed). Files it cannot read as a SOAP message (empty, not XML,
// not an envelope, over the limits) never reach the caller: they are parked
// in the failed folder with a fault saying why. A file that looks
// unfinished (an upload still running under its final name) is left in the
// inbox until it stops changing (WithSettle). Server errors are returned
// (core.Serve logs them and retries with backoff); a file whose claim or
// download fails goes back to the inbox and is tried again later, logged
// once.
func (p *Poller) Receive(ctx context.Context) (core.Delivery, error) { return p.d.Receive(ctx) }

// Close stops the Poller: a blocked or later Receive returns
// core.ErrClosed, and the files it holds (deliveries still open, downloads
// in flight) are returned to the inbox unprocessed (a later Ack of one
// fails, a Nack is a no-op). Call it after core.Serve returned. Close does
// not close the Client.
func (p *Poller) Close() error { return p.d.Close() }
