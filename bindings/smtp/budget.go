package smtp

import (
	"errors"
	"net"
	"net/netip"
	"os"
	"time"

	"github.com/soapwire/soapwire/bindings/internal/ratelog"
)

// The server's session budget. A client's input comes in turns: each time
// the server has answered (a reply written), the client has WithIOTimeout
// to send its first byte, and from that byte on its input must keep a
// minimum pace, WithMinDataRate's: by time grace+n/rate after the first
// byte it must have sent n bytes more. A command line or a mail sent at
// any sensible speed never comes near it; a client dripping a byte at a
// time is cut within grace (plus the idle wait for its first byte), however
// often it drips, and a cut session reads nothing more: go-smtp answers 421
// 4.4.2 and closes it. Besides, WithSessionTimeout bounds a session's whole
// life and WithMaxSessionsPerIP the sessions one address holds.

// turnBudget is the pace a server session's client must keep; its state is
// the reading goroutine's.
type turnBudget struct {
	idle  time.Duration                       // for the first byte of a turn
	grace time.Duration                       // from the first byte, before the rate counts
	rate  int64                               // bytes per second after grace; <= 0: grace bounds the turn
	onCut func(got int64, took time.Duration) // a turn's deadline passed

	start, first time.Time // the turn's start and its first byte; first zero: none yet
	last         time.Time // the last byte read
	got          int64     // bytes read in the turn
	cut          bool      // a deadline passed: the session reads nothing more
}

// deadline is when the turn's input must have come by.
func (b *turnBudget) deadline() time.Time {
	if b.first.IsZero() {
		return b.start.Add(b.idle)
	}
	if b.grace <= 0 && b.rate <= 0 {
		// no pace rule: each byte may come up to idle after the last
		return b.last.Add(b.idle)
	}
	allowed := b.grace
	if b.rate > 0 {
		allowed += time.Duration(b.got * int64(time.Second) / b.rate)
	}
	return b.first.Add(allowed)
}

// budgetRead is Read for a server session with a budget; replied says the
// server wrote since the last read (a new turn).
func (c *capConn) budgetRead(p []byte, replied bool) (int, error) {
	b := c.budget
	if b.cut {
		return 0, os.ErrDeadlineExceeded
	}
	if replied || b.start.IsZero() {
		b.start, b.first, b.got = time.Now(), time.Time{}, 0
	}
	dl := b.deadline()
	c.mu.Lock()
	c.rd = dl
	c.Conn.SetReadDeadline(earliest(c.rd, c.rcap))
	c.mu.Unlock()
	n, err := c.Conn.Read(p)
	if n > 0 {
		b.last = time.Now()
		if b.first.IsZero() {
			b.first = b.last
		}
		b.got += int64(n)
	}
	var ne net.Error
	if err != nil && errors.As(err, &ne) && ne.Timeout() {
		b.cut = true
		c.mu.Lock()
		ours := c.rcap.IsZero() || !c.rcap.Before(dl) // not the session's life or a shutdown
		c.mu.Unlock()
		if b.onCut != nil && ours {
			took := time.Since(b.start)
			if !b.first.IsZero() {
				took = time.Since(b.first)
			}
			b.onCut(b.got, took)
		}
	}
	return n, err
}

// ipKey is what the per-address session cap counts by: an IPv4 address,
// or the /64 an IPv6 address is in (one host's share of addresses).
func ipKey(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		if p, err := ip.Prefix(64); err == nil {
			return p.String()
		}
	}
	return ip.String()
}

// DefaultLogInterval is the least time between two log lines of one kind
// of refusal (too many sessions, too many from one address, too slow; a
// refused AUTH, MAIL, RCPT or mail): the first is written at once, those
// that follow within the interval as one line when it is up, with their
// number ("count") and the details of the last.
const DefaultLogInterval = ratelog.DefaultInterval
