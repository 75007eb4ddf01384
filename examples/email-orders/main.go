// Command email-orders exchanges purchase-order documents by email only,
// on two embedded SMTP servers that store each mail in a Maildir before
// they answer 250: a customer mails orders to a shop, whose Maildir
// Receiver runs under core.Serve with a document.Handler; confirmations
// and faults are mailed back to the customer's mailto: address, into the
// customer's Maildir, where a document.Correlator matches each to its
// order. A resent order is answered from the record, not processed twice;
// a mail that is not SOAP is parked in failed/ with the reason.
//
//	go run ./examples/email-orders            # in a new temporary folder
//	go run ./examples/email-orders -dir out   # in ./out
//	go run ./examples/email-orders -v         # with the components' logs on stderr
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/smtp"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

func main() {
	dir := flag.String("dir", "", "the folder to keep the Maildirs in (default: a new temporary folder)")
	timeout := flag.Duration("timeout", 30*time.Second, "give up when the exchange takes longer")
	verbose := flag.Bool("v", false, "log what the bindings and the document layer decide, on stderr")
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
			d, err := os.MkdirTemp("", "soapwire-email-orders-")
			if err != nil {
				return err
			}
			*dir = d
		}
		if err := run(ctx, os.Stdout, *dir, log); err != nil {
			return err
		}
		fmt.Printf("\nThe Maildirs are in %s\n", *dir)
		return nil
	}()
	if err != nil {
		fmt.Fprintln(os.Stderr, "email-orders:", err)
		os.Exit(1)
	}
}

// run starts the two mail servers with their Maildirs below dir, runs the
// exchange, writing each step to w, stops everything and lists what is
// left in the Maildirs. Paths are printed relative to dir, so that the
// output is the same on every run.
func run(ctx context.Context, w io.Writer, dir string, log *slog.Logger) (err error) {
	w = &syncWriter{w: w} // the shop and the customer print from their own goroutines
	var closers []func() error
	defer func() {
		for i := len(closers) - 1; i >= 0; i-- { // last opened, first closed
			err = errors.Join(err, closers[i]())
		}
		if err == nil {
			fmt.Fprintln(w, "\n== What is left in the Maildirs ==")
			for _, p := range []string{"shop", "customer"} {
				if err = listMaildir(w, dir, filepath.Join(dir, p, "Maildir")); err != nil {
					return
				}
			}
		}
	}()
	onClose := func(c func() error) { closers = append(closers, c) }

	// The two mail domains, each with its SMTP server and Maildir.
	fmt.Fprintln(w, "== Setup ==")
	shopBox, err := startParty(ctx, "shop", "orders@shop.example", filepath.Join(dir, "shop", "Maildir"), log)
	if err != nil {
		return err
	}
	onClose(shopBox.stop)
	customerBox, err := startParty(ctx, "customer", "buyer@customer.example", filepath.Join(dir, "customer", "Maildir"), log)
	if err != nil {
		return err
	}
	onClose(customerBox.stop)
	for _, p := range []*party{shopBox, customerBox} {
		fmt.Fprintf(w, "%s: SMTP server for %s, storing mail in %s/\n", p.name, p.address, rel(dir, p.dir))
	}

	// Serving runs until the exchange is over, then stops before the
	// servers do (closers run last first).
	sctx, stopServing := context.WithCancel(ctx)
	var serving sync.WaitGroup
	// Where answers may be mailed: the shop's customers and no one else,
	// whatever a mail's From, Reply-To or wsa:ReplyTo says. The policy is
	// checked before a handler runs (the document.Handler finds it in its
	// ctx): a request naming anyone else is parked in failed/ unhandled.
	policy := core.ReplyPolicy{Mailboxes: []string{"@customer.example"}}
	serve := func(r core.Receiver, h core.Handler) {
		serving.Add(1)
		go func() {
			defer serving.Done()
			if err := core.Serve(sctx, r, h, nil, core.WithReplyPolicy(policy), core.WithConcurrency(4), core.WithLogger(log)); err != nil {
				fmt.Fprintln(w, "serve:", err)
			}
		}()
	}
	onClose(func() error { stopServing(); serving.Wait(); return nil })

	// The shop: its Receiver takes the orders out of its Maildir; a
	// document.Handler runs the order handler once per order and mails
	// replies and faults through an Outbox. (Both sides submit straight to
	// the other side's server; in production they submit to their relay.)
	replies, err := soapsmtp.NewSender(customerBox.addr, shopBox.address, soapsmtp.WithLogger(log))
	if err != nil {
		return err
	}
	onClose(replies.Close)
	orders := newShop(w)
	handler := document.NewHandler(orders.handle,
		document.WithStore(document.NewMemoryStore()), // records outcomes: duplicates are answered, not run again
		document.WithOutbox(document.NewOutbox(map[string]core.Sender{"mailto": replies})),
		document.WithLogger(log))
	shopIn := soapsmtp.NewReceiver(shopBox.mb,
		soapsmtp.WithAddresses(shopBox.address), // the loop guard: never answer our own mail
		soapsmtp.WithArchive(),                  // keep processed mails in done/
		soapsmtp.WithLogger(log))
	onClose(shopIn.Close)
	serve(shopIn, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		fmt.Fprintf(w, "shop: mail from %s, Message-ID %s, Subject %q\n",
			m.Meta[soapsmtp.MetaFrom], m.Meta[soapsmtp.MetaMessageID], m.Meta[soapsmtp.MetaSubject])
		return handler.ServeSOAP(ctx, m)
	}))

	// The customer: orders go out by mail; replies come into the
	// customer's Maildir, where a Correlator hands each to the call that
	// waits for it, and anything else to its fallback.
	out, err := soapsmtp.NewSender(shopBox.addr, customerBox.address, soapsmtp.WithLogger(log))
	if err != nil {
		return err
	}
	onClose(out.Close)
	strays := make(chan *core.Message, 1)
	corr := document.NewCorrelator(out, customerBox.mailto(),
		document.WithFallback(core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
			strays <- m
			return nil, nil
		})),
		document.WithLogger(log))
	customerIn := soapsmtp.NewReceiver(customerBox.mb, soapsmtp.WithAddresses(customerBox.address), soapsmtp.WithLogger(log))
	onClose(customerIn.Close)
	serve(customerIn, corr)

	for _, part := range []struct {
		title string
		fn    func(context.Context) error
	}{
		{"1. An order by mail, its confirmation by mail", func(ctx context.Context) error {
			return order(ctx, w, corr, shopBox, PurchaseOrder{Number: "1001", Item: "tea", Quantity: 2})
		}},
		{"2. An order the shop cannot take: a fault by mail", func(ctx context.Context) error {
			return order(ctx, w, corr, shopBox, PurchaseOrder{Number: "1002", Item: "caviar", Quantity: 1})
		}},
		{"3. The same order mailed twice", func(ctx context.Context) error {
			return resend(ctx, w, out, shopBox, orders, strays, PurchaseOrder{Number: "1001", Item: "tea", Quantity: 2})
		}},
		{"4. A mail that is not SOAP", func(ctx context.Context) error {
			return plainMail(ctx, w, dir, shopBox, customerBox)
		}},
		{"5. An order whose answer would go to a third party", func(ctx context.Context) error {
			return thirdParty(ctx, w, dir, out, shopBox, orders, PurchaseOrder{Number: "1003", Item: "tea", Quantity: 100})
		}},
	} {
		fmt.Fprintf(w, "\n== %s ==\n", part.title)
		if err := part.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", part.title, err)
		}
	}
	return nil
}

// order mails po to the shop through the Correlator and prints the reply
// or fault that comes back by mail.
func order(ctx context.Context, w io.Writer, corr *document.Correlator, shop *party, po PurchaseOrder) error {
	id := "mid:order-" + po.Number + "@customer.example"
	req := document.NewMessage(shop.mailto(), po, document.WithAction(actionOrder), document.WithMessageID(id))
	fmt.Fprintf(w, "customer: mails order %s (%d x %s) to %s, message id %s\n", po.Number, po.Quantity, po.Item, req.To, req.ID)
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	reply, err := corr.RoundTrip(ctx, req) // ReplyTo and FaultTo: the customer's mailto: address
	if f := (*core.Fault)(nil); errors.As(err, &f) {
		fmt.Fprintf(w, "customer: fault for order %s arrives by mail: %s: %s", po.Number, f.Code, f.Reason)
		for _, s := range f.Subcodes {
			fmt.Fprintf(w, " [{%s}%s]", s.Space, s.Local)
		}
		fmt.Fprintf(w, " (remote: %v)\n", f.Remote)
		return nil
	}
	if err != nil {
		return err
	}
	var c Confirmation
	if err := reply.Body().Decode(&c); err != nil {
		return err
	}
	fmt.Fprintf(w, "customer: confirmation for order %s arrives by mail: %d x %s, %s\n", c.Number, c.Quantity, c.Item, c.Total)
	fmt.Fprintf(w, "  From %s, Subject %q\n", reply.Meta[soapsmtp.MetaFrom], reply.Meta[soapsmtp.MetaSubject])
	fmt.Fprintf(w, "  Message-ID %s, In-Reply-To %s\n", reply.Meta[soapsmtp.MetaMessageID], reply.Meta[soapsmtp.MetaInReplyTo])
	fmt.Fprintf(w, "  wsa:RelatesTo %s: the Correlator matched it to the order\n", reply.RelatesTo)
	return nil
}

// resend mails an order a second time with the same message id, as a mail
// program retrying after a lost connection would, and shows that the shop
// answers it from its record without processing it again.
func resend(ctx context.Context, w io.Writer, out core.Sender, shop *party, orders *shop, strays <-chan *core.Message, po PurchaseOrder) error {
	id := "mid:order-" + po.Number + "@customer.example"
	m := document.NewMessage(shop.mailto(), po, document.WithAction(actionOrder), document.WithMessageID(id),
		document.WithReplyTo("mailto:buyer@customer.example"), document.WithFaultTo("mailto:buyer@customer.example"))
	fmt.Fprintf(w, "customer: mails order %s again, same message id %s\n", po.Number, id)
	if err := out.Send(ctx, m); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	select {
	case r := <-strays:
		fmt.Fprintf(w, "customer: another confirmation arrives, Message-ID %s, In-Reply-To %s\n", r.Meta[soapsmtp.MetaMessageID], r.Meta[soapsmtp.MetaInReplyTo])
		fmt.Fprintf(w, "  no call waits for it: the Correlator hands it to its fallback (%s=%s)\n", document.MetaMatch, r.Meta[document.MetaMatch])
	case <-ctx.Done():
		return fmt.Errorf("no second confirmation: %w", context.Cause(ctx))
	}
	fmt.Fprintf(w, "shop: order %s arrived 2 times and the order handler ran %d %s: the document.Handler answered the copy with the confirmation it recorded\n", po.Number, orders.ran(po.Number), plural(orders.ran(po.Number), "time"))
	return nil
}

// plainMail sends the shop a mail from an ordinary mail program (net/smtp,
// text/plain) and prints the fault the shop's Receiver parks it with.
func plainMail(ctx context.Context, w io.Writer, dir string, shop, customer *party) error {
	mail := strings.ReplaceAll(`From: Ada <buyer@customer.example>
To: <orders@shop.example>
Subject: Order
Message-ID: <note-1@customer.example>
Content-Type: text/plain; charset=utf-8

Please send 3 jars of jam. Thanks, Ada
`, "\n", "\r\n")
	fmt.Fprintf(w, "customer: a mail program sends %s a text/plain mail: %q\n", shop.address, "Please send 3 jars of jam.")
	if err := smtp.SendMail(shop.addr, nil, customer.address, []string{shop.address}, []byte(mail)); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	name, err := waitForParked(ctx, shop.dir)
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(shop.dir, soapsmtp.FolderFailed, name))
	if err != nil {
		return err
	}
	defer f.Close()
	fm, err := core.ReadMessage(f, core.Limits{})
	if err != nil {
		return err
	}
	fault := fm.Fault()
	if fault == nil {
		return fmt.Errorf("%s holds no fault", name)
	}
	fmt.Fprintf(w, "shop: the Receiver parks it in %s/ without calling the handler, beside a fault file:\n", rel(dir, filepath.Join(shop.dir, soapsmtp.FolderFailed)))
	fmt.Fprintf(w, "  <mail>%s: %s: %s\n", soapsmtp.FaultSuffix, fault.Code, fault.Reason)
	fmt.Fprintln(w, "  nothing is mailed back: the sender of a mail that is not SOAP gets no SOAP fault")
	return nil
}

// thirdParty mails the shop an order whose wsa:ReplyTo and FaultTo name
// someone else, as anyone who wants the shop to mail a third party would,
// and shows that the shop parks it unhandled and mails nobody.
func thirdParty(ctx context.Context, w io.Writer, dir string, out core.Sender, shop *party, orders *shop, po PurchaseOrder) error {
	const victim = "mailto:victim@elsewhere.example"
	m := document.NewMessage(shop.mailto(), po, document.WithAction(actionOrder), document.WithMessageID("mid:order-"+po.Number+"@customer.example"),
		document.WithReplyTo(victim), document.WithFaultTo(victim))
	fmt.Fprintf(w, "someone mails order %s (%d x %s) with wsa:ReplyTo and wsa:FaultTo %s\n", po.Number, po.Quantity, po.Item, victim)
	if err := out.Send(ctx, m); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	earlier, err := waitForParked(ctx, shop.dir)
	if err != nil {
		return err
	}
	name, err := waitForParked(ctx, shop.dir, earlier)
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(shop.dir, soapsmtp.FolderFailed, name))
	if err != nil {
		return err
	}
	defer f.Close()
	fm, err := core.ReadMessage(f, core.Limits{})
	if err != nil {
		return err
	}
	fault := fm.Fault()
	if fault == nil {
		return fmt.Errorf("%s holds no fault", name)
	}
	fmt.Fprintf(w, "shop: the document.Handler refuses it before the order handler runs (%d %s for order %s); it is parked in %s/, beside a fault file:\n",
		orders.ran(po.Number), plural(orders.ran(po.Number), "run"), po.Number, rel(dir, filepath.Join(shop.dir, soapsmtp.FolderFailed)))
	fmt.Fprintf(w, "  <mail>%s: %s: %s\n", soapsmtp.FaultSuffix, fault.Code, fault.Reason)
	fmt.Fprintln(w, "  nothing is mailed to the third party: answers go only to the shop's customers (core.ReplyPolicy)")
	return nil
}

// rel returns path relative to dir, for printing.
func rel(dir, path string) string {
	r, err := filepath.Rel(dir, path)
	if err != nil {
		return path
	}
	return r
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
