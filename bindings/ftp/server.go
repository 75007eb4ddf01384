package ftp

import (
	"errors"
	"fmt"
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
// It is not meant to face the Internet: goftp's passive data sockets listen
// on every interface for up to a minute and accept the first connection
// that comes. Put a real server (vsftpd, pure-ftpd) in front of untrusted
// networks.
type Server struct {
	root  string
	addr  string
	ln    net.Listener // nil with TLS (goftp owns the listener)
	srv   *server.Server
	done  chan struct{}
	ready chan struct{}

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	shut  bool
}

// StartServer serves the folder root (created if missing) over FTP to user
// with password. Options: WithListenAddr (default 127.0.0.1:0), WithTLS (the
// server's certificate), WithLogger (the server's errors, at debug level
// every command and reply).
func StartServer(root, user, password string, opts ...Option) (*Server, error) {
	o := newOptions(opts)
	if user == "" {
		return nil, errors.New("ftp: start server: empty user name")
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("ftp: start server: %w", err)
	}
	drv, err := file.NewDriver(root)
	if err != nil {
		return nil, fmt.Errorf("ftp: start server: %w", err)
	}
	s := &Server{root: drv.(*file.Driver).RootPath, done: make(chan struct{}), conns: map[net.Conn]struct{}{}, ready: make(chan struct{})}
	so := &server.Options{
		Driver: drv,
		Auth:   &server.SimpleAuth{Name: user, Password: password},
		Perm:   server.NewSimplePerm(user, user),
		Name:   "soapwire",
		Logger: &logAdapter{l: o.log, ready: s.ready},
		Commands: func() map[string]server.Command {
			cmds := maps.Clone(server.DefaultCommands())
			cmds["SIZE"] = quietSize{drv}
			return cmds
		}(),
	}
	if o.tls == nil {
		err = s.serve(so, o)
	} else {
		err = s.serveTLS(so, o)
	}
	if err != nil {
		return nil, fmt.Errorf("ftp: start server: %w", err)
	}
	return s, nil
}

// serve runs goftp on a listener of ours, which Close closes.
func (s *Server) serve(so *server.Options, o options) error {
	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	so.Hostname = host
	so.Port, _ = strconv.Atoi(port)
	srv, err := server.NewServer(so)
	if err != nil {
		ln.Close()
		return err
	}
	s.srv, s.addr = srv, ln.Addr().String()
	s.ln = &trackingListener{Listener: ln, s: s}
	go func() {
		defer close(s.done)
		if err := srv.Serve(s.ln); err != nil && !s.closing() {
			o.log.Error("ftp: embedded server stopped", slog.Any("err", err))
		}
	}()
	return nil
}

// serveTLS runs goftp with explicit FTPS. goftp keeps its TLS configuration
// only when it opens the listener itself (ListenAndServe), so the port is
// found first, and Close goes through goftp's Shutdown once a session has
// shown that the server is serving (goftp sets its listener without a lock).
func (s *Server) serveTLS(so *server.Options, o options) error {
	so.TLS, so.ExplicitFTPS, so.TLSConfig = true, true, o.tls
	var last error
	for range 5 {
		probe, err := net.Listen("tcp", o.listen)
		if err != nil {
			return err
		}
		addr := probe.Addr().String()
		probe.Close()
		host, port, _ := net.SplitHostPort(addr)
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
		err = waitGreeting(addr, s.ready, errc)
		if err == nil {
			s.srv, s.addr = srv, addr
			go func() {
				defer close(s.done)
				if err := <-errc; err != nil && !errors.Is(err, server.ErrServerClosed) && !s.closing() {
					o.log.Error("ftp: embedded server stopped", slog.Any("err", err))
				}
			}()
			return nil
		}
		last = err
		if o.listen != "127.0.0.1:0" && o.listen != "localhost:0" {
			break // a fixed port: retrying cannot help
		}
	}
	return last
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

// Close stops listening, ends every session and waits for the server to
// stop.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.shut {
		s.mu.Unlock()
		<-s.done
		return nil
	}
	s.shut = true
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	var err error
	if s.ln != nil {
		err = s.ln.Close()
	} else {
		err = s.srv.Shutdown()
	}
	for _, c := range conns {
		c.Close()
	}
	<-s.done
	return err
}

func (s *Server) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.shut
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

// trackingListener tracks the sessions' connections so Close can end them.
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
	tc := &trackedConn{Conn: c, s: l.s}
	l.s.conns[tc] = struct{}{}
	return tc, nil
}

type trackedConn struct {
	net.Conn
	s    *Server
	once sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.s.mu.Lock()
		delete(c.s.conns, c)
		c.s.mu.Unlock()
	})
	return c.Conn.Close()
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
