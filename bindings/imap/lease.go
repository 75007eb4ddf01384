package imap

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
)

// A claim's lease is a keyword on the mail in the processing folder, one
// of leaseBuckets: "soapwire-lease-N" where N counts half leases, modulo
// leaseBuckets. A fixed, small set of keywords, because servers keep every
// keyword a folder ever saw (Dovecot's Maildir has room for 26): a
// timestamp in a keyword would add one per claim.
//
// A Receiver renews the keyword of each claim it holds every quarter lease
// (adding the current one, then taking the old one off), so a live claim's
// keyword is at most one half lease behind. A mail whose freshest keyword
// is leaseStale half leases or more behind is older than its lease: its
// Receiver died or lost its server, and any Receiver returns it to the
// inbox. A mail with no keyword (its Receiver died between the MOVE and the
// keyword) is stamped with the current one by the first Receiver that
// looks, so it too is returned one lease later. The count wraps after
// leaseBuckets half leases; a Receiver looks every quarter lease (by
// default), so it sees every stale claim while its age reads as stale.
const (
	leaseBuckets = 8
	leaseStale   = 3
	leasePrefix  = "soapwire-lease-"
)

// bucket is the lease keyword number of time t.
func (r *Receiver) bucket(t time.Time) int {
	half := max(r.o.lease/2, time.Millisecond)
	return int((t.UnixNano() / int64(half)) % leaseBuckets)
}

func leaseFlag(b int) imap.Flag { return imap.Flag(leasePrefix + strconv.Itoa(b)) }

// leaseFlags returns every lease keyword.
func leaseFlags() []imap.Flag {
	out := make([]imap.Flag, leaseBuckets)
	for i := range out {
		out[i] = leaseFlag(i)
	}
	return out
}

// age returns how many half leases behind now the freshest lease keyword
// of flags is, and false if there is none.
func (r *Receiver) age(flags []imap.Flag, now int) (int, bool) {
	best, found := leaseBuckets, false
	for _, f := range flags {
		s, ok := strings.CutPrefix(strings.ToLower(string(f)), leasePrefix)
		if !ok {
			continue
		}
		b, err := strconv.Atoi(s)
		if err != nil || b < 0 || b >= leaseBuckets {
			continue
		}
		found = true
		best = min(best, (now-b+leaseBuckets)%leaseBuckets)
	}
	return best, found
}

// stamp gives the claimed mail uid the current lease keyword and returns
// its number (-1 if the server refused).
func (r *Receiver) stamp(s *session, uid imap.UID) int {
	if !s.keywords {
		return -1
	}
	b := r.bucket(time.Now())
	if err := s.c.Store(imap.UIDSetNum(uid), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{leaseFlag(b)}}, nil).Close(); err != nil {
		return -1
	}
	return b
}

// renewLoop renews the lease keywords of the open deliveries every quarter
// lease, and sends the processing folder's connection a NOOP when it was
// silent for WithIdleInterval (servers drop silent clients after 30
// minutes, as they drop idling ones), until Close.
func (r *Receiver) renewLoop() {
	defer close(r.renewDone)
	every := max(min(r.o.lease/4, r.o.idle/2), time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	lastRenew := time.Now()
	for {
		select {
		case <-r.closed:
			return
		case <-t.C:
		}
		if time.Since(lastRenew) >= r.o.lease/4 {
			lastRenew = time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), r.o.lease/2+time.Second)
			r.renew(ctx)
			cancel()
		}
		if time.Since(time.Unix(0, r.workUsed.Load())) >= r.o.idle {
			ctx, cancel := context.WithTimeout(context.Background(), r.o.dialTimeout)
			if err := r.onWork(ctx, func(s *session) error { return s.c.Noop().Wait() }); err != nil && !r.isClosed() {
				r.o.log.WarnContext(ctx, "imap: NOOP on the processing folder's connection failed", slog.Any("err", err))
			}
			cancel()
		}
	}
}

// renew moves the lease keywords of the open deliveries to now's.
func (r *Receiver) renew(ctx context.Context) {
	now := r.bucket(time.Now())
	r.mu.Lock()
	old := map[int][]*delivery{}
	for _, d := range r.inflight {
		if d.bucket != now {
			old[d.bucket] = append(old[d.bucket], d)
		}
	}
	r.mu.Unlock()
	for b, ds := range old {
		var set imap.UIDSet
		for _, d := range ds {
			set.AddNum(d.uid)
		}
		kept := true
		err := r.onWork(ctx, func(s *session) error {
			if !s.keywords {
				kept = false // no keywords here: nothing to renew
				return nil
			}
			if err := s.c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{leaseFlag(now)}}, nil).Close(); err != nil {
				return err
			}
			if b < 0 {
				return nil
			}
			return s.c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsDel, Silent: true, Flags: []imap.Flag{leaseFlag(b)}}, nil).Close()
		})
		if err != nil {
			r.o.log.WarnContext(ctx, "imap: lease not renewed", slog.String("uids", set.String()), slog.Any("err", err))
			continue
		}
		if !kept {
			continue
		}
		r.mu.Lock()
		for _, d := range ds {
			d.bucket = now
		}
		r.mu.Unlock()
	}
}

// maybeRecover looks for stale claims in the processing folder (see
// recoverStale) and in the inbox (staleInInbox, on the inbox session s) at
// the first Receive and then every WithRecoverInterval.
func (r *Receiver) maybeRecover(ctx context.Context, s *session) {
	if !r.lastRecover.IsZero() && time.Since(r.lastRecover) < r.o.recoverEvery {
		return
	}
	r.lastRecover = time.Now()
	if err := r.onWork(ctx, func(s *session) error { return r.recoverStale(ctx, s) }); err != nil && ctx.Err() == nil {
		r.o.log.WarnContext(ctx, "imap: looking for stale claims failed", slog.Any("err", err))
	}
	stop := s.watch(ctx)
	defer stop()
	if err := r.staleInInbox(ctx, s); err != nil && ctx.Err() == nil {
		r.o.log.WarnContext(ctx, "imap: looking for stale claims in the inbox failed", slog.Any("err", err))
	}
}

// staleInInbox takes the lease keywords off inbox mails whose claim
// (condClaim) ran out of lease before the mail was moved: its Receiver
// died between the STORE and the MOVE.
func (r *Receiver) staleInInbox(ctx context.Context, s *session) error {
	crit := imap.SearchCriteria{Flag: []imap.Flag{leaseFlag(0)}}
	for b := 1; b < leaseBuckets; b++ {
		crit = imap.SearchCriteria{Or: [][2]imap.SearchCriteria{{crit, {Flag: []imap.Flag{leaseFlag(b)}}}}}
	}
	data, err := s.c.UIDSearch(&crit, nil).Wait()
	if err != nil {
		return err
	}
	uids := data.AllUIDs()
	if len(uids) == 0 {
		return nil
	}
	msgs, err := s.c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, Flags: true}).Collect()
	if err != nil {
		return err
	}
	now := r.bucket(time.Now())
	var stale imap.UIDSet
	for _, m := range msgs {
		if age, ok := r.age(m.Flags, now); ok && age >= leaseStale {
			stale.AddNum(m.UID)
		}
	}
	if len(stale) == 0 {
		return nil
	}
	r.o.log.WarnContext(ctx, "imap: released inbox mails whose claim ran out of lease before the move", slog.String("uids", stale.String()))
	return s.c.Store(stale, &imap.StoreFlags{Op: imap.StoreFlagsDel, Silent: true, Flags: leaseFlags()}, nil).Close()
}

// recoverStale returns to the inbox the mails of the processing folder
// whose lease ran out, stamps those without a lease keyword, and expunges
// those an Ack flagged \Deleted but did not expunge before its Receiver
// died. Claims this Receiver holds are left alone.
func (r *Receiver) recoverStale(ctx context.Context, s *session) error {
	all := imap.UIDSet{imap.UIDRange{Start: 1, Stop: 0}}
	msgs, err := s.c.Fetch(all, &imap.FetchOptions{UID: true, Flags: true}).Collect()
	if err != nil {
		return err
	}
	now := r.bucket(time.Now())
	var stale, bare, deleted imap.UIDSet
	present := map[imap.UID]bool{}
	r.mu.Lock()
	for _, m := range msgs {
		present[m.UID] = true
		if _, mine := r.inflight[m.UID]; mine || m.UID == 0 {
			continue
		}
		if hasFlag(m.Flags, imap.FlagDeleted) {
			deleted.AddNum(m.UID)
			continue
		}
		age, ok := r.age(m.Flags, now)
		switch {
		case !s.keywords:
			// No keywords on this server: a claim is stale once this
			// Receiver has seen it in the folder for a lease.
			first, seen := r.firstSeen[m.UID]
			if !seen {
				r.firstSeen[m.UID] = time.Now()
			} else if time.Since(first) >= r.o.lease {
				stale.AddNum(m.UID)
			}
		case !ok:
			bare.AddNum(m.UID)
		case age >= leaseStale:
			stale.AddNum(m.UID)
		}
	}
	for uid := range r.firstSeen {
		if !present[uid] {
			delete(r.firstSeen, uid)
		}
	}
	r.mu.Unlock()
	if len(deleted) > 0 {
		if err := s.c.UIDExpunge(deleted).Close(); err != nil {
			return err
		}
	}
	if len(bare) > 0 {
		if err := s.c.Store(bare, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{leaseFlag(now)}}, nil).Close(); err != nil {
			return err
		}
	}
	if len(stale) > 0 {
		if s.keywords {
			if err := s.c.Store(stale, &imap.StoreFlags{Op: imap.StoreFlagsDel, Silent: true, Flags: leaseFlags()}, nil).Close(); err != nil {
				return err
			}
		}
		if _, err := s.c.Move(stale, r.e.folder).Wait(); err != nil {
			return err
		}
		r.o.log.WarnContext(ctx, "imap: returned mails whose claim ran out of lease to the inbox", slog.String("uids", stale.String()))
	}
	return nil
}

func hasFlag(flags []imap.Flag, f imap.Flag) bool {
	for _, g := range flags {
		if strings.EqualFold(string(g), string(f)) {
			return true
		}
	}
	return false
}
