// Command custom-binding embeds soapwire's core behind a binding of its
// own: unixsock (in the folder beside this file), SOAP over Unix domain
// sockets, written against core's public API only. It runs a quote service
// that answers calls, and a shop that takes one-way orders from a spooling
// inbox through core.Serve, with receipts, a retry, a parked order and a
// restart, and prints what happens.
//
//	go run ./examples/custom-binding
package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

const ns = "urn:example:shop"

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "custom-binding:", err)
		os.Exit(1)
	}
}

// run runs the parts in turn in a fresh temporary folder (sockets and
// spools), writing what happens to w.
func run(ctx context.Context, w io.Writer) error {
	dir, err := os.MkdirTemp("", "custom-binding")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	w = &syncWriter{w: w} // the servers print from their own goroutines
	d := &demo{dir: dir, w: w}
	for _, part := range []struct {
		title string
		fn    func(context.Context) error
	}{
		{"1. Calls: a unixsock.Server answers with a core.Handler", d.calls},
		{"2. One-way orders: a spooling unixsock.Inbox driven by core.Serve", d.orders},
		{"3. Stored means stored: a restart", d.restart},
	} {
		fmt.Fprintf(w, "== %s ==\n", part.title)
		if err := part.fn(ctx); err != nil {
			return fmt.Errorf("%s: %w", part.title, err)
		}
		fmt.Fprintln(w)
	}
	return nil
}

type demo struct {
	dir string
	w   io.Writer
}

// addr is the address of a socket in the demo's folder; show prints it
// without the folder, so the output is the same on every run.
func (d *demo) addr(name string) string { return unixsock.Address(filepath.Join(d.dir, name)) }
func (d *demo) show(addr string) string { return strings.Replace(addr, d.dir, "$DIR", 1) }

// serve runs serve on a fresh socket until the returned stop is called.
func serve(ctx context.Context, addr string, fn func(context.Context, net.Listener) error) (stop func() error, err error) {
	ln, err := unixsock.Listen(addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- fn(ctx, ln) }()
	return func() error { cancel(); return <-done }, nil
}

// GetQuote asks for the price of an item; Quote answers it.
type GetQuote struct {
	XMLName xml.Name `xml:"urn:example:shop GetQuote"`
	Item    string   `xml:"Item"`
}

type Quote struct {
	XMLName xml.Name `xml:"urn:example:shop Quote"`
	Item    string   `xml:"Item"`
	Price   string   `xml:"Price"`
}

// Visit is a one-way notice: accepted, never answered.
type Visit struct {
	XMLName xml.Name `xml:"urn:example:shop Visit"`
	Who     string   `xml:"Who"`
}

var prices = map[string]string{"tea": "3.50", "scones": "2.20", "jam": "4.10"}

// quotes is the quote service: a core.Mux routing on the body element.
func quotes(w io.Writer) core.Handler {
	mux := &core.Mux{}
	mux.Handle(core.Route{Name: xml.Name{Space: ns, Local: "GetQuote"}}, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var q GetQuote
		if err := m.Body().Decode(&q); err != nil {
			return nil, err
		}
		price, ok := prices[q.Item]
		if !ok {
			return nil, core.SenderFault("no price for %s", q.Item)
		}
		reply := m.Reply(core.ValueBody(Quote{Item: q.Item, Price: price}))
		reply.Action = ns + "/Quote"
		return reply, nil
	}))
	mux.Handle(core.Route{Name: xml.Name{Space: ns, Local: "Visit"}}, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var v Visit
		if err := m.Body().Decode(&v); err != nil {
			return nil, err
		}
		fmt.Fprintf(w, "quotes: visit from %s noted\n", v.Who)
		return nil, nil
	}))
	return mux
}

func (d *demo) calls(ctx context.Context) error {
	addr := d.addr("quotes.sock")
	stop, err := serve(ctx, addr, unixsock.NewServer(quotes(d.w)).Serve)
	if err != nil {
		return err
	}
	client := unixsock.NewTransport(addr)
	fmt.Fprintf(d.w, "quotes: serving on %s\n", d.show(addr))
	for i, item := range []string{"tea", "caviar"} {
		m := core.NewMessage(core.V12, core.ValueBody(GetQuote{Item: item}))
		m.ID, m.Action = fmt.Sprintf("urn:example:quote-%d", i+1), ns+"/GetQuote"
		reply, err := client.RoundTrip(ctx, m)
		var f *core.Fault
		switch {
		case errors.As(err, &f):
			fmt.Fprintf(d.w, "client: GetQuote %s -> fault %s: %s (remote: %v)\n", item, f.Code, f.Reason, f.Remote)
		case err != nil:
			return err
		default:
			var q Quote
			if err := reply.Body().Decode(&q); err != nil {
				return err
			}
			fmt.Fprintf(d.w, "client: GetQuote %s -> %s, action %s, RelatesTo %s\n", item, q.Price, reply.Action, reply.RelatesTo)
		}
	}
	m := core.NewMessage(core.V11, core.ValueBody(Visit{Who: "ada"}))
	m.Action = ns + "/Visit"
	reply, err := client.RoundTrip(ctx, m)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.w, "client: Visit (SOAP 1.1) -> accepted, reply %v\n", reply)
	return stop()
}

// Order is a one-way document; Receipt answers it at its ReplyTo.
type Order struct {
	XMLName xml.Name `xml:"urn:example:shop Order"`
	Number  int      `xml:"Number"`
	Item    string   `xml:"Item"`
}

type Receipt struct {
	XMLName xml.Name `xml:"urn:example:shop Receipt"`
	Number  int      `xml:"Number"`
	Status  string   `xml:"Status"`
}

// shop handles orders; it records what it did per order, to print them in
// order once it has stopped (core.Serve fetches the next delivery while one
// is handled, so a retried order and the next one may interleave).
type shop struct {
	mu     sync.Mutex
	events map[int][]string
	tries  map[int]int
	parked chan struct{} // closed when the order that always fails has had its last try
	last   int           // attempts before an order is parked (the Inbox's WithMaxAttempts)
}

func newShop(maxAttempts int) *shop {
	return &shop{events: map[int][]string{}, tries: map[int]int{}, parked: make(chan struct{}), last: maxAttempts}
}

func (s *shop) note(n int, format string, args ...any) {
	s.events[n] = append(s.events[n], fmt.Sprintf(format, args...))
}

func (s *shop) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	var o Order
	if err := m.Body().Decode(&o); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tries[o.Number]++
	attempt := m.Meta[unixsock.MetaAttempt]
	switch {
	case o.Item == "scones" && s.tries[o.Number] == 1:
		s.note(o.Number, "attempt %s: oven not hot yet (a plain error; FaultTo none, so Serve Nacks: redelivery)", attempt)
		return nil, errors.New("oven not hot yet")
	case o.Item == "anvil":
		s.note(o.Number, "attempt %s: out of stock (FaultTo none, so Serve Nacks)", attempt)
		if s.tries[o.Number] == s.last {
			close(s.parked)
		}
		return nil, core.ReceiverFault("out of stock: %s", o.Item)
	case prices[o.Item] == "":
		s.note(o.Number, "attempt %s: unknown item %s (a Sender fault, sent to FaultTo)", attempt, o.Item)
		return nil, core.SenderFault("unknown item %s", o.Item)
	}
	s.note(o.Number, "attempt %s: %s accepted, receipt to ReplyTo", attempt, o.Item)
	reply := m.Reply(core.ValueBody(Receipt{Number: o.Number, Status: "accepted"}))
	reply.Action = ns + "/Receipt"
	return reply, nil
}

func (s *shop) print(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	numbers := make([]int, 0, len(s.events))
	for n := range s.events {
		numbers = append(numbers, n)
	}
	sort.Ints(numbers)
	for _, n := range numbers {
		for _, e := range s.events[n] {
			fmt.Fprintf(w, "shop: order %d %s\n", n, e)
		}
	}
	clear(s.events)
}

// inbox opens an Inbox over a spool folder and serves it on a socket.
func (d *demo) inbox(ctx context.Context, name string, opts ...unixsock.InboxOption) (*unixsock.Inbox, string, func() error, error) {
	in, err := unixsock.NewInbox(filepath.Join(d.dir, name), opts...)
	if err != nil {
		return nil, "", nil, err
	}
	addr := d.addr(name + ".sock")
	stop, err := serve(ctx, addr, in.Serve)
	if err != nil {
		in.Close()
		return nil, "", nil, err
	}
	return in, addr, func() error { in.Close(); return stop() }, nil
}

const maxAttempts = 2

func (d *demo) orders(ctx context.Context) error {
	orders, ordersAddr, stopOrders, err := d.inbox(ctx, "orders", unixsock.WithMaxAttempts(maxAttempts))
	if err != nil {
		return err
	}
	defer stopOrders()
	receipts, receiptsAddr, stopReceipts, err := d.inbox(ctx, "receipts")
	if err != nil {
		return err
	}
	defer stopReceipts()
	client := unixsock.NewTransport("")
	fmt.Fprintf(d.w, "orders inbox: %s (spool $DIR/orders, %d attempts); receipts inbox: %s\n", d.show(ordersAddr), maxAttempts, d.show(receiptsAddr))

	for _, o := range []Order{{Number: 1, Item: "tea"}, {Number: 2, Item: "scones"}, {Number: 3, Item: "anvil"}, {Number: 4, Item: "caviar"}} {
		m := core.NewMessage(core.V12, core.ValueBody(o))
		m.ID, m.Action, m.To = fmt.Sprintf("urn:example:order-%d", o.Number), ns+"/Order", ordersAddr
		m.ReplyTo, m.FaultTo = receiptsAddr, core.NoneAddress
		if o.Item == "caviar" {
			m.FaultTo = receiptsAddr
		}
		if err := client.Send(ctx, m); err != nil {
			return err
		}
		fmt.Fprintf(d.w, "client: order %d (%s) stored in the orders inbox\n", o.Number, o.Item)
	}

	s := newShop(maxAttempts)
	sctx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- core.Serve(sctx, orders, s, client) }() // replies go out through the same Transport
	var answers []string
	for range 3 { // receipts for orders 1 and 2, the fault for order 4
		a, err := d.take(ctx, receipts)
		if err != nil {
			stopServe()
			return err
		}
		answers = append(answers, a)
	}
	<-s.parked // order 3's last attempt has begun …
	stopServe()
	if err := <-served; err != nil { // … and Serve returns once it is settled
		return err
	}
	s.print(d.w)
	sort.Strings(answers)
	for _, a := range answers {
		fmt.Fprintln(d.w, a)
	}
	return d.listFailed(orders.Dir())
}

// take receives one message from in, Acks it, and says what it was.
func (d *demo) take(ctx context.Context, in *unixsock.Inbox) (string, error) {
	del, err := in.Receive(ctx)
	if err != nil {
		return "", err
	}
	m := del.Message()
	defer del.Ack(ctx)
	if f := m.Fault(); f != nil {
		return fmt.Sprintf("client: fault at the receipts inbox, RelatesTo %s: %s: %s", m.RelatesTo, f.Code, f.Reason), nil
	}
	var r Receipt
	if err := m.Body().Decode(&r); err != nil {
		return "", err
	}
	return fmt.Sprintf("client: receipt at the receipts inbox, RelatesTo %s: order %d %s", m.RelatesTo, r.Number, r.Status), nil
}

// listFailed prints what the inbox parked, with the fault stored beside it.
func (d *demo) listFailed(spool string) error {
	faults, err := filepath.Glob(filepath.Join(spool, "failed", "*.fault.xml"))
	if err != nil {
		return err
	}
	for _, name := range faults {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		m, err := core.ReadMessage(f, core.Limits{})
		if err != nil {
			f.Close()
			return err
		}
		fault := m.Fault()
		f.Close()
		if fault == nil {
			return fmt.Errorf("%s holds no fault", name)
		}
		fmt.Fprintf(d.w, "orders inbox: parked in failed/ after %d attempts, beside its fault: %s: %s\n", maxAttempts, fault.Code, fault.Reason)
	}
	return nil
}

func (d *demo) restart(ctx context.Context) error {
	orders, ordersAddr, stopOrders, err := d.inbox(ctx, "orders")
	if err != nil {
		return err
	}
	receipts, receiptsAddr, stopReceipts, err := d.inbox(ctx, "receipts")
	if err != nil {
		stopOrders()
		return err
	}
	defer stopReceipts()
	client := unixsock.NewTransport("")
	m := core.NewMessage(core.V11, core.ValueBody(Order{Number: 5, Item: "jam"}))
	m.ID, m.Action, m.To, m.ReplyTo = "urn:example:order-5", ns+"/Order", ordersAddr, receiptsAddr
	if err := client.Send(ctx, m); err != nil {
		stopOrders()
		return err
	}
	fmt.Fprintln(d.w, "client: order 5 (jam) stored while the shop is down")
	if err := stopOrders(); err != nil {
		return err
	}
	fmt.Fprintf(d.w, "orders inbox: closed with %d message queued\n", queued(orders.Dir()))

	orders, _, stopOrders, err = d.inbox(ctx, "orders") // as a restarted process would
	if err != nil {
		return err
	}
	defer stopOrders()
	fmt.Fprintf(d.w, "orders inbox: reopened on the same spool, %d message waiting\n", orders.Len())
	s := newShop(maxAttempts)
	sctx, stopServe := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- core.Serve(sctx, orders, s, client) }()
	a, err := d.take(ctx, receipts)
	stopServe()
	if serr := <-served; err == nil {
		err = serr
	}
	if err != nil {
		return err
	}
	s.print(d.w)
	fmt.Fprintln(d.w, a)
	return nil
}

// queued counts the files waiting in a closed inbox's spool.
func queued(spool string) int {
	files, _ := filepath.Glob(filepath.Join(spool, "queue", "*.frame"))
	return len(files)
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
