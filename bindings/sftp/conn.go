package sftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// conn is one SSH connection with its SFTP session.
type conn struct {
	tc    *timedConn
	ssh   *ssh.Client
	sftp  *sftp.Client
	pw    *packetWriter // the SFTP session's input (pipeline.go)
	posix bool          // the server has posix-rename@openssh.com

	broken atomic.Bool
	used   time.Time // when the last operation ended
	reused bool      // taken from the pool's idle list
	stop   chan struct{}
	once   sync.Once
}

// timedConn is the TCP connection under SSH. While an operation runs, the
// server may stay silent for at most idle: every byte it sends puts the
// read deadline off again. An idle connection has no read deadline (its
// keepalives watch it).
type timedConn struct {
	net.Conn
	idle time.Duration
	mu   sync.Mutex
	busy int
}

func (c *timedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if c.busy > 0 {
			c.Conn.SetReadDeadline(time.Now().Add(c.idle))
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *timedConn) Write(p []byte) (int, error) {
	c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	return c.Conn.Write(p)
}

func (c *timedConn) begin() {
	c.mu.Lock()
	c.busy++
	c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	c.mu.Unlock()
}

func (c *timedConn) end() {
	c.mu.Lock()
	c.busy--
	if c.busy == 0 {
		c.Conn.SetReadDeadline(time.Time{})
	}
	c.mu.Unlock()
}

// dial connects, checks the host key, logs in and starts SFTP, bounded by
// ctx and the dial timeout.
func dial(ctx context.Context, addr, user string, o *clientConfig, log func(string, ...any)) (*conn, error) {
	ctx, cancel := context.WithTimeout(ctx, o.dialTimeout)
	defer cancel()
	d := net.Dialer{}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	stop := context.AfterFunc(ctx, func() { nc.Close() })
	tc := &timedConn{Conn: nc, idle: o.ioTimeout}
	check, algos := o.hostKeyCallback()
	var auth []ssh.AuthMethod
	if len(o.signers) > 0 {
		auth = append(auth, ssh.PublicKeys(o.signers...))
	}
	if o.password != nil {
		auth = append(auth, ssh.Password(*o.password))
	}
	cfg := &ssh.ClientConfig{User: user, Auth: auth, HostKeyCallback: check, HostKeyAlgorithms: algos, Timeout: o.dialTimeout}
	sconn, chans, reqs, err := ssh.NewClientConn(tc, addr, cfg)
	if err != nil {
		stop()
		nc.Close()
		switch {
		case errors.Is(err, ErrHostKey), errors.Is(err, ErrUnknownHost):
			return nil, err
		case strings.Contains(err.Error(), "unable to authenticate"):
			return nil, fmt.Errorf("%w: %s as %s: %v", ErrLogin, addr, user, err)
		case ctx.Err() != nil:
			return nil, fmt.Errorf("%w (%v)", ctx.Err(), err)
		}
		return nil, fmt.Errorf("ssh: %w", err)
	}
	sc := ssh.NewClient(sconn, chans, reqs)
	sf, pw, err := startSFTP(sc)
	if !stop() || err != nil {
		sc.Close()
		if err == nil {
			err = ctx.Err()
		}
		return nil, fmt.Errorf("sftp session: %w", err)
	}
	_, posix := sf.HasExtension("posix-rename@openssh.com")
	c := &conn{tc: tc, ssh: sc, sftp: sf, pw: pw, posix: posix, stop: make(chan struct{})}
	go c.keepAlive(o.keepAlive, o.dialTimeout, log)
	return c, nil
}

// startSFTP starts the SFTP subsystem on an SSH session, as
// sftp.NewClient does, with its input through a packetWriter.
func startSFTP(sc *ssh.Client) (*sftp.Client, *packetWriter, error) {
	s, err := sc.NewSession()
	if err != nil {
		return nil, nil, err
	}
	w, err := s.StdinPipe()
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	r, err := s.StdoutPipe()
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	if err := s.RequestSubsystem("sftp"); err != nil {
		s.Close()
		return nil, nil, err
	}
	pw := &packetWriter{w: w}
	sf, err := sftp.NewClientPipe(r, pw, sftp.UseConcurrentWrites(true), sftp.UseConcurrentReads(true))
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return sf, pw, nil
}

// keepAlive sends keepalive@openssh.com every interval; a server that does
// not answer within timeout has the connection closed.
func (c *conn) keepAlive(every, timeout time.Duration, log func(string, ...any)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		done := make(chan error, 1)
		go func() {
			_, _, err := c.ssh.SendRequest("keepalive@openssh.com", true, nil)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				continue
			}
			log("sftp: keepalive failed; connection dropped", "err", err)
		case <-time.After(timeout):
			log("sftp: keepalive not answered; connection dropped", "timeout", timeout)
		case <-c.stop:
			return
		}
		c.broken.Store(true)
		c.close()
		return
	}
}

// close ends the connection.
func (c *conn) close() {
	c.once.Do(func() {
		close(c.stop)
		c.ssh.Close() // first: the transport gone, every pending request fails at once
		c.sftp.Close()
	})
}

// do runs fn on the connection, bounded by ctx: when ctx ends the
// connection is closed, which fails fn at once. An error that is not the
// server's answer marks the connection broken.
func (c *conn) do(ctx context.Context, fn func(*sftp.Client) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.tc.begin()
	stop := context.AfterFunc(ctx, func() { c.broken.Store(true); c.close() })
	err := fn(c.sftp)
	interrupted := !stop()
	c.tc.end()
	c.used = time.Now()
	if interrupted {
		c.broken.Store(true)
		if err == nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w (%w)", ctx.Err(), err)
	}
	if err != nil && !serverAnswer(err) {
		c.broken.Store(true)
	}
	return err
}

// serverAnswer reports whether err is the server's answer to a request (so
// the connection is still sound).
func serverAnswer(err error) bool {
	var se *sftp.StatusError
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.As(err, &se) || errors.Is(err, io.EOF)
}
