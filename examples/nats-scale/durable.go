package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// PurchaseOrder is the durable document of part 2.
type PurchaseOrder struct {
	XMLName xml.Name `xml:"urn:example:orders PurchaseOrder"`
	Number  string   `xml:"Number"`
	Item    string   `xml:"Item"`
}

const (
	orders  = "nats:orders.placed?stream=ORDERS" // where orders are published
	durable = "fulfilment"                       // the consumer that takes them
	ackWait = time.Second                        // how long an unsettled order is held for a consumer that went away
)

// consumer is one run of the fulfilment service: a Receiver on the
// durable consumer, under core.Serve, on a connection of its own.
type consumer struct {
	name   string
	nc     *nats.Conn
	stop   context.CancelFunc
	served chan error
}

// durable creates the streams, runs a fulfilment consumer, stops it while
// it holds an order, publishes while no consumer runs, and starts a new
// consumer on the same durable name that gets every order exactly once.
func (d *demo) durable(ctx context.Context) error {
	nc, err := d.connect("shop")
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	for _, cfg := range []jetstream.StreamConfig{
		// FileStorage: the orders survive a server restart too.
		// Duplicates: a message id seen within this window is dropped.
		{Name: "ORDERS", Subjects: []string{"orders.>"}, Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute},
		// Where the Receiver parks an order it gives up on.
		{Name: "DEAD", Subjects: []string{"soapwire.dead.>"}, Storage: jetstream.FileStorage},
	} {
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return err
		}
	}
	fmt.Fprintln(d.w, "shop: streams ORDERS (orders.>) and DEAD (soapwire.dead.>), file storage")
	pub, err := soapnats.NewPublisher(nc, orders, soapnats.WithLogger(d.cfg.log))
	if err != nil {
		return err
	}
	publish := func(number, item, note string) error {
		m := core.NewMessage(core.V12, core.ValueBody(PurchaseOrder{Number: number, Item: item}))
		m.ID, m.Action = "urn:example:order-"+number, "urn:example:orders:PurchaseOrder"
		if err := pub.Send(ctx, m); err != nil { // returns once ORDERS stored it
			return err
		}
		stored := fmt.Sprintf("stored as %s #%s", m.Meta[soapnats.MetaStream], m.Meta[soapnats.MetaSequence])
		if m.Meta[soapnats.MetaDuplicate] == "true" {
			stored = fmt.Sprintf("dropped by the stream: a duplicate of #%s", m.Meta[soapnats.MetaSequence])
		}
		fmt.Fprintf(d.w, "shop: publishes order %s (%s)%s: %s\n", number, item, note, stored)
		return nil
	}

	// Two orders wait in the stream for the fulfilment service.
	for _, o := range []struct{ number, item string }{{"1", "tea"}, {"2", "scones"}} {
		if err := publish(o.number, o.item, ""); err != nil {
			return err
		}
	}

	// Its first run processes order 1, and stops (its process dies) while
	// it holds order 2.
	took := make(chan string, 2)
	first, err := d.startConsumer(ctx, "fulfilment-1", func(ctx context.Context, po PurchaseOrder) error {
		took <- po.Number
		if po.Number == "2" {
			<-ctx.Done() // never finishes: the process is about to die
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		return err
	}
	for range 2 {
		select {
		case <-took:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	fmt.Fprintf(d.w, "%s: dies holding order 2, unacknowledged (its connection closes)\n", first.name)
	first.nc.Close() // no Ack, no Nack: what a crash leaves
	first.stop()
	if err := <-first.served; err != nil {
		return err
	}
	if err := awaitGone(ctx, js); err != nil {
		return err
	}

	// While no consumer runs, orders wait in the stream; a resend of the
	// same message id is dropped there.
	if err := publish("3", "jam", ", no consumer running"); err != nil {
		return err
	}
	if err := publish("3", "jam", " again, same message id"); err != nil {
		return err
	}

	// The next run, on the same durable consumer, gets order 3 at once and
	// order 2 when the AckWait of the run that died is over.
	done := make(chan string, 2)
	second, err := d.startConsumer(ctx, "fulfilment-2", func(_ context.Context, po PurchaseOrder) error {
		done <- po.Number
		return nil
	})
	if err != nil {
		return err
	}
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for range 2 {
		select {
		case <-done:
		case <-wait.Done():
			return fmt.Errorf("%s did not get orders 2 and 3: %w", second.name, wait.Err())
		}
	}
	second.stop()
	if err := <-second.served; err != nil {
		return err
	}
	info, err := js.Consumer(ctx, "ORDERS", durable)
	if err != nil {
		return err
	}
	ci, err := info.Info(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.w, "stream ORDERS: %d orders stored; consumer %s: %d pending, %d unacknowledged\n",
		streamMsgs(ctx, js), durable, ci.NumPending, ci.NumAckPending)
	return nil
}

// startConsumer runs handle under core.Serve on a Receiver of the durable
// consumer, on a connection of its own, and prints each order it takes.
func (d *demo) startConsumer(ctx context.Context, name string, handle func(context.Context, PurchaseOrder) error) (*consumer, error) {
	nc, err := d.connect(name)
	if err != nil {
		return nil, err
	}
	r, err := soapnats.NewReceiver(ctx, nc, orders, durable,
		soapnats.WithAckWait(ackWait), soapnats.WithLogger(d.cfg.log))
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(d.w, "%s: Receiver on durable consumer %q of stream %s\n", name, durable, r.Stream())
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var po PurchaseOrder
		if err := m.Body().Decode(&po); err != nil {
			return nil, err
		}
		fmt.Fprintf(d.w, "%s: takes order %s (%s), #%s, delivery %s\n", name, po.Number, po.Item, m.Meta[soapnats.MetaSequence], m.Meta[soapnats.MetaDeliveries])
		return nil, handle(ctx, po) // (nil, nil): processed, no reply; core.Serve Acks
	})
	sctx, stop := context.WithCancel(ctx)
	c := &consumer{name: name, nc: nc, stop: stop, served: make(chan error, 1)}
	go func() {
		err := core.Serve(sctx, r, h, nil, core.WithLogger(d.cfg.log))
		c.served <- errors.Join(err, r.Close())
	}()
	return c, nil
}

// awaitGone waits until the server has dropped the pull requests of the
// consumer that died (it notices the closed connection a moment later), so
// that the next order is not handed to it.
func awaitGone(ctx context.Context, js jetstream.JetStream) error {
	c, err := js.Consumer(ctx, "ORDERS", durable)
	if err != nil {
		return err
	}
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		info, err := c.Info(ctx)
		if err != nil {
			return err
		}
		if info.NumWaiting == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
}

// streamMsgs returns how many messages ORDERS holds (-1 if it cannot
// tell).
func streamMsgs(ctx context.Context, js jetstream.JetStream) int64 {
	s, err := js.Stream(ctx, "ORDERS")
	if err != nil {
		return -1
	}
	info, err := s.Info(ctx)
	if err != nil {
		return -1
	}
	return int64(info.State.Msgs)
}
