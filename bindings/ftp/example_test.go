package ftp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// Drop a message into an endpoint's inbox with a Sender and take it with a
// Poller, on the embedded server.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir, err := os.MkdirTemp("", "soapftp-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	srv, err := soapftp.StartServer(dir, "alice", "secret") // 127.0.0.1, a free port
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	client := soapftp.NewClient(srv.Addr(), "alice", "secret")
	defer client.Close()
	poller, err := soapftp.NewPoller(client, "/orders") // inbox/, work/, outbox/, failed/
	if err != nil {
		fmt.Println(err)
		return
	}
	defer poller.Close()
	if err := poller.MakeLayout(ctx); err != nil {
		fmt.Println(err)
		return
	}

	m := core.NewMessage(core.V12, core.RawBody([]byte(`<o:order xmlns:o="urn:example">42</o:order>`)))
	m.ID = "urn:uuid:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"
	m.To = poller.Address()
	if err := soapftp.NewSender(client).Send(ctx, m); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored:", m.Meta[soapftp.MetaFile])

	d, err := poller.Receive(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	var order struct {
		N int `xml:",chardata"`
	}
	if err := d.Message().Body().Decode(&order); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("received: order", order.N, "from", d.Message().Meta[soapftp.MetaFile])
	if err := d.Ack(ctx); err != nil {
		fmt.Println(err)
		return
	}
	left, _ := os.ReadDir(filepath.Join(dir, "orders", "inbox"))
	work, _ := os.ReadDir(filepath.Join(dir, "orders", "work"))
	fmt.Println("left in inbox and work:", len(left)+len(work))
	// Output:
	// stored: /orders/inbox/6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b.xml
	// received: order 42 from 6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b.xml
	// left in inbox and work: 0
}

// FileName makes a message id safe as a file name on any server.
func ExampleFileName() {
	fmt.Println(soapftp.FileName("urn:uuid:6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"))
	fmt.Println(soapftp.FileName("order-2024-0042"))
	fmt.Println(soapftp.FileName("../../etc/passwd"))
	// Output:
	// 6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b.xml
	// order-2024-0042.xml
	// ___.__etc_passwd-3754d6cb3a38.xml
}
