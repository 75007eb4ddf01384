package e2e_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// TestIMAPRequestAnsweredByMail: a service whose requests wait in an IMAP
// mailbox (the embedded IMAP server; an Appender stands for the mail
// provider's delivery) serves them with core.Serve and answers by SMTP
// through soapsmtp's Sender to the ReplyTo its document.Handler's Policy
// allows; the client's Correlator, on its own Maildir, gets the reply
// correlated by In-Reply-To. A ReplyTo the Policy refuses gets nothing
// mailed: the request is parked in the failed folder.
func TestIMAPRequestAnsweredByMail(t *testing.T) {
	client := smtpStart(t, "client@shop.example")
	srv, err := soapimap.StartServer()
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.NoError(t, srv.AddUser("quotes", "secret"))
	inbox := srv.URL("quotes", "INBOX")

	ctx, cancel := context.WithCancel(context.Background())
	r, err := soapimap.NewReceiver(ctx, inbox, soapimap.WithCredentials("", "secret"), soapimap.WithPlaintext(),
		soapimap.WithAddresses("quotes@shop.example"))
	require.NoError(t, err)
	replies, err := soapsmtp.NewSender(client.addr, "quotes@shop.example")
	require.NoError(t, err)
	t.Cleanup(func() { replies.Close() })
	h := document.NewHandler(func(_ context.Context, in *document.Incoming) (*core.Message, error) {
		var q smtpQuote
		if err := in.Decode(&q); err != nil {
			return nil, err
		}
		return in.Reply(smtpPrice{Item: q.Item, Cents: 1999}), nil
	}, document.WithOutbox(document.NewOutbox(map[string]core.Sender{"mailto": replies})),
		document.WithReplyPolicy(core.ReplyPolicy{Schemes: []string{"mailto"}, Mailboxes: []string{"@shop.example"}}))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, core.Serve(ctx, r, h, nil, core.WithConcurrency(4)))
	}()
	t.Cleanup(func() { cancel(); wg.Wait(); r.Close() })

	delivery, err := soapimap.NewAppender(inbox, "client@shop.example", soapimap.WithCredentials("", "secret"), soapimap.WithPlaintext())
	require.NoError(t, err)
	t.Cleanup(func() { delivery.Close() })
	corr := document.NewCorrelator(document.NewOutbox(map[string]core.Sender{"imap": delivery}), "mailto:"+client.box)
	client.smtpServe(t, corr, nil)

	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run("Reply"+v.String(), func(t *testing.T) {
			req := core.NewMessage(v, core.ValueBody(smtpQuote{Item: "widget"}))
			req.To, req.Action = inbox, "urn:example:shop:quote"
			reply, err := corr.RoundTrip(smtpCtx(t), req)
			require.NoError(t, err)
			var p smtpPrice
			require.NoError(t, reply.Body().Decode(&p))
			assert.Equal(t, "widget", p.Item)
			assert.Equal(t, req.ID, reply.RelatesTo)
			assert.Equal(t, soapsmtp.MessageIDHeader(req.ID), reply.Meta[soapsmtp.MetaInReplyTo], "In-Reply-To = the request's Message-ID")
			assert.Equal(t, "quotes@shop.example", reply.Meta[soapsmtp.MetaFrom])
		})
	}
	assert.Zero(t, corr.Pending())

	t.Run("RefusedReplyTo", func(t *testing.T) {
		req := core.NewMessage(core.V12, core.ValueBody(smtpQuote{Item: "widget"}))
		req.To, req.ReplyTo = inbox, "mailto:someone@elsewhere.example"
		require.NoError(t, delivery.Send(smtpCtx(t), req))
		// The service parks it: a note in the failed folder says why.
		check, err := soapimap.NewReceiver(smtpCtx(t), srv.URL("quotes", soapimap.DefaultFailedFolder),
			soapimap.WithCredentials("", "secret"), soapimap.WithPlaintext(),
			soapimap.WithFolders("check-processing", "check-done", "check-failed"))
		require.NoError(t, err)
		defer check.Close()
		for {
			d, err := check.Receive(smtpCtx(t))
			require.NoError(t, err, "the parked request's note")
			m := d.Message()
			require.NoError(t, d.Nack(smtpCtx(t), context.Canceled)) // leave it there
			if f := m.Fault(); f != nil && m.Meta[soapimap.MetaInReplyTo] == soapsmtp.MessageIDHeader(req.ID) {
				assert.Contains(t, f.Reason, "elsewhere.example")
				break
			}
		}
	})
}
