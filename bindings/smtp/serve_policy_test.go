package smtp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// TestServeRefusesForgedReplyTo: mails whose From, Reply-To or
// wsa:ReplyTo name a third party are parked unhandled with a Sender fault
// naming the address, and no mail reaches the third party's mailbox (a
// real mail server the service's Sender submits to); the legitimate mails
// around them are answered.
func TestServeRefusesForgedReplyTo(t *testing.T) {
	// The world the service mails into: one server holding the buyer's
	// and the third party's mailboxes.
	world := startServer(t, t.TempDir(), soapsmtp.WithAddresses("@partner.example", "@third.example"))
	svc := startServer(t, t.TempDir())
	logs := &logRecorder{}
	replies, err := soapsmtp.NewSender(world.addr, svc.box)
	require.NoError(t, err)
	t.Cleanup(func() { replies.Close() })
	var runs atomic.Int64
	r := newReceiver(t, svc.mb, soapsmtp.WithAddresses(svc.box))
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		assert.NoError(t, core.Serve(ctx, r, echoOrFail(&runs), replies, core.WithLogger(logs.logger()),
			core.WithReplyPolicy(core.ReplyPolicy{Mailboxes: []string{"@partner.example"}})))
	})
	t.Cleanup(func() { cancel(); wg.Wait() })

	envelope := func(replyTo string) string {
		h := ""
		if replyTo != "" {
			h = `<e:Header><a:ReplyTo xmlns:a="http://www.w3.org/2005/08/addressing"><a:Address>` + replyTo + `</a:Address></a:ReplyTo></e:Header>`
		}
		return `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope">` + h +
			`<e:Body><p:ping xmlns:p="urn:test">hi</p:ping></e:Body></e:Envelope>` + "\r\n"
	}
	mail := func(id, from, replyToHeader, wsaReplyTo string) string {
		h := "From: " + from + "\r\n"
		if replyToHeader != "" {
			h += "Reply-To: " + replyToHeader + "\r\n"
		}
		return h + "Message-ID: <" + id + "@partner.example>\r\nContent-Type: application/soap+xml; action=\"urn:test:ping\"\r\n\r\n" + envelope(wsaReplyTo)
	}
	hostile := []string{
		mail("forged-from", "victim@third.example", "", ""),
		mail("forged-reply-to", "buyer@partner.example", "victim@third.example", ""),
		mail("forged-wsa", "buyer@partner.example", "", "mailto:victim@third.example"),
		mail("forged-bcc", "buyer@partner.example", "", "mailto:buyer@partner.example?bcc=victim@third.example"),
	}
	require.NoError(t, rawMail(svc.addr, "buyer@partner.example", []string{svc.box}, mail("legit-1", "buyer@partner.example", "", "")))
	for _, m := range hostile {
		require.NoError(t, rawMail(svc.addr, "victim@third.example", []string{svc.box}, m))
	}
	require.NoError(t, rawMail(svc.addr, "buyer@partner.example", []string{svc.box}, mail("legit-2", "buyer@partner.example", "", "")))

	// the two legitimate requests are answered in the buyer's mailbox
	require.Eventually(t, func() bool {
		return len(files(t, world.dir, "new")) == 2 && len(files(t, svc.dir, soapsmtp.FolderFailed)) == 2*len(hostile)
	},
		20*time.Second, 10*time.Millisecond, "new %v, failed %v", files(t, world.dir, "new"), files(t, svc.dir, soapsmtp.FolderFailed))
	for _, name := range files(t, world.dir, "new") {
		b, err := os.ReadFile(filepath.Join(world.dir, "new", name))
		require.NoError(t, err)
		assert.Contains(t, string(b), "Delivered-To: buyer@partner.example")
		assert.NotContains(t, string(b), "third.example", "nothing for the third party")
	}
	assert.Equal(t, int64(2), runs.Load(), "the handler ran for the legitimate mails only")
	faults := 0
	for _, name := range files(t, svc.dir, soapsmtp.FolderFailed) {
		if !strings.HasSuffix(name, soapsmtp.FaultSuffix) {
			continue
		}
		faults++
		b, err := os.ReadFile(filepath.Join(svc.dir, soapsmtp.FolderFailed, name))
		require.NoError(t, err)
		assert.Contains(t, string(b), "victim@third.example", "the fault names the refused address")
	}
	assert.Equal(t, len(hostile), faults)
	assert.Equal(t, len(hostile), logs.count("reply address refused"), "one log line per refused mail")
}
