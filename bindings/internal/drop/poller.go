package drop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	"github.com/soapwire/soapwire/core"
)

// settleTimeout bounds what Close (and a failed transfer) does to return a
// claim.
const settleTimeout = 10 * time.Second

// maxSkipLog bounds the set of names already logged as skipped.
const maxSkipLog = 4096

// Poller receives the messages dropped in an endpoint's inbox on a file
// system: it lists the inbox, claims a file by renaming it into the work
// folder (the rename is the lock: of several Pollers on one endpoint
// exactly one wins), downloads it within the Limits, and yields it as a
// core.Delivery. Claims and downloads run in the background of Receive,
// one after another, each bounded by its own stall limit; when one has run
// for a second, the next starts beside it (up to Config.Transfers), so one
// stalled file holds up neither the listing nor the other files. Ack
// deletes the claimed file (or moves it to the done folder); Nack parks it
// in the failed folder with a .fault.xml beside it, except that a Nack
// caused by context.Canceled (a shutdown) returns it to the inbox. Claims
// are leased: the Poller renews the ones it holds, and returns to the inbox
// any claim whose lease ran out (its Poller crashed). It is a
// core.Receiver; Receive may be called from several goroutines.
type Poller struct {
	fs    FS
	f     folders
	cfg   Config
	owner string
	max   fileBounds // Limits.MaxBytes and MaxPackageBytes resolved: a plain file's and a MIME file's bounds

	life     context.Context // the Poller's: transfers and renewals; ends at Close
	stop     context.CancelFunc
	closed   chan struct{}
	closeOne sync.Once
	bg       sync.WaitGroup // transfers and the renewal loop
	wake     chan struct{}  // a transfer finished

	prepMu   sync.Mutex
	prepared bool

	mu        sync.Mutex
	queue     []Entry
	interval  time.Duration
	nextList  time.Time
	listedAt  time.Time
	listed    int                  // files the last listing queued
	progress  bool                 // one of them was taken or parked
	running   int                  // transfers in flight
	inflight  map[string]time.Time // names in transfer, since when
	results   []result
	recovered time.Time // last look for stale claims
	swept     time.Time // last look for stale temporary files
	skipped   map[string]struct{}
	sightings map[string]sighting  // unfinished files, by name (settle.go)
	retries   map[string]*retry    // names that failed, by name (backoff.go)
	parked    map[string]parkWatch // parked unfinished files, by name in failed/ (watch.go)
	watched   time.Time
	live      map[*delivery]struct{}
	renewing  bool
}

// result is what a transfer ends with: a delivery, nothing (the file was
// lost to another Poller, parked, or given back), or an error to report.
type result struct {
	d    *delivery
	err  error
	lost bool // nothing was taken or parked
}

var _ core.Receiver = (*Poller)(nil)

// NewPoller returns a Poller for the endpoint at root (a folder on fsys)
// with the folders of cfg.Layout below it. It creates the folders
// (MakeLayout) on its first Receive. The error is a bad root or layout.
func NewPoller(fsys FS, root string, cfg Config) (*Poller, error) {
	cfg = cfg.withDefaults()
	f, err := cfg.Layout.resolve(root)
	if err != nil {
		return nil, err
	}
	max := boundsOf(cfg.Limits)
	life, stop := context.WithCancel(context.Background())
	return &Poller{
		fs: fsys, f: f, cfg: cfg, owner: newOwner(), max: max,
		life: life, stop: stop,
		closed:    make(chan struct{}),
		wake:      make(chan struct{}, 1),
		interval:  cfg.PollMin,
		inflight:  map[string]time.Time{},
		skipped:   map[string]struct{}{},
		sightings: map[string]sighting{},
		retries:   map[string]*retry{},
		parked:    map[string]parkWatch{},
		live:      map[*delivery]struct{}{},
	}, nil
}

// Inbox returns the inbox's path; Outbox the outbox's ("" without one).
func (p *Poller) Inbox() string  { return p.f.inbox }
func (p *Poller) Outbox() string { return p.f.outbox }

// Address returns the address of the inbox: where senders drop messages
// for this endpoint.
func (p *Poller) Address() string { return p.cfg.URL(p.f.inbox) }

// ReplyAddress returns the address of the outbox ("" without one).
func (p *Poller) ReplyAddress() string {
	if p.f.outbox == "" {
		return ""
	}
	return p.cfg.URL(p.f.outbox)
}

// MakeLayout creates the endpoint's root and folders when they are missing.
// Receive calls it once.
func (p *Poller) MakeLayout(ctx context.Context) error {
	p.prepMu.Lock()
	defer p.prepMu.Unlock()
	if p.prepared {
		return nil
	}
	var dirs []string
	for d := p.f.root; d != "/"; d = parent(d) {
		dirs = append([]string{d}, dirs...)
	}
	dirs = append(dirs, p.f.all()...)
	for _, d := range dirs {
		if err := p.fs.Mkdir(ctx, d); err != nil {
			return fmt.Errorf("%s: make layout at %s: folder %s: %w", p.cfg.Scheme, p.f.root, d, err)
		}
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
// inbox until it stops changing. Errors of the file system (a listing that
// failed, a closed client) are returned; a file whose claim or download
// fails is returned to the inbox, logged, and tried again later.
func (p *Poller) Receive(ctx context.Context) (core.Delivery, error) {
	for {
		if err := p.stopped(ctx); err != nil {
			return nil, err
		}
		if r, ok := p.next(); ok {
			if r.err != nil {
				return nil, p.fail(ctx, r.err)
			}
			if r.d != nil {
				return r.d, nil
			}
			continue
		}
		p.launch()
		p.mu.Lock()
		queued, listAt := len(p.queue), p.nextList
		if p.running > 0 {
			// While transfers run, the inbox is listed again once they are
			// done, as one listing's files are taken one after another;
			// but when one has run for a while (it may be stalled), the
			// other slots are not left idle: then it is listed every poll
			// interval.
			listAt = later(listAt, later(p.listedAt.Add(p.cfg.PollMin), p.oldestTransfer().Add(slowTransfer)))
		}
		due := time.Until(listAt)
		fruitless := p.listed > 0 && !p.progress && p.running == 0 && len(p.results) == 0
		p.mu.Unlock()
		if queued > 0 {
			// A transfer is running: wait for it to end, or to turn slow
			// (then the next one starts beside it).
			p.mu.Lock()
			slot := time.Duration(-1)
			if y := p.youngestTransfer(time.Now()); !y.IsZero() && p.running < p.cfg.Transfers {
				slot = max(0, time.Until(y.Add(slowTransfer)))
			}
			p.mu.Unlock()
			if err := p.wait(ctx, slot); err != nil {
				return nil, err
			}
			continue
		}
		if fruitless {
			// Every file of the last listing was lost to other Pollers or
			// refused: wait before listing again, do not spin.
			p.mu.Lock()
			p.listed = 0
			p.nextList = time.Now().Add(p.backoffInterval())
			p.mu.Unlock()
			continue
		}
		if due > 0 {
			if err := p.wait(ctx, due); err != nil {
				return nil, err
			}
			continue
		}
		n, err := p.refill(ctx)
		if err != nil {
			return nil, p.fail(ctx, err)
		}
		p.mu.Lock()
		p.listedAt = time.Now()
		switch {
		case n > 0:
			p.nextList = time.Time{}
		case p.running > 0:
			p.nextList = p.listedAt.Add(p.cfg.PollMin)
		default:
			p.nextList = p.listedAt.Add(p.backoffInterval())
		}
		p.mu.Unlock()
	}
}

// backoffInterval returns the wait before the next listing and doubles it
// up to the maximum; p.mu held.
func (p *Poller) backoffInterval() time.Duration {
	d := p.interval
	p.interval = min(2*p.interval, p.cfg.PollMax)
	return d
}

// slowTransfer is how long a transfer runs before the Poller lists the
// inbox again without waiting for it.
const slowTransfer = time.Second

// youngestTransfer returns when the youngest transfer that has run for
// less than slowTransfer started (zero when none has); p.mu held.
func (p *Poller) youngestTransfer(now time.Time) time.Time {
	var t time.Time
	for _, at := range p.inflight {
		if now.Sub(at) < slowTransfer && at.After(t) {
			t = at
		}
	}
	return t
}

// oldestTransfer returns when the oldest transfer in flight started; p.mu
// held.
func (p *Poller) oldestTransfer() time.Time {
	var t time.Time
	for _, at := range p.inflight {
		if t.IsZero() || at.Before(t) {
			t = at
		}
	}
	return t
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// next takes a finished transfer's result.
func (p *Poller) next() (result, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for len(p.results) > 0 {
		r := p.results[0]
		p.results = p.results[1:]
		if !r.lost {
			p.progress = true
		}
		if r.d != nil && !r.d.handOut() {
			continue // returned to the inbox meanwhile (not wanted for too long)
		}
		return r, true
	}
	return result{}, false
}

// launch starts a transfer for the next queued file when no transfer is
// running, or when those running have all run for slowTransfer (stalled,
// perhaps, or just large): files are taken one after another, as one
// connection would, and a slow one never holds up the others, up to
// Config.Transfers at once.
func (p *Poller) launch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	for p.running < p.cfg.Transfers && len(p.queue) > 0 && p.youngestTransfer(now).IsZero() {
		select {
		case <-p.closed:
			return
		default:
		}
		n := len(p.queue)
		e := p.queue[n-1]
		p.queue = p.queue[:n-1]
		if _, busy := p.inflight[e.Name]; busy {
			continue
		}
		p.inflight[e.Name] = time.Now()
		p.running++
		p.bg.Add(1)
		go p.transfer(e)
	}
}

// transfer claims and downloads one file, and queues what came of it.
func (p *Poller) transfer(e Entry) {
	defer p.bg.Done()
	d, err := p.take(p.life, e)
	if d != nil || errors.Is(err, errParked) {
		p.succeeded(p.life, e.Name)
	}
	r := result{d: d, err: err}
	if errors.Is(err, errLost) {
		r = result{lost: true}
	} else if errors.Is(err, errParked) {
		r = result{}
	} else if err != nil && !systemic(err) {
		// This file's trouble, not the server's: logged (take did), and the
		// name backs off; the others go on.
		r = result{}
	}
	p.mu.Lock()
	p.running--
	delete(p.inflight, e.Name)
	p.results = append(p.results, r)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// systemic reports whether a transfer's error concerns the file system as
// a whole (a closed client), not one file.
func systemic(err error) bool { return errors.Is(err, core.ErrClosed) }

// errLost: another Poller claimed the file first, it is gone, or it was
// given back to settle.
var errLost = errors.New("file drop: claim lost to another poller")

// errParked: the file was parked in the failed folder, not delivered.
var errParked = errors.New("file drop: parked")

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
	if errors.Is(err, core.ErrClosed) {
		return err
	}
	return fmt.Errorf("%s: receive from %s: %w", p.cfg.Scheme, p.f.inbox, err)
}

// wait sleeps for d (or, d < 0, until a transfer ends), returning early
// when a transfer ends.
func (p *Poller) wait(ctx context.Context, d time.Duration) error {
	var tc <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		tc = t.C
	}
	select {
	case <-tc:
		return nil
	case <-p.wake:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-p.closed:
		return core.ErrClosed
	}
}

// refill lists the inbox into the queue (in random order, so Pollers
// sharing an inbox do not all race for the same file), first doing the
// housekeeping that is due: stale claims, stale temporary files, parked
// files that changed. It returns how many files were queued.
func (p *Poller) refill(ctx context.Context) (int, error) {
	if err := p.MakeLayout(ctx); err != nil {
		return 0, err
	}
	p.housekeeping(ctx)
	list, err := p.fs.List(ctx, p.f.inbox)
	if err != nil {
		return 0, fmt.Errorf("list: %w", err)
	}
	var accepted []Entry
	budget := maxQuarantinePerListing
	for _, e := range list {
		if e.Problem != "" {
			p.skip(ctx, p.f.inbox, "\x00"+e.Problem+"\x00"+e.Name, e.Name, "the listing entry cannot be read: "+e.Problem)
			continue
		}
		if e.Kind == Dir {
			continue
		}
		kind, reason := classify(e.Name)
		if kind == nameAccept && e.Kind != File {
			kind, reason = nameSkip, e.Kind.String()
		}
		switch kind {
		case nameAccept:
			accepted = append(accepted, e)
		case nameSkip:
			p.refuseName(ctx, e.Name, reason, &budget)
		}
	}
	found := accepted[:0]
	now := time.Now()
	p.mu.Lock()
	listed := make(map[string]struct{}, len(accepted))
	for _, e := range accepted {
		listed[e.Name] = struct{}{}
	}
	if len(p.sightings) > 0 {
		p.pruneSightings(listed)
	}
	gone := p.pruneRetries(listed)
	waiting := false
	for _, e := range accepted {
		if _, busy := p.inflight[e.Name]; busy {
			continue
		}
		if !p.retryDue(e.Name, now) {
			waiting = true
			continue
		}
		if p.settledEnough(e, now) {
			found = append(found, e)
		} else {
			waiting = true
		}
	}
	rand.Shuffle(len(found), func(i, j int) { found[i], found[j] = found[j], found[i] })
	p.queue = append(p.queue, found...)
	p.listed, p.progress = len(found), false
	if len(found) > 0 || waiting {
		// Files to take, or unfinished ones to watch: keep listing often.
		p.interval = p.cfg.PollMin
	}
	p.mu.Unlock()
	for _, g := range gone {
		p.cfg.Log.InfoContext(ctx, p.cfg.Scheme+": file left the inbox after failed claims", slog.String("name", Escape(g.name)), slog.Int("failures", g.fails))
	}
	return len(found), nil
}

// skip logs, once per key, that a file is passed over.
func (p *Poller) skip(ctx context.Context, dir, key, name, reason string) {
	if !p.once(dir + "\x00" + key) {
		return
	}
	p.cfg.Log.WarnContext(ctx, p.cfg.Scheme+": file skipped", slog.String("folder", dir), slog.String("name", Escape(name)), slog.String("reason", reason))
}

// once reports whether key is seen for the first time (bounded memory: a
// flood of keys starts over, and a few lines are logged again).
func (p *Poller) once(key string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, seen := p.skipped[key]; seen {
		return false
	}
	if len(p.skipped) >= maxSkipLog {
		clear(p.skipped)
	}
	p.skipped[key] = struct{}{}
	return true
}

// parent returns the folder above p ("/" for a top folder).
func parent(p string) string {
	for i := len(p) - 1; i > 0; i-- {
		if p[i] == '/' {
			return p[:i]
		}
	}
	return "/"
}

// quote is strconv.Quote, for error texts.
func quote(s string) string { return strconv.Quote(s) }
