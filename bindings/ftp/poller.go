package ftp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"path"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jlaffaye/ftp"

	"github.com/soapwire/soapwire/core"
)

// settleTimeout bounds what Close does for the deliveries still open.
const settleTimeout = 10 * time.Second

// maxSkipLog bounds the set of names already logged as skipped.
const maxSkipLog = 4096

// Poller receives the messages dropped in an endpoint's inbox: it lists
// the inbox, claims a file by renaming it into the work folder (the rename
// is the lock: of several Pollers on one endpoint exactly one wins),
// downloads it within the Limits, and yields it as a core.Delivery. Ack
// deletes the claimed file (or moves it to the done folder); Nack parks it in
// the failed folder with a .fault.xml beside it, except that a Nack caused by
// context.Canceled (a shutdown) returns it to the inbox. Claims are leased:
// the Poller renews the ones it holds, and returns to the inbox any claim
// whose lease ran out (its Poller crashed). It is a core.Receiver;
// Receive may be called from several goroutines.
type Poller struct {
	c     *Client
	f     folders
	o     pollerConfig
	owner string
	max   int64 // Limits.MaxBytes resolved; -1: none

	closed    chan struct{}
	closeOnce sync.Once
	renewers  sync.WaitGroup

	prepMu   sync.Mutex
	prepared bool

	mu        sync.Mutex
	queue     []entry
	interval  time.Duration
	recovered time.Time
	skipped   map[string]struct{}
	sightings map[string]sighting // unfinished files, by name (settle.go)
	listed    int                 // files the last listing queued
	progress  bool                // one of them was taken or parked
	live      map[*delivery]struct{}
	renewing  bool
}

var _ core.Receiver = (*Poller)(nil)

// entry is a file found in the inbox.
type entry struct {
	name string
	size int64
}

// NewPoller returns a Poller for the drop endpoint at root (a folder on c's
// server) with the folders of its Layout below it (WithLayout). It creates
// the folders (MakeLayout) on its first Receive.
func NewPoller(c *Client, root string, opts ...PollerOption) (*Poller, error) {
	o := newPollerConfig(opts)
	f, err := o.layout.resolve(root)
	if err != nil {
		return nil, err
	}
	max := o.limits.MaxBytes
	switch {
	case max == 0:
		max = core.DefaultLimits().MaxBytes
	case max < 0:
		max = -1
	}
	return &Poller{
		c: c, f: f, o: o, owner: newOwner(), max: max,
		closed:    make(chan struct{}),
		interval:  o.pollMin,
		skipped:   map[string]struct{}{},
		sightings: map[string]sighting{},
		live:      map[*delivery]struct{}{},
	}, nil
}

// Address returns the ftp:// address of the inbox: where senders drop
// messages for this endpoint.
func (p *Poller) Address() string { return p.c.URL(p.f.inbox) }

// ReplyAddress returns the ftp:// address of the outbox ("" without one).
func (p *Poller) ReplyAddress() string {
	if p.f.outbox == "" {
		return ""
	}
	return p.c.URL(p.f.outbox)
}

// MakeLayout creates the endpoint's root and folders when they are missing.
// Receive calls it once; call it yourself to have the inbox before anything
// is sent.
func (p *Poller) MakeLayout(ctx context.Context) error {
	p.prepMu.Lock()
	defer p.prepMu.Unlock()
	if p.prepared {
		return nil
	}
	err := p.c.do(ctx, func(sc *ftp.ServerConn) error {
		var dirs []string
		for d := p.f.root; d != "/"; d = path.Dir(d) {
			dirs = append([]string{d}, dirs...)
		}
		dirs = append(dirs, p.f.all()...)
		for _, d := range dirs {
			if err := sc.MakeDir(d); err != nil && !onlyReplies(err) {
				return err
			}
		}
		for _, d := range dirs {
			if err := sc.ChangeDir(d); err != nil {
				return fmt.Errorf("folder %s: %w", d, err)
			}
		}
		return sc.ChangeDir("/")
	})
	if err != nil {
		return fmt.Errorf("ftp: make layout at %s: %w", p.f.root, err)
	}
	p.prepared = true
	return nil
}

// Receive returns the next message dropped in the inbox, waiting (polling)
// until one arrives, ctx is done (ctx's error) or the Poller is closed
// (core.ErrClosed). Files it cannot read as a SOAP message (empty, not XML,
// not an envelope, over the limits) never reach the caller: they are parked
// in the failed folder with a fault saying why. A file that looks
// unfinished (an upload still running under its final name) is left in the
// inbox until it stops changing (WithSettle). Server errors are returned
// (core.Serve logs them and retries with backoff).
func (p *Poller) Receive(ctx context.Context) (core.Delivery, error) {
	for {
		if err := p.stopped(ctx); err != nil {
			return nil, err
		}
		e, ok := p.pop()
		if !ok {
			if p.fruitless() {
				// Every file of the last listing was lost to other Pollers
				// or refused: wait before listing again, do not spin.
				if err := p.wait(ctx); err != nil {
					return nil, err
				}
			}
			n, err := p.refill(ctx)
			if err != nil {
				return nil, p.fail(ctx, err)
			}
			if n == 0 {
				if err := p.wait(ctx); err != nil {
					return nil, err
				}
			}
			continue
		}
		d, err := p.take(ctx, e)
		if errors.Is(err, errLost) {
			continue
		}
		p.mu.Lock()
		p.progress = true
		p.mu.Unlock()
		if err != nil {
			return nil, p.fail(ctx, err)
		}
		if d != nil {
			return d, nil
		}
	}
}

// errLost: another Poller claimed the file first, or it is gone.
var errLost = errors.New("ftp: claim lost to another poller")

// fruitless reports whether the last listing found files but none could be
// claimed.
func (p *Poller) fruitless() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.listed > 0 && !p.progress
}

// stopped returns the error Receive ends with once ctx is done or the
// Poller closed.
func (p *Poller) stopped(ctx context.Context) error {
	select {
	case <-p.closed:
		return core.ErrClosed
	default:
	}
	return ctx.Err()
}

// fail turns an operation's error into Receive's.
func (p *Poller) fail(ctx context.Context, err error) error {
	if serr := p.stopped(ctx); serr != nil {
		return serr
	}
	if errors.Is(err, ErrClientClosed) {
		return fmt.Errorf("%w: %w", core.ErrClosed, err)
	}
	return fmt.Errorf("ftp: receive from %s: %w", p.f.inbox, err)
}

func (p *Poller) pop() (entry, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.queue)
	if n == 0 {
		return entry{}, false
	}
	e := p.queue[n-1]
	p.queue = p.queue[:n-1]
	return e, true
}

// wait sleeps for the poll interval, and doubles it up to the maximum.
func (p *Poller) wait(ctx context.Context) error {
	p.mu.Lock()
	d := p.interval
	p.interval = min(2*p.interval, p.o.pollMax)
	p.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-p.closed:
		return core.ErrClosed
	}
}

// refill lists the inbox into the queue (in random order, so Pollers
// sharing an inbox do not all race for the same file), first returning
// stale claims when a quarter lease has passed. It returns how many files
// were queued.
func (p *Poller) refill(ctx context.Context) (int, error) {
	if err := p.MakeLayout(ctx); err != nil {
		return 0, err
	}
	p.mu.Lock()
	due := time.Since(p.recovered) >= p.o.lease/4
	if due {
		p.recovered = time.Now()
	}
	p.mu.Unlock()
	if due {
		if err := p.recoverStale(ctx); err != nil {
			if ctx.Err() != nil {
				return 0, err
			}
			// The inbox may still be served; try again in a quarter lease.
			p.o.log.WarnContext(ctx, "ftp: stale claims not checked", slog.String("folder", p.f.work), slog.Any("err", err))
		}
	}
	var list []*ftp.Entry
	err := p.c.do(ctx, func(sc *ftp.ServerConn) error {
		var err error
		list, err = sc.List(p.f.inbox)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("list: %w", err)
	}
	var accepted []entry
	for _, e := range list {
		if e.Type == ftp.EntryTypeFolder {
			continue
		}
		kind, reason := classify(e.Name)
		if kind == nameAccept && e.Type != ftp.EntryTypeFile {
			kind, reason = nameSkip, "not a regular file ("+e.Type.String()+")"
		}
		switch kind {
		case nameAccept:
			accepted = append(accepted, entry{name: e.Name, size: int64(min(e.Size, 1<<62))})
		case nameSkip:
			p.skip(ctx, p.f.inbox, e.Name, reason)
		}
	}
	found := accepted[:0]
	now := time.Now()
	p.mu.Lock()
	if len(p.sightings) > 0 {
		listed := make(map[string]struct{}, len(accepted))
		for _, e := range accepted {
			listed[e.name] = struct{}{}
		}
		p.pruneSightings(listed)
	}
	for _, e := range accepted {
		if p.ready(e.name, e.size, now) {
			found = append(found, e)
		}
	}
	rand.Shuffle(len(found), func(i, j int) { found[i], found[j] = found[j], found[i] })
	p.queue = append(p.queue, found...)
	p.listed, p.progress = len(found), false
	if len(accepted) > 0 {
		// Files to take, or unfinished ones to watch: keep listing often.
		p.interval = p.o.pollMin
	}
	p.mu.Unlock()
	return len(found), nil
}

// skip logs, once per name, that a file is passed over.
func (p *Poller) skip(ctx context.Context, dir, name, reason string) {
	key := dir + "\x00" + name
	p.mu.Lock()
	_, seen := p.skipped[key]
	if !seen {
		if len(p.skipped) >= maxSkipLog {
			clear(p.skipped)
		}
		p.skipped[key] = struct{}{}
	}
	p.mu.Unlock()
	if !seen {
		p.o.log.WarnContext(ctx, "ftp: file skipped", slog.String("folder", dir), slog.String("name", strings.ToValidUTF8(name, "\uFFFD")), slog.String("reason", reason))
	}
}

// recoverStale returns to the inbox the claims in the work folder whose
// lease ran out.
func (p *Poller) recoverStale(ctx context.Context) error {
	var list []*ftp.Entry
	err := p.c.do(ctx, func(sc *ftp.ServerConn) error {
		var err error
		list, err = sc.List(p.f.work)
		return err
	})
	if err != nil {
		return fmt.Errorf("list: %w", err)
	}
	for _, e := range list {
		if e.Type != ftp.EntryTypeFile {
			continue
		}
		cl, ok := parseClaim(e.Name)
		if !ok {
			if k, _ := classify(e.Name); k != nameIgnore {
				p.skip(ctx, p.f.work, e.Name, "not a claim this binding writes")
			}
			continue
		}
		if time.Since(cl.at) < p.o.lease || p.holds(e.Name) {
			continue
		}
		err := p.c.once(ctx, func(sc *ftp.ServerConn) error {
			to, err := freeName(sc, p.f.inbox, cl.name)
			if err != nil {
				return err
			}
			return sc.Rename(path.Join(p.f.work, e.Name), path.Join(p.f.inbox, to))
		})
		switch {
		case err == nil:
			p.o.log.WarnContext(ctx, "ftp: stale claim returned to the inbox", slog.String("name", cl.name), slog.String("owner", cl.owner), slog.Time("claimed", cl.at))
		case isFileUnavailable(err):
			// Another Poller returned it first, or its owner settled it.
		default:
			return fmt.Errorf("return stale claim %s: %w", e.Name, err)
		}
	}
	return nil
}

// holds reports whether one of the Poller's open deliveries has the claim.
func (p *Poller) holds(claimName string) bool {
	p.mu.Lock()
	live := make([]*delivery, 0, len(p.live))
	for d := range p.live {
		live = append(live, d)
	}
	p.mu.Unlock()
	// d.mu is taken after p.mu is released: a delivery holds d.mu while it
	// calls into the Poller (forget), so p.mu never waits for d.mu.
	for _, d := range live {
		if d.claimName() == claimName {
			return true
		}
	}
	return false
}

// freeName returns name, or a variant of it, that is not taken in dir.
func freeName(sc *ftp.ServerConn, dir, name string) (string, error) {
	for i := 0; ; i++ {
		cand := name
		if i > 0 {
			cand = variant(name)
		}
		_, err := sc.FileSize(path.Join(dir, cand))
		switch {
		case err != nil && onlyReplies(err):
			return cand, nil // no such file
		case err != nil:
			return "", err
		case i >= 3:
			return "", fmt.Errorf("no free name for %s in %s", name, dir)
		}
	}
}

// variant returns name with a random part added before Suffix, within
// MaxNameLen.
func variant(name string) string {
	stem, tail := strings.TrimSuffix(name, Suffix), "."+newOwner()+Suffix
	if len(stem)+len(tail) > MaxNameLen {
		stem = stem[:MaxNameLen-len(tail)]
		for !utf8.ValidString(stem) {
			stem = stem[:len(stem)-1]
		}
	}
	stem = strings.TrimRight(stem, ". ")
	if stem == "" {
		stem = "file"
	}
	return stem + tail
}
