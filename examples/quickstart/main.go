// Command quickstart shows soapwire's core at work over in-memory Pipes:
// a SOAP 1.2 request and its reply, a mustUnderstand fault, an intermediary
// that processes, removes and inserts header blocks, and one-way documents
// answered at their ReplyTo by core.Serve.
//
//	go run ./examples/quickstart
package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// ns is the namespace of the example's documents and header blocks.
const ns = "urn:example:quickstart"

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run runs the four parts in turn, writing what happens to w.
func run(w io.Writer) error {
	ctx := context.Background()
	for _, part := range []struct {
		title string
		fn    func(context.Context, io.Writer) error
	}{
		{"1. Request and reply (SOAP 1.2)", requestReply},
		{"2. A mandatory header block nobody understands", mustUnderstand},
		{"3. An intermediary on the way", intermediary},
		{"4. One-way documents, receipts to ReplyTo", oneWay},
	} {
		fmt.Fprintf(w, "== %s ==\n", part.title)
		if err := part.fn(ctx, w); err != nil {
			return fmt.Errorf("%s: %w", part.title, err)
		}
		fmt.Fprintln(w)
	}
	return nil
}

// Echo is the request body of parts 1–3.
type Echo struct {
	XMLName xml.Name `xml:"urn:example:quickstart Echo"`
	Text    string   `xml:"Text"`
}

// EchoResponse answers it.
type EchoResponse struct {
	XMLName xml.Name `xml:"urn:example:quickstart EchoResponse"`
	Text    string   `xml:"Text"`
}

// echo is the service's body handler.
func echo(_ context.Context, m *core.Message) (*core.Message, error) {
	var e Echo
	if err := m.Body().Decode(&e); err != nil {
		return nil, err
	}
	reply := m.Reply(core.ValueBody(EchoResponse{Text: e.Text}))
	reply.ID = "urn:example:reply-1" // stable output; core.Reply gives a fresh random id
	reply.Action = ns + "/EchoResponse"
	return reply, nil
}

// request returns an Echo request.
func request(text string) *core.Message {
	m := core.NewMessage(core.V12, core.ValueBody(Echo{Text: text}))
	m.Action = ns + "/Echo"
	m.ID = "urn:example:request-1"
	return m
}

// block returns a header block holding text.
func block(local, text, role string, mustUnderstand bool) core.HeaderBlock {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<q:%s xmlns:q="%s">`, local, ns)
	xml.EscapeText(&b, []byte(text))
	fmt.Fprintf(&b, `</q:%s>`, local)
	hb, err := core.ParseHeaderBlock(b.Bytes())
	if err != nil {
		panic(err) // the example's own XML
	}
	hb.Role, hb.MustUnderstand = role, mustUnderstand
	return hb
}

func requestReply(ctx context.Context, w io.Writer) error {
	service := &core.Node{URI: "urn:example:service", Handler: core.HandlerFunc(echo)}
	pipe := coretest.NewPipe(coretest.WithHandler(service))
	defer pipe.Close()

	req := request("Hello, SOAP")
	fmt.Fprintln(w, "request:")
	if err := printEnvelope(w, req); err != nil {
		return err
	}
	reply, err := pipe.RoundTrip(ctx, req)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "reply:")
	return printEnvelope(w, reply)
}

func mustUnderstand(ctx context.Context, w io.Writer) error {
	service := &core.Node{URI: "urn:example:service", Handler: core.HandlerFunc(echo)}
	pipe := coretest.NewPipe(coretest.WithHandler(service))
	defer pipe.Close()

	req := request("Hello again")
	req.Envelope.Headers = []core.HeaderBlock{block("Priority", "urgent", "", true)}
	fmt.Fprintln(w, "request header: {urn:example:quickstart}Priority, mustUnderstand, for the ultimate receiver")
	_, err := pipe.RoundTrip(ctx, req)
	var f *core.Fault
	if !errors.As(err, &f) {
		return fmt.Errorf("want a fault, got %v", err)
	}
	fmt.Fprintf(w, "fault code: %s\n", f.Code)
	fmt.Fprintf(w, "reason: %s\n", f.Reason)
	fmt.Fprintf(w, "node: %s\n", f.Node)
	for _, q := range f.NotUnderstood {
		fmt.Fprintf(w, "not understood: {%s}%s\n", q.Space, q.Local)
	}
	fmt.Fprintf(w, "remote: %v (decoded from the fault envelope below)\n", f.Remote)
	return printEnvelope(w, core.NewMessage(core.V12, core.FaultBody(f)))
}

// Token is what the gateway takes from the Auth block; Stamp is what it
// inserts for the service.
type Token struct {
	XMLName xml.Name `xml:"urn:example:quickstart Auth"`
	User    string   `xml:",chardata"`
}

func intermediary(ctx context.Context, w io.Writer) error {
	stamp := xml.Name{Space: ns, Local: "Stamp"}
	auth := xml.Name{Space: ns, Local: "Auth"}
	service := &core.Node{
		URI: "urn:example:service",
		Headers: map[xml.Name]core.HeaderFunc{
			stamp: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var s struct {
					Text string `xml:",chardata"`
				}
				if err := b.Decode(&s); err != nil {
					return ctx, err
				}
				fmt.Fprintf(w, "service: processed Stamp %q\n", s.Text)
				return ctx, nil
			},
		},
		Handler: core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			fmt.Fprintln(w, "service: header blocks that arrived:")
			for _, b := range m.Envelope.Headers {
				fmt.Fprintf(w, "  {%s}%s role=%q mustUnderstand=%v\n", b.Name.Space, b.Name.Local, b.Role, b.MustUnderstand)
			}
			return echo(ctx, m)
		}),
	}
	toService := coretest.NewPipe(coretest.WithHandler(service))
	defer toService.Close()

	gateway := &core.Node{
		URI:          "urn:example:gateway",
		Intermediary: true,
		Next:         toService,
		Headers: map[xml.Name]core.HeaderFunc{
			auth: func(ctx context.Context, m *core.Message, b *core.HeaderBlock) (context.Context, error) {
				var t Token
				if err := b.Decode(&t); err != nil {
					return ctx, err
				}
				fmt.Fprintf(w, "gateway: processed Auth for %q, inserting Stamp\n", t.User)
				m.Envelope.Headers = append(m.Envelope.Headers, block("Stamp", "checked by gateway for "+t.User, "", true))
				return ctx, nil
			},
		},
	}
	toGateway := coretest.NewPipe(coretest.WithHandler(gateway))
	defer toGateway.Close()

	req := request("Through the gateway")
	req.Envelope.Headers = []core.HeaderBlock{
		block("Auth", "ada", core.RoleNext, true), // for the first node on the path
		block("Trace", "trace-42", "", false),     // for the ultimate receiver
	}
	fmt.Fprintln(w, "client: sends Auth (role next, mustUnderstand) and Trace (ultimate receiver)")
	reply, err := toGateway.RoundTrip(ctx, req)
	if err != nil {
		return err
	}
	var r EchoResponse
	if err := reply.Body().Decode(&r); err != nil {
		return err
	}
	fmt.Fprintf(w, "client: reply %q\n", r.Text)
	return nil
}

// Order is the one-way document of part 4; Receipt answers it.
type Order struct {
	XMLName xml.Name `xml:"urn:example:quickstart Order"`
	Number  string   `xml:"Number"`
	Item    string   `xml:"Item"`
}

// Receipt acknowledges an order.
type Receipt struct {
	XMLName xml.Name `xml:"urn:example:quickstart Receipt"`
	Number  string   `xml:"Number"`
	Status  string   `xml:"Status"`
}

func oneWay(ctx context.Context, w io.Writer) error {
	orders := coretest.NewPipe(coretest.WithAddress("pipe:orders"))
	receipts := coretest.NewPipe(coretest.WithAddress("pipe:receipts"))
	defer orders.Close()
	defer receipts.Close()

	var processed atomic.Int32
	shop := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var o Order
		if err := m.Body().Decode(&o); err != nil {
			return nil, err
		}
		processed.Add(1)
		reply := m.Reply(core.ValueBody(Receipt{Number: o.Number, Status: "accepted"}))
		reply.ID = "urn:example:receipt-" + o.Number
		reply.Action = ns + "/Receipt"
		return reply, nil
	})
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- core.Serve(sctx, orders, shop, receipts) }()

	for _, o := range []struct{ number, item, replyTo string }{
		{"1", "tea", core.NoneAddress},
		{"2", "scones", receipts.Addr()},
		{"3", "jam", receipts.Addr()},
	} {
		m := core.NewMessage(core.V12, core.ValueBody(Order{Number: o.number, Item: o.item}))
		m.ID, m.To, m.ReplyTo, m.Action = "urn:example:order-"+o.number, orders.Addr(), o.replyTo, ns+"/Order"
		fmt.Fprintf(w, "client: order %s (%s) to %s, ReplyTo %s\n", o.number, o.item, m.To, o.replyTo)
		if err := orders.Send(ctx, m); err != nil {
			return err
		}
	}
	const wanted = 2 // orders 2 and 3 asked for a receipt
	for range wanted {
		d, err := receipts.Receive(ctx)
		if err != nil {
			return err
		}
		m := d.Message()
		var r Receipt
		if err := m.Body().Decode(&r); err != nil {
			return err
		}
		fmt.Fprintf(w, "client: receipt at %s: order %s %s (RelatesTo %s)\n", m.To, r.Number, r.Status, m.RelatesTo)
		if err := d.Ack(ctx); err != nil {
			return err
		}
	}
	stop()
	if err := <-served; err != nil {
		return err
	}
	fmt.Fprintf(w, "shop: %d orders processed, %d receipts sent (order 1 asked for none)\n", processed.Load(), wanted)
	return nil
}

// printEnvelope writes m's envelope, indented, to w.
func printEnvelope(w io.Writer, m *core.Message) error {
	var raw bytes.Buffer
	if _, err := m.WriteTo(&raw); err != nil {
		return err
	}
	return indent(w, raw.Bytes(), "  ")
}

// indent writes XML with one element per line, keeping prefixes as they are
// (encoding/xml's Encoder would rewrite them).
func indent(w io.Writer, raw []byte, prefix string) error {
	d := xml.NewDecoder(bytes.NewReader(raw))
	var b strings.Builder
	depth := 0
	open := false // a start tag was written and its line not yet ended
	name := func(n xml.Name) string {
		if n.Space == "" {
			return n.Local
		}
		return n.Space + ":" + n.Local
	}
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if open {
				b.WriteString("\n")
			}
			b.WriteString(prefix + strings.Repeat("  ", depth) + "<" + name(t.Name))
			for _, a := range t.Attr {
				b.WriteString(" " + name(a.Name) + `="`)
				xml.EscapeText(&b, []byte(a.Value))
				b.WriteString(`"`)
			}
			b.WriteString(">")
			depth++
			open = true
		case xml.EndElement:
			depth--
			if !open {
				b.WriteString(prefix + strings.Repeat("  ", depth))
			}
			b.WriteString("</" + name(t.Name) + ">\n")
			open = false
		case xml.CharData:
			if s := strings.TrimSpace(string(t)); s != "" {
				xml.EscapeText(&b, []byte(s))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
