package unixsock_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/examples/custom-binding/unixsock"
)

// A Server answers calls on a socket with a core.Handler; a Transport calls
// it.
func ExampleServer() {
	dir, _ := os.MkdirTemp("", "us")
	defer os.RemoveAll(dir)
	addr := unixsock.Address(filepath.Join(dir, "echo.sock"))
	ln, err := unixsock.Listen(addr)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() {
		served <- unixsock.NewServer(core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			return m.Reply(core.RawBody([]byte(`<t:Pong xmlns:t="urn:test">pong</t:Pong>`))), nil
		})).Serve(ctx, ln)
	}()

	m := core.NewMessage(core.V12, core.RawBody([]byte(`<t:Ping xmlns:t="urn:test"/>`)))
	m.Action = "urn:test/Ping"
	reply, err := unixsock.NewTransport(addr).RoundTrip(ctx, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("reply:", reply.Body().Name().Local, reply.Version())
	stop()
	fmt.Println("Serve returned:", <-served)
	// Output:
	// reply: Pong 1.2
	// Serve returned: <nil>
}

// An Inbox stores what Transports send to its socket; Receive delivers it,
// Ack deletes it.
func ExampleInbox() {
	dir, _ := os.MkdirTemp("", "us")
	defer os.RemoveAll(dir)
	in, err := unixsock.NewInbox(filepath.Join(dir, "spool"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer in.Close()
	addr := unixsock.Address(filepath.Join(dir, "orders.sock"))
	ln, err := unixsock.Listen(addr)
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	go in.Serve(ctx, ln)

	m := core.NewMessage(core.V11, core.RawBody([]byte(`<o:Order xmlns:o="urn:shop">tea</o:Order>`)))
	m.ID, m.To = "urn:uuid:order-1", addr
	if err := unixsock.NewTransport("").Send(ctx, m); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored; queued:", in.Len())
	d, err := in.Receive(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("received", d.Message().ID, "attempt", d.Message().Meta[unixsock.MetaAttempt])
	fmt.Println("ack:", d.Ack(ctx), "then nack:", d.Nack(ctx, nil))
	// Output:
	// stored; queued: 1
	// received urn:uuid:order-1 attempt 1
	// ack: <nil> then nack: core: delivery already settled the other way
}
