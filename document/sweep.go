package document

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// errSkip aborts a Store.Update without it being an error.
var errSkip = errors.New("document: no change")

// Expire marks as expired every conversation awaiting a reply whose
// Deadline is before now, and returns how many it marked. Run it after a
// restart (a request whose deadline passed while the process was down is
// never answered to a caller) and from time to time. A reply that comes
// after all still reaches the Correlator's fallback and completes the
// conversation.
func Expire(ctx context.Context, s Store, now time.Time) (int, error) {
	all, err := s.List(ctx)
	if err != nil {
		return 0, fmt.Errorf("document: expire: %w", err)
	}
	n := 0
	for _, c := range all {
		if c.State != StateAwaitingReply || c.Deadline.IsZero() || !c.Deadline.Before(now) {
			continue
		}
		err := s.Update(ctx, c.ID, func(c *Conversation) error {
			if c.State != StateAwaitingReply || c.Deadline.IsZero() || !c.Deadline.Before(now) {
				return errSkip
			}
			expireAll(c)
			return nil
		})
		switch {
		case err == nil:
			n++
		case !errors.Is(err, errSkip):
			return n, fmt.Errorf("document: expire %s: %w", c.ID, err)
		}
	}
	return n, nil
}

// Prune deletes the conversations last updated before `before`, except those
// awaiting a reply, and returns how many it deleted. Conversations (and the
// duplicate-suppression records in them) otherwise stay in the Store
// forever.
func Prune(ctx context.Context, s Store, before time.Time) (int, error) {
	all, err := s.List(ctx)
	if err != nil {
		return 0, fmt.Errorf("document: prune: %w", err)
	}
	old := func(c *Conversation) bool { return c.State != StateAwaitingReply && c.Updated.Before(before) }
	n := 0
	for _, c := range all {
		if !old(c) {
			continue
		}
		deleted, err := s.Delete(ctx, c.ID, old)
		if err != nil {
			return n, fmt.Errorf("document: prune %s: %w", c.ID, err)
		}
		if deleted {
			n++
		}
	}
	return n, nil
}

// maxExpired bounds Conversation.Expired: the oldest ids go first.
const maxExpired = 1024

// expireAll moves every pending request of c to Expired.
func expireAll(c *Conversation) {
	for _, id := range slices.Clone(c.Pending) {
		expireOne(c, id)
	}
	c.State = StateExpired
}

// expireOne moves request id from Pending to Expired (if it is pending) and
// reports whether it did; c becomes expired when nothing else is pending.
func expireOne(c *Conversation, id string) bool {
	if !slices.Contains(c.Pending, id) {
		return false
	}
	c.Pending = remove(c.Pending, id)
	c.Expired = append(c.Expired, id)
	if n := len(c.Expired) - maxExpired; n > 0 {
		c.Expired = slices.Delete(c.Expired, 0, n)
	}
	if len(c.Pending) == 0 {
		c.State = StateExpired
	}
	return true
}

func remove(ids []string, id string) []string {
	return slices.DeleteFunc(ids, func(s string) bool { return s == id })
}
