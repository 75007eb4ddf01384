package imap_test

import (
	"context"
	"fmt"
	"time"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
)

// A mailbox on the embedded server: a message put into its INBOX is
// received, claimed into the processing folder and acknowledged (deleted).
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv, err := soapimap.StartServer()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	srv.AddUser("orders", "secret")
	inbox := srv.URL("orders", "INBOX")

	// Loopback only: the embedded server offers no TLS here.
	a, err := soapimap.NewAppender(inbox, "shop@example.org", soapimap.WithCredentials("orders", "secret"), soapimap.WithPlaintext())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer a.Close()
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<o:order xmlns:o="urn:example:orders">4711</o:order>`)))
	m.To, m.Action = inbox, "urn:example:order"
	if err := a.Send(ctx, m); err != nil {
		fmt.Println(err)
		return
	}

	r, err := soapimap.NewReceiver(ctx, inbox, soapimap.WithCredentials("orders", "secret"), soapimap.WithPlaintext())
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
	got := d.Message()
	fmt.Println(got.Action, got.Meta[soapimap.MetaFolder], got.Meta[soapimap.MetaFrom])
	fmt.Println(d.Ack(ctx))
	// Output:
	// urn:example:order INBOX shop@example.org
	// <nil>
}
