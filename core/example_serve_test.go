package core_test

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/soapwire/soapwire/core"
)

// exampleInbox is a tiny Receiver over a channel, standing in for a mailbox
// or a file drop.
type exampleInbox struct {
	ch        chan core.Delivery
	done      chan struct{}
	closeOnce sync.Once
}

func (b *exampleInbox) Receive(ctx context.Context) (core.Delivery, error) {
	select {
	case d := <-b.ch:
		return d, nil
	case <-b.done:
		return nil, core.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (b *exampleInbox) Close() error {
	b.closeOnce.Do(func() { close(b.done) })
	return nil
}

// exampleDelivery prints how it was settled and then closes the inbox.
type exampleDelivery struct {
	m     *core.Message
	inbox *exampleInbox
}

func (d exampleDelivery) Message() *core.Message { return d.m }

func (d exampleDelivery) Ack(ctx context.Context) error {
	fmt.Println("ack", d.m.ID)
	return d.inbox.Close()
}

func (d exampleDelivery) Nack(ctx context.Context, cause error) error {
	fmt.Println("nack", d.m.ID, cause)
	return d.inbox.Close()
}

// Serve takes messages from a Receiver, answers them through a Sender to the
// address the request asked for, and acknowledges each only once its reply
// was handed on.
func ExampleServe() {
	const in = `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsa="http://www.w3.org/2005/08/addressing">
  <soap:Header>
    <wsa:MessageID>urn:uuid:6b1c2d1e-0000-4000-8000-000000000001</wsa:MessageID>
    <wsa:ReplyTo><wsa:Address>mailto:buyer@example.org</wsa:Address></wsa:ReplyTo>
    <wsa:Action>urn:example:orders:Place</wsa:Action>
  </soap:Header>
  <soap:Body><o:Place xmlns:o="urn:example:orders"><o:Item>tea</o:Item></o:Place></soap:Body>
</soap:Envelope>`
	m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	inbox := &exampleInbox{ch: make(chan core.Delivery, 1), done: make(chan struct{})}
	inbox.ch <- exampleDelivery{m: m, inbox: inbox}

	handler := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var order struct {
			Item string `xml:"Item"`
		}
		if err := m.Body().Decode(&order); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(`<o:Placed xmlns:o="urn:example:orders">` + order.Item + `</o:Placed>`))), nil
	})
	mail := core.SendFunc(func(ctx context.Context, reply *core.Message) error {
		fmt.Println("send to", reply.To, "in reply to", reply.RelatesTo)
		return nil
	})
	// Answers go by mail, and only to the buyer's domain: a request naming
	// anyone else is parked unhandled.
	policy := core.ReplyPolicy{Schemes: []string{"mailto"}, Mailboxes: []string{"@example.org"}}
	err = core.Serve(context.Background(), inbox, handler, mail, core.WithReplyPolicy(policy))
	fmt.Println("Serve returned", err)
	// Output:
	// send to mailto:buyer@example.org in reply to urn:uuid:6b1c2d1e-0000-4000-8000-000000000001
	// ack urn:uuid:6b1c2d1e-0000-4000-8000-000000000001
	// Serve returned <nil>
}

// A ReplyPolicy checks peer-supplied ReplyTo and FaultTo addresses before
// a request is handled. Mail goes only to the listed mailboxes (and to the
// request's authenticated submitter); hosts to the listed ones.
func ExampleReplyPolicy_Allow() {
	p := core.ReplyPolicy{
		Schemes:   []string{"mailto", "https", "nats"},
		Hosts:     []string{"buyer.example", ".partners.example"},
		Subjects:  []string{"replies.>"},
		Mailboxes: []string{"@buyer.example"},
	}
	for _, addr := range []string{
		"mailto:orders@buyer.example",
		"mailto:orders@buyer.example?bcc=spy@evil.example",
		"mailto:victim@third.example",
		"https://erp.partners.example/inbox",
		"https://169.254.169.254/latest/meta-data",
		"nats:replies.po-1",
		"nats:$JS.API.STREAM.DELETE.ORDERS",
		"http://www.w3.org/2005/08/addressing/anonymous",
	} {
		if err := p.Allow(context.Background(), nil, addr); err != nil {
			fmt.Println("refused:", addr)
			continue
		}
		fmt.Println("allowed:", addr)
	}
	// Output:
	// allowed: mailto:orders@buyer.example
	// refused: mailto:orders@buyer.example?bcc=spy@evil.example
	// refused: mailto:victim@third.example
	// allowed: https://erp.partners.example/inbox
	// refused: https://169.254.169.254/latest/meta-data
	// allowed: nats:replies.po-1
	// refused: nats:$JS.API.STREAM.DELETE.ORDERS
	// allowed: http://www.w3.org/2005/08/addressing/anonymous
}
