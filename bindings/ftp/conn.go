package ftp

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/jlaffaye/ftp"
)

// conn is one logged-in control connection and the data connections it
// opens. jlaffaye/ftp has no contexts, so conn dials every socket itself
// (DialWithDialFunc) and drives their deadlines: each read and write gets
// the earlier of the operation's ctx deadline and the I/O idle timeout, and
// a cancelled ctx sets a deadline in the past, which unblocks the operation
// at once. A connection whose operation was interrupted, or failed other
// than by a server reply, is broken and never reused.
type conn struct {
	sc        *ftp.ServerConn
	tls       *tls.Config
	idle      time.Duration
	dialLimit time.Duration

	mu          sync.Mutex
	socks       map[*sock]struct{}
	ctrl        *sock
	opCtx       context.Context // the running operation's ctx (for data dials)
	deadline    time.Time       // the running operation's ctx deadline
	interrupted bool

	guard *lineGuard // set while a listing runs: its data connection drops over-long lines

	broken bool      // set by do; read by the pool after do returned
	used   time.Time // when the last operation ended
	reused bool      // taken from the pool's idle list (not freshly dialled)
}

// sock is a TCP connection of a conn: its reads and writes re-arm the
// deadline.
type sock struct {
	net.Conn
	c *conn
}

func (s *sock) Read(p []byte) (int, error) {
	s.c.arm(s.Conn)
	return s.Conn.Read(p)
}

func (s *sock) Write(p []byte) (int, error) {
	s.c.arm(s.Conn)
	return s.Conn.Write(p)
}

func (s *sock) Close() error {
	s.c.mu.Lock()
	delete(s.c.socks, s)
	s.c.mu.Unlock()
	return s.Conn.Close()
}

// longAgo is a deadline in the past: set on a socket, it fails pending and
// future reads and writes.
var longAgo = time.Unix(1, 0)

func (c *conn) arm(nc net.Conn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.interrupted {
		nc.SetDeadline(longAgo)
		return
	}
	var d time.Time
	if c.idle > 0 {
		d = time.Now().Add(c.idle)
	}
	if !c.deadline.IsZero() && (d.IsZero() || c.deadline.Before(d)) {
		d = c.deadline
	}
	nc.SetDeadline(d)
}

// interrupt fails whatever the connection is blocked on.
func (c *conn) interrupt() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.interrupted = true
	for s := range c.socks {
		s.Conn.SetDeadline(longAgo)
	}
}

// dial opens the control connection (the first call) and then the data
// connections, wrapping the data connections in TLS when the control
// connection uses it (jlaffaye/ftp leaves that to the dial function).
func (c *conn) dial(network, addr string) (net.Conn, error) {
	c.mu.Lock()
	ctx, first := c.opCtx, c.ctrl == nil
	c.mu.Unlock()
	if ctx == nil {
		ctx = context.Background() // not reached: every dial happens inside an operation
	}
	d := net.Dialer{Timeout: c.dialLimit}
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	s := &sock{Conn: nc, c: c}
	c.mu.Lock()
	c.socks[s] = struct{}{}
	if first {
		c.ctrl = s
	}
	if c.interrupted {
		nc.SetDeadline(longAgo)
	}
	c.mu.Unlock()
	c.mu.Lock()
	g := c.guard
	c.mu.Unlock()
	var out net.Conn = s
	if !first && c.tls != nil {
		out = tls.Client(s, c.tls)
	}
	if !first && g != nil {
		out = &guardedConn{Conn: out, g: g}
	}
	return out, nil
}

// begin and end bracket an operation.
func (c *conn) begin(ctx context.Context) {
	c.mu.Lock()
	c.opCtx = ctx
	c.deadline, _ = ctx.Deadline()
	c.mu.Unlock()
}

func (c *conn) end() {
	c.mu.Lock()
	c.opCtx = nil
	c.deadline = time.Time{}
	c.mu.Unlock()
}

// do runs fn on the connection, bounded by ctx. An error that is not a
// server reply marks the connection broken; an interrupted operation
// returns ctx's error in the chain.
func (c *conn) do(ctx context.Context, fn func(sc *ftp.ServerConn) error) error {
	stop, err := c.start(ctx)
	if err != nil {
		return err
	}
	return c.finish(ctx, stop, fn(c.sc))
}

// start begins an operation bounded by ctx; finish ends it with the
// operation's error. Between them, ctx's end interrupts the connection.
func (c *conn) start(ctx context.Context) (stop func() bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.begin(ctx)
	return context.AfterFunc(ctx, c.interrupt), nil
}

func (c *conn) finish(ctx context.Context, stop func() bool, err error) error {
	interrupted := !stop()
	c.end()
	c.used = time.Now()
	cerr := ctx.Err()
	if dl, ok := ctx.Deadline(); ok && err != nil && cerr == nil && !c.used.Before(dl) {
		// The deadline, armed on the sockets, struck before ctx's timer.
		interrupted, cerr = true, context.DeadlineExceeded
	}
	if interrupted || (err != nil && cerr != nil) {
		c.broken = true
		if err == nil {
			return cerr
		}
		return fmt.Errorf("%w (%w)", cerr, err)
	}
	if err != nil && !onlyReplies(err) {
		c.broken = true
	}
	return err
}

// open dials and logs in, bounded by ctx and the dial timeout.
func open(ctx context.Context, addr, user, pass string, o *clientConfig) (*conn, error) {
	c := &conn{idle: o.ioTimeout, dialLimit: o.dialTimeout, socks: map[*sock]struct{}{}}
	if o.tls != nil {
		c.tls = o.tls
	}
	ctx, cancel := context.WithTimeout(ctx, o.dialTimeout)
	defer cancel()
	err := c.do(ctx, func(*ftp.ServerConn) error {
		opts := []ftp.DialOption{
			ftp.DialWithDialFunc(c.dial),
			ftp.DialWithDisabledEPSV(o.disableEPSV),
		}
		if c.tls != nil {
			opts = append(opts, ftp.DialWithExplicitTLS(c.tls))
		}
		sc, err := ftp.Dial(addr, opts...)
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		c.sc = sc
		if err := sc.Login(user, pass); err != nil {
			if code := replyCode(err); code == 530 || code == 331 || code == 332 {
				return fmt.Errorf("%w: %w", ErrLogin, err)
			}
			return fmt.Errorf("login: %w", err)
		}
		return nil
	})
	if err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

// close ends the connection: QUIT when it is healthy, then close every
// socket.
func (c *conn) close() {
	if c.sc != nil && !c.broken {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c.do(ctx, func(sc *ftp.ServerConn) error { return sc.Quit() })
		cancel()
	}
	c.mu.Lock()
	socks := make([]*sock, 0, len(c.socks))
	for s := range c.socks {
		socks = append(socks, s)
	}
	c.mu.Unlock()
	for _, s := range socks {
		s.Close()
	}
}
