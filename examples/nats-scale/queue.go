package main

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// ns is the namespace of the example's documents.
const ns = "urn:example:prices"

// Quote asks for a price; QuoteResponse answers it, naming the instance
// that did.
type (
	Quote struct {
		XMLName xml.Name `xml:"urn:example:prices Quote"`
		Number  int      `xml:"Number"`
		Item    string   `xml:"Item"`
	}
	QuoteResponse struct {
		XMLName  xml.Name `xml:"urn:example:prices QuoteResponse"`
		Number   int      `xml:"Number"`
		Cents    int      `xml:"Cents"`
		Instance string   `xml:"Instance"`
	}
)

const (
	subject = "prices.quote" // what the service is subscribed to
	queue   = "prices"       // its queue group
)

var instances = []string{"price-1", "price-2", "price-3"}

// drained is the instance that stops midway.
const drained = "price-2"

// tally counts what the instances handled.
type tally struct {
	mu      sync.Mutex
	handled map[string]int // request id → times a handler ran for it
	served  map[string]int // instance → requests it answered
}

// queueGroup subscribes three instances of the price service to one
// subject in one queue group, each on its own connection, and sends them
// requests with many in flight; one instance drains midway.
func (d *demo) queueGroup(ctx context.Context) error {
	t := &tally{handled: map[string]int{}, served: map[string]int{}}
	subs := map[string]*soapnats.Subscription{}
	for _, name := range instances {
		nc, err := d.connect(name)
		if err != nil {
			return err
		}
		sub, err := soapnats.Subscribe(ctx, nc, subject, priceService(name, t),
			soapnats.WithQueue(queue), soapnats.WithLogger(d.cfg.log))
		if err != nil {
			return err
		}
		defer sub.Close()
		subs[name] = sub
		fmt.Fprintf(d.w, "%s: Subscribe %s in queue group %q, on its own connection\n", name, subject, queue)
	}

	nc, err := d.connect("client")
	if err != nil {
		return err
	}
	tr := soapnats.NewTransport(nc, "nats:"+subject, soapnats.WithLogger(d.cfg.log))
	n, drainAt := d.cfg.requests, d.cfg.requests/3
	fmt.Fprintf(d.w, "client: %d requests to nats:%s over one connection, %d in flight\n", n, subject, d.cfg.inFlight)

	var (
		answered    atomic.Int64
		startDrain  = make(chan struct{})
		drainDone   = make(chan error, 1)
		afterDrain  atomic.Int64 // answers from the drained instance to requests sent after its Drain returned
		drainReturn atomic.Bool
	)
	go func() {
		select {
		case <-startDrain:
		case <-ctx.Done():
			drainDone <- ctx.Err()
			return
		}
		fmt.Fprintf(d.w, "client: after %d answers, %s drains (Subscription.Drain): it answers what it holds and takes no more\n", drainAt, drained)
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		err := subs[drained].Drain(dctx) // stops taking requests, answers those it holds
		drainReturn.Store(true)
		if err == nil {
			fmt.Fprintf(d.w, "%s: drained; the others take over\n", drained)
		}
		drainDone <- err
	}()

	errs := make([]error, n)
	sem := make(chan struct{}, d.cfg.inFlight)
	var wg sync.WaitGroup
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return ctx.Err()
		}
		sentAfterDrain := drainReturn.Load()
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = func() error {
				req := core.NewMessage(core.V12, core.ValueBody(Quote{Number: i, Item: "tea"}))
				req.ID = fmt.Sprintf("urn:example:quote-%d", i)
				req.Action = ns + ":Quote"
				rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				reply, err := tr.RoundTrip(rctx, req)
				if err != nil {
					return fmt.Errorf("request %d: %w", i, err)
				}
				var r QuoteResponse
				if err := reply.Body().Decode(&r); err != nil {
					return fmt.Errorf("request %d: %w", i, err)
				}
				if reply.RelatesTo != req.ID || r.Number != i {
					return fmt.Errorf("request %d: answered with the reply to %s (%d)", i, reply.RelatesTo, r.Number)
				}
				if sentAfterDrain && r.Instance == drained {
					afterDrain.Add(1)
				}
				if answered.Add(1) == int64(drainAt) {
					close(startDrain)
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	if err := <-drainDone; err != nil {
		return fmt.Errorf("drain %s: %w", drained, err)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}

	t.mu.Lock()
	defer t.mu.Unlock()
	twice := 0
	for _, times := range t.handled {
		if times > 1 {
			twice++
		}
	}
	fmt.Fprintf(d.w, "client: %d sent, %d answered, %d lost; every reply RelatesTo its own request\n", n, answered.Load(), int64(n)-answered.Load())
	for _, name := range instances {
		note := ""
		if name == drained {
			note = fmt.Sprintf(", then drained; requests sent after its Drain returned that it served: %d", afterDrain.Load())
		}
		fmt.Fprintf(d.w, "  %s served %d%s\n", name, t.served[name], note)
	}
	fmt.Fprintf(d.w, "service: %d distinct requests handled, %d of them more than once\n", len(t.handled), twice)
	if len(t.handled) != n || twice != 0 || afterDrain.Load() != 0 {
		return fmt.Errorf("%d of %d requests handled, %d more than once, %d by %s after its drain", len(t.handled), n, twice, afterDrain.Load(), drained)
	}
	return nil
}

// priceService is one instance of the service: it answers a Quote with a
// price and its own name.
func priceService(name string, t *tally) core.Handler {
	return core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		var q Quote
		if err := m.Body().Decode(&q); err != nil {
			return nil, err
		}
		t.mu.Lock()
		t.handled[m.ID]++
		t.served[name]++
		t.mu.Unlock()
		time.Sleep(time.Millisecond) // some work, so that requests overlap
		reply := m.Reply(core.ValueBody(QuoteResponse{Number: q.Number, Cents: 350, Instance: name}))
		reply.Action = ns + ":QuoteResponse"
		return reply, nil
	})
}
