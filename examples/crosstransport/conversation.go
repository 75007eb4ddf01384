package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapimap "github.com/soapwire/soapwire/bindings/imap"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// converse starts the servers and the five parties, then sends the order
// and waits for the invoice, the confirmation mail and the despatch
// advice.
func converse(ctx context.Context, tr *trace, dir string, cfg config, lc *lifecycle) error {
	log := cfg.log
	srv, err := startServers(ctx, dir, log, lc)
	if err != nil {
		return err
	}
	local := core.ReplyPolicy{Schemes: []string{soapftp.Scheme}, Hosts: []string{"127.0.0.1"}} // replies only to our drop server (loopback: listed)

	// The warehouse: NATS request-reply on stock.check, in a queue group.
	whNC, err := srv.connect("warehouse", lc)
	if err != nil {
		return err
	}
	wh := &warehouse{stock: stock()}
	sub, err := soapnats.Subscribe(ctx, whNC, "stock.check",
		arrival(tr, stepStockIn, "nats", "warehouse", noteNATS, document.NewHandler(wh.handle, document.WithLogger(log))),
		soapnats.WithQueue("warehouse"), soapnats.WithLogger(log))
	if err != nil {
		return fmt.Errorf("warehouse: %w", err)
	}
	lc.closer("the warehouse's subscription", sub)

	// The order desk: HTTP in; NATS out (a request to the warehouse, the
	// order to JetStream), FTP out for faults to the customer.
	deskNC, err := srv.connect("order desk", lc)
	if err != nil {
		return err
	}
	pub, err := soapnats.NewPublisher(deskNC, "", soapnats.WithLogger(log))
	if err != nil {
		return err
	}
	deskOut := document.NewOutbox(map[string]core.Sender{
		soapnats.Scheme: tapped{Sender: pub, tr: tr, from: "order desk"},
		soapftp.Scheme: tapped{Sender: soapftp.NewSender(srv.ftpClient(log, lc), soapftp.WithLogger(log)), tr: tr, from: "order desk",
			after: func(m *core.Message) {
				tr.say(stepForward, "order desk: dropped a fault in the customer's folder as "+fileOf(m))
			}},
	})
	desk := &orderDesk{warehouse: soapnats.NewTransport(deskNC, "nats:stock.check", soapnats.WithTimeout(10*time.Second), soapnats.WithLogger(log)), forward: deskOut, to: ordersTo, tr: tr}
	deskH := document.NewHandler(desk.handle, document.WithStore(document.NewMemoryStore()),
		document.WithOutbox(deskOut), document.WithReplyPolicy(local), document.WithLogger(log))
	mux := http.NewServeMux()
	mux.Handle("/orders", soaphttp.NewHandler(arrival(tr, stepOrderIn, "http", "order desk", noteHTTP, deskH), soaphttp.WithLogger(log)))
	orders := srv.serveHTTP(ctx, mux, log, lc) + "/orders"

	// The carrier: its drop endpoint /carrier on its SFTP server, where
	// fulfilment drops despatch advices; it keeps what it took in done/.
	carrierLayout := soapsftp.DefaultLayout()
	carrierLayout.Done = "done"
	advices, err := soapsftp.NewPoller(srv.sftpClient(log, lc), "/carrier", soapsftp.WithLayout(carrierLayout),
		soapsftp.WithPollInterval(20*time.Millisecond), soapsftp.WithMaxPollInterval(200*time.Millisecond), soapsftp.WithLogger(log))
	if err != nil {
		return err
	}
	lc.closer("the carrier's drop folder", advices)
	if err := advices.MakeLayout(ctx); err != nil {
		return fmt.Errorf("make the carrier's drop folder: %w", err)
	}
	lc.goServe(ctx, "the carrier's drop folder", func(ctx context.Context) error {
		h := arrival(tr, stepAdviceIn, "sftp", "carrier", noteSFTP, document.NewHandler(carrier(tr), document.WithLogger(log)))
		return core.Serve(ctx, advices, h, nil, core.WithLogger(log))
	})

	// Fulfilment: JetStream in (a durable consumer); SMTP, SFTP and FTP out.
	fulNC, err := srv.connect("fulfilment", lc)
	if err != nil {
		return err
	}
	mailer, err := soapsmtp.NewSender(srv.mx, shopMail, soapsmtp.WithHostname("shop.example"), soapsmtp.WithLogger(log))
	if err != nil {
		return err
	}
	lc.closer("the SMTP sender", mailer)
	fulOut := document.NewOutbox(map[string]core.Sender{
		"mailto": tapped{Sender: mailer, tr: tr, from: "fulfilment"},
		soapsftp.Scheme: tapped{Sender: soapsftp.NewSender(srv.sftpClient(log, lc), soapsftp.WithLogger(log)), tr: tr, from: "fulfilment",
			after: func(m *core.Message) {
				tr.say(stepAdviceOut, "fulfilment: dropped the despatch advice in the carrier's SFTP inbox as "+fileOf(m))
			}},
		soapftp.Scheme: tapped{Sender: soapftp.NewSender(srv.ftpClient(log, lc), soapftp.WithLogger(log)), tr: tr, from: "fulfilment",
			after: func(m *core.Message) {
				what := "the invoice"
				if m.Action == core.FaultAction {
					what = "a fault"
				}
				tr.say(stepInvoiceOut, "fulfilment: dropped "+what+" in the customer's folder as "+fileOf(m))
			}},
	})
	ful := &fulfilment{out: fulOut, mail: core.ReplyPolicy{Schemes: []string{"mailto"}, Mailboxes: []string{"@buyer.example"}}, carrier: advices.Address(), prices: prices(), tr: tr}
	fulH := document.NewHandler(ful.handle, document.WithStore(document.NewMemoryStore()),
		document.WithOutbox(fulOut), document.WithReplyPolicy(local), document.WithLogger(log))
	orderQueue, err := soapnats.NewReceiver(ctx, fulNC, "nats:orders.>", "fulfilment", soapnats.WithLogger(log))
	if err != nil {
		return fmt.Errorf("fulfilment: %w", err)
	}
	lc.closer("the JetStream receiver", orderQueue)
	if !cfg.fulfilmentDown {
		lc.goServe(ctx, "fulfilment", func(ctx context.Context) error {
			return core.Serve(ctx, orderQueue, arrival(tr, stepFulfilIn, "nats", "fulfilment", noteJetStream, fulH), nil, core.WithLogger(log))
		})
	}

	// The customer: HTTP out; its mailbox (IMAP, at its mail provider,
	// whose MX receives the mail by SMTP) and its drop folder (FTP) in.
	// The Correlator sends the order and is the handler of the drop
	// folder, where the reply comes.
	mailbox, err := soapimap.NewReceiver(ctx, srv.imap.URL(buyerIMAPUser, "INBOX"),
		soapimap.WithCredentials("", buyerIMAPPassword), soapimap.WithPlaintext(), // loopback
		soapimap.WithAddresses(buyerMail), soapimap.WithArchive(), soapimap.WithLogger(log))
	if err != nil {
		return fmt.Errorf("the customer's mailbox: %w", err)
	}
	lc.closer("the customer's mailbox", mailbox)
	lc.goServe(ctx, "the customer's mailbox", func(ctx context.Context) error {
		h := arrival(tr, stepMailIn, "imap", "customer", noteMail, document.NewHandler(readMail(tr), document.WithLogger(log)))
		return core.Serve(ctx, mailbox, h, nil, core.WithLogger(log))
	})
	layout := soapftp.DefaultLayout()
	layout.Done = "done" // keep the files the customer took
	drop, err := soapftp.NewPoller(srv.ftpClient(log, lc), "/customer", soapftp.WithLayout(layout),
		soapftp.WithPollInterval(20*time.Millisecond), soapftp.WithMaxPollInterval(200*time.Millisecond), soapftp.WithLogger(log))
	if err != nil {
		return err
	}
	lc.closer("the customer's drop folder", drop)
	if err := drop.MakeLayout(ctx); err != nil {
		return fmt.Errorf("make the customer's drop folder: %w", err)
	}
	state, err := document.NewFileStore(filepath.Join(dir, "state", "customer"))
	if err != nil {
		return err
	}
	web := soaphttp.NewTransport(orders)
	lc.onClose(web.CloseIdleConnections)
	custOut := document.NewOutbox(map[string]core.Sender{"http": tapped{Sender: web, tr: tr, from: "customer",
		after: func(m *core.Message) {
			code, _ := strconv.Atoi(m.Meta[soaphttp.MetaStatus])
			tr.say(stepAccepted, fmt.Sprintf("customer: HTTP %d %s", code, http.StatusText(code)))
		}}})
	corr := document.NewCorrelator(custOut, drop.Address(), document.WithStore(state), document.WithLogger(log))
	lc.goServe(ctx, "the customer's drop folder", func(ctx context.Context) error {
		return core.Serve(ctx, drop, arrival(tr, stepReplyIn, "ftp", "customer", noteFTP, corr), nil, core.WithLogger(log))
	})

	tr.printf("")
	tr.printf("servers, all on 127.0.0.1:")
	tr.printf("  http  order desk      %s", orders)
	tr.printf("  nats  nats-server     %s, JetStream stream %s (orders.>) stored in nats/", srv.nats.URL(), ordersStream)
	tr.printf("  smtp  customer's MX   %s for %s, spooling into the Maildir mail/customer/", srv.mx, buyerMail)
	tr.printf("  imap  customer's mail %s, the mailbox %s (the MX's mail delivered into its INBOX)", srv.imap.Addr(), buyerIMAPUser)
	tr.printf("  sftp  carrier's SFTP  %s, serving sftp/ (the carrier's folder is /carrier)", srv.sftp.Addr())
	tr.printf("  ftp   drop server     %s, serving ftp/ (the customer's folder is /customer)", srv.ftp.Addr())
	tr.printf("")

	po := cfg.order
	order := document.NewMessage(orders, po, document.WithAction(actionOrder))
	tr.name(order.ID, "the order")
	tr.printf("customer: posting order %s (%d %s) to the order desk; ReplyTo %s", po.Number, len(po.Lines), plural(len(po.Lines), "line", "lines"), drop.Address())
	tr.printf("")

	reply, err := corr.RoundTrip(ctx, order)
	if err != nil {
		tr.flush()
		if f, ok := errors.AsType[*core.Fault](err); ok && f.Remote {
			return fmt.Errorf("order %s refused (a %s fault, by FTP): %s", po.Number, f.Code, f.Reason)
		}
		if errors.Is(err, document.ErrTimeout) {
			return fmt.Errorf("no invoice in time (%v); still waiting for %s: %w", context.Cause(ctx), tr.missing(), err)
		}
		return err
	}
	var inv Invoice
	if err := reply.Body().Decode(&inv); err != nil {
		return fmt.Errorf("the reply is not an invoice: %w", err)
	}
	conv, err := state.Get(ctx, document.ConversationOf(order))
	if err != nil {
		return err
	}
	tr.say(stepDone) // the last step: printed once every other one is
	if err := tr.wait(ctx); err != nil {
		tr.flush()
		return fmt.Errorf("the conversation did not complete: %w", err)
	}
	tr.printf("")
	tr.printf("customer: the Correlator returned %s for %s, total %s: its RelatesTo is the order's MessageID", inv.Number, inv.Order, euros(inv.TotalCents))
	tr.printf("customer: conversation %s %s", document.ConversationOf(order), conv.State)
	return nil
}

// Notes: what each transport says about a message that arrived.

func noteHTTP(m *core.Message) string {
	return m.Meta[soaphttp.MetaMethod] + " " + m.Meta[soaphttp.MetaPath]
}

func noteNATS(m *core.Message) string {
	return "request on " + m.Meta[soapnats.MetaSubject] + ", queue group " + m.Meta[soapnats.MetaQueue]
}

func noteJetStream(m *core.Message) string {
	return fmt.Sprintf("JetStream %s #%s, consumer %s, delivery %s",
		m.Meta[soapnats.MetaStream], m.Meta[soapnats.MetaSequence], m.Meta[soapnats.MetaConsumer], m.Meta[soapnats.MetaDeliveries])
}

func noteMail(m *core.Message) string {
	return "mail to " + m.Meta[soapimap.MetaDeliveredTo] + ", in " + m.Meta[soapimap.MetaFolder]
}

func noteSFTP(m *core.Message) string {
	return "file " + m.Meta[soapsftp.MetaFile]
}

func noteFTP(m *core.Message) string {
	return "file " + m.Meta[soapftp.MetaFile]
}

// leftover lists what the run left in dir.
func leftover(w io.Writer, dir string) error {
	fmt.Fprintf(w, "\nleft in %s:\n", dir)
	for _, f := range []struct{ path, what string }{
		{"mail/customer/cur", "the confirmation mail as the MX received it (delivered into the IMAP INBOX)"},
		{"sftp/carrier/done", "the despatch advice the carrier's Poller took"},
		{"ftp/customer/done", "the invoice file the customer's Poller took"},
		{"state/customer", "the customer's conversation state (document.FileStore)"},
		{"nats", "JetStream's store (the order, in stream ORDERS)"},
	} {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(f.path)))
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-20s %d %s  %s\n", f.path+"/", len(entries), plural(len(entries), "entry", "entries"), f.what)
	}
	return nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
