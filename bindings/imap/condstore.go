package imap

import (
	"bytes"
	"errors"
	"regexp"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
)

var errBadNumber = errors.New("imap: not a UID")

// condClaim takes the inbox mails uids by one conditional STORE of the
// current lease keyword, UNCHANGEDSINCE the newest MODSEQ fetched (any
// change made since has a higher one), and returns those this Receiver won
// (not deleted, not already leased, not in the MODIFIED code), with the
// keyword's number and each one's RFC822.SIZE.
func (r *Receiver) condClaim(s *session, uids []imap.UID) (map[imap.UID]claimed, error) {
	msgs, err := s.c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{UID: true, Flags: true, ModSeq: true, RFC822Size: true}).Collect()
	if err != nil {
		return nil, err
	}
	want := map[imap.UID]bool{}
	for _, u := range uids {
		want[u] = true
	}
	b := r.bucket(time.Now())
	cands := map[imap.UID]claimed{}
	var set imap.UIDSet
	var ms uint64
	for _, m := range msgs {
		if !want[m.UID] || m.ModSeq == 0 || hasFlag(m.Flags, imap.FlagDeleted) {
			continue
		}
		if _, leased := r.age(m.Flags, 0); leased {
			continue
		}
		cands[m.UID] = claimed{bucket: b, size: m.RFC822Size}
		set.AddNum(m.UID)
		ms = max(ms, m.ModSeq)
	}
	if len(cands) == 0 {
		return nil, nil
	}
	s.mod.reset()
	if err := s.c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{leaseFlag(b)}},
		&imap.StoreOptions{UnchangedSince: ms}).Close(); err != nil {
		return nil, err
	}
	for u := range cands {
		if s.mod.has(u) {
			delete(cands, u)
		}
	}
	return cands, nil
}

// modifiedLine is a tagged OK with the MODIFIED response code.
var modifiedLine = regexp.MustCompile(`(?m)^[A-Za-z0-9.]+ OK \[MODIFIED ([0-9:,]+)\]`)

// modified records the UIDs of the MODIFIED codes a session received.
type modified struct {
	mu   sync.Mutex
	tail []byte // the last bytes seen, for a line cut between writes
	set  imap.UIDSet
}

// Write is the session's DebugWriter: everything read and written.
func (m *modified) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	buf := append(m.tail, p...)
	if bytes.Contains(buf, []byte("[MODIFIED ")) {
		for _, sub := range modifiedLine.FindAllSubmatch(buf, -1) {
			var set imap.UIDSet
			if s, err := parseUIDSet(string(sub[1])); err == nil {
				set = s
			}
			m.set.AddSet(set)
		}
	}
	// Keep the last line's start, for a line cut between two writes.
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		buf = buf[i+1:]
	}
	if len(buf) > 256 {
		buf = buf[len(buf)-256:]
	}
	m.tail = append(m.tail[:0], buf...)
	return len(p), nil
}

// reset forgets the MODIFIED codes seen.
func (m *modified) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.set = nil
}

// has reports whether uid was in a MODIFIED code since the last reset.
func (m *modified) has(uid imap.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.set.Contains(uid)
}

// parseUIDSet parses "1:3,7".
func parseUIDSet(s string) (imap.UIDSet, error) {
	var set imap.UIDSet
	for _, part := range bytes.Split([]byte(s), []byte(",")) {
		lo, hi, found := bytes.Cut(part, []byte(":"))
		a, err := atoUID(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if found {
			if b, err = atoUID(hi); err != nil {
				return nil, err
			}
		}
		if a > b {
			a, b = b, a
		}
		set.AddRange(a, b)
	}
	return set, nil
}

func atoUID(b []byte) (imap.UID, error) {
	var n uint64
	if len(b) == 0 || len(b) > 10 {
		return 0, errBadNumber
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, errBadNumber
		}
		n = n*10 + uint64(c-'0')
	}
	if n == 0 || n > 1<<32-1 {
		return 0, errBadNumber
	}
	return imap.UID(n), nil
}
