package file

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// Poller receives the messages dropped in an endpoint's inbox, a local
// folder: the file-drop engine (docs/bindings/file-drops.md) on the local
// file system. It claims a file by renaming it into the work folder (of
// several Pollers, in one process or many, exactly one wins), reads it
// within the Limits, and yields it as a core.Delivery; Ack deletes it (or
// moves it to done/), Nack parks it in failed/ with a .fault.xml beside it
// (a Nack for context.Canceled returns it to the inbox). Claims are leased
// and renewed; a claim whose process died returns to the inbox after its
// lease. It is a core.Receiver.
type Poller struct {
	d   *drop.Poller
	fs  *localFS
	dir string
}

var _ core.Receiver = (*Poller)(nil)

// NewPoller returns a Poller for the endpoint whose folder is dir (an
// absolute path, or one relative to the working directory), with the
// folders of its Layout below it (WithLayout). It creates them (MakeLayout)
// on its first Receive. A bad folder or layout is ErrAddress.
func NewPoller(dir string, opts ...PollerOption) (*Poller, error) {
	o := newPollerConfig(opts)
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", ErrAddress, dir, err)
	}
	abs = filepath.Clean(abs)
	if _, err := ParseAddress(URL(abs)); err != nil || strings.ContainsAny(abs, "\x00") {
		return nil, fmt.Errorf("%w: folder %q", ErrAddress, dir)
	}
	fs := &localFS{base: abs}
	mem := o.spoolMem
	if mem == 0 {
		mem = -1
	}
	base := filepath.ToSlash(abs)
	d, err := drop.NewPoller(fs, "/", drop.Config{
		Scheme:      Scheme,
		URL:         func(p string) string { return URL(strings.TrimSuffix(base, "/") + p) },
		Layout:      o.layout,
		Log:         o.log,
		PollMin:     o.pollMin,
		PollMax:     o.pollMax,
		Lease:       o.lease,
		Settle:      o.settle,
		Limits:      o.limits,
		SpoolMemory: mem,
		SpoolDir:    o.spoolDir,
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAddress, err)
	}
	return &Poller{d: d, fs: fs, dir: abs}, nil
}

// Dir returns the endpoint's folder.
func (p *Poller) Dir() string { return p.dir }

// Address returns the file:// address of the inbox: where senders drop
// messages for this endpoint.
func (p *Poller) Address() string { return p.d.Address() }

// ReplyAddress returns the file:// address of the outbox ("" without one).
func (p *Poller) ReplyAddress() string { return p.d.ReplyAddress() }

// MakeLayout creates the endpoint's folder and the folders below it when
// they are missing. Receive calls it once.
func (p *Poller) MakeLayout(ctx context.Context) error { return p.d.MakeLayout(ctx) }

// Receive returns the next message dropped in the inbox, waiting (polling)
// until one arrives, ctx is done (ctx's error) or the Poller is closed
// (core.ErrClosed). Files it cannot read as a SOAP message are parked in
// the failed folder with a fault saying why, never returned.
func (p *Poller) Receive(ctx context.Context) (core.Delivery, error) { return p.d.Receive(ctx) }

// Close stops the Poller: a blocked or later Receive returns
// core.ErrClosed, and the files it holds are returned to the inbox
// unprocessed.
func (p *Poller) Close() error {
	err := p.d.Close()
	if cerr := p.fs.close(); err == nil {
		err = cerr
	}
	return err
}
