package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/document"
	"github.com/soapwire/soapwire/examples/contract-first/orders"
)

// customer holds the generated client four times, one per transport.
type customer struct {
	http, nats, mail, file *orders.OrdersSoapClient
	// byMail and byFile are the mail and file clients' RoundTrippers:
	// they keep the last reply, to show how it came.
	byMail, byFile *addressed
	url            string
}

// newCustomer makes the generated client of each transport: over HTTP
// and NATS it takes the binding's Transport (a core.RoundTripper); by mail
// and file drop it takes a document.Correlator, which sends the request
// through a core.Sender with the customer's address as ReplyTo and waits
// for the reply that relates to it, which the customer's own Receiver
// hands to the Correlator.
func newCustomer(ctx context.Context, ep *endpoints, log *slog.Logger, lc *lifecycle) (*customer, error) {
	c := &customer{url: ep.http}
	c.http = orders.NewOrdersSoapClient(soaphttp.NewTransport(ep.http, soaphttp.WithTimeout(10*time.Second)), wsdl.WithAddress(ep.http))

	nc, err := connect(ep.nats, "customer", lc)
	if err != nil {
		return nil, err
	}
	natsTo := "nats:" + ordersSubject
	c.nats = orders.NewOrdersSoapClient(soapnats.NewTransport(nc, natsTo, soapnats.WithTimeout(10*time.Second)), wsdl.WithAddress(natsTo))

	// By mail: requests go to the shop's mail server; the shop mails the
	// replies to the customer's, whose Maildir the customer serves with
	// the Correlator.
	mailOut, err := soapsmtp.NewSender(ep.shopMX, customerMail, soapsmtp.WithLogger(log))
	if err != nil {
		return nil, err
	}
	lc.closer("the customer's SMTP sender", mailOut)
	mailCorr := document.NewCorrelator(mailOut, "mailto:"+customerMail, document.WithTimeout(10*time.Second), document.WithLogger(log))
	mailIn := soapsmtp.NewReceiver(ep.mailbox, soapsmtp.WithAddresses(customerMail), soapsmtp.WithArchive(), soapsmtp.WithLogger(log))
	lc.closer("the customer's mail receiver", mailIn)
	lc.goServe(ctx, "the customer's mail", func(ctx context.Context) error {
		return core.Serve(ctx, mailIn, mailCorr, nil, core.WithLogger(log))
	})
	c.byMail = &addressed{to: "mailto:" + shopMail, rt: mailCorr}
	c.mail = orders.NewOrdersSoapClient(c.byMail, wsdl.WithAddress(c.byMail.to))

	// By file drop: requests are dropped into the shop's inbox; the shop
	// drops the replies into the customer's, which the customer polls.
	fileOut, err := soapfile.NewSender(ep.dropRoot, soapfile.WithLogger(log))
	if err != nil {
		return nil, err
	}
	lc.closer("the customer's drop sender", fileOut)
	fileIn, err := soapfile.NewPoller(filepath.Join(ep.dropRoot, "customer"), fastPoll, slowestPoll, soapfile.WithLogger(log))
	if err != nil {
		return nil, err
	}
	lc.closer("the customer's drop poller", fileIn)
	if err := fileIn.MakeLayout(ctx); err != nil {
		return nil, err
	}
	fileCorr := document.NewCorrelator(fileOut, fileIn.Address(), document.WithTimeout(10*time.Second), document.WithLogger(log))
	lc.goServe(ctx, "the customer's drop", func(ctx context.Context) error {
		return core.Serve(ctx, fileIn, fileCorr, nil, core.WithLogger(log))
	})
	c.byFile = &addressed{to: ep.shopDrop, rt: fileCorr}
	c.file = orders.NewOrdersSoapClient(c.byFile, wsdl.WithAddress(c.byFile.to))
	return c, nil
}

// addressed sends every request to one address through rt, and keeps the
// last reply. A generated client leaves its requests' To empty, since an
// HTTP or NATS Transport is made for the address it sends to; a
// document.Correlator sends through a core.Sender, which goes where the
// message's To says, so requests through one are addressed here.
type addressed struct {
	to   string
	rt   core.RoundTripper
	mu   sync.Mutex
	last *core.Message
}

func (a *addressed) RoundTrip(ctx context.Context, m *core.Message) (*core.Message, error) {
	m.To = a.to
	reply, err := a.rt.RoundTrip(ctx, m)
	a.mu.Lock()
	a.last = reply
	a.mu.Unlock()
	return reply, err
}

// lastReply returns the last reply that came.
func (a *addressed) lastReply() *core.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.last
}

// account is the Account header the customer's requests carry.
var account = &orders.Account{CustomerId: customerAccount}

// sampleLines are what the customer asks a quote for.
func sampleLines() []orders.Line {
	return []orders.Line{{Sku: "BOLT-M8", Quantity: 10}, {Sku: "GEAR-42", Quantity: 2}}
}

// quoteAndOrder asks c for a quote of the sample lines, then orders on it,
// printing both; seen, when not nil, prints how the last reply came.
func quoteAndOrder(ctx context.Context, w io.Writer, c *orders.OrdersSoapClient, currency orders.Currency, ref string, seen func()) error {
	in := &orders.GetQuote{Line: sampleLines(), Currency: currency}
	fmt.Fprintf(w, "customer: GetQuote(%s, in %s), Account header %s\n", lines(in.Line), currency, account.CustomerId)
	q, err := c.GetQuote(ctx, in, account)
	if err != nil {
		return fmt.Errorf("GetQuote: %w", err)
	}
	fmt.Fprintf(w, "customer: quote %s: %s %s\n", q.QuoteId, q.Total, q.Currency)
	if seen != nil {
		seen()
	}
	fmt.Fprintf(w, "customer: PlaceOrder(%s, reference %s)\n", q.QuoteId, ref)
	o, err := c.PlaceOrder(ctx, &orders.PlaceOrder{QuoteId: q.QuoteId, Reference: &ref}, account)
	if err != nil {
		return fmt.Errorf("PlaceOrder: %w", err)
	}
	fmt.Fprintf(w, "customer: order %s %s\n", o.OrderNumber, o.Status)
	if seen != nil {
		seen()
	}
	return nil
}

// overHTTP fetches the contract the generated server serves, then quotes
// and orders.
func overHTTP(ctx context.Context, w io.Writer, cu *customer) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cu.url+"?wsdl", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `location="`+cu.url+`"`) {
		return fmt.Errorf("GET ?wsdl: %s, %d bytes without the port's address", resp.Status, len(body))
	}
	fmt.Fprintf(w, "customer: GET ?wsdl: %s, the contract with the port's address set to %s\n", resp.Status, cu.url)
	return quoteAndOrder(ctx, w, cu.http, orders.CurrencyEUR, "PO-1", nil)
}

// byMail quotes and orders by mail, and shows how each reply came.
func byMail(ctx context.Context, w io.Writer, cu *customer) error {
	return quoteAndOrder(ctx, w, cu.mail, orders.CurrencyEUR, "PO-3", func() {
		r := cu.byMail.lastReply()
		fmt.Fprintf(w, "  (a mail from %s, In-Reply-To %s: the Correlator matched its RelatesTo)\n", r.Meta[soapsmtp.MetaFrom], r.Meta[soapsmtp.MetaInReplyTo])
	})
}

// byFile quotes and orders by file drop, and shows how each reply came.
func byFile(ctx context.Context, w io.Writer, cu *customer) error {
	return quoteAndOrder(ctx, w, cu.file, orders.CurrencyEUR, "PO-4", func() {
		r := cu.byFile.lastReply()
		fmt.Fprintf(w, "  (the file %s in the customer's drop folder: the Correlator matched its RelatesTo)\n", filepath.Base(r.Meta[soapfile.MetaFile]))
	})
}

// faults shows the declared fault coming back as its typed error over
// NATS, mail and the file drop, and the contract's checks on both sides.
func faults(ctx context.Context, w io.Writer, cu *customer) error {
	fmt.Fprintln(w, "customer: GetQuote(1 x WIDGET-9) over NATS")
	_, err := cu.nats.GetQuote(ctx, &orders.GetQuote{Line: []orders.Line{{Sku: "WIDGET-9", Quantity: 1}}, Currency: orders.CurrencyEUR}, account)
	if err := declared(w, err); err != nil {
		return err
	}
	fmt.Fprintln(w, "customer: GetQuote without the Account header, by mail")
	_, err = cu.mail.GetQuote(ctx, &orders.GetQuote{Line: sampleLines(), Currency: orders.CurrencyEUR}, nil)
	if err := declared(w, err); err != nil {
		return err
	}
	fmt.Fprintln(w, "customer: PlaceOrder(Q-9999) by file drop")
	_, err = cu.file.PlaceOrder(ctx, &orders.PlaceOrder{QuoteId: "Q-9999"}, account)
	if err := declared(w, err); err != nil {
		return err
	}

	fmt.Fprintln(w, "customer: GetQuote(0 x BOLT-M8) over HTTP")
	_, err = cu.http.GetQuote(ctx, &orders.GetQuote{Line: []orders.Line{{Sku: "BOLT-M8", Quantity: 0}}, Currency: orders.CurrencyEUR}, account)
	if err == nil {
		return errors.New("the generated client sent a quantity of 0")
	}
	fmt.Fprintf(w, "customer: refused by the generated client, nothing sent: %v\n", err)

	fmt.Fprintln(w, "customer: the same request written by hand and posted over HTTP")
	m := core.NewMessage(core.V11, core.RawBody([]byte(`<o:GetQuote xmlns:o="urn:example:orders">`+
		`<o:line><o:sku>BOLT-M8</o:sku><o:quantity>0</o:quantity></o:line><o:currency>EUR</o:currency></o:GetQuote>`)))
	m.Action = "urn:example:orders#GetQuote"
	_, err = soaphttp.NewTransport(cu.url).RoundTrip(ctx, m)
	var f *core.Fault
	if !errors.As(err, &f) {
		return fmt.Errorf("the generated server took a quantity of 0: %v", err)
	}
	fmt.Fprintf(w, "customer: refused by the generated server: a %s fault: %s\n", f.Code, f.Reason)
	return nil
}

// declared prints the declared fault err is, or fails.
func declared(w io.Writer, err error) error {
	var of *orders.OrderFaultError
	if !errors.As(err, &of) {
		return fmt.Errorf("not the declared fault: %v", err)
	}
	sku := ""
	if of.Detail.Sku != nil {
		sku = ", sku " + *of.Detail.Sku
	}
	fmt.Fprintf(w, "customer: *orders.OrderFaultError, a %s fault %q: code %s%s: %s\n", of.Code, of.Reason, of.Detail.Code, sku, of.Detail.Message)
	return nil
}

// lines prints order lines as "10 x BOLT-M8, 2 x GEAR-42".
func lines(ls []orders.Line) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%d x %s", l.Quantity, l.Sku)
	}
	return strings.Join(parts, ", ")
}
