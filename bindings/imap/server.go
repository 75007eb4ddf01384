package imap

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"sync"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-sasl"

	mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"
)

// Server is an embedded IMAP server for examples and tests: go-imap's
// server with its in-memory store (mail is lost when it stops). It offers
// IMAP4rev1 with IDLE, UIDPLUS and MOVE (WithoutMove takes MOVE away),
// LOGIN and AUTHENTICATE PLAIN, and AUTHENTICATE XOAUTH2 and OAUTHBEARER
// WithTokenAuth; STARTTLS WithTLS (logins without TLS are allowed only when
// it has no TLS).
type Server struct {
	srv  *imapserver.Server
	ln   net.Listener
	o    serverConfig
	done chan struct{}

	mu      sync.Mutex
	users   map[string]*memUser
	changed chan struct{} // closed and replaced when a mailbox changes
}

type memUser struct {
	u        *imapmemserver.User
	password string
}

// serverConfig is what StartServer takes.
type serverConfig struct {
	log        *slog.Logger
	tls        *tls.Config
	listenAddr string
	tokenAuth  func(ctx context.Context, user, token string) bool
	noMove     bool
	noIdle     bool
}

type serverOption func(*serverConfig)

func (f serverOption) applyServer(c *serverConfig) { f(c) }

// DefaultListenAddr is where StartServer listens: a free loopback port.
const DefaultListenAddr = "127.0.0.1:0"

// WithListenAddr is the address StartServer listens on ("host:port", port
// 0 a free port). Default DefaultListenAddr.
func WithListenAddr(addr string) ServerOption {
	return serverOption(func(c *serverConfig) { c.listenAddr = addr })
}

// WithTokenAuth makes the Server offer AUTHENTICATE XOAUTH2 and
// OAUTHBEARER and accept a login whose bearer token check approves.
func WithTokenAuth(check func(ctx context.Context, user, token string) bool) ServerOption {
	return serverOption(func(c *serverConfig) { c.tokenAuth = check })
}

// WithoutMove makes the Server act as one without MOVE (RFC 6851): it does
// not offer it and refuses the command, so a Receiver claims by COPY,
// STORE \Deleted and UID EXPUNGE.
func WithoutMove() ServerOption {
	return serverOption(func(c *serverConfig) { c.noMove = true })
}

// WithoutIdle makes the Server act as one without IDLE (RFC 2177): it does
// not offer it, so a Receiver polls (WithPollInterval).
func WithoutIdle() ServerOption {
	return serverOption(func(c *serverConfig) { c.noIdle = true })
}

// StartServer starts an embedded IMAP server on WithListenAddr and returns
// it serving. Add its users with AddUser; Close stops it.
func StartServer(opts ...ServerOption) (*Server, error) {
	c := serverConfig{listenAddr: DefaultListenAddr}
	for _, o := range opts {
		o.applyServer(&c)
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	ln, err := net.Listen("tcp", c.listenAddr)
	if err != nil {
		return nil, fmt.Errorf("imap: listen %s: %w", c.listenAddr, err)
	}
	s := &Server{ln: ln, o: c, done: make(chan struct{}), users: map[string]*memUser{}, changed: make(chan struct{})}
	caps := imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapUIDPlus: {}, imap.CapNamespace: {}}
	if !c.noMove {
		caps[imap.CapMove] = struct{}{}
	}
	s.srv = imapserver.New(&imapserver.Options{
		NewSession: func(conn *imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			sess := &memSession{srv: s}
			if c.noMove {
				return struct{ saslSession }{sess}, nil, nil
			}
			return sess, nil, nil
		},
		Caps:         caps,
		Logger:       slogPrintf{c.log},
		TLSConfig:    c.tls,
		InsecureAuth: c.tls == nil,
	})
	var served net.Listener = ln
	if c.noIdle {
		served = noIdleListener{ln}
	}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(served); err != nil {
			c.log.Error("imap: server stopped", slog.Any("err", err))
		}
	}()
	return s, nil
}

// Addr is the address the Server listens on ("127.0.0.1:port").
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the imap:// address of user's folder on the Server.
func (s *Server) URL(user, folder string) string {
	u := url.URL{Scheme: "imap", Host: s.Addr(), Path: "/" + folder}
	if user != "" {
		u.User = url.User(user)
	}
	return u.String()
}

// AddUser adds a user with an INBOX (or, for a user that exists, sets the
// password).
func (s *Server) AddUser(name, password string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u, ok := s.users[name]; ok {
		u.password = password
		return nil
	}
	u := imapmemserver.NewUser(name, password)
	if err := u.Create("INBOX", nil); err != nil {
		return err
	}
	s.users[name] = &memUser{u: u, password: password}
	return nil
}

func (s *Server) user(name string) *memUser {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.users[name]
}

// Close stops the Server: its listener and every connection.
func (s *Server) Close() error {
	err := s.srv.Close()
	<-s.done
	if errors.Is(err, net.ErrClosed) {
		err = nil
	}
	return err
}

// notify wakes the sessions that idle: a mailbox changed.
func (s *Server) notify() {
	s.mu.Lock()
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// changes returns the channel the next change closes.
func (s *Server) changes() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}

// saslSession is what a memSession offers but MOVE.
type saslSession interface {
	imapserver.SessionNamespace
	AuthenticateMechanisms() []string
	Authenticate(mech string) (sasl.Server, error)
}

// memSession is a connection's session: a user's, once logged in.
type memSession struct {
	*imapmemserver.UserSession // nil until the login
	srv                        *Server
}

var _ imapserver.SessionIMAP4rev2 = (*memSession)(nil)

func (m *memSession) Login(user, pass string) error {
	u := m.srv.user(user)
	if u == nil || u.u.Login(user, pass) != nil {
		return imapserver.ErrAuthFailed
	}
	m.UserSession = imapmemserver.NewUserSession(u.u)
	return nil
}

func (m *memSession) Close() error {
	if m.UserSession == nil {
		return nil
	}
	return m.UserSession.Close()
}

// Idle sends a mailbox's updates as they come. (imapmemserver's own Idle
// misses an update queued between the command before IDLE and IDLE
// itself: it waits for the next one. This one polls first, and again after
// every change any session makes.)
func (m *memSession) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	for {
		changed := m.srv.changes()
		if err := m.UserSession.Poll(w, true); err != nil {
			return err
		}
		select {
		case <-stop:
			return nil
		case <-changed:
		}
	}
}

// The commands that change a mailbox wake the idle sessions.

func (m *memSession) Append(mailbox string, r imap.LiteralReader, options *imap.AppendOptions) (*imap.AppendData, error) {
	defer m.srv.notify()
	return m.UserSession.Append(mailbox, r, options)
}

func (m *memSession) Copy(numSet imap.NumSet, dest string) (*imap.CopyData, error) {
	defer m.srv.notify()
	return m.UserSession.Copy(numSet, dest)
}

func (m *memSession) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	defer m.srv.notify()
	return m.UserSession.Move(w, numSet, dest)
}

func (m *memSession) Expunge(w *imapserver.ExpungeWriter, uids *imap.UIDSet) error {
	defer m.srv.notify()
	return m.UserSession.Expunge(w, uids)
}

func (m *memSession) Store(w *imapserver.FetchWriter, numSet imap.NumSet, flags *imap.StoreFlags, options *imap.StoreOptions) error {
	defer m.srv.notify()
	return m.UserSession.Store(w, numSet, flags, options)
}

func (m *memSession) AuthenticateMechanisms() []string {
	mechs := []string{sasl.Plain}
	if m.srv.o.tokenAuth != nil {
		mechs = append(mechs, mailfmt.MechOAuthBearer, mailfmt.MechXOAuth2)
	}
	return mechs
}

func (m *memSession) Authenticate(mech string) (sasl.Server, error) {
	switch {
	case strings.EqualFold(mech, sasl.Plain):
		return sasl.NewPlainServer(func(identity, user, pass string) error {
			if identity != "" && identity != user {
				return imapserver.ErrAuthFailed
			}
			return m.Login(user, pass)
		}), nil
	case m.srv.o.tokenAuth != nil && (strings.EqualFold(mech, mailfmt.MechOAuthBearer) || strings.EqualFold(mech, mailfmt.MechXOAuth2)):
		return &tokenServer{m: m, mech: strings.ToUpper(mech)}, nil
	}
	return nil, &imap.Error{Type: imap.StatusResponseTypeNo, Text: "unsupported mechanism"}
}

// tokenServer is the server side of XOAUTH2 and OAUTHBEARER: one response,
// checked by WithTokenAuth.
type tokenServer struct {
	m    *memSession
	mech string
}

func (t *tokenServer) Next(resp []byte) ([]byte, bool, error) {
	if resp == nil {
		return []byte{}, false, nil // ask for the initial response
	}
	user, token, ok := mailfmt.ParseOAuthResponse(t.mech, resp)
	u := t.m.srv.user(user)
	if !ok || u == nil || !t.m.srv.o.tokenAuth(context.Background(), user, token) {
		return nil, true, imapserver.ErrAuthFailed
	}
	t.m.UserSession = imapmemserver.NewUserSession(u.u)
	return nil, true, nil
}

// slogPrintf is go-imap's server Logger on a slog.Logger.
type slogPrintf struct{ l *slog.Logger }

func (p slogPrintf) Printf(format string, args ...any) {
	p.l.Warn("imap: server: " + fmt.Sprintf(format, args...))
}

// noIdleListener hides IDLE from the capabilities the server sends.
type noIdleListener struct{ net.Listener }

func (l noIdleListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return noIdleConn{c}, nil
}

type noIdleConn struct{ net.Conn }

func (c noIdleConn) Write(p []byte) (int, error) {
	s := string(p)
	if strings.Contains(s, "CAPABILITY") && strings.Contains(s, " IDLE") {
		s = strings.ReplaceAll(s, " IDLE", "")
		if _, err := c.Conn.Write([]byte(s)); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}
