package nats_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// Serve a core.Handler on a NATS subject and call it with a Transport, in
// both SOAP versions, through an embedded server.
func Example() {
	srv, err := soapnats.StartServer("") // JetStream in a temporary folder
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	nc, err := srv.Connect()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()

	type greet struct {
		XMLName xml.Name `xml:"urn:example greet"`
		Name    string   `xml:"name"`
	}
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var g greet
		if err := m.Body().Decode(&g); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(`<e:greeting xmlns:e="urn:example">hello, ` + g.Name + ` (` + m.Action + `)</e:greeting>`))), nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the subscription
	if _, err := soapnats.Subscribe(ctx, nc, "greeter", h); err != nil {
		fmt.Println(err)
		return
	}

	tr := soapnats.NewTransport(nc, "nats:greeter")
	for _, v := range []core.Version{core.V11, core.V12} {
		m := core.NewMessage(v, core.ValueBody(greet{Name: "SOAP " + v.String()}))
		m.Action = "urn:example:greet"
		reply, err := tr.RoundTrip(ctx, m)
		if err != nil {
			fmt.Println(err)
			return
		}
		var out struct {
			Text string `xml:",chardata"`
		}
		if err := reply.Body().Decode(&out); err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(reply.Version(), out.Text)
	}
	// Output:
	// 1.1 hello, SOAP 1.1 (urn:example:greet)
	// 1.2 hello, SOAP 1.2 (urn:example:greet)
}

// Nothing subscribes to the subject: RoundTrip fails at once with
// ErrNoResponders, not after its deadline.
func ExampleTransport_RoundTrip_noResponders() {
	srv, err := soapnats.StartServer("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	nc, err := srv.Connect()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()

	tr := soapnats.NewTransport(nc, "nats:nobody.home")
	_, err = tr.RoundTrip(context.Background(), core.NewMessage(core.V12, core.RawBody([]byte(`<x:ping xmlns:x="urn:x"/>`))))
	fmt.Println(errors.Is(err, soapnats.ErrNoResponders), errors.Is(err, context.DeadlineExceeded))
	fmt.Println(err)
	// Output:
	// true false
	// nats: no responders on nobody.home
}

// Durable document delivery: a Publisher stores a document in a JetStream
// stream, a Receiver on a durable consumer gets it, and core.Serve would
// Ack it after processing.
func Example_jetStream() {
	srv, err := soapnats.StartServer("")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	nc, err := srv.Connect()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer nc.Close()
	ctx := context.Background()

	// A stream for the documents and one for dead letters.
	js, err := jetstream.New(nc)
	if err != nil {
		fmt.Println(err)
		return
	}
	for name, subject := range map[string]string{"ORDERS": "orders.>", "DEAD": "soapwire.dead.>"} {
		if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Storage: jetstream.FileStorage}); err != nil {
			fmt.Println(err)
			return
		}
	}

	pub, err := soapnats.NewPublisher(nc, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<o:order xmlns:o="urn:example">42 apples</o:order>`)))
	m.ID, m.To = "urn:uuid:7c9a1e8a-0000-4000-8000-000000000001", "nats:orders.placed?stream=ORDERS"
	if err := pub.Send(ctx, m); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored in", m.Meta["nats.stream"], "as", m.Meta["nats.seq"])

	r, err := soapnats.NewReceiver(ctx, nc, "nats:orders.>", "shipping")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	d, err := r.Receive(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	var order struct {
		Text string `xml:",chardata"`
	}
	if err := d.Message().Body().Decode(&order); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Message().ID, order.Text, "delivery", d.Message().Meta["nats.deliveries"])
	if err := d.Ack(ctx); err != nil {
		fmt.Println(err)
	}
	// Output:
	// stored in ORDERS as 1
	// urn:uuid:7c9a1e8a-0000-4000-8000-000000000001 42 apples delivery 1
}
