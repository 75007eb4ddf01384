// Command invoice-pdf mails an invoice with its PDF and receives it by
// file drop, with nothing to install: a supplier mails the invoice, the
// PDF as an MTOM attachment, to the customer's accounts-payable service
// through its embedded SMTP server (bindings/smtp), which stores the mail
// in a Maildir; the service (a Maildir Receiver under core.Serve) checks
// the PDF against the digest the invoice carries and drops the invoice,
// PDF and all, as one MIME file in the archive's local folder
// (bindings/file), where the archive (a Poller under core.Serve) stores
// the PDF. An invoice whose PDF does not match is answered with a fault by
// mail; a mail whose package is broken is parked unread.
//
//	go run ./examples/invoice-pdf            # in a new temporary folder
//	go run ./examples/invoice-pdf -dir out   # in ./out
//	go run ./examples/invoice-pdf -v         # with the components' logs on stderr
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
	"sync"
	"syscall"
	"time"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

func main() {
	dir := flag.String("dir", "", "the folder to keep the Maildirs and the archive in (default: a new temporary folder)")
	timeout := flag.Duration("timeout", 30*time.Second, "give up when the exchange takes longer")
	verbose := flag.Bool("v", false, "log what the bindings decide, on stderr")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, *timeout, fmt.Errorf("timed out after %s", *timeout))
	defer cancel()

	log := slog.New(slog.DiscardHandler)
	if *verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	err := func() error {
		if *dir == "" {
			d, err := os.MkdirTemp("", "soapwire-invoice-pdf-")
			if err != nil {
				return err
			}
			*dir = d
		}
		if err := run(ctx, os.Stdout, *dir, log); err != nil {
			return err
		}
		fmt.Printf("\nThe Maildirs and the archive are in %s\n", *dir)
		return nil
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "invoice-pdf:", err)
		os.Exit(1)
	}
}

// run starts the mail servers, the accounts-payable service and the
// archive below dir, runs the exchange, writing each step to w, stops
// everything and lists what is left. Paths are printed relative to dir,
// so that the output is the same on every run.
func run(ctx context.Context, w io.Writer, dir string, log *slog.Logger) (err error) {
	w = &syncWriter{w: w} // the service and the archive print from their own goroutines
	var closers []func() error
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- { // last opened, first closed
			err = errors.Join(err, closers[i]())
		}
		if err == nil {
			err = listLeft(w, dir)
		}
	}()
	onClose := func(c func() error) { closers = append(closers, c) }

	fmt.Fprintln(w, "== Setup ==")
	ap, err := startParty(ctx, "customer", "ap@customer.example", filepath.Join(dir, "customer", "Maildir"), log)
	if err != nil {
		return err
	}
	onClose(ap.stop)
	supplier, err := startParty(ctx, "supplier", "billing@supplier.example", filepath.Join(dir, "supplier", "Maildir"), log)
	if err != nil {
		return err
	}
	onClose(supplier.stop)
	for _, p := range []*party{ap, supplier} {
		fmt.Fprintf(w, "%s: SMTP server for %s, storing mail in %s/\n", p.name, p.address, rel(dir, p.dir))
	}
	archiveDir := filepath.Join(dir, "archive")
	archiveIn, err := soapfile.NewPoller(archiveDir,
		soapfile.WithLayout(soapfile.Layout{Inbox: "inbox", Work: "work", Failed: "failed", Done: "done"}), // keep the files taken in done/
		soapfile.WithPollInterval(10*time.Millisecond), soapfile.WithLogger(log))
	if err != nil {
		return err
	}
	onClose(archiveIn.Close)
	if err := archiveIn.MakeLayout(ctx); err != nil {
		return err
	}
	fmt.Fprintf(w, "archive: a folder, %s/, its inbox %s/\n", rel(dir, archiveDir), rel(dir, filepath.Join(archiveDir, "inbox")))

	// Serving runs until the exchange is over, then stops before the
	// servers do (closers run last first).
	sctx, stopServing := context.WithCancel(ctx)
	var serving sync.WaitGroup
	serve := func(r core.Receiver, h core.Handler, replies core.Sender, opts ...core.ServeOption) {
		serving.Add(1)
		go func() {
			defer serving.Done()
			if err := core.Serve(sctx, r, h, replies, append(opts, core.WithLogger(log))...); err != nil {
				fmt.Fprintln(w, "serve:", err)
			}
		}()
	}
	onClose(func() error { stopServing(); serving.Wait(); return nil })

	// The archive: takes the files dropped in its inbox and stores each
	// invoice's PDF in archive/pdf/.
	arch := &archive{w: w, root: dir, pdfDir: filepath.Join(archiveDir, "pdf"), stored: make(chan string, 1)}
	serve(archiveIn, core.HandlerFunc(arch.store), nil)

	// Accounts payable: its Receiver takes the invoices out of its
	// Maildir; the handler checks each PDF and drops the invoice in the
	// archive's inbox. Faults are mailed back to the supplier, and to no
	// one else (core.ReplyPolicy).
	toArchive, err := soapfile.NewSender(archiveDir, soapfile.WithLogger(log))
	if err != nil {
		return err
	}
	onClose(toArchive.Close)
	faults, err := soapsmtp.NewSender(supplier.addr, ap.address, soapsmtp.WithLogger(log))
	if err != nil {
		return err
	}
	onClose(faults.Close)
	apIn := soapsmtp.NewReceiver(ap.mb,
		soapsmtp.WithAddresses(ap.address), // the loop guard: never answer our own mail
		soapsmtp.WithArchive(),             // keep processed mails in done/
		soapsmtp.WithLogger(log))
	onClose(apIn.Close)
	svc := &payables{w: w, root: dir, archive: toArchive, archiveAddr: archiveIn.Address()}
	serve(apIn, core.HandlerFunc(svc.receive), faults,
		core.WithReplyPolicy(core.ReplyPolicy{Mailboxes: []string{"@supplier.example"}}))

	// The supplier mails invoices to accounts payable, and reads its own
	// mailbox for faults.
	out, err := soapsmtp.NewSender(ap.addr, supplier.address, soapsmtp.WithLogger(log))
	if err != nil {
		return err
	}
	onClose(out.Close)
	supplierIn := soapsmtp.NewReceiver(supplier.mb, soapsmtp.WithAddresses(supplier.address), soapsmtp.WithLogger(log))
	onClose(supplierIn.Close)

	for _, part := range []struct {
		title string
		fn    func(context.Context) error
	}{
		{"1. An invoice with its PDF, by mail, into the archive by file drop", func(ctx context.Context) error {
			return sendInvoice(ctx, w, out, ap, arch, "INV-2024-0042", "1234.50 EUR")
		}},
		{"2. An invoice whose PDF does not match its digest", func(ctx context.Context) error {
			return damagedInvoice(ctx, w, dir, out, ap, supplierIn, "INV-2024-0043", "99.00 EUR")
		}},
		{"3. A mail whose package is cut off", func(ctx context.Context) error {
			return brokenMail(ctx, w, dir, ap, supplier)
		}},
	} {
		fmt.Fprintf(w, "\n== %s ==\n", part.title)
		if err := part.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", part.title, err)
		}
	}
	return nil
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

// rel returns path relative to dir, for printing.
func rel(dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return r
}
