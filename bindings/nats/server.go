package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Server is a nats-server running in this process, with JetStream on and
// its storage in a folder: for examples, tests and single-machine
// deployments. The binding works the same against any NATS server or
// cluster; Server only saves starting one.
type Server struct {
	s   *server.Server
	dir string
	tmp bool
}

type serverConfig struct {
	listen     string
	maxPayload int32
	log        *slog.Logger
}

type serverOptionFunc func(*serverConfig)

func (f serverOptionFunc) applyServer(c *serverConfig) { f(c) }

// DefaultListenAddr is the address StartServer listens on: a free loopback
// port.
const DefaultListenAddr = "127.0.0.1:0"

// WithListenAddr sets the "host:port" StartServer listens on for clients
// (default DefaultListenAddr); port 0 is a free port chosen by the system.
// Restarting a server on its old port lets clients reconnect.
func WithListenAddr(addr string) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.listen = addr })
}

// WithMaxPayload sets the largest message the server accepts (default
// 1 MiB, nats-server's own default; at most 64 MiB).
func WithMaxPayload(n int32) ServerOption {
	return serverOptionFunc(func(c *serverConfig) { c.maxPayload = n })
}

// StartServer starts a server with JetStream storing its streams in
// storeDir (created if needed; "" for a temporary folder that Close
// removes), and returns once it accepts connections. Start a new Server on
// the same folder and the streams, their messages and durable consumers are
// there again. A listen address that is not "host:port" with a port number
// is an error wrapping ErrAddress.
func StartServer(storeDir string, opts ...ServerOption) (*Server, error) {
	o := serverConfig{listen: DefaultListenAddr}
	for _, fn := range opts {
		fn.applyServer(&o)
	}
	host, port, err := splitListenAddr(o.listen)
	if err != nil {
		return nil, err
	}
	srv := &Server{dir: storeDir}
	if storeDir == "" {
		dir, err := os.MkdirTemp("", "soapwire-nats-")
		if err != nil {
			return nil, fmt.Errorf("nats: server storage: %w", err)
		}
		srv.dir, srv.tmp = dir, true
	} else if err := os.MkdirAll(storeDir, 0o700); err != nil {
		return nil, fmt.Errorf("nats: server storage: %w", err)
	}
	s, err := server.NewServer(&server.Options{
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   srv.dir,
		MaxPayload: o.maxPayload,
		NoSigs:     true,
	})
	if err != nil {
		srv.cleanup()
		return nil, fmt.Errorf("nats: server: %w", err)
	}
	fatal := make(chan string, 1)
	s.SetLogger(slogAdapter{l: orDiscard(o.log), fatal: fatal}, false, false)
	go s.Start()
	if err := waitReady(s, fatal); err != nil {
		s.Shutdown()
		srv.cleanup()
		return nil, err
	}
	if !s.JetStreamEnabled() {
		s.Shutdown()
		srv.cleanup()
		return nil, errors.New("nats: server started without JetStream")
	}
	srv.s = s
	return srv, nil
}

// URL returns the URL clients connect to (nats://127.0.0.1:port).
func (s *Server) URL() string { return s.s.ClientURL() }

// StoreDir returns the folder JetStream stores in.
func (s *Server) StoreDir() string { return s.dir }

// Connect connects to the server with nats.go options.
func (s *Server) Connect(opts ...nats.Option) (*nats.Conn, error) {
	nc, err := nats.Connect(s.URL(), opts...)
	if err != nil {
		return nil, fmt.Errorf("nats: connect to %s: %w", s.URL(), err)
	}
	return nc, nil
}

// Close stops the server and waits until it has stopped (JetStream's
// files are then closed); a temporary storage folder is removed, and the
// error is that removal's. Close is idempotent.
func (s *Server) Close() error {
	s.s.Shutdown()
	s.s.WaitForShutdown()
	return s.cleanup()
}

func (s *Server) cleanup() error {
	if !s.tmp {
		return nil
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("nats: server storage: %w", err)
	}
	return nil
}

// splitListenAddr splits a WithListenAddr address into nats-server's host
// and port (-1 for a free one).
func splitListenAddr(addr string) (string, int, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%w: listen address %q: %v", ErrAddress, addr, err)
	}
	port, err := strconv.ParseUint(p, 10, 16)
	if err != nil {
		return "", 0, fmt.Errorf("%w: listen address %q: the port is not a number from 0 to 65535", ErrAddress, addr)
	}
	if port == 0 {
		return host, -1, nil
	}
	return host, int(port), nil
}

// waitReady waits until s accepts connections, or reports why it cannot
// (a fatal error such as a port in use), for up to 10 s.
func waitReady(s *server.Server, fatal <-chan string) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case msg := <-fatal:
			return fmt.Errorf("nats: server: %s", msg)
		default:
		}
		if s.ReadyForConnections(50 * time.Millisecond) {
			return nil
		}
	}
	return errors.New("nats: server did not accept connections within 10s")
}

// slogAdapter is nats-server's Logger over slog; it also hands fatal
// errors to StartServer.
type slogAdapter struct {
	l     *slog.Logger
	fatal chan<- string
}

func (a slogAdapter) log(level slog.Level, format string, v []any) {
	a.l.Log(context.Background(), level, "nats-server: "+fmt.Sprintf(format, v...))
}
func (a slogAdapter) Noticef(format string, v ...any) { a.log(slog.LevelInfo, format, v) }
func (a slogAdapter) Warnf(format string, v ...any)   { a.log(slog.LevelWarn, format, v) }
func (a slogAdapter) Fatalf(format string, v ...any) {
	a.log(slog.LevelError, format, v)
	select {
	case a.fatal <- fmt.Sprintf(format, v...):
	default:
	}
}
func (a slogAdapter) Errorf(format string, v ...any) { a.log(slog.LevelError, format, v) }
func (a slogAdapter) Debugf(format string, v ...any) { a.log(slog.LevelDebug, format, v) }
func (a slogAdapter) Tracef(format string, v ...any) { a.log(slog.LevelDebug-4, format, v) }
