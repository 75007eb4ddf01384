package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"strings"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	soapimap "github.com/soapwire/soapwire/bindings/imap"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// orderDesk takes orders over HTTP (a document.Handler behind
// soaphttp.NewHandler): it checks stock with the warehouse (a NATS
// request), forwards the order unchanged, same message id, ReplyTo and
// conversation, to fulfilment through JetStream (document.Send, whose
// Receipt holds the stream and sequence), and returns nothing, so
// the customer gets 202 once the order is stored. A refusal is a fault
// that the document.Handler drops at the order's FaultTo.
type orderDesk struct {
	warehouse core.RoundTripper // a soapnats.Transport to stock.check
	forward   *document.Outbox  // nats → JetStream Publisher
	to        string            // where orders go: nats:orders.placed?stream=ORDERS
	tr        *trace
}

func (d *orderDesk) handle(ctx context.Context, in *document.Incoming) (*core.Message, error) {
	m := in.Message
	// Keep the document as it came, to forward it as is.
	var doc bytes.Buffer
	if _, err := m.Body().WriteTo(&doc); err != nil {
		return nil, err // a Sender fault from core's reader
	}
	var po PurchaseOrder
	if err := xml.Unmarshal(doc.Bytes(), &po); err != nil || po.XMLName.Local == "" {
		return nil, core.SenderFault("not a purchase order")
	}
	if err := po.check(); err != nil {
		return nil, err
	}
	if !isAddress(m.ReplyTo) {
		return nil, core.SenderFault("an order needs a ReplyTo address: the invoice is sent there later")
	}

	check := document.NewMessage("nats:stock.check", StockCheck{Order: po.Number, Lines: po.Lines},
		document.WithAction(actionStockCheck), document.WithConversation(in.Conversation), document.WithVersion(m.Version()))
	d.tr.name(check.ID, "the stock check")
	d.tr.sent(check.ID, "order desk")
	reply, err := d.warehouse.RoundTrip(ctx, check)
	if f, ok := errors.AsType[*core.Fault](err); ok && f.Remote {
		d.tr.say(stepStockOut, "order desk: the warehouse answered with a fault: "+f.Reason)
		return nil, core.SenderFault("%s refused: %s", po.Number, f.Reason)
	}
	if err != nil {
		return nil, fmt.Errorf("stock check: %w", err) // a Receiver fault; its text stays here
	}
	var res Reservation
	if err := reply.Body().Decode(&res); err != nil {
		return nil, fmt.Errorf("stock check: %w", err)
	}
	d.tr.hop(stepStockOut, hop{transport: "nats", route: "warehouse -> order desk", note: "reply", m: reply},
		fmt.Sprintf("order desk: %s in stock, reservation %s; forwarding it to fulfilment", po.Number, res.ID))

	rc, err := document.Send(ctx, d.forward, d.to, doc.Bytes(),
		document.WithMessageID(m.ID), document.WithAction(m.Action),
		document.WithReplyTo(m.ReplyTo), document.WithFaultTo(m.FaultTo),
		document.WithConversation(in.Conversation), document.WithVersion(m.Version()))
	if err != nil {
		return nil, fmt.Errorf("forward %s: %w", po.Number, err)
	}
	d.tr.say(stepForward, fmt.Sprintf("order desk: stored in JetStream stream %s as message %s (Nats-Msg-Id = the order's id); answering 202",
		rc.Transport[soapnats.MetaStream], rc.Transport[soapnats.MetaSequence]))
	return nil, nil
}

// warehouse answers stock checks over NATS request-reply (a
// document.Handler behind soapnats.Subscribe; its reply goes back on the
// NATS back-channel, as the check has no ReplyTo).
type warehouse struct{ stock map[string]int }

func (w *warehouse) handle(_ context.Context, in *document.Incoming) (*core.Message, error) {
	var c StockCheck
	if err := in.Decode(&c); err != nil {
		return nil, core.SenderFault("not a stock check")
	}
	for _, l := range c.Lines {
		if have := w.stock[l.SKU]; have < l.Qty {
			return nil, core.SenderFault("%d × %s ordered, %d in stock", l.Qty, l.SKU, have)
		}
	}
	return in.Reply(Reservation{Order: c.Order, ID: "RES-" + strings.TrimPrefix(c.Order, "PO-")}, document.WithAction(actionStockOK)), nil
}

// fulfilment takes orders from JetStream (a document.Handler served by
// core.Serve over a soapnats.Receiver): it prices the order, mails a
// confirmation to the buyer, drops a despatch advice in the carrier's SFTP
// inbox and answers the order with the invoice, which the
// document.Handler drops at the order's ReplyTo, the customer's FTP
// folder.
type fulfilment struct {
	out     core.Sender      // the Outbox: mailto → SMTP Sender, sftp → SFTP Sender, ftp → FTP Sender
	mail    core.ReplyPolicy // where confirmations may be mailed
	carrier string           // the carrier's inbox: sftp://shipping@…/carrier/inbox
	prices  map[string]int
	tr      *trace
}

func (f *fulfilment) handle(ctx context.Context, in *document.Incoming) (*core.Message, error) {
	var po PurchaseOrder
	if err := in.Decode(&po); err != nil {
		return nil, core.SenderFault("not a purchase order")
	}
	if err := po.check(); err != nil {
		return nil, err
	}
	// The buyer's address comes from the document, so from a peer: check it
	// as the Handler checks ReplyTo.
	to := "mailto:" + po.Buyer
	if err := f.mail.Allow(ctx, in.Message, to); err != nil {
		return nil, core.SenderFault("the buyer's mail address is refused (%s)", core.FaultOf(err).Reason)
	}
	inv := Invoice{Number: "INV-" + strings.TrimPrefix(po.Number, "PO-"), Order: po.Number, Currency: "EUR"}
	for _, l := range po.Lines {
		price, ok := f.prices[l.SKU]
		if !ok {
			return nil, core.SenderFault("no price for %s", l.SKU)
		}
		l.UnitCents = price
		inv.Lines = append(inv.Lines, l)
		inv.TotalCents += l.Qty * price
	}

	conf := in.Reply(Confirmation{Order: po.Number, Lines: len(po.Lines), Ships: "within 2 working days"},
		document.WithAction(actionConfirmation))
	conf.To, conf.ReplyTo, conf.FaultTo = to, core.NoneAddress, core.NoneAddress // a notice: answer nothing
	conf.SetMeta(soapsmtp.MetaSubject, "Order "+po.Number+" confirmed")
	f.tr.name(conf.ID, "the confirmation")
	if err := f.out.Send(ctx, conf); err != nil {
		return nil, fmt.Errorf("mail the confirmation: %w", err)
	}
	f.tr.say(stepMailOut, fmt.Sprintf("fulfilment: confirmation mailed to %s, accepted by the customer's mail server (250)", po.Buyer))

	// The carrier's address is fulfilment's own setting, not a peer's.
	advice := in.Reply(DespatchAdvice{Order: po.Number, Parcels: len(po.Lines), Collect: "tomorrow 08:00-12:00"},
		document.WithAction(actionDespatch))
	advice.To, advice.ReplyTo, advice.FaultTo = f.carrier, core.NoneAddress, core.NoneAddress // a notice: answer nothing
	f.tr.name(advice.ID, "the despatch advice")
	if err := f.out.Send(ctx, advice); err != nil {
		return nil, fmt.Errorf("drop the despatch advice: %w", err)
	}

	reply := in.Reply(inv, document.WithAction(actionInvoice))
	f.tr.name(reply.ID, "the invoice")
	return reply, nil
}

// readMail is the customer's mailbox handler: it prints the confirmation.
func readMail(tr *trace) document.HandleFunc {
	return func(_ context.Context, in *document.Incoming) (*core.Message, error) {
		var c Confirmation
		if err := in.Decode(&c); err != nil {
			return nil, core.SenderFault("not a confirmation")
		}
		m := in.Message.Meta
		tr.say(stepMailRead,
			fmt.Sprintf("customer's mailbox: from %s, subject %q, In-Reply-To %s", m[soapimap.MetaFrom], m[soapimap.MetaSubject], m[soapimap.MetaInReplyTo]),
			fmt.Sprintf("customer's mailbox: %s confirmed, %d lines, ships %s", c.Order, c.Lines, c.Ships))
		return nil, nil
	}
}

// carrier books a collection for each despatch advice dropped in its SFTP
// inbox.
func carrier(tr *trace) document.HandleFunc {
	return func(_ context.Context, in *document.Incoming) (*core.Message, error) {
		var a DespatchAdvice
		if err := in.Decode(&a); err != nil {
			return nil, core.SenderFault("not a despatch advice")
		}
		tr.say(stepAdviceRead, fmt.Sprintf("carrier: collection of %s booked, %d %s, %s", a.Order, a.Parcels, plural(a.Parcels, "parcel", "parcels"), a.Collect))
		return nil, nil
	}
}

// arrival prints a message's arrival at party `to` as the hop of step s,
// then hands it to h. The route names the party that sent it (see
// trace.sent).
func arrival(tr *trace, s step, transport, to string, note func(*core.Message) string, h core.Handler) core.Handler {
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		tr.hop(s, hop{transport: transport, route: tr.sender(m.ID) + " -> " + to, note: note(m), m: m})
		return h.ServeSOAP(ctx, m)
	})
}

// tapped is a Sender that notes who sends each message (for the hop's
// route) and reports the message once it was sent.
type tapped struct {
	core.Sender
	tr    *trace
	from  string
	after func(m *core.Message) // nil: nothing to report
}

func (t tapped) Send(ctx context.Context, m *core.Message) error {
	t.tr.sent(m.ID, t.from)
	if err := t.Sender.Send(ctx, m); err != nil {
		return err
	}
	if t.after != nil {
		t.after(m)
	}
	return nil
}

var _ core.Sender = tapped{}

// isAddress reports whether addr names a place to send to (not empty, the
// anonymous back-channel or none).
func isAddress(addr string) bool {
	return addr != "" && addr != core.AnonymousAddress && addr != core.NoneAddress
}

// fileOf returns the name of the file an FTP or SFTP Sender stored m as.
func fileOf(m *core.Message) string {
	p := m.Meta[soapftp.MetaFile]
	if p == "" {
		p = m.Meta[soapsftp.MetaFile]
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}
