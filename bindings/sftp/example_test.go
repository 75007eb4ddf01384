package sftp_test

import (
	"context"
	"fmt"
	"os"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
)

// A document dropped on an embedded SFTP server and taken by a Poller; the
// Client pins the server's host key.
func Example() {
	ctx := context.Background()
	root, _ := os.MkdirTemp("", "soapsftp-example")
	defer os.RemoveAll(root)
	srv, err := soapsftp.StartServer(root, "orders", soapsftp.WithPassword("s3cret"))
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	client := soapsftp.NewClient(srv.Addr(), "orders", soapsftp.WithPassword("s3cret"), soapsftp.WithHostKey(srv.HostKey()))
	defer client.Close()
	poller, err := soapsftp.NewPoller(client, "/partners/acme")
	if err != nil {
		panic(err)
	}
	defer poller.Close()
	if err := poller.MakeLayout(ctx); err != nil {
		panic(err)
	}

	m := core.NewMessage(core.V12, core.RawBody([]byte(`<o:Order xmlns:o="urn:orders">42</o:Order>`)))
	m.ID = "urn:uuid:6f1e0c1a-0000-4000-8000-000000000042"
	m.To = poller.Address()
	if err := soapsftp.NewSender(client).Send(ctx, m); err != nil {
		panic(err)
	}
	fmt.Println(m.Meta[soapsftp.MetaFile])

	d, err := poller.Receive(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Message().ID)
	fmt.Println(d.Ack(ctx))
	// Output:
	// /partners/acme/inbox/6f1e0c1a-0000-4000-8000-000000000042.xml
	// urn:uuid:6f1e0c1a-0000-4000-8000-000000000042
	// <nil>
}
