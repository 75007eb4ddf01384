// Command ftp-drop exchanges purchase-order documents by file drop only,
// on an embedded FTP server: a customer drops orders into the shop's
// inbox with the FTP Sender; the shop's Poller, under core.Serve, picks
// them up and writes each reply to the order's ReplyTo (the customer's own
// drop folder, where a document.Correlator takes it) or, when there is
// none, to the shop's outbox, where a plain FTP client collects it. A
// fault goes back the same way; a file that cannot be read, or a fault
// with nowhere to go, is parked in failed/ beside a .fault.xml. At the end
// it prints what is in the drop folders.
//
//	go run ./examples/ftp-drop            # in a new temporary folder
//	go run ./examples/ftp-drop -dir out   # in ./out
//	go run ./examples/ftp-drop -v         # with the components' logs on stderr
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
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// The one account of the embedded server (it serves a single user; on a
// real server the shop and each partner have their own).
const (
	ftpUser     = "partner"
	ftpPassword = "s3cret"
)

func main() {
	dir := flag.String("dir", "", "the folder the FTP server serves (default: a new temporary folder)")
	timeout := flag.Duration("timeout", 30*time.Second, "give up when the exchange takes longer")
	verbose := flag.Bool("v", false, "log what the bindings decide, on stderr")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeoutCause(ctx, *timeout, fmt.Errorf("timed out after %s", *timeout))
	defer cancel()

	log := slog.New(slog.DiscardHandler)
	if *verbose {
		log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	err := func() error {
		if *dir == "" {
			d, err := os.MkdirTemp("", "soapwire-ftp-drop-")
			if err != nil {
				return err
			}
			*dir = d
		}
		if err := run(ctx, os.Stdout, *dir, log); err != nil {
			return err
		}
		fmt.Printf("\nThe drop folders are in %s\n", *dir)
		return nil
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ftp-drop:", err)
		os.Exit(1)
	}
}

// demo holds what the parts share.
type demo struct {
	w         io.Writer
	ftpAddr   string                   // the server's host:port
	shop      *soapftp.Poller          // the shop's endpoint, /shop
	customer  *soapftp.Poller          // the customer's endpoint, /acme
	send      *soapftp.Sender          // the customer's Sender
	corr      *document.Correlator     // the customer's calls, answered in /acme/inbox
	plain     *plainClient             // a partner's script: FTP, no SOAP
	show      func(addr string) string // an address as printed
	shopReply string                   // the shop's outbox address
}

// run starts the FTP server on dir/ftp, the shop and the customer, runs
// the exchange, writing each step to w, stops everything and lists the
// drop folders. Addresses are printed with $FTP for the server's
// host:port, so that the output is the same on every run.
func run(ctx context.Context, w io.Writer, dir string, log *slog.Logger) (err error) {
	w = &syncWriter{w: w} // the shop and the customer print from their own goroutines
	var closers []func() error
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- { // last opened, first closed
			err = errors.Join(err, closers[i]())
		}
		if err == nil {
			fmt.Fprintln(w, "\n== The drop folders (on the server's disk) ==")
			err = listTree(w, filepath.Join(dir, "ftp"))
		}
	}()
	onClose := func(c func() error) { closers = append(closers, c) }

	fmt.Fprintln(w, "== Setup ==")
	srv, err := soapftp.StartServer(filepath.Join(dir, "ftp"), ftpUser, ftpPassword, soapftp.WithLogger(log))
	if err != nil {
		return err
	}
	onClose(srv.Close)
	d := &demo{w: w, ftpAddr: srv.Addr()}
	d.show = func(addr string) string {
		switch addr {
		case "", core.AnonymousAddress:
			return "anonymous"
		case core.NoneAddress:
			return "none"
		}
		return strings.Replace(addr, srv.Addr(), "$FTP", 1)
	}
	fmt.Fprintf(w, "ftp: embedded server at $FTP serving ftp/ to user %s\n", ftpUser)

	// Each party logs in with its own Client: a pool of control
	// connections that its Pollers and Senders share.
	shopFTP := soapftp.NewClient(srv.Addr(), ftpUser, ftpPassword, soapftp.WithLogger(log))
	onClose(shopFTP.Close)
	customerFTP := soapftp.NewClient(srv.Addr(), ftpUser, ftpPassword, soapftp.WithLogger(log))
	onClose(customerFTP.Close)

	// The shop's endpoint: inbox/, work/, outbox/, failed/ and done/
	// (Acked files are kept there instead of deleted).
	shopLayout := soapftp.DefaultLayout()
	shopLayout.Done = "done"
	fast, slowest := soapftp.WithPollInterval(20*time.Millisecond), soapftp.WithMaxPollInterval(200*time.Millisecond)
	if d.shop, err = soapftp.NewPoller(shopFTP, "/shop", soapftp.WithLayout(shopLayout), fast, slowest, soapftp.WithLogger(log)); err != nil {
		return err
	}
	// The customer's endpoint: where replies to its orders are dropped. It
	// needs no outbox.
	customerLayout := soapftp.Layout{Inbox: "inbox", Work: "work", Failed: "failed", Done: "done"}
	if d.customer, err = soapftp.NewPoller(customerFTP, "/acme", soapftp.WithLayout(customerLayout), fast, slowest, soapftp.WithLogger(log)); err != nil {
		return err
	}
	for _, p := range []*soapftp.Poller{d.shop, d.customer} {
		if err := p.MakeLayout(ctx); err != nil { // so that the inbox is there before anything is sent
			return err
		}
		onClose(p.Close)
	}
	d.shopReply = d.shop.ReplyAddress()
	fmt.Fprintf(w, "shop: Poller on /shop, inbox %s, outbox %s\n", d.show(d.shop.Address()), d.show(d.shopReply))
	fmt.Fprintf(w, "customer: Poller on /acme, inbox %s\n", d.show(d.customer.Address()))

	// Serving runs until the exchange is over; it stops before the
	// Pollers, Clients and server close (closers run last first).
	sctx, stopServing := context.WithCancel(ctx)
	var serving sync.WaitGroup
	// Answers go by file drop only, and the FTP Sender reaches only this
	// server: an order naming an http: or mailto: ReplyTo, or a folder on
	// another server, is parked in failed/ before its handler runs.
	policy := core.ReplyPolicy{Schemes: []string{soapftp.Scheme}}
	serve := func(r core.Receiver, h core.Handler, replies core.Sender) {
		serving.Add(1)
		go func() {
			defer serving.Done()
			if err := core.Serve(sctx, r, h, replies, core.WithReplyPolicy(policy), core.WithConcurrency(4), core.WithLogger(log)); err != nil {
				fmt.Fprintln(w, "serve:", err)
			}
		}()
	}
	onClose(func() error { stopServing(); serving.Wait(); return nil })

	// The shop answers through an FTP Sender: core.Serve stores each reply
	// or fault at the order's ReplyTo or FaultTo (an ftp:// folder on this
	// server), before it Acks the order.
	serve(d.shop, shopHandler(w, d.show), soapftp.NewSender(shopFTP, soapftp.WithLogger(log)))

	// The customer drops orders with its Sender; its Correlator waits for
	// the replies dropped in /acme/inbox, which its Poller picks up.
	d.send = soapftp.NewSender(customerFTP, soapftp.WithLogger(log))
	d.corr = document.NewCorrelator(d.send, d.customer.Address(), document.WithLogger(log))
	serve(d.customer, d.corr, nil)

	if d.plain, err = dialPlain(ctx, srv.Addr(), ftpUser, ftpPassword); err != nil {
		return err
	}
	onClose(d.plain.Close)

	for _, part := range []struct {
		title string
		fn    func(context.Context) error
	}{
		{"1. A drop with no ReplyTo: the reply waits in the shop's outbox", d.toOutbox},
		{"2. ReplyTo the customer's own drop folder, through a Correlator", func(ctx context.Context) error {
			return d.call(ctx, PurchaseOrder{Number: "1002", Item: "scones", Quantity: 3})
		}},
		{"3. A bad order: the fault comes back as a file", func(ctx context.Context) error {
			return d.call(ctx, PurchaseOrder{Number: "1003", Item: "caviar", Quantity: 1})
		}},
		{"4. Drops that cannot be answered are parked in failed/", d.parked},
	} {
		fmt.Fprintf(w, "\n== %s ==\n", part.title)
		if err := part.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", part.title, err)
		}
	}
	return nil
}

// toOutbox drops an order with no ReplyTo; the Poller makes the outbox its
// ReplyTo, and a plain FTP client collects the reply there.
func (d *demo) toOutbox(ctx context.Context) error {
	po := PurchaseOrder{Number: "1001", Item: "tea", Quantity: 2}
	m := document.NewMessage(d.shop.Address(), po, document.WithAction(actionOrder), document.WithMessageID(orderID(po.Number)))
	if err := d.send.Send(ctx, m); err != nil {
		return err
	}
	fmt.Fprintf(d.w, "customer: Sender dropped order %s (%d x %s), no ReplyTo, as %s\n", po.Number, po.Quantity, po.Item, m.Meta[soapftp.MetaFile])

	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	outbox, err := soapftp.ParseAddress(d.shopReply)
	if err != nil {
		return err
	}
	name := soapftp.FileName("urn:example:confirmation-" + po.Number)
	if err := d.plain.waitFor(ctx, outbox.Dir, name); err != nil {
		return err
	}
	reply, err := d.plain.readMessage(path.Join(outbox.Dir, name))
	if err != nil {
		return err
	}
	var c Confirmation
	if err := reply.Body().Decode(&c); err != nil {
		return err
	}
	fmt.Fprintf(d.w, "customer: a plain FTP client downloads %s/%s\n", outbox.Dir, name)
	fmt.Fprintf(d.w, "  confirmation of order %s: %d x %s, %s; RelatesTo %s\n", c.Number, c.Quantity, c.Item, c.Total, reply.RelatesTo)
	return nil
}

// call sends an order through the Correlator, with ReplyTo and FaultTo the
// customer's inbox, and prints the reply or fault it returns.
func (d *demo) call(ctx context.Context, po PurchaseOrder) error {
	req := document.NewMessage(d.shop.Address(), po, document.WithAction(actionOrder), document.WithMessageID(orderID(po.Number)))
	fmt.Fprintf(d.w, "customer: Correlator drops order %s (%d x %s), ReplyTo %s\n", po.Number, po.Quantity, po.Item, d.show(d.customer.Address()))
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	reply, err := d.corr.RoundTrip(ctx, req)
	if f := (*core.Fault)(nil); errors.As(err, &f) {
		fmt.Fprintf(d.w, "customer: its Poller picks up the fault file; RoundTrip returns a fault: %s: %s", f.Code, f.Reason)
		for _, s := range f.Subcodes {
			fmt.Fprintf(d.w, " [{%s}%s]", s.Space, s.Local)
		}
		fmt.Fprintf(d.w, " (remote: %v)\n", f.Remote)
		return nil
	}
	if err != nil {
		return err
	}
	var c Confirmation
	if err := reply.Body().Decode(&c); err != nil {
		return err
	}
	fmt.Fprintf(d.w, "customer: its Poller picks up inbox/%s; RoundTrip returns it\n", reply.Meta[soapftp.MetaFile])
	fmt.Fprintf(d.w, "  confirmation of order %s: %d x %s, %s; RelatesTo %s\n", c.Number, c.Quantity, c.Item, c.Total, reply.RelatesTo)
	return nil
}

// parked drops a file that is not an envelope, and an order whose fault
// has nowhere to go: both end in the shop's failed/ folder beside a
// .fault.xml, which a plain FTP client reads.
func (d *demo) parked(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	inbox, err := soapftp.ParseAddress(d.shop.Address())
	if err != nil {
		return err
	}
	failed := path.Join(path.Dir(inbox.Dir), "failed")

	// A partner's script uploads an order without a SOAP envelope.
	fmt.Fprintln(d.w, "customer: a plain FTP client uploads inbox/order-1004.xml, a bare PurchaseOrder (no SOAP envelope)")
	bare := `<PurchaseOrder xmlns="urn:example:orders"><Number>1004</Number><Item>tea</Item><Quantity>1</Quantity></PurchaseOrder>`
	if err := d.plain.upload(inbox.Dir, "order-1004.xml", []byte(bare)); err != nil {
		return err
	}
	if err := d.printFault(ctx, failed, "order-1004.xml"); err != nil {
		return err
	}

	// An order sent with nowhere to answer: its fault is parked.
	po := PurchaseOrder{Number: "1005", Item: "jam", Quantity: 0}
	m := document.NewMessage(d.shop.Address(), po, document.WithAction(actionOrder), document.WithMessageID(orderID(po.Number)),
		document.WithReplyTo(core.NoneAddress), document.WithFaultTo(core.NoneAddress))
	fmt.Fprintf(d.w, "customer: Sender drops order %s (%d x %s) with ReplyTo and FaultTo none\n", po.Number, po.Quantity, po.Item)
	if err := d.send.Send(ctx, m); err != nil {
		return err
	}
	return d.printFault(ctx, failed, soapftp.FileName(m.ID))
}

// printFault waits for the fault file of name in the failed folder and
// prints the fault it holds.
func (d *demo) printFault(ctx context.Context, failed, name string) error {
	faultName := strings.TrimSuffix(name, soapftp.Suffix) + soapftp.FaultSuffix
	if err := d.plain.waitFor(ctx, failed, faultName); err != nil {
		return err
	}
	fm, err := d.plain.readMessage(path.Join(failed, faultName))
	if err != nil {
		return err
	}
	f := fm.Fault()
	if f == nil {
		return fmt.Errorf("%s holds no fault", faultName)
	}
	fmt.Fprintf(d.w, "shop: the Poller parked it as failed/%s, beside failed/%s:\n  %s: %s\n", name, faultName, f.Code, f.Reason)
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
