package smtp

import (
	"errors"
	"net"
	"sync"
	"time"
)

// capConn is a net.Conn whose deadlines are capped: whatever deadline its
// user (go-smtp, crypto/tls) sets, the read and write caps win when they
// are earlier. The server caps a session's life and cuts idle sessions at
// shutdown with it; the Sender makes a ctx deadline or cancellation reach
// its I/O with it.
//
// With idle set (WithIOTimeout), every read and every write of up to
// idleChunk bytes first moves its deadline idle from now: the connection
// may stay silent that long, however long the whole transfer takes.
type capConn struct {
	net.Conn
	idle time.Duration // 0: no idle deadline of its own

	mu         sync.Mutex
	rd, wd     time.Time // deadlines the conn's user asked for
	rcap, wcap time.Time // caps; zero: none

	closeOnce sync.Once
	onClose   func()

	// server sessions only
	inData  bool
	closing bool
	budget  *turnBudget // the pace a client's input must keep (WithMinDataRate)

	// coalesce (server sessions): writes are buffered until the next
	// Read, Close or a full buffer, so the replies to pipelined commands
	// (RFC 2920) leave in one write: go-smtp's server flushes each reply
	// line by itself. A reply is never held while the server waits for
	// input: a Read sends what is buffered first.
	coalesce bool
	wmu      sync.Mutex
	wbuf     []byte
	werr     error
	wrote    bool // written since the last Read: the client's next input is a new turn
}

// maxCoalesce bounds the bytes a server session buffers before it writes.
const maxCoalesce = 16 << 10

// idleChunk is the most a write sends under one idle deadline.
const idleChunk = 64 << 10

func (c *capConn) Write(p []byte) (int, error) {
	if !c.coalesce {
		return c.write(p)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return 0, c.werr
	}
	c.wrote = true
	if len(c.wbuf)+len(p) > maxCoalesce {
		if err := c.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > maxCoalesce {
			return c.write(p)
		}
	}
	c.wbuf = append(c.wbuf, p...)
	return len(p), nil
}

// flushLocked writes what is buffered; an error stays for the later
// writes and reads.
func (c *capConn) flushLocked() error {
	if c.werr != nil || len(c.wbuf) == 0 {
		return c.werr
	}
	_, c.werr = c.write(c.wbuf)
	c.wbuf = c.wbuf[:0]
	return c.werr
}

// write writes p to the connection, renewing the idle deadline for each
// idleChunk bytes.
func (c *capConn) write(p []byte) (int, error) {
	if c.idle <= 0 {
		return c.Conn.Write(p)
	}
	n := 0
	for len(p) > 0 {
		k := min(len(p), idleChunk)
		c.renew(false)
		m, err := c.Conn.Write(p[:k])
		n += m
		if err != nil {
			return n, err
		}
		p = p[k:]
	}
	return n, nil
}

// renew moves the read (or write) deadline idle from now, within the cap.
func (c *capConn) renew(read bool) {
	t := time.Now().Add(c.idle)
	c.mu.Lock()
	defer c.mu.Unlock()
	if read {
		c.rd = t
		c.Conn.SetReadDeadline(earliest(c.rd, c.rcap))
	} else {
		c.wd = t
		c.Conn.SetWriteDeadline(earliest(c.wd, c.wcap))
	}
}

func (c *capConn) Read(p []byte) (int, error) {
	replied := false
	if c.coalesce {
		c.wmu.Lock()
		replied, c.wrote = c.wrote, false
		err := c.flushLocked()
		c.wmu.Unlock()
		if err != nil {
			return 0, err
		}
	}
	if c.budget != nil {
		return c.budgetRead(p, replied)
	}
	if c.idle > 0 {
		c.renew(true)
	}
	return c.Conn.Read(p)
}

func newCapConn(c net.Conn) *capConn { return &capConn{Conn: c} }

func earliest(t, limit time.Time) time.Time {
	if limit.IsZero() || (!t.IsZero() && t.Before(limit)) {
		return t
	}
	return limit
}

func (c *capConn) applyLocked() error {
	err := c.Conn.SetReadDeadline(earliest(c.rd, c.rcap))
	if werr := c.Conn.SetWriteDeadline(earliest(c.wd, c.wcap)); err == nil {
		err = werr
	}
	return err
}

func (c *capConn) SetDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd, c.wd = t, t
	return c.applyLocked()
}

func (c *capConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rd = t
	return c.Conn.SetReadDeadline(earliest(c.rd, c.rcap))
}

func (c *capConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wd = t
	return c.Conn.SetWriteDeadline(earliest(c.wd, c.wcap))
}

// setCaps sets both caps (zero removes them).
func (c *capConn) setCaps(r, w time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rcap, c.wcap = r, w
	c.applyLocked()
}

func (c *capConn) Close() error {
	// What is buffered goes first (a 421), unless another goroutine is
	// writing: closing is what stops a write that blocks.
	if c.coalesce && c.wmu.TryLock() {
		c.flushLocked()
		c.werr = net.ErrClosed
		c.wmu.Unlock()
	}
	err := c.Conn.Close()
	c.closeOnce.Do(func() {
		if c.onClose != nil {
			c.onClose()
		}
	})
	return err
}

// setInData marks a server session as receiving a mail's data, which a
// shutdown lets finish. When it ends during a shutdown, the next read is cut
// (the reply to the data is still written).
func (c *capConn) setInData(v bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.inData = v
	if !v && c.closing {
		c.rcap = time.Unix(1, 0)
		c.applyLocked()
	}
}

// shutdown cuts the session's next (or current) read unless it is receiving
// a mail's data; go-smtp then answers 421 and closes.
func (c *capConn) shutdown() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
	if !c.inData {
		c.rcap = time.Unix(1, 0)
		c.applyLocked()
	}
}

// sessions is a listener that bounds the server's concurrent sessions, and
// those of one address, the life and pace of each (turnBudget), and can cut
// them all for a shutdown.
type sessions struct {
	net.Listener
	max   int
	perIP int // sessions of one address (ipKey); <= 0: no bound but max
	life  time.Duration
	idle  time.Duration // each session's WithIOTimeout
	grace time.Duration // WithMinDataRate's
	rate  int64
	busy  func(c net.Conn, fromOne bool)                  // answers a connection beyond max (or perIP)
	slow  func(c net.Conn, got int64, took time.Duration) // a session cut by its budget

	mu    sync.Mutex
	conns map[*capConn]struct{}
	byIP  map[string]int
	down  bool

	closeOnce sync.Once
}

// Close closes the listener once; later calls return nil (Serve closes it,
// then go-smtp's Shutdown closes it again).
func (s *sessions) Close() error {
	err := net.ErrClosed
	s.closeOnce.Do(func() { err = s.Listener.Close() })
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

func (s *sessions) Accept() (net.Conn, error) {
	for {
		c, err := s.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := ipKey(c.RemoteAddr())
		s.mu.Lock()
		if s.down || (s.max > 0 && len(s.conns) >= s.max) {
			s.mu.Unlock()
			go s.busy(c, false)
			continue
		}
		if s.perIP > 0 && s.byIP[key] >= s.perIP {
			s.mu.Unlock()
			go s.busy(c, true)
			continue
		}
		cc := newCapConn(c)
		cc.coalesce = true
		cc.idle = s.idle
		if s.idle > 0 {
			cc.budget = &turnBudget{idle: s.idle, grace: s.grace, rate: s.rate}
			if s.slow != nil {
				cc.budget.onCut = func(got int64, took time.Duration) { s.slow(c, got, took) }
			}
		}
		s.conns[cc] = struct{}{}
		s.byIP[key]++
		cc.onClose = func() {
			s.mu.Lock()
			delete(s.conns, cc)
			if s.byIP[key]--; s.byIP[key] <= 0 {
				delete(s.byIP, key)
			}
			s.mu.Unlock()
		}
		s.mu.Unlock()
		if s.life > 0 {
			// Reads stop at the end of the session's life; writes have a
			// little longer, for the 421 that says so.
			end := time.Now().Add(s.life)
			cc.setCaps(end, end.Add(5*time.Second))
		}
		return cc, nil
	}
}

// shutdown refuses new sessions and cuts the idle ones.
func (s *sessions) shutdown() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = true
	for c := range s.conns {
		c.shutdown()
	}
}

// find returns the capConn under c (a *tls.Conn after STARTTLS).
func findCapConn(c net.Conn) *capConn {
	for range 4 {
		switch v := c.(type) {
		case *capConn:
			return v
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return nil
		}
	}
	return nil
}
