package document_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/document"
)

// PurchaseOrder and Confirmation are the documents of the examples.
type PurchaseOrder struct {
	XMLName xml.Name `xml:"urn:example:po PurchaseOrder"`
	Item    string   `xml:"Item"`
	Qty     int      `xml:"Qty"`
}

type Confirmation struct {
	XMLName xml.Name `xml:"urn:example:po Confirmation"`
	Status  string   `xml:"Status"`
}

// A buyer sends a purchase order to a seller's inbox and gets the
// confirmation back on its own inbox, two one-way transfers that look like
// one call. The two inboxes are in-memory Pipes here; in real life one is a
// mailbox and the other a file drop or an HTTP endpoint, and the Outbox maps
// mailto:, ftp:, http: … to their bindings' Senders.
func Example() {
	seller := coretest.NewPipe(coretest.WithAddress("pipe:seller")) // the seller's inbox
	buyer := coretest.NewPipe(coretest.WithAddress("pipe:buyer"))   // the buyer's inbox
	defer seller.Close()
	defer buyer.Close()

	// The seller: a document handler with duplicate suppression. It replies
	// to whatever ReplyTo names, through an Outbox, once the Policy allowed
	// that address (by default: schemes the Outbox has).
	handler := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		var po PurchaseOrder
		if err := in.Decode(&po); err != nil {
			return nil, err // a Sender fault, sent to FaultTo
		}
		fmt.Printf("seller: %d × %s, conversation %s\n", po.Qty, po.Item, in.Conversation)
		return in.Reply(Confirmation{Status: "accepted"}, document.WithAction("urn:example:po:confirm")), nil
	},
		document.WithStore(document.NewMemoryStore()),
		document.WithOutbox(document.NewOutbox(map[string]core.Sender{"pipe": buyer})))

	// The buyer: a Correlator sends through the seller's inbox and matches
	// what arrives on its own inbox by RelatesTo.
	buyerState := document.NewMemoryStore()
	correlator := document.NewCorrelator(seller, buyer.Addr(), document.WithStore(buyerState))

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = core.Serve(ctx, seller, handler, nil) })
	wg.Go(func() { _ = core.Serve(ctx, buyer, correlator, nil) })
	defer wg.Wait()
	defer cancel()

	order := document.NewMessage("pipe:seller", PurchaseOrder{Item: "bolt", Qty: 3},
		document.WithAction("urn:example:po:submit"), document.WithConversation("po-1"))
	callCtx, stop := context.WithTimeout(ctx, 10*time.Second) // the whole exchange
	defer stop()
	reply, err := correlator.RoundTrip(callCtx, order)
	if err != nil {
		fmt.Println("buyer:", err) // a *core.Fault, or a *document.TimeoutError
		return
	}
	var conf Confirmation
	if err := reply.Body().Decode(&conf); err != nil {
		fmt.Println("buyer:", err)
		return
	}
	conv, _ := buyerState.Get(ctx, "po-1")
	fmt.Printf("buyer: %s, conversation %s is %s\n", conf.Status, document.ConversationOf(reply), conv.State)
	// Output:
	// seller: 3 × bolt, conversation po-1
	// buyer: accepted, conversation po-1 is completed
}

// Send wraps a document in an envelope and hands it to the Sender its
// address's scheme selects; the Receipt holds what the transport confirmed.
func ExampleSend() {
	smtp := core.SendFunc(func(ctx context.Context, m *core.Message) error {
		m.SetMeta("smtp.queued-as", "4QxYz1") // what a binding reports after sending
		return nil
	})
	out := document.NewOutbox(map[string]core.Sender{"mailto": smtp})

	rc, err := document.Send(context.Background(), out, "mailto:orders@seller.example",
		[]byte(`<po:PurchaseOrder xmlns:po="urn:example:po"><Item>nut</Item><Qty>12</Qty></po:PurchaseOrder>`),
		document.WithVersion(core.V11), document.WithReplyTo("mailto:buyer@buyer.example"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("queued as", rc.Transport["smtp.queued-as"], "to", rc.To)

	_, err = document.Send(context.Background(), out, "ftp://seller.example/inbox", []byte(`<x:x xmlns:x="urn:x"/>`))
	fmt.Println(err)
	// Output:
	// queued as 4QxYz1 to mailto:orders@seller.example
	// document: no sender for this address scheme: "ftp" in "ftp://seller.example/inbox" (have: mailto)
}

// A Handler with a Store does not process a redelivered message again: the
// earlier outcome is sent again instead.
func ExampleHandler_duplicates() {
	runs := 0
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		runs++
		return in.Reply(Confirmation{Status: "accepted"}), nil
	}, document.WithStore(document.NewMemoryStore()))
	inbox := coretest.NewPipe(coretest.WithHandler(h)) // a round trip per call, like HTTP
	defer inbox.Close()

	order := document.NewMessage("pipe:seller", PurchaseOrder{Item: "bolt", Qty: 3})
	first, _ := inbox.RoundTrip(context.Background(), order)
	again, _ := inbox.RoundTrip(context.Background(), order) // the same MessageID, delivered twice
	fmt.Println("handler runs:", runs)
	fmt.Println("same reply:", first.ID == again.ID)
	// Output:
	// handler runs: 1
	// same reply: true
}

// A caller that gives up gets a *document.TimeoutError; the reply that comes
// later goes to the fallback handler, not into the void.
func ExampleCorrelator_lateReply() {
	requests := coretest.NewPipe() // nobody answers in time
	defer requests.Close()
	late := make(chan *core.Message, 1)
	c := document.NewCorrelator(requests, "pipe:buyer", document.WithFallback(core.HandlerFunc(
		func(ctx context.Context, m *core.Message) (*core.Message, error) {
			late <- m
			return nil, nil
		})))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req := document.NewMessage("pipe:seller", PurchaseOrder{Item: "bolt", Qty: 3})
	_, err := c.RoundTrip(ctx, req)
	var te *document.TimeoutError
	fmt.Println("timed out:", errors.As(err, &te) && te.MessageID == req.ID)

	// The seller answers after all; the reply arrives on the buyer's inbox.
	reply := document.NewMessage("pipe:buyer", Confirmation{Status: "accepted"})
	reply.RelatesTo = req.ID
	_, _ = c.ServeSOAP(context.Background(), reply)
	m := <-late
	fmt.Println("fallback got the", m.Meta[document.MetaMatch], "reply to the request:", m.RelatesTo == req.ID)
	// Output:
	// timed out: true
	// fallback got the late reply to the request: true
}
