package file_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	"github.com/soapwire/soapwire/core"
)

// A document dropped into a local folder and taken by a Poller on it.
func Example() {
	ctx := context.Background()
	root, _ := os.MkdirTemp("", "soapfile-example")
	defer os.RemoveAll(root)

	poller, err := soapfile.NewPoller(filepath.Join(root, "acme"))
	if err != nil {
		panic(err)
	}
	defer poller.Close()
	if err := poller.MakeLayout(ctx); err != nil {
		panic(err)
	}
	sender, err := soapfile.NewSender(root)
	if err != nil {
		panic(err)
	}
	defer sender.Close()

	m := core.NewMessage(core.V12, core.RawBody([]byte(`<o:Order xmlns:o="urn:orders">42</o:Order>`)))
	m.ID = "urn:uuid:6f1e0c1a-0000-4000-8000-000000000042"
	m.To = poller.Address()
	if err := sender.Send(ctx, m); err != nil {
		panic(err)
	}

	d, err := poller.Receive(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Message().ID, d.Message().Meta[soapfile.MetaFile])
	fmt.Println(d.Ack(ctx))
	// Output:
	// urn:uuid:6f1e0c1a-0000-4000-8000-000000000042 6f1e0c1a-0000-4000-8000-000000000042.xml
	// <nil>
}
