package mail_test

import (
	"bytes"
	"fmt"
	netmail "net/mail"

	"github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
)

// A reply composed as a mail reads back with its fields; being an
// auto-reply, it is never answered (the loop guard gives it no ReplyTo).
func ExampleCompose() {
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<p:ping xmlns:p="urn:test">hello</p:ping>`)))
	m.ID, m.RelatesTo, m.Action = "urn:uuid:6f1c7a3e-0c1b-4d5e-9f00-1234567890ab", "mid:request@example.org", "urn:test:ping"
	var out, scratch bytes.Buffer
	w, err := mail.Compose(&out, &scratch, m, mail.Header{
		From: &netmail.Address{Address: "svc@example.org"},
		To:   &netmail.Address{Address: "client@example.org"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.MessageID, w.InReplyTo)

	got, err := mail.Read(&out, &mail.ReadConfig{Prefix: "x."})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.ID, got.RelatesTo, got.Action, got.ReplyTo)
	fmt.Println(got.Meta["x."+mail.KeyLoop])
	// Output:
	// <6f1c7a3e-0c1b-4d5e-9f00-1234567890ab@uuid.invalid> <request@example.org>
	// urn:uuid:6f1c7a3e-0c1b-4d5e-9f00-1234567890ab mid:request@example.org urn:test:ping http://www.w3.org/2005/08/addressing/none
	// auto-submitted: auto-replied
}
