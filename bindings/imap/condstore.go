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

// condClaim takes the inbox mail uid by a conditional STORE of the current
// lease keyword, and reports whether this Receiver won it (false: another
// took it, or it is gone, deleted or already leased), the keyword's number
// and the mail's RFC822.SIZE.
func (r *Receiver) condClaim(s *session, uid imap.UID) (won bool, bucket int, size int64, err error) {
	set := imap.UIDSetNum(uid)
	msgs, err := s.c.Fetch(set, &imap.FetchOptions{UID: true, Flags: true, ModSeq: true, RFC822Size: true}).Collect()
	if err != nil {
		return false, 0, 0, err
	}
	var ms uint64
	for _, m := range msgs {
		if m.UID != uid {
			continue
		}
		if hasFlag(m.Flags, imap.FlagDeleted) {
			return false, 0, 0, nil
		}
		if _, leased := r.age(m.Flags, 0); leased {
			return false, 0, 0, nil
		}
		ms, size = m.ModSeq, m.RFC822Size
	}
	if ms == 0 {
		return false, 0, 0, nil
	}
	s.mod.take(uid)
	b := r.bucket(time.Now())
	if err := s.c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{leaseFlag(b)}},
		&imap.StoreOptions{UnchangedSince: ms}).Close(); err != nil {
		return false, 0, 0, err
	}
	return !s.mod.take(uid), b, size, nil
}

// A claim by UID MOVE alone is exclusive only where the server moves
// atomically: Dovecot with Maildir copies a mail once for each of several
// sessions that move it at the same moment (TestDovecotReceiversSplitMail
// saw 25 mails out of 20 with three sessions). So where the server offers
// CONDSTORE (RFC 7162), a Receiver first takes the mail with a conditional
// STORE of its lease keyword (UNCHANGEDSINCE the mail's MODSEQ): the
// server applies at most one of several such STOREs, and only its winner
// moves the mail. The others see the mail in the tagged response's
// MODIFIED code, which go-imap does not report: modified reads it from the
// session's traffic (the inbox session carries no mail text that could
// forge one: it never fetches bodies).

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

// take reports whether uid was in a MODIFIED code since the last take, and
// forgets what was seen.
func (m *modified) take(uid imap.UID) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	in := m.set.Contains(uid)
	m.set = nil
	return in
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
