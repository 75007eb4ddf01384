package sftp

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"time"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"
)

// Bounds of the embedded server.
const (
	handshakeTimeout = 10 * time.Second // connect to logged in
	maxConns         = 64               // connections at once; more are closed
)

// Server is an embedded SFTP server: one folder served to one user over
// SSH on loopback (by default), for tests, examples and small trusted
// setups. It speaks only SFTP (the "sftp" subsystem): no shell, no command,
// no port forwarding. Every path is confined to its folder (os.Root): a
// symbolic link that leads out of it is refused. Put OpenSSH in front of
// untrusted networks.
type Server struct {
	ln   net.Listener
	root string
	user string
	key  ssh.Signer
	cfg  *ssh.ServerConfig
	h    *handlers
	log  *slog.Logger

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// StartServer serves the folder root (which must exist) to user over SFTP,
// with the password (WithPassword) and the keys (WithAuthorizedKey) it is
// given (at least one), listening on a free loopback port by default
// (WithListenAddr). Its host key is a fresh Ed25519 key unless
// WithServerKey sets one; HostKey returns it, for clients to pin.
func StartServer(root, user string, opts ...ServerOption) (*Server, error) {
	o := newServerConfig(opts)
	if o.password == nil && len(o.authorized) == 0 {
		return nil, errors.New("sftp server: no password and no authorized key: nobody could log in")
	}
	h, err := newHandlers(root)
	if err != nil {
		return nil, fmt.Errorf("sftp server: %w", err)
	}
	key := o.hostKey
	if key == nil {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		if key, err = ssh.NewSignerFromKey(priv); err != nil {
			return nil, err
		}
	}
	cfg := &ssh.ServerConfig{MaxAuthTries: 6}
	if o.password != nil {
		want := []byte(*o.password)
		cfg.PasswordCallback = func(c ssh.ConnMetadata, pass []byte) (*ssh.Permissions, error) {
			okUser := subtle.ConstantTimeCompare([]byte(c.User()), []byte(user))
			okPass := subtle.ConstantTimeCompare(pass, want)
			if okUser&okPass == 1 {
				return nil, nil
			}
			return nil, errors.New("wrong user or password")
		}
	}
	if len(o.authorized) > 0 {
		keys := o.authorized
		cfg.PublicKeyCallback = func(c ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
			if c.User() == user {
				for _, a := range keys {
					if subtle.ConstantTimeCompare(a.Marshal(), k.Marshal()) == 1 {
						return nil, nil
					}
				}
			}
			return nil, errors.New("key not authorized")
		}
	}
	cfg.AddHostKey(key)
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		h.root.Close()
		return nil, fmt.Errorf("sftp server: %w", err)
	}
	h.trace = func(method, path, target string, err error) {
		o.log.Debug("sftp server: "+method, slog.String("path", path), slog.String("target", target), slog.Any("err", err))
	}
	s := &Server{ln: ln, root: h.root.Name(), user: user, key: key, cfg: cfg, h: h, log: o.log, conns: map[net.Conn]struct{}{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Addr returns the host:port the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Root returns the folder the server serves.
func (s *Server) Root() string { return s.root }

// HostKey returns the server's host key (for WithHostKey).
func (s *Server) HostKey() ssh.PublicKey { return s.key.PublicKey() }

// URL returns the sftp:// address of a folder on the server, for its user.
func (s *Server) URL(dir string) string {
	return Address{User: s.user, Host: s.Addr(), Dir: dir}.String()
}

// Close stops listening, closes every connection and waits for them to
// end.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	err := s.ln.Close()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.h.root.Close()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed || len(s.conns) >= maxConns {
			s.mu.Unlock()
			s.log.Warn("sftp server: connection refused (closed, or too many)", slog.String("from", c.RemoteAddr().String()))
			c.Close()
			continue
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				c.Close()
			}()
			s.serve(c)
		}()
	}
}

// serve runs one SSH connection: the handshake within its deadline, then
// SFTP sessions; everything else is refused.
func (s *Server) serve(c net.Conn) {
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	sc, chans, reqs, err := ssh.NewServerConn(c, s.cfg)
	if err != nil {
		s.log.Info("sftp server: handshake failed", slog.String("from", c.RemoteAddr().String()), slog.Any("err", err))
		return
	}
	defer sc.Close()
	c.SetDeadline(time.Time{})
	go ssh.DiscardRequests(reqs) // keepalives are answered (false), forwarding refused
	var sessions sync.WaitGroup
	defer sessions.Wait()
	for nc := range chans {
		if nc.ChannelType() != "session" {
			nc.Reject(ssh.UnknownChannelType, "only SFTP sessions")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			continue
		}
		sessions.Add(1)
		go func() {
			defer sessions.Done()
			defer ch.Close()
			for req := range creqs {
				if req.Type == "subsystem" && len(req.Payload) >= 4 && string(req.Payload[4:]) == "sftp" {
					req.Reply(true, nil)
					go ssh.DiscardRequests(creqs)
					rs := sftp.NewRequestServer(ch, sftp.Handlers{FileGet: s.h, FilePut: s.h, FileCmd: s.h, FileList: s.h})
					if err := rs.Serve(); err != nil && !errors.Is(err, context.Canceled) {
						s.log.Debug("sftp server: session ended", slog.Any("err", err))
					}
					rs.Close()
					return
				}
				req.Reply(false, nil) // no shell, exec, pty or env
			}
		}()
	}
}
