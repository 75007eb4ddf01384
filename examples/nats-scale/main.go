// Command nats-scale runs a SOAP service as three instances in one NATS
// queue group, on an embedded nats-server: a client sends many requests
// with many in flight, one instance drains midway, and the program prints
// how many each instance served and that no request was lost or answered
// twice. Then a JetStream durable consumer takes purchase orders that
// survive its restart: one it held when it stopped comes back to its
// successor, one sent while it was down waits in the stream, and a resent
// copy is dropped by the stream.
//
//	go run ./examples/nats-scale                 # in a new temporary folder
//	go run ./examples/nats-scale -n 5000 -c 128  # more requests, more in flight
//	go run ./examples/nats-scale -v              # with the components' logs on stderr
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
)

func main() {
	cfg := defaultConfig()
	dir := flag.String("dir", "", "the folder JetStream stores in (default: a new temporary folder)")
	flag.IntVar(&cfg.requests, "n", cfg.requests, "requests the client sends")
	flag.IntVar(&cfg.inFlight, "c", cfg.inFlight, "requests in flight at once")
	timeout := flag.Duration("timeout", 60*time.Second, "give up when the run takes longer")
	verbose := flag.Bool("v", false, "log what the binding and the server decide, on stderr")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, *timeout, fmt.Errorf("timed out after %s", *timeout))
	defer cancel()

	if *verbose {
		cfg.log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	err := func() error {
		if *dir == "" {
			d, err := os.MkdirTemp("", "soapwire-nats-scale-")
			if err != nil {
				return err
			}
			*dir = d
		}
		if err := run(ctx, os.Stdout, *dir, cfg); err != nil {
			return err
		}
		fmt.Printf("\nJetStream's files are in %s\n", *dir)
		return nil
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "nats-scale:", err)
		os.Exit(1)
	}
}

// config is what the flags change.
type config struct {
	requests int // requests the client sends in part 1
	inFlight int // of them at once
	log      *slog.Logger
}

func defaultConfig() config {
	return config{requests: 600, inFlight: 32, log: slog.New(slog.DiscardHandler)}
}

// run starts a nats-server storing JetStream in dir/nats, runs the two
// parts, writing what happens to w, and stops everything. The server's
// URL is printed as $NATS, so that the output is the same on every run
// but for the per-instance counts.
func run(ctx context.Context, w io.Writer, dir string, cfg config) (err error) {
	if cfg.requests < 3 || cfg.inFlight < 1 {
		return fmt.Errorf("need at least 3 requests and 1 in flight, not %d and %d", cfg.requests, cfg.inFlight)
	}
	w = &syncWriter{w: w} // the instances print from their own goroutines
	fmt.Fprintln(w, "== Setup ==")
	srv, err := soapnats.StartServer(filepath.Join(dir, "nats"), soapnats.WithLogger(cfg.log))
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.Close()) }()
	fmt.Fprintln(w, "nats: embedded nats-server at $NATS, JetStream storing in nats/")

	d := &demo{w: w, srv: srv, cfg: cfg}
	defer func() { err = errors.Join(err, d.closeAll()) }()
	for _, part := range []struct {
		title string
		fn    func(context.Context) error
	}{
		{"1. Three instances of a service in one queue group", d.queueGroup},
		{"2. A JetStream durable consumer restarts; the orders wait for it", d.durable},
	} {
		fmt.Fprintf(w, "\n== %s ==\n", part.title)
		if err := part.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", part.title, err)
		}
	}
	return nil
}

// demo holds what the parts share.
type demo struct {
	w   io.Writer
	srv *soapnats.Server
	cfg config

	mu    sync.Mutex
	conns []*nats.Conn // closed at the end
}

// connect opens a connection of its own, as a separate process would have.
func (d *demo) connect(name string) (*nats.Conn, error) {
	nc, err := d.srv.Connect(nats.Name(name))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d.mu.Lock()
	d.conns = append(d.conns, nc)
	d.mu.Unlock()
	return nc, nil
}

func (d *demo) closeAll() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, nc := range d.conns {
		nc.Close()
	}
	d.conns = nil
	return nil
}

// show prints an address or URL with $NATS for the server's.
func (d *demo) show(s string) string {
	return strings.Replace(s, d.srv.URL(), "$NATS", 1)
}

// syncWriter serializes prints from several goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
