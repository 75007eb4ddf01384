package smtp_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// Mail a SOAP message to an embedded server and take it out of its
// Maildir.
func Example() {
	dir, err := os.MkdirTemp("", "soapwire-maildir-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	mb, err := soapsmtp.OpenMaildir(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	srv, err := soapsmtp.StartServer(mb, soapsmtp.WithAddresses("orders@example.org"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	ctx := context.Background()

	s, err := soapsmtp.NewSender(srv.Addr(), "shop@example.org")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<o:order xmlns:o="urn:example">42</o:order>`)))
	m.To, m.Action = "mailto:orders@example.org", "urn:example:order"
	if err := s.Send(ctx, m); err != nil {
		fmt.Println(err)
		return
	}

	r := soapsmtp.NewReceiver(mb)
	defer r.Close()
	d, err := r.Receive(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	got := d.Message()
	var order struct {
		N int `xml:",chardata"`
	}
	if err := got.Body().Decode(&order); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(got.Action, got.ReplyTo, got.Meta[soapsmtp.MetaFrom], order.N, got.ID == m.ID)
	fmt.Println(d.Ack(ctx))
	// Output:
	// urn:example:order mailto:shop@example.org shop@example.org 42 true
	// <nil>
}

// A service that owns its server's lifetime makes it with NewServer and
// serves on a listener until its ctx is done.
func ExampleNewServer() {
	dir, err := os.MkdirTemp("", "soapwire-maildir-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	mb, err := soapsmtp.OpenMaildir(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mb.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := soapsmtp.NewServer(l.Addr().String(), mb,
		soapsmtp.WithAddresses("orders@example.org"),
		soapsmtp.WithMaxMessageBytes(1<<20),
		soapsmtp.WithIOTimeout(30*time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	defer cancel()

	s, err := soapsmtp.NewSender(srv.Addr(), "shop@example.org", soapsmtp.WithIOTimeout(30*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<o:order xmlns:o="urn:example">43</o:order>`)))
	m.To = "mailto:orders@example.org"
	fmt.Println(s.Send(ctx, m), m.Meta[soapsmtp.MetaQueuedAs] != "")
	cancel()
	fmt.Println(<-done)
	// Output:
	// <nil> true
	// <nil>
}

// A mail from an ordinary mail program: the mail's headers give what the
// envelope does not say.
func ExampleReadMail() {
	mail := `From: Ann <ann@example.org>
Message-ID: <order-7@example.org>
Content-Type: text/xml; charset=utf-8
SOAPAction: "urn:example:order"

<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/">
  <s:Body><o:order xmlns:o="urn:example">7</o:order></s:Body>
</s:Envelope>
`
	m, err := soapsmtp.ReadMail(strings.NewReader(mail))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Version(), m.Action)
	fmt.Println(m.ID, m.ReplyTo)
	fmt.Println(m.Body().Name().Local)
	// Output:
	// 1.1 urn:example:order
	// mid:order-7@example.org mailto:ann@example.org
	// order
}

// The Message-ID of a mail stands for the envelope's message id, so that
// In-Reply-To correlates as WS-Addressing RelatesTo does.
func ExampleMessageIDHeader() {
	h := soapsmtp.MessageIDHeader("urn:uuid:6f1c7a3e-0c1b-4d5e-9f00-1234567890ab")
	fmt.Println(h)
	fmt.Println(soapsmtp.IDFromMessageID(h))
	fmt.Println(soapsmtp.IDFromMessageID("<CAF=x7@mail.example.org>"))
	// Output:
	// <6f1c7a3e-0c1b-4d5e-9f00-1234567890ab@uuid.invalid>
	// urn:uuid:6f1c7a3e-0c1b-4d5e-9f00-1234567890ab
	// mid:CAF=x7@mail.example.org
}

// A Maildir on a file system of its own commits each batch of mails with
// one syncfs(2); Deliver returns once the mail is synced in new/.
func ExampleWithSyncMode() {
	dir, err := os.MkdirTemp("", "soapwire-maildir-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	mb, err := soapsmtp.OpenMaildir(dir, soapsmtp.WithSyncMode(soapsmtp.SyncFilesystem))
	if err != nil {
		fmt.Println(err)
		return
	}
	name, err := mb.Deliver(strings.NewReader("From: a@example.org\r\nContent-Type: text/xml\r\n\r\n<x/>\r\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = os.Stat(mb.Path(soapsmtp.FolderNew, name))
	fmt.Println("in new/:", err == nil)
	// Output: in new/: true
}
