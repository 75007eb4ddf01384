package ftp

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jlaffaye/ftp"
)

// probeAfter is how long a pooled connection may sit idle before it is
// checked with NOOP on reuse (servers drop idle sessions; vsftpd after
// 300 s by default).
const probeAfter = 15 * time.Second

// Backoff bounds for reconnecting after a failed dial or login.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 10 * time.Second
)

// Client is a pool of logged-in control connections to one FTP server,
// shared by Senders and Pollers. A connection is dialled and logged in when
// needed, kept for reuse (logging in costs a few round trips, ~10 ms
// against vsftpd), checked with NOOP after sitting idle, and dropped when
// an operation breaks it; failed dials are retried with exponential backoff
// (100 ms to 10 s) shared by every caller. Data connections are passive:
// EPSV, falling back to PASV. A Client is safe for concurrent use.
type Client struct {
	host, user, pass string
	o                clientConfig

	sem    chan struct{} // one token per connection in use
	closed chan struct{}

	mu      sync.Mutex
	idle    []*conn
	done    bool
	retryAt time.Time
	backoff time.Duration
}

// NewClient returns a Client for the server at addr (host:port), logging in
// as user with password. It connects lazily: the first operation dials.
func NewClient(addr, user, password string, opts ...ClientOption) *Client {
	o := newClientConfig(opts)
	host := addr
	if h, p, err := net.SplitHostPort(addr); err == nil {
		host = net.JoinHostPort(strings.ToLower(h), p)
	} else {
		host = net.JoinHostPort(strings.ToLower(addr), "21")
	}
	if o.tls != nil {
		cfg := o.tls.Clone()
		if cfg.ServerName == "" && !cfg.InsecureSkipVerify {
			cfg.ServerName, _, _ = net.SplitHostPort(host)
		}
		if cfg.ClientSessionCache == nil {
			cfg.ClientSessionCache = tls.NewLRUClientSessionCache(16)
		}
		o.tls = cfg
	}
	return &Client{
		host: host, user: user, pass: password, o: o,
		sem:    make(chan struct{}, o.poolSize),
		closed: make(chan struct{}),
	}
}

// Addr returns the server's host:port.
func (c *Client) Addr() string { return c.host }

// URL returns the ftp:// address of a folder on the Client's server.
func (c *Client) URL(dir string) string {
	d, err := cleanDir(dir)
	if err != nil {
		d = "/"
	}
	return Address{Host: c.host, Dir: d}.String()
}

// Dir returns the folder an ftp:// address names, when the address is on
// the Client's server; ErrAddress or ErrForeignServer otherwise.
func (c *Client) Dir(address string) (string, error) {
	a, err := ParseAddress(address)
	if err != nil {
		return "", err
	}
	if a.Host != c.host {
		return "", fmt.Errorf("%w: %s is not %s", ErrForeignServer, a.Host, c.host)
	}
	return a.Dir, nil
}

// Close closes the idle connections and makes every later operation fail
// with ErrClientClosed; connections in use close when their operation
// ends.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return nil
	}
	c.done = true
	close(c.closed)
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, cn := range idle {
		cn.close()
	}
	return nil
}

// get returns a logged-in connection, waiting for a free slot in the pool
// and for the reconnect backoff.
func (c *Client) get(ctx context.Context) (*conn, error) {
	select {
	case c.sem <- struct{}{}:
	case <-c.closed:
		return nil, ErrClientClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	cn, err := c.take(ctx)
	if err != nil {
		<-c.sem
		return nil, err
	}
	return cn, nil
}

func (c *Client) take(ctx context.Context) (*conn, error) {
	for {
		c.mu.Lock()
		if c.done {
			c.mu.Unlock()
			return nil, ErrClientClosed
		}
		var cn *conn
		if n := len(c.idle); n > 0 {
			cn = c.idle[n-1]
			c.idle = c.idle[:n-1]
		}
		wait := time.Until(c.retryAt)
		c.mu.Unlock()
		if cn != nil {
			cn.reused = true
			if time.Since(cn.used) < probeAfter {
				return cn, nil
			}
			if err := cn.do(ctx, func(sc *ftp.ServerConn) error { return sc.NoOp() }); err == nil {
				return cn, nil
			} else if ctx.Err() != nil {
				cn.close()
				return nil, ctx.Err()
			}
			cn.close() // dropped by the server while idle: dial a fresh one
			continue
		}
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return nil, ctx.Err()
			case <-c.closed:
				t.Stop()
				return nil, ErrClientClosed
			}
		}
		cn, err := open(ctx, c.host, c.user, c.pass, &c.o)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			c.mu.Lock()
			c.backoff = min(max(2*c.backoff, minBackoff), maxBackoff)
			c.retryAt = time.Now().Add(c.backoff)
			b := c.backoff
			c.mu.Unlock()
			c.o.log.WarnContext(ctx, "ftp: connect failed", slog.String("server", c.host), slog.Any("err", err), slog.Duration("retry_in", b))
			return nil, fmt.Errorf("ftp: %s: %w", c.host, err)
		}
		c.mu.Lock()
		c.backoff, c.retryAt = 0, time.Time{}
		c.mu.Unlock()
		return cn, nil
	}
}

// put returns a connection to the pool, or closes it when it is broken or
// the Client is closed.
func (c *Client) put(cn *conn) {
	defer func() { <-c.sem }()
	c.mu.Lock()
	if cn.broken || c.done {
		c.mu.Unlock()
		cn.close()
		return
	}
	c.idle = append(c.idle, cn)
	c.mu.Unlock()
}

// do runs fn on a pooled connection. When fn may be run twice (an
// operation that changes nothing, or one that failed before changing
// anything) and a connection reused from the pool broke under it (the
// server dropped it, or restarted), the other idle connections are dropped
// too and fn runs once more on a fresh one.
func (c *Client) do(ctx context.Context, fn func(sc *ftp.ServerConn) error) error {
	return c.retry(ctx, func() bool { return true }, func(cn *conn) error { return fn(cn.sc) })
}

// once runs fn on a pooled connection, never twice.
func (c *Client) once(ctx context.Context, fn func(sc *ftp.ServerConn) error) error {
	return c.retry(ctx, func() bool { return false }, func(cn *conn) error { return fn(cn.sc) })
}

// retry runs fn, and once more on a fresh connection when a reused one
// broke and again reports that nothing was changed yet.
func (c *Client) retry(ctx context.Context, again func() bool, fn func(cn *conn) error) error {
	for attempt := 0; ; attempt++ {
		cn, err := c.get(ctx)
		if err != nil {
			return err
		}
		err = cn.do(ctx, func(*ftp.ServerConn) error { return fn(cn) })
		stale := err != nil && cn.broken && cn.reused && ctx.Err() == nil
		c.put(cn)
		if !stale || attempt > 0 || !again() {
			return err
		}
		c.dropIdle()
		c.o.log.InfoContext(ctx, "ftp: pooled connection broke; retrying on a fresh one", slog.String("server", c.host), slog.Any("err", err))
	}
}

// dropIdle closes the idle connections.
func (c *Client) dropIdle() {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, cn := range idle {
		cn.broken = true
		cn.close()
	}
}
