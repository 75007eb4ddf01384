package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/examples/contract-first/orders"
)

// run serves the shop on every transport with its files in dir, makes the
// calls, writing what happens to w, and stops everything. Paths are
// printed relative to dir.
func run(ctx context.Context, w io.Writer, dir string, log *slog.Logger) error {
	w = &syncWriter{w: w} // the shop prints from the servers' goroutines
	var lc lifecycle
	err := calls(ctx, w, dir, log, &lc)
	if err != nil && ctx.Err() != nil {
		err = fmt.Errorf("%v: %w", context.Cause(ctx), err)
	}
	if err := errors.Join(err, lc.close()); err != nil {
		return err
	}
	return leftover(w, dir)
}

// calls starts the servers and the clients, registering them with lc, and
// makes the calls.
func calls(ctx context.Context, w io.Writer, dir string, log *slog.Logger, lc *lifecycle) error {
	fmt.Fprintln(w, "contract-first: orders.wsdl's generated server and client over HTTP, NATS, mail and a file drop")
	fmt.Fprintf(w, "run folder: %s\n", dir)

	// The one implementation, and the one generated server around it.
	srv := orders.NewOrdersPortTypeServer(newShop(), wsdl.WithLogger(log))
	ep, err := serveShop(ctx, w, dir, srv, log, lc)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nthe shop: one orders.OrdersPortType, served by one orders.NewOrdersPortTypeServer on")
	fmt.Fprintf(w, "  http  %s (soaphttp.NewHandler; GET ?wsdl answers the contract)\n", ep.http)
	fmt.Fprintf(w, "  nats  the subject %s, queue group %s, on %s (soapnats.Subscribe)\n", ordersSubject, shopQueue, ep.nats.URL())
	fmt.Fprintf(w, "  mail  %s: SMTP on %s into the Maildir mail/shop (core.Serve; replies by mail)\n", shopMail, ep.shopMX)
	fmt.Fprintf(w, "  file  the folder drop/shop (core.Serve over a soapfile.Poller; replies dropped where ReplyTo says)\n")

	cu, err := newCustomer(ctx, ep, log, lc)
	if err != nil {
		return err
	}
	for _, part := range []struct {
		title string
		fn    func(context.Context, io.Writer, *customer) error
	}{
		{"1. HTTP: the generated client over soaphttp.NewTransport", overHTTP},
		{"2. NATS: the generated client over soapnats.NewTransport", func(ctx context.Context, w io.Writer, cu *customer) error {
			return quoteAndOrder(ctx, w, cu.nats, orders.CurrencyUSD, "PO-2", nil)
		}},
		{"3. Mail: the generated client over a document.Correlator, replies by mail", byMail},
		{"4. File drop: the generated client over a document.Correlator, replies dropped in the customer's folder", byFile},
		{"5. Faults: the declared one as its typed error, and the contract checked on both sides", faults},
	} {
		fmt.Fprintf(w, "\n== %s ==\n", part.title)
		if err := part.fn(ctx, w, cu); err != nil {
			return fmt.Errorf("%s: %w", part.title, err)
		}
	}
	return nil
}

// leftover lists what the run left in its folder: the mails each side
// took (archived in done/), and nothing unprocessed or parked.
func leftover(w io.Writer, dir string) error {
	fmt.Fprintf(w, "\nleft in the run folder:\n")
	for _, f := range []struct{ path, what string }{
		{"mail/shop/done", "the requests the shop took by mail"},
		{"mail/customer/done", "the replies and the fault the customer took by mail"},
		{"mail/shop/failed", "parked mails"},
		{"mail/customer/failed", "parked mails"},
		{"drop/shop/inbox", "files not taken"},
		{"drop/shop/failed", "parked files"},
		{"drop/customer/inbox", "files not taken"},
		{"drop/customer/failed", "parked files"},
	} {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(f.path)))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-21s %d (%s)\n", f.path+"/", len(entries), f.what)
	}
	fmt.Fprintln(w, "  (a Poller deletes each file it took once it is answered)")
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
