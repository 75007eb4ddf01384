// Command crosstransport runs one purchase-order conversation across every
// transport soapwire has, each on an embedded server started in the
// process: an order posted over HTTP is acknowledged (202) once it is
// stored in NATS JetStream; a fulfilment service takes it from there, mails
// a confirmation to the customer over SMTP (read from its IMAP mailbox,
// where the mail provider's delivery agent put it), drops a despatch
// advice in the carrier's SFTP inbox and the invoice in the customer's FTP
// folder, where the customer's document.Correlator picks it up as the
// reply to the order.
//
// It prints each hop as it happens (transport, action, message id,
// relates-to) and leaves the mailbox, the drop folders, the JetStream store
// and the conversation state in a folder it names.
//
//	go run ./examples/crosstransport            # in a new temporary folder
//	go run ./examples/crosstransport -dir out   # in ./out
//	go run ./examples/crosstransport -v         # with the components' logs on stderr
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
	"syscall"
	"time"

	"github.com/soapwire/soapwire/document"
)

func main() {
	dir := flag.String("dir", "", "the folder to run in (default: a new temporary folder)")
	timeout := flag.Duration("timeout", 45*time.Second, "give up when the conversation takes longer")
	verbose := flag.Bool("v", false, "log what the bindings and the document layer decide, on stderr")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, *timeout, fmt.Errorf("timed out after %s", *timeout))
	defer cancel()

	var opts []option
	if *verbose {
		opts = append(opts, withLogger(slog.New(slog.NewTextHandler(os.Stderr, nil))))
	}
	err := func() error {
		if *dir == "" {
			d, err := os.MkdirTemp("", "soapwire-crosstransport-")
			if err != nil {
				return err
			}
			*dir = d
		} else if err := os.MkdirAll(*dir, 0o755); err != nil {
			return err
		}
		return run(ctx, os.Stdout, *dir, opts...)
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "crosstransport:", err)
		os.Exit(1)
	}
}

// config is what options change.
type config struct {
	log   *slog.Logger
	order PurchaseOrder
	// fulfilmentDown leaves fulfilment's consumer unserved, as if the
	// service were down: the order waits in JetStream and the customer
	// times out (the tests' way to see a timeout).
	fulfilmentDown bool
}

// option changes the config of run.
type option func(*config)

// withLogger logs what every component decides to l.
func withLogger(l *slog.Logger) option { return func(c *config) { c.log = l } }

// withOrder sends po instead of the sample order.
func withOrder(po PurchaseOrder) option { return func(c *config) { c.order = po } }

// run starts the servers and the parties with their files in dir, runs
// the conversation, writing its hops to w, stops everything and lists what
// is left in dir. It fails if the conversation does not complete before
// ctx ends.
func run(ctx context.Context, w io.Writer, dir string, opts ...option) error {
	cfg := config{log: slog.New(slog.DiscardHandler), order: sampleOrder()}
	for _, o := range opts {
		o(&cfg)
	}
	tr := newTrace(w)
	tr.printf("crosstransport: one purchase order over HTTP, NATS JetStream, SMTP, IMAP, SFTP and FTP")
	tr.printf("run folder: %s", dir)
	var lc lifecycle
	err := converse(ctx, tr, dir, cfg, &lc)
	if err != nil && ctx.Err() != nil && !errors.Is(err, document.ErrTimeout) {
		err = fmt.Errorf("%v: %w", context.Cause(ctx), err) // stopped while starting up
	}
	if err = errors.Join(err, lc.close()); err != nil {
		return err
	}
	return leftover(w, dir)
}
