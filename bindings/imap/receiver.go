package imap

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-imap/v2"

	"github.com/soapwire/soapwire/core"
)

// Receiver takes SOAP messages out of an IMAP folder (the inbox of its
// address): a core.Receiver for core.Serve. See the package documentation
// for how it claims, settles and recovers mails.
type Receiver struct {
	e endpoint
	o receiverConfig

	closed    chan struct{}
	closeOnce sync.Once
	renewDone chan struct{}

	recvMu      sync.Mutex // one Receive at a time; guards the fields below it
	watch       *session   // the inbox: IDLE, SEARCH, claims
	watchFails  int
	pending     []imap.UID  // inbox UIDs found and not yet tried
	claimed     []*delivery // claimed and not yet opened
	lastRecover time.Time

	workMu    sync.Mutex // guards work and workFails
	work      *session   // the processing folder: fetch, renew, settle, recover
	workFails int
	workUsed  atomic.Int64 // unix ns of the last command on work

	mu        sync.Mutex
	inflight  map[imap.UID]*delivery
	firstSeen map[imap.UID]time.Time // without keywords: when recovery first saw a claim
}

var _ core.Receiver = (*Receiver)(nil)

// NewReceiver connects to the IMAP server of addr ("imaps://user@host/INBOX",
// or "imap://…" with STARTTLS), logs in, creates the processing, done and
// failed folders when missing, and returns a Receiver of the address's
// folder. It fails at once for a bad address (ErrAddress), a server that
// cannot be reached, refuses TLS (ErrNoTLS) or the login (ErrNoAuth, or
// its refusal), or lacks UIDPLUS (ErrUnsupported); later connection losses
// are retried with backoff (WithReconnect) and logged.
func NewReceiver(ctx context.Context, addr string, opts ...ReceiverOption) (*Receiver, error) {
	e, err := parseAddress(addr)
	if err != nil {
		return nil, err
	}
	o := newReceiverConfig(opts)
	for _, f := range []string{o.processing, o.done, o.failed} {
		if err := checkFolder(f); err != nil {
			return nil, fmt.Errorf("imap: WithFolders: %v: %w", err, ErrAddress)
		}
		if f == e.folder {
			return nil, fmt.Errorf("imap: the folder %q is both the inbox and a folder of WithFolders: %w", f, ErrAddress)
		}
	}
	r := &Receiver{e: e, o: o, closed: make(chan struct{}), renewDone: make(chan struct{}), inflight: map[imap.UID]*delivery{}, firstSeen: map[imap.UID]time.Time{}}
	w, err := dialInbox(ctx, e, &o.clientConfig)
	if err != nil {
		return nil, err
	}
	if !w.caps().Has(imap.CapUIDPlus) && !w.caps().Has(imap.CapIMAP4rev2) {
		w.close()
		return nil, fmt.Errorf("imap: %s: %w", e.addr(), ErrUnsupported)
	}
	if err := createFolders(ctx, w, o.processing, o.done, o.failed); err != nil {
		w.close()
		return nil, err
	}
	k, err := dial(ctx, e, &o.clientConfig, o.processing)
	if err != nil {
		w.close()
		return nil, err
	}
	r.watch, r.work = w, k
	go r.renewLoop()
	return r, nil
}

// createFolders creates the folders that do not exist.
func createFolders(ctx context.Context, s *session, names ...string) error {
	stop := s.watch(ctx)
	defer stop()
	for _, n := range names {
		list, err := s.c.List("", n, nil).Collect()
		if err != nil {
			return fmt.Errorf("imap: LIST %s: %w", n, err)
		}
		if len(list) > 0 {
			continue
		}
		if err := s.c.Create(n, nil).Wait(); err != nil && !errAlreadyExists(err) {
			return fmt.Errorf("imap: CREATE %s: %w", n, err)
		}
	}
	return nil
}

// Receive returns the next mail's message, waiting for one until ctx is
// done (its error is in the chain) or the Receiver is closed
// (core.ErrClosed). Connection losses are not returned: the Receiver
// reconnects (WithReconnect) and goes on.
func (r *Receiver) Receive(ctx context.Context) (core.Delivery, error) {
	r.recvMu.Lock()
	defer r.recvMu.Unlock()
	for {
		select {
		case <-r.closed:
			return nil, core.ErrClosed
		default:
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("imap: receive: %w", err)
		}
		s, err := r.watchSession(ctx)
		if err != nil {
			return nil, err
		}
		r.maybeRecover(ctx, s)
		for len(r.claimed) > 0 {
			d := r.claimed[0]
			r.claimed = r.claimed[1:]
			if d := r.open(ctx, d); d != nil {
				return d, nil
			}
		}
		if len(r.pending) == 0 {
			drain(s.exists)
			uids, err := r.search(ctx, s)
			if err != nil {
				r.dropWatch(ctx, s, "SEARCH", err)
				continue
			}
			r.pending = uids
		}
		if len(r.pending) > 0 {
			n := min(len(r.pending), claimBatch)
			batch := r.pending[:n]
			r.pending = r.pending[n:]
			r.claimed = r.claimSome(ctx, s, batch)
			continue
		}
		if err := r.wait(ctx, s); err != nil {
			r.dropWatch(ctx, s, "IDLE", err)
		}
	}
}

// search returns the UIDs of the inbox's mails neither marked deleted nor
// being claimed (a lease keyword: see condClaim), oldest first.
func (r *Receiver) search(ctx context.Context, s *session) ([]imap.UID, error) {
	stop := s.watch(ctx)
	defer stop()
	data, err := s.c.UIDSearch(&imap.SearchCriteria{NotFlag: append(leaseFlags(), imap.FlagDeleted)}, nil).Wait()
	if err != nil {
		return nil, err
	}
	return data.AllUIDs(), nil
}

// wait waits for new mail: under IDLE (re-issued every WithIdleInterval)
// when the server has it, else WithPollInterval.
func (r *Receiver) wait(ctx context.Context, s *session) error {
	if !s.caps().Has(imap.CapIdle) && !s.caps().Has(imap.CapIMAP4rev2) {
		t := time.NewTimer(min(r.o.poll, r.o.recoverEvery))
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		case <-r.closed:
		}
		return nil
	}
	idle, err := s.c.Idle()
	if err != nil {
		return err
	}
	// Woken for the next look for stale claims too.
	t := time.NewTimer(min(r.o.idle, r.o.recoverEvery))
	defer t.Stop()
	select {
	case <-s.exists:
		// New mail: put it back for the SEARCH to drain.
		signal(s.exists)
	case <-t.C:
	case <-ctx.Done():
	case <-r.closed:
	case <-s.c.Closed():
	}
	if err := idle.Close(); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { s.c.Close() })
	defer stop()
	return idle.Wait()
}

// watchSession returns the inbox session, connecting again (with backoff)
// if it was lost. Its only errors are ctx's and core.ErrClosed.
func (r *Receiver) watchSession(ctx context.Context) (*session, error) {
	for r.watch == nil {
		if r.watchFails > 0 {
			if err := r.pause(ctx, r.watchFails); err != nil {
				return nil, err
			}
		}
		s, err := dialInbox(ctx, r.e, &r.o.clientConfig)
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("imap: receive: %w", ctx.Err())
			}
			r.watchFails++
			r.o.log.WarnContext(ctx, "imap: cannot connect; retrying", slog.String("folder", r.e.folder), slog.Any("err", err))
			continue
		}
		r.watch, r.watchFails, r.pending = s, 0, nil
		r.o.log.InfoContext(ctx, "imap: connected", slog.String("folder", r.e.folder))
	}
	return r.watch, nil
}

// dropWatch forgets the inbox session after err (a connection lost, or a
// command the server refused: either way the next Receive starts afresh).
func (r *Receiver) dropWatch(ctx context.Context, s *session, what string, err error) {
	if ctx.Err() == nil && !r.isClosed() {
		r.o.log.WarnContext(ctx, "imap: inbox connection lost; reconnecting", slog.String("command", what), slog.Any("err", err))
	}
	s.close()
	if r.watch == s {
		r.watch, r.pending = nil, nil
		r.watchFails++
	}
}

// workSession returns the processing folder's session, connecting again
// (with backoff) if it was lost.
func (r *Receiver) workSession(ctx context.Context) (*session, error) {
	r.workMu.Lock()
	defer r.workMu.Unlock()
	for r.work == nil {
		if r.isClosed() {
			return nil, core.ErrClosed
		}
		if r.workFails > 0 {
			if err := r.pause(ctx, r.workFails); err != nil {
				return nil, err
			}
		}
		s, err := dial(ctx, r.e, &r.o.clientConfig, r.o.processing)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			r.workFails++
			r.o.log.WarnContext(ctx, "imap: cannot connect; retrying", slog.String("folder", r.o.processing), slog.Any("err", err))
			continue
		}
		r.work, r.workFails = s, 0
	}
	return r.work, nil
}

// dropWork forgets the processing folder's session s when err says the
// connection is gone.
func (r *Receiver) dropWork(s *session, err error) {
	if !isConnErr(err) {
		return
	}
	s.close()
	r.workMu.Lock()
	if r.work == s {
		r.work = nil
		r.workFails++
	}
	r.workMu.Unlock()
}

// onWork runs op on the processing folder's session, once more on a new
// session if the connection was lost.
func (r *Receiver) onWork(ctx context.Context, op func(s *session) error) error {
	var err error
	for range 3 {
		var s *session
		if s, err = r.workSession(ctx); err != nil {
			return err
		}
		stop := s.watch(ctx)
		err = op(s)
		stop()
		r.workUsed.Store(time.Now().UnixNano())
		if err == nil || !isConnErr(err) || ctx.Err() != nil {
			return err
		}
		r.dropWork(s, err)
	}
	return err
}

// pause waits before the n-th attempt to reconnect: WithReconnect's first
// pause doubled n-1 times, at most its most, with jitter.
func (r *Receiver) pause(ctx context.Context, n int) error {
	d := r.o.backoff
	for i := 1; i < n && d < r.o.maxBackoff; i++ {
		d *= 2
	}
	d = min(d, r.o.maxBackoff)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("imap: receive: %w", ctx.Err())
	case <-r.closed:
		return core.ErrClosed
	}
}

func (r *Receiver) isClosed() bool {
	select {
	case <-r.closed:
		return true
	default:
		return false
	}
}

// Close stops the Receiver: a blocked Receive returns core.ErrClosed, and
// the deliveries not yet settled go back to the inbox for another Receiver
// (their Ack and Nack then return ErrReleased).
func (r *Receiver) Close() error {
	r.closeOnce.Do(func() {
		close(r.closed)
		<-r.renewDone
		r.mu.Lock()
		ds := make([]*delivery, 0, len(r.inflight))
		for _, d := range r.inflight {
			ds = append(ds, d)
		}
		r.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), r.o.dialTimeout)
		defer cancel()
		for _, d := range ds {
			d.release(ctx)
		}
		r.workMu.Lock()
		if r.work != nil {
			r.work.close()
			r.work = nil
		}
		r.workMu.Unlock()
		r.recvMu.Lock()
		if r.watch != nil {
			r.watch.close()
			r.watch = nil
		}
		r.recvMu.Unlock()
	})
	return nil
}

// errGone: the mail is no longer where the Receiver expected it.
var errGone = errors.New("imap: the mail is gone")

func drain(c chan struct{}) {
	select {
	case <-c:
	default:
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}
