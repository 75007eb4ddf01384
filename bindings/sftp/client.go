package sftp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/pkg/sftp"
)

// probeAfter is how long a pooled connection may sit idle before it is
// checked (a cheap request) on reuse.
const probeAfter = 15 * time.Second

// Backoff bounds for reconnecting after a failed dial or login.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 10 * time.Second
)

// Client is a pool of SSH connections, each with its SFTP session, to one
// server as one user, shared by Senders and Pollers. A connection is dialled
// when needed, its host key verified and its user logged in, kept for reuse,
// kept alive by keepalives, and dropped when an operation breaks it; failed
// dials are retried with exponential backoff (100 ms to 10 s) shared by
// every caller. A Client is safe for concurrent use.
type Client struct {
	host, user string
	o          clientConfig

	sem    chan struct{}
	closed chan struct{}

	mu      sync.Mutex
	idle    []*conn
	done    bool
	retryAt time.Time
	backoff time.Duration
}

// NewClient returns a Client for the server at addr (host:port, port 22
// when absent), logging in as user with the keys (WithKey) and password
// (WithPassword) given. It connects lazily: the first operation dials.
func NewClient(addr, user string, opts ...ClientOption) *Client {
	o := newClientConfig(opts)
	host := addr
	if h, p, err := net.SplitHostPort(addr); err == nil {
		host = net.JoinHostPort(strings.ToLower(h), p)
	} else {
		host = net.JoinHostPort(strings.ToLower(addr), "22")
	}
	return &Client{host: host, user: user, o: o, sem: make(chan struct{}, o.poolSize), closed: make(chan struct{})}
}

// Addr returns the server's host:port.
func (c *Client) Addr() string { return c.host }

// User returns the user the Client logs in as.
func (c *Client) User() string { return c.user }

// URL returns the sftp:// address of a folder on the Client's server.
func (c *Client) URL(dir string) string {
	return Address{User: c.user, Host: c.host, Dir: dir}.String()
}

// Dir returns the folder an sftp:// address names, when the address is on
// the Client's server and account; ErrAddress or ErrForeignServer
// otherwise.
func (c *Client) Dir(address string) (string, error) {
	a, err := ParseAddress(address)
	if err != nil {
		return "", err
	}
	if a.Host != c.host {
		return "", fmt.Errorf("%w: %s is not %s", ErrForeignServer, a.Host, c.host)
	}
	if a.User != "" && a.User != c.user {
		return "", fmt.Errorf("%w: user %s is not %s", ErrForeignServer, a.User, c.user)
	}
	return a.Dir, nil
}

// Close closes the idle connections and makes every later operation fail
// with ErrClientClosed.
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

func (c *Client) logf(msg string, args ...any) {
	c.o.log.Warn(msg, append([]any{slog.String("server", c.host)}, args...)...)
}

// get returns a connection, waiting for a free slot and the backoff.
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
			if cn.broken.Load() {
				cn.close()
				continue
			}
			cn.reused = true
			if time.Since(cn.used) < probeAfter {
				return cn, nil
			}
			if err := cn.do(ctx, func(s *sftp.Client) error { _, err := s.Getwd(); return err }); err == nil {
				return cn, nil
			} else if ctx.Err() != nil {
				cn.close()
				return nil, ctx.Err()
			}
			cn.close()
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
		cn, err := dial(ctx, c.host, c.user, &c.o, c.logf)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			c.mu.Lock()
			c.backoff = min(max(2*c.backoff, minBackoff), maxBackoff)
			c.retryAt = time.Now().Add(c.backoff)
			b := c.backoff
			c.mu.Unlock()
			c.o.log.WarnContext(ctx, "sftp: connect failed", slog.String("server", c.host), slog.Any("err", err), slog.Duration("retry_in", b))
			return nil, fmt.Errorf("sftp: %s: %w", c.host, err)
		}
		c.mu.Lock()
		c.backoff, c.retryAt = 0, time.Time{}
		c.mu.Unlock()
		cn.used = time.Now()
		return cn, nil
	}
}

// put returns a connection to the pool, or closes it when it is broken or
// the Client is closed.
func (c *Client) put(cn *conn) {
	defer func() { <-c.sem }()
	c.mu.Lock()
	if cn.broken.Load() || c.done {
		c.mu.Unlock()
		cn.close()
		return
	}
	c.idle = append(c.idle, cn)
	c.mu.Unlock()
}

// do runs fn on a pooled connection; when a reused connection broke under
// it and again() says nothing was changed yet, the other idle connections
// are dropped and fn runs once more on a fresh one.
func (c *Client) do(ctx context.Context, again func() bool, fn func(cn *conn) error) error {
	for attempt := 0; ; attempt++ {
		cn, err := c.get(ctx)
		if err != nil {
			return err
		}
		err = cn.do(ctx, func(*sftp.Client) error { return fn(cn) })
		stale := err != nil && cn.broken.Load() && cn.reused && ctx.Err() == nil
		c.put(cn)
		if !stale || attempt > 0 || !again() {
			return err
		}
		c.dropIdle()
		c.o.log.InfoContext(ctx, "sftp: pooled connection broke; retrying on a fresh one", slog.String("server", c.host), slog.Any("err", err))
	}
}

func always() bool { return true }
func never() bool  { return false }

// dropIdle closes the idle connections.
func (c *Client) dropIdle() {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, cn := range idle {
		cn.broken.Store(true)
		cn.close()
	}
}
