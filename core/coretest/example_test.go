package coretest_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

type greeting struct {
	XMLName xml.Name `xml:"urn:example:hello Hello"`
	Name    string   `xml:"Name"`
}

type answer struct {
	XMLName xml.Name `xml:"urn:example:hello HelloResponse"`
	Text    string   `xml:"Text"`
}

// Serve drives a Pipe of requests; replies go to the requests' ReplyTo
// through a second Pipe.
func ExamplePipe_serve() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	requests := coretest.NewPipe(coretest.WithAddress("pipe:requests"))
	replies := coretest.NewPipe(coretest.WithAddress("pipe:replies"))
	defer requests.Close()
	defer replies.Close()

	hello := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var g greeting
		if err := m.Body().Decode(&g); err != nil {
			return nil, err
		}
		return m.Reply(core.ValueBody(answer{Text: "Hello, " + g.Name})), nil
	})
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx, requests, hello, replies) }()

	m := core.NewMessage(core.V12, core.ValueBody(greeting{Name: "Ada"}))
	m.ID, m.To, m.ReplyTo = "urn:example:1", requests.Addr(), replies.Addr()
	if err := requests.Send(ctx, m); err != nil {
		fmt.Println(err)
		return
	}

	d, err := replies.Receive(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	var a answer
	if err := d.Message().Body().Decode(&a); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("to:", d.Message().To)
	fmt.Println("relates to:", d.Message().RelatesTo)
	fmt.Println("answer:", a.Text)
	_ = d.Ack(ctx)

	cancel()
	fmt.Println("serve:", <-done)
	// Output:
	// to: pipe:replies
	// relates to: urn:example:1
	// answer: Hello, Ada
	// serve: <nil>
}

// A Pipe with a Handler is a RoundTripper; a fault comes back as a
// *core.Fault with Remote set.
func ExamplePipe_RoundTrip() {
	p := coretest.NewPipe(coretest.WithHandler(core.HandlerFunc(
		func(ctx context.Context, m *core.Message) (*core.Message, error) {
			var g greeting
			if err := m.Body().Decode(&g); err != nil {
				return nil, err
			}
			if g.Name == "" {
				return nil, core.SenderFault("a name is required")
			}
			return m.Reply(core.ValueBody(answer{Text: "Hello, " + g.Name})), nil
		})))

	for _, name := range []string{"Grace", ""} {
		reply, err := p.RoundTrip(context.Background(), core.NewMessage(core.V11, core.ValueBody(greeting{Name: name})))
		var f *core.Fault
		if errors.As(err, &f) {
			fmt.Printf("fault: code=%s reason=%q remote=%v\n", f.Code, f.Reason, f.Remote)
			continue
		}
		var a answer
		if err := reply.Body().Decode(&a); err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println("reply:", a.Text)
	}
	// Output:
	// reply: Hello, Grace
	// fault: code=Sender reason="a name is required" remote=true
}
