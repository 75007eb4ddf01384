package ftp

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	server "goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"
)

// Server is an FTP server embedded in the process (goftp.io/server/v2)
// serving a folder on disk to one user, for tests, examples and small
// setups. It listens on loopback by default. With WithTLS it offers
// explicit FTPS (AUTH TLS).
//
// Its data connections are passive only (EPSV, PASV; no active mode), on
// the IP the server listens on, from the control connection's IP only,
// each waited for at most 30 s: the server runs its own data connections
// instead of goftp's, which listen on every interface for up to a minute
// and accept the first connection that comes. It is still not meant to face
// the Internet: put a real server (vsftpd, pure-ftpd) there.
type Server struct {
	root  string
	addr  string
	ln    net.Listener   // ours: Close closes it
	srv   *server.Server // goftp
	tls   bool           // goftp serves TLS on its own listener, behind ours
	done  chan struct{}  // goftp's Serve returned
	ready chan struct{}
	log   *slog.Logger

	mu       sync.Mutex
	ctrls    map[string]*ctrlConn   // control connections, by the client address goftp sees
	open     map[io.Closer]struct{} // passive listeners and data connections
	sessions sync.WaitGroup         // control connections not yet closed by their session
	shut     bool
}

// closeWait bounds how long Close waits for goftp's sessions to end once
// their connections are closed (they end at once; this only turns a hang
// into a log line).
const closeWait = 10 * time.Second

// StartServer serves the folder root (created if missing) over FTP to user
// with password. It listens on WithListenAddr (default DefaultListenAddr, a
// free loopback port), offers FTPS WithTLS, and logs its errors, at debug
// level every command and reply, WithLogger.
func StartServer(root, user, password string, opts ...ServerOption) (*Server, error) {
	o := newServerConfig(opts)
	if user == "" {
		return nil, errors.New("ftp: start server: empty user name")
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("ftp: start server: %w", err)
	}
	fd, err := file.NewDriver(root)
	if err != nil {
		return nil, fmt.Errorf("ftp: start server: %w", err)
	}
	drv := steadyDriver{fd.(*file.Driver)}
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return nil, fmt.Errorf("ftp: start server: %w", err)
	}
	s := &Server{
		root: drv.RootPath, addr: ln.Addr().String(), log: o.log,
		done: make(chan struct{}), ready: make(chan struct{}),
		ctrls: map[string]*ctrlConn{}, open: map[io.Closer]struct{}{},
	}
	s.ln = &trackingListener{Listener: ln, s: s}
	perm := server.NewSimplePerm(user, user)
	host, _, _ := net.SplitHostPort(s.addr)
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "" // a wildcard server: passive listeners on every interface too
	}
	data := &dataCommands{s: s, drv: drv, perm: perm, host: host, tls: o.tls, log: o.log}
	base := maps.Clone(server.DefaultCommands())
	base["SIZE"] = quietSize{drv}
	so := &server.Options{
		Driver:   drv,
		Auth:     &server.SimpleAuth{Name: user, Password: password},
		Perm:     perm,
		Name:     "soapwire",
		Logger:   &logAdapter{l: o.log, ready: s.ready},
		Commands: data.commands(base),
	}
	if o.tls == nil {
		err = s.serve(so)
	} else {
		err = s.serveTLS(so, o)
	}
	if err != nil {
		ln.Close()
		return nil, fmt.Errorf("ftp: start server: %w", err)
	}
	return s, nil
}

// serve runs goftp on our listener.
func (s *Server) serve(so *server.Options) error {
	host, port, _ := net.SplitHostPort(s.addr)
	so.Hostname = host
	so.Port, _ = strconv.Atoi(port)
	srv, err := server.NewServer(so)
	if err != nil {
		return err
	}
	s.srv = srv
	go func() {
		defer close(s.done)
		if err := srv.Serve(s.ln); err != nil && !s.closing() {
			s.log.Error("ftp: embedded server stopped", slog.Any("err", err))
		}
	}()
	return nil
}

// serveTLS runs goftp with explicit FTPS on a loopback port of its own, and
// our listener forwards each control connection to it, so that Close can
// end the sessions: goftp keeps its TLS configuration only when it opens
// the listener itself (ListenAndServe), and never closes the sessions of a
// server it shuts down. goftp's port is found first, and it is shut down
// only once a session has shown that it is serving (goftp sets its listener
// without a lock).
func (s *Server) serveTLS(so *server.Options, o serverConfig) error {
	so.TLS, so.ExplicitFTPS, so.TLSConfig = true, true, o.tls
	var last error
	for range 5 {
		probe, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		inner := probe.Addr().String()
		probe.Close()
		host, port, _ := net.SplitHostPort(inner)
		so.Hostname = host
		so.Port, _ = strconv.Atoi(port)
		srv, err := server.NewServer(so)
		if err != nil {
			return err
		}
		errc := make(chan error, 1)
		go func() {
			errc <- srv.ListenAndServe()
		}()
		// Wait for the greeting of a first session: then goftp is serving.
		err = waitGreeting(inner, s.ready, errc)
		if err == nil {
			s.srv, s.tls = srv, true
			go func() {
				defer close(s.done)
				if err := <-errc; err != nil && !errors.Is(err, server.ErrServerClosed) && !s.closing() {
					s.log.Error("ftp: embedded server stopped", slog.Any("err", err))
				}
			}()
			go s.forward(inner)
			return nil
		}
		last = err
	}
	return last
}

// forward hands each connection to our listener on to goftp at inner.
func (s *Server) forward(inner string) {
	for {
		c, err := s.ln.Accept()
		if err != nil {
			if !s.closing() {
				s.log.Error("ftp: embedded server stopped", slog.Any("err", err))
			}
			return
		}
		go c.(*ctrlConn).relay(inner)
	}
}

// Addr returns the host:port the server listens on.
func (s *Server) Addr() string { return s.addr }

// Root returns the absolute path of the folder the server serves.
func (s *Server) Root() string { return s.root }

// URL returns the ftp:// address of a folder on the server.
func (s *Server) URL(dir string) string {
	d, err := cleanDir(dir)
	if err != nil {
		d = "/"
	}
	return Address{Host: s.Addr(), Dir: d}.String()
}

// Close stops listening, closes every control connection, passive listener
// and data connection, and waits for goftp's sessions to end (a session
// waiting for a data connection, or in a transfer, ends at once) and for
// the server to stop.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.shut {
		s.mu.Unlock()
		<-s.done
		return nil
	}
	s.shut = true
	var closers []io.Closer
	for _, c := range s.ctrls {
		closers = append(closers, c.conns()...)
	}
	for c := range s.open {
		closers = append(closers, c)
	}
	s.mu.Unlock()
	err := s.ln.Close()
	if s.tls {
		if serr := s.srv.Shutdown(); err == nil {
			err = serr
		}
	}
	for _, c := range closers {
		c.Close()
	}
	<-s.done
	ended := make(chan struct{})
	go func() {
		s.sessions.Wait()
		close(ended)
	}()
	select {
	case <-ended:
	case <-time.After(closeWait):
		s.log.Warn("ftp: embedded server: sessions still running after Close")
	}
	return err
}

func (s *Server) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shut
}

// track adds a passive listener or data connection to what Close closes;
// false once the server is closed.
func (s *Server) track(c io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shut {
		return false
	}
	s.open[c] = struct{}{}
	return true
}

func (s *Server) untrack(c io.Closer) {
	s.mu.Lock()
	delete(s.open, c)
	s.mu.Unlock()
}

// ctrlFor returns the control connection goftp sees coming from addr.
func (s *Server) ctrlFor(addr string) *ctrlConn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctrls[addr]
}

// waitGreeting connects to addr until a session greets (ready closes), the
// server fails (errc) or 5 s pass.
func waitGreeting(addr string, ready <-chan struct{}, errc chan error) error {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-errc:
			return err
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		select {
		case <-ready:
			c.Close()
			return nil
		case err := <-errc:
			c.Close()
			return err
		case <-time.After(time.Until(deadline)):
			c.Close()
		}
	}
	return errors.New("the server did not greet")
}

// trackingListener makes a ctrlConn of each control connection.
type trackingListener struct {
	net.Listener
	s *Server
}

func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.s.mu.Lock()
	defer l.s.mu.Unlock()
	if l.s.shut {
		c.Close()
		return nil, net.ErrClosed
	}
	cc := &ctrlConn{Conn: c, s: l.s, client: c.RemoteAddr(), local: c.LocalAddr(), key: c.RemoteAddr().String()}
	l.s.ctrls[cc.key] = cc
	l.s.sessions.Add(1)
	return cc, nil
}

// ctrlConn is a control connection: goftp's own (closed by its session when
// it ends), or with TLS the client's, relayed to goftp's listener.
type ctrlConn struct {
	net.Conn
	s      *Server
	client net.Addr // the client's address
	local  net.Addr // the server's address the client reached
	key    string   // the client's address as goftp sees it

	mu    sync.Mutex
	inner net.Conn     // with TLS: the connection to goftp
	st    *dataSession // the session's data state
	once  sync.Once
}

// Close is the session's end: its passive listener goes too.
func (c *ctrlConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.s.mu.Lock()
		if c.s.ctrls[c.key] == c {
			delete(c.s.ctrls, c.key)
		}
		c.s.mu.Unlock()
		c.mu.Lock()
		st := c.st
		c.mu.Unlock()
		if st != nil {
			if pl := st.take(); pl != nil {
				pl.Close()
			}
		}
		c.s.sessions.Done()
	})
	return err
}

// conns are the connections Server.Close closes: not through Close, so that
// the session still ends itself.
func (c *ctrlConn) conns() []io.Closer {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inner != nil {
		return []io.Closer{c.Conn, c.inner}
	}
	return []io.Closer{c.Conn}
}

// attach links the session's data state.
func (c *ctrlConn) attach(st *dataSession) {
	c.mu.Lock()
	c.st = st
	c.mu.Unlock()
}

// relay copies between the client and goftp (TLS) until either side ends,
// then ends the session.
func (c *ctrlConn) relay(inner string) {
	defer c.Close()
	ic, err := net.DialTimeout("tcp", inner, 10*time.Second)
	if err != nil {
		c.s.log.Error("ftp: embedded server: relay", slog.Any("err", err))
		return
	}
	c.s.mu.Lock()
	delete(c.s.ctrls, c.key)
	c.key = ic.LocalAddr().String()
	c.s.ctrls[c.key] = c
	shut := c.s.shut
	c.s.mu.Unlock()
	c.mu.Lock()
	c.inner = ic
	c.mu.Unlock()
	if shut {
		ic.Close()
		return
	}
	defer ic.Close()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = io.Copy(ic, c.Conn)
		ic.Close()
	}()
	_, _ = io.Copy(c.Conn, ic)
	c.Conn.Close()
	<-done
}

// quietSize is goftp's SIZE without its write to the standard logger for a
// missing file (the Poller asks SIZE to find a free name), and with the
// usual 550 reply for it.
type quietSize struct{ drv server.Driver }

func (quietSize) IsExtend() bool     { return false }
func (quietSize) RequireParam() bool { return true }
func (quietSize) RequireAuth() bool  { return true }

func (q quietSize) Execute(sess *server.Session, param string) {
	st, err := q.drv.Stat(&server.Context{Sess: sess, Cmd: "SIZE", Param: param}, sess.BuildPath(param))
	if err != nil || st.IsDir() {
		sess.WriteMessage(550, "No such file")
		return
	}
	sess.WriteMessage(213, strconv.FormatInt(st.Size(), 10))
}

// logAdapter sends goftp's log to a slog.Logger. Its first reply line
// closes ready: a session is running, so goftp's Serve has set up.
type logAdapter struct {
	l     *slog.Logger
	ready chan struct{}
	once  sync.Once
}

func (a *logAdapter) Print(id string, msg any) {
	a.l.Debug("ftp server", slog.String("session", id), slog.Any("msg", msg))
}

func (a *logAdapter) Printf(id string, format string, v ...any) {
	a.l.Debug("ftp server", slog.String("session", id), slog.String("msg", fmt.Sprintf(format, v...)))
}

func (a *logAdapter) PrintCommand(id, cmd, params string) {
	if cmd == "PASS" {
		params = "****"
	}
	a.l.Debug("ftp server command", slog.String("session", id), slog.String("cmd", cmd), slog.String("params", params))
}

func (a *logAdapter) PrintResponse(id string, code int, msg string) {
	a.once.Do(func() { close(a.ready) })
	a.l.Debug("ftp server reply", slog.String("session", id), slog.Int("code", code), slog.String("msg", msg))
}
