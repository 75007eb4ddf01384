package drop_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// A Poller over a file system (here an in-memory one): a file dropped in
// the inbox is received once, and deleted when Acked.
func Example() {
	ctx := context.Background()
	fsys := newFakeFS()
	p, err := drop.NewPoller(fsys, "/partners/acme", drop.Config{Scheme: "mem"})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	if err := p.MakeLayout(ctx); err != nil {
		panic(err)
	}

	m := core.NewMessage(core.V12, core.RawBody([]byte(`<o:Order xmlns:o="urn:orders">42</o:Order>`)))
	m.ID = "urn:uuid:6f1e0c1a-0000-4000-8000-000000000042"
	var b strings.Builder
	m.WriteTo(&b)
	name := drop.FileName(m.ID)
	if _, err := drop.Store(ctx, fsys, p.Inbox(), name, strings.NewReader(b.String()), nil, "mem"); err != nil {
		panic(err)
	}

	d, err := p.Receive(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Message().ID, d.Message().Meta["mem.file"])
	d.Ack(ctx)
	fmt.Println(fsys.names("/partners/acme/inbox"), fsys.names("/partners/acme/work"))
	// Output:
	// urn:uuid:6f1e0c1a-0000-4000-8000-000000000042 6f1e0c1a-0000-4000-8000-000000000042.xml
	// [] []
}
