package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
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

// ServerOption configures RunServer.
type ServerOption func(*serverOptions)

type serverOptions struct {
	host       string
	port       int
	maxPayload int32
	log        *slog.Logger
}

// WithHost sets the interface the server listens on (default 127.0.0.1).
func WithHost(host string) ServerOption { return func(o *serverOptions) { o.host = host } }

// WithPort sets the client port (default: a free port chosen by the
// system). Restarting a server on its old port lets clients reconnect.
func WithPort(port int) ServerOption { return func(o *serverOptions) { o.port = port } }

// WithMaxPayload sets the largest message the server accepts (default
// 1 MiB, nats-server's own default; at most 64 MiB).
func WithMaxPayload(n int32) ServerOption { return func(o *serverOptions) { o.maxPayload = n } }

// WithServerLogger logs what the server logs (notices as Info, warnings,
// errors; no debug or trace). The default discards.
func WithServerLogger(l *slog.Logger) ServerOption { return func(o *serverOptions) { o.log = l } }

// RunServer starts a server with JetStream storing its streams in
// storeDir (created if needed; "" for a temporary folder that Shutdown
// removes), and returns once it accepts connections. Start a new Server on
// the same folder and the streams, their messages and durable consumers are
// there again.
func RunServer(storeDir string, opts ...ServerOption) (*Server, error) {
	o := serverOptions{host: "127.0.0.1", port: -1}
	for _, fn := range opts {
		fn(&o)
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
		Host:       o.host,
		Port:       o.port,
		JetStream:  true,
		StoreDir:   srv.dir,
		MaxPayload: o.maxPayload,
		NoSigs:     true,
	})
	if err != nil {
		srv.cleanup()
		return nil, fmt.Errorf("nats: server: %w", err)
	}
	log := o.log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	fatal := make(chan string, 1)
	s.SetLogger(slogAdapter{l: log, fatal: fatal}, false, false)
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

// Shutdown stops the server and waits until it has stopped (JetStream's
// files are then closed); a temporary storage folder is removed.
// Shutdown is idempotent.
func (s *Server) Shutdown() {
	s.s.Shutdown()
	s.s.WaitForShutdown()
	s.cleanup()
}

func (s *Server) cleanup() {
	if s.tmp {
		os.RemoveAll(s.dir)
	}
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
// errors to RunServer.
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
