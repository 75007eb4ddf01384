package smtp_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
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

// authMail submits data to addr after AUTH PLAIN as user.
func authMail(addr, user, pass, from string, to []string, data string) error {
	c, err := gosmtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Auth(sasl.NewPlainClient("", user, pass)); err != nil {
		return err
	}
	if err := c.Mail(from, nil); err != nil {
		return err
	}
	for _, r := range to {
		if err := c.Rcpt(r, nil); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, data); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// TestServeAnswersTheSubmitter: with the default reply policy a mail is
// answered only at the address its server authenticated (SMTP AUTH, the
// record above the mail); a submitter record a peer writes itself, or
// copies from another Maildir, vouches for nothing.
func TestServeAnswersTheSubmitter(t *testing.T) {
	world := startServer(t, t.TempDir(), soapsmtp.WithAddresses("@partner.example", "@third.example"))
	dir := t.TempDir()
	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	authed := startServerOn(t, mb, soapsmtp.WithAuth(func(_ context.Context, user, pass string) bool {
		return pass == "s3cret" && (user == "buyer@partner.example" || user == "clerk")
	}))
	open := startServerOn(t, mb) // as an MTA delivering into the same Maildir: no AUTH
	replies, err := soapsmtp.NewSender(world.addr, authed.box)
	require.NoError(t, err)
	t.Cleanup(func() { replies.Close() })
	var runs atomic.Int64
	logs := &logRecorder{}
	r := newReceiver(t, mb, soapsmtp.WithAddresses(authed.box, open.box))
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Go(func() {
		assert.NoError(t, core.Serve(ctx, r, echoOrFail(&runs), replies, core.WithLogger(logs.logger()))) // the default policy
	})
	t.Cleanup(func() { cancel(); wg.Wait() })

	other, err := soapsmtp.OpenMaildir(t.TempDir()) // another Maildir, another key
	require.NoError(t, err)
	copied := soapsmtp.SubmitterRecord(other, "victim@third.example")
	mail := func(from, extra string) string {
		return extra + "From: " + from + "\r\nContent-Type: application/soap+xml\r\n\r\n" +
			`<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:ping xmlns:p="urn:test">hi</p:ping></e:Body></e:Envelope>` + "\r\n"
	}
	// answered: the authenticated submitter
	require.NoError(t, authMail(authed.addr, "buyer@partner.example", "s3cret", "buyer@partner.example", []string{authed.box}, mail("buyer@partner.example", "")))
	// refused: authenticated, but the answer would go elsewhere
	require.NoError(t, authMail(authed.addr, "buyer@partner.example", "s3cret", "buyer@partner.example", []string{authed.box}, mail("victim@third.example", "")))
	// refused: a user name that is no address vouches for no mailbox
	require.NoError(t, authMail(authed.addr, "clerk", "s3cret", "clerk@partner.example", []string{authed.box}, mail("clerk@partner.example", "")))
	// refused: records the sender wrote, or copied from another Maildir
	require.NoError(t, rawMail(open.addr, "victim@third.example", []string{open.box}, mail("victim@third.example", "Soapwire-Submitter: victim@third.example; mac=AAAA\r\n")))
	require.NoError(t, rawMail(open.addr, "victim@third.example", []string{open.box}, mail("victim@third.example", copied)))

	require.Eventually(t, func() bool {
		return len(files(t, world.dir, "new")) == 1 && len(files(t, dir, soapsmtp.FolderFailed)) == 2*4
	},
		20*time.Second, 10*time.Millisecond, "new %v, failed %v", files(t, world.dir, "new"), files(t, dir, soapsmtp.FolderFailed))
	b, err := os.ReadFile(filepath.Join(world.dir, "new", files(t, world.dir, "new")[0]))
	require.NoError(t, err)
	assert.Contains(t, string(b), "Delivered-To: buyer@partner.example")
	assert.Equal(t, int64(1), runs.Load(), "the handler ran for the submitter's mail only")
	assert.Equal(t, 4, logs.count("reply address refused"))
}

// TestSubmitterRecord: the Server writes the record only for an
// authenticated session whose user is a plain address, above the mail; the
// Receiver gives it to core.MetaSubmitter only when its mac is the
// Maildir's.
func TestSubmitterRecord(t *testing.T) {
	dir := t.TempDir()
	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	info, err := os.Stat(filepath.Join(dir, soapsmtp.SubmitterKeyFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the key is the owner's")
	again, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	assert.Equal(t, soapsmtp.SubmitterRecord(mb, "a@b.example"), soapsmtp.SubmitterRecord(again, "a@b.example"), "one key per Maildir")
	for _, user := range []string{"clerk", "a@b.example\r\nBcc: x@y", "Name <a@b.example>", "a;b@c.example", ""} {
		assert.Empty(t, soapsmtp.SubmitterRecord(mb, user), "%q: no record", user)
	}
	ts := startServerOn(t, mb, soapsmtp.WithAuth(func(_ context.Context, user, pass string) bool { return pass == "pw" }))
	env := `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:ping xmlns:p="urn:test">hi</p:ping></e:Body></e:Envelope>` + "\r\n"
	require.NoError(t, authMail(ts.addr, "a@b.example", "pw", "a@b.example", []string{ts.box}, "From: a@b.example\r\n\r\n"+env))
	r := newReceiver(t, mb)
	d, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, "a@b.example", d.Message().Meta[core.MetaSubmitter])
	require.NoError(t, d.Ack(ctxT(t)))

	// a mail that is not from an authenticated session has none, whatever it says
	forged := "Soapwire-Submitter: a@b.example; mac=" + strings.Repeat("A", 43) + "\r\nFrom: a@b.example\r\n\r\n" + env
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new", "1.forged.host"), []byte(forged), 0o600))
	d, err = r.Receive(ctxT(t))
	require.NoError(t, err)
	assert.Empty(t, d.Message().Meta[core.MetaSubmitter])
	require.NoError(t, d.Ack(ctxT(t)))
}
