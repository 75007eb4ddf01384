package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/contract-first/orders"
)

// The names of the run: the shop's and the customer's mail addresses, the
// NATS subject the shop serves and its queue group, the customer's
// account.
const (
	shopMail        = "orders@shop.example"
	customerMail    = "buyer@customer.example"
	ordersSubject   = "orders"
	shopQueue       = "shop"
	customerAccount = "ACME-7"
)

// The drop folders poll every 20 ms at first, never less often than every
// 200 ms: quick answers for a demonstration (the defaults are 200 ms and
// 1 s).
var fastPoll, slowestPoll = soapfile.WithPollInterval(20 * time.Millisecond), soapfile.WithMaxPollInterval(200 * time.Millisecond)

// endpoints are where the shop serves, as the customer reaches them.
type endpoints struct {
	http     string            // the HTTP endpoint's URL
	nats     *soapnats.Server  // nats-server, in the process
	shopMX   string            // the shop's SMTP server (host:port)
	mailbox  *soapsmtp.Maildir // the customer's Maildir, where the shop's replies arrive
	customMX string            // the customer's SMTP server (host:port)
	dropRoot string            // the folder below which both drop folders are
	shopDrop string            // the shop's drop address (its inbox)
}

// serveShop serves one generated server, srv, on every transport: HTTP,
// NATS request-reply, mail (the shop's SMTP server stores mail into a
// Maildir; core.Serve takes it from there and mails each reply to the
// request's ReplyTo) and a drop folder (core.Serve over a Poller; each
// reply dropped in the folder the request's ReplyTo names). What arrives
// is printed to w on the way in. The customer's mail server is started
// here too: the shop mails its replies to it.
func serveShop(ctx context.Context, w io.Writer, dir string, srv *orders.OrdersPortTypeServer, log *slog.Logger, lc *lifecycle) (*endpoints, error) {
	var ep endpoints

	// HTTP: the generated server is a core.Handler; soaphttp.NewHandler
	// adapts it to net/http, and answers GET ?wsdl with its contract.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	ep.http = "http://" + ln.Addr().String() + "/orders"
	mux := http.NewServeMux()
	mux.Handle("/orders", soaphttp.NewHandler(arrivals(w, "http", srv), soaphttp.WithDescriber(srv), soaphttp.WithLogger(log)))
	hs := soaphttp.NewServer(ln.Addr().String(), mux, soaphttp.WithLogger(log))
	lc.goServe(ctx, "the HTTP server", func(ctx context.Context) error {
		done := make(chan error, 1)
		go func() { done <- hs.Serve(ln) }()
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
		}
		hs.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})

	// NATS: the same server answers requests on a subject, in a queue
	// group (more instances would share the load).
	if ep.nats, err = soapnats.StartServer(filepath.Join(dir, "nats"), soapnats.WithLogger(log)); err != nil {
		return nil, fmt.Errorf("start nats-server: %w", err)
	}
	lc.closer("nats-server", ep.nats)
	nc, err := connect(ep.nats, "shop", lc)
	if err != nil {
		return nil, err
	}
	sub, err := soapnats.Subscribe(ctx, nc, ordersSubject, arrivals(w, "nats", srv), soapnats.WithQueue(shopQueue), soapnats.WithLogger(log))
	if err != nil {
		return nil, err
	}
	lc.closer("the NATS subscription", sub)

	// Mail: two mail domains, each with its SMTP server storing into its
	// Maildir before it answers 250. The shop serves what arrives in its
	// Maildir and mails replies to the customer's server; answers go to
	// the customer's domain only, whatever a request's ReplyTo says.
	shopBox, shopMX, err := startMailServer(filepath.Join(dir, "mail", "shop"), shopMail, log, lc)
	if err != nil {
		return nil, err
	}
	ep.shopMX = shopMX
	if ep.mailbox, ep.customMX, err = startMailServer(filepath.Join(dir, "mail", "customer"), customerMail, log, lc); err != nil {
		return nil, err
	}
	mailReplies, err := soapsmtp.NewSender(ep.customMX, shopMail, soapsmtp.WithLogger(log))
	if err != nil {
		return nil, err
	}
	lc.closer("the shop's SMTP sender", mailReplies)
	mailIn := soapsmtp.NewReceiver(shopBox, soapsmtp.WithAddresses(shopMail), soapsmtp.WithArchive(), soapsmtp.WithLogger(log))
	lc.closer("the shop's mail receiver", mailIn)
	mailPolicy := core.ReplyPolicy{Schemes: []string{"mailto"}, Mailboxes: []string{"@customer.example"}}
	lc.goServe(ctx, "the shop's mail", func(ctx context.Context) error {
		return core.Serve(ctx, mailIn, arrivals(w, "mail", srv), mailReplies, core.WithReplyPolicy(mailPolicy), core.WithLogger(log))
	})

	// The file drop: the shop takes what is dropped into its inbox and
	// drops each reply into the folder its ReplyTo names, below the drop
	// root only.
	ep.dropRoot = filepath.Join(dir, "drop")
	shopDrop, err := soapfile.NewPoller(filepath.Join(ep.dropRoot, "shop"), fastPoll, slowestPoll, soapfile.WithLogger(log))
	if err != nil {
		return nil, err
	}
	lc.closer("the shop's drop poller", shopDrop)
	if err := shopDrop.MakeLayout(ctx); err != nil {
		return nil, err
	}
	ep.shopDrop = shopDrop.Address()
	dropReplies, err := soapfile.NewSender(ep.dropRoot, soapfile.WithLogger(log))
	if err != nil {
		return nil, err
	}
	lc.closer("the shop's drop sender", dropReplies)
	dropPolicy := core.ReplyPolicy{Schemes: []string{soapfile.Scheme}}
	lc.goServe(ctx, "the shop's drop", func(ctx context.Context) error {
		return core.Serve(ctx, shopDrop, arrivals(w, "file", srv), dropReplies, core.WithReplyPolicy(dropPolicy), core.WithLogger(log))
	})
	return &ep, nil
}

// startMailServer opens a Maildir in dir and starts an SMTP server on a
// free loopback port that accepts mail for address only, stored in the
// Maildir before it answers 250.
func startMailServer(dir, address string, log *slog.Logger, lc *lifecycle) (*soapsmtp.Maildir, string, error) {
	mb, err := soapsmtp.OpenMaildir(dir)
	if err != nil {
		return nil, "", err
	}
	lc.closer("the Maildir of "+address, mb)
	srv, err := soapsmtp.StartServer(mb, soapsmtp.WithAddresses(address), soapsmtp.WithHostname("mx."+domain(address)), soapsmtp.WithLogger(log))
	if err != nil {
		return nil, "", fmt.Errorf("start the SMTP server for %s: %w", address, err)
	}
	lc.closer("the SMTP server for "+address, srv)
	return mb, srv.Addr(), nil
}

// connect returns a NATS connection named for a party, closed at the end.
func connect(srv *soapnats.Server, name string, lc *lifecycle) (*nats.Conn, error) {
	nc, err := srv.Connect(nats.Name(name))
	if err != nil {
		return nil, fmt.Errorf("connect %s to nats-server: %w", name, err)
	}
	lc.onClose(nc.Close)
	return nc, nil
}

// arrivals prints how each request reached the shop, then hands it to h
// (the generated server) as it came.
func arrivals(w io.Writer, transport string, h core.Handler) core.Handler {
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var how string
		switch transport {
		case "http":
			how = fmt.Sprintf("%s %s, SOAPAction %s", m.Meta[soaphttp.MetaMethod], m.Meta[soaphttp.MetaPath], m.Action)
		case "nats":
			how = fmt.Sprintf("a request on %s, queue group %s", m.Meta[soapnats.MetaSubject], m.Meta[soapnats.MetaQueue])
		case "mail":
			how = fmt.Sprintf("a mail from %s, Message-ID %s", m.Meta[soapsmtp.MetaFrom], m.Meta[soapsmtp.MetaMessageID])
		case "file":
			how = "the file " + filepath.Base(m.Meta[soapfile.MetaFile])
		}
		fmt.Fprintf(w, "  shop: %s by %s: %s\n", m.Body().Name().Local, transport, how)
		return h.ServeSOAP(ctx, m)
	})
}

// domain is the domain of a mail address.
func domain(address string) string {
	for i := len(address) - 1; i >= 0; i-- {
		if address[i] == '@' {
			return address[i+1:]
		}
	}
	return address
}
