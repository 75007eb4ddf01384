package smtp_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// party is one side of a mail conversation: its server, and a Sender to
// the other side's server.
type party struct {
	ts *testServer
	r  *soapsmtp.Receiver
}

// service starts a service at a fresh address that serves h with
// core.Serve, its replies going through a Sender to peerAddr's server.
func service(t *testing.T, h core.Handler, peerAddr string) *party {
	t.Helper()
	ts := startServer(t, t.TempDir())
	r := newReceiver(t, ts.mb, soapsmtp.WithAddresses(ts.box))
	replies, err := soapsmtp.NewSender(peerAddr, ts.box)
	require.NoError(t, err)
	t.Cleanup(func() { replies.Close() })
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// the test parties are all at example.test and example.org
		assert.NoError(t, core.Serve(ctx, r, h, replies, core.WithReplyPolicy(core.ReplyPolicy{Mailboxes: []string{"@example.test", "@example.org"}})))
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return &party{ts: ts, r: r}
}

// echoOrFail answers <ping>x</ping> with <pong>x</pong>, and fails for
// <ping>fail</ping> with a Sender fault.
func echoOrFail(calls *atomic.Int64) core.HandlerFunc {
	return func(_ context.Context, m *core.Message) (*core.Message, error) {
		calls.Add(1)
		var v struct {
			Text string `xml:",chardata"`
		}
		if err := m.Body().Decode(&v); err != nil {
			return nil, err
		}
		if v.Text == "fail" {
			return nil, core.SenderFault("order refused: %s", m.Action)
		}
		return m.Reply(core.RawBody([]byte(`<p:pong xmlns:p="urn:test">` + v.Text + `</p:pong>`))), nil
	}
}

// TestRPCByMail: a request mailed to a service is answered by mail to its
// ReplyTo; the reply relates to the request in the envelope and in the
// mail (In-Reply-To = the request's Message-ID).
func TestRPCByMail(t *testing.T) {
	client := startServer(t, t.TempDir())
	var calls atomic.Int64
	svc := service(t, echoOrFail(&calls), client.addr)
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			req := ping(v, "order 7")
			req.To, req.ReplyTo = svc.ts.mailto, client.mailto
			require.NoError(t, newSender(t, svc.ts.addr).Send(ctxT(t), req))

			d, err := newReceiver(t, client.mb).Receive(ctxT(t))
			require.NoError(t, err)
			reply := d.Message()
			assert.Equal(t, req.ID, reply.RelatesTo)
			assert.Equal(t, v, reply.Version())
			assert.Equal(t, "order 7", bodyText(t, reply))
			assert.Equal(t, req.Meta[soapsmtp.MetaMessageID], reply.Meta[soapsmtp.MetaInReplyTo], "In-Reply-To is the request's Message-ID")
			assert.Equal(t, svc.ts.box, reply.Meta[soapsmtp.MetaFrom])
			assert.Contains(t, reply.Meta[soapsmtp.MetaLoop], "auto-submitted", "a reply is never answered")
			require.NoError(t, d.Ack(ctxT(t)))
		})
	}
}

// TestFaultMailedBack: a handler's fault is mailed to wsa:FaultTo, else
// to the mail's Reply-To, else to its From, relating to the request.
func TestFaultMailedBack(t *testing.T) {
	client := startServer(t, t.TempDir())
	var calls atomic.Int64
	svc := service(t, echoOrFail(&calls), client.addr)
	tests := []struct {
		name string
		send func(t *testing.T) (relatesTo string)
	}{
		{"FaultTo", func(t *testing.T) string {
			req := ping(core.V12, "fail")
			req.To, req.ReplyTo, req.FaultTo = svc.ts.mailto, "mailto:replies@example.org", client.mailto
			require.NoError(t, newSender(t, svc.ts.addr).Send(ctxT(t), req))
			return req.ID
		}},
		{"ReplyToHeader", func(t *testing.T) string {
			require.NoError(t, rawMail(svc.ts.addr, "someone@example.org", []string{svc.ts.box},
				"From: someone@example.org\r\nReply-To: "+client.box+"\r\nMessage-ID: <rt-1@example.org>\r\n"+
					"Content-Type: application/soap+xml; action=\"urn:test:order\"\r\n\r\n"+
					`<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:ping xmlns:p="urn:test">fail</p:ping></e:Body></e:Envelope>`+"\r\n"))
			return "mid:rt-1@example.org"
		}},
		{"FromHeader", func(t *testing.T) string {
			require.NoError(t, rawMail(svc.ts.addr, client.box, []string{svc.ts.box},
				"From: "+client.box+"\r\nMessage-ID: <from-1@example.org>\r\nContent-Type: text/xml\r\nSOAPAction: urn:test:order\r\n\r\n"+
					`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><p:ping xmlns:p="urn:test">fail</p:ping></s:Body></s:Envelope>`+"\r\n"))
			return "mid:from-1@example.org"
		}},
	}
	r := newReceiver(t, client.mb)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := tt.send(t)
			d, err := r.Receive(ctxT(t))
			require.NoError(t, err)
			fm := d.Message()
			assert.Equal(t, id, fm.RelatesTo)
			assert.Equal(t, core.FaultAction, fm.Action)
			f := fm.Fault()
			require.NotNil(t, f, "a fault came back")
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Contains(t, f.Reason, "order refused")
			require.NoError(t, d.Ack(ctxT(t)))
		})
	}
}

// TestServeDoesNotAnswerLoops: an auto-reply is processed but not
// answered, and a fault about a bounce is parked instead of mailed.
func TestServeDoesNotAnswerLoops(t *testing.T) {
	client := startServer(t, t.TempDir())
	var calls atomic.Int64
	svc := service(t, echoOrFail(&calls), client.addr)
	mail := func(headers, text string) string {
		return "From: " + client.box + "\r\n" + headers + "Content-Type: application/soap+xml\r\n\r\n" +
			`<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:ping xmlns:p="urn:test">` + text + `</p:ping></e:Body></e:Envelope>` + "\r\n"
	}
	require.NoError(t, rawMail(svc.ts.addr, client.box, []string{svc.ts.box}, mail("Auto-Submitted: auto-replied\r\n", "vacation")))
	require.NoError(t, rawMail(svc.ts.addr, "", []string{svc.ts.box}, mail("", "fail")))
	// A request after them: its reply must be the first mail the client gets.
	req := ping(core.V12, "last")
	req.To, req.ReplyTo = svc.ts.mailto, client.mailto
	require.NoError(t, newSender(t, svc.ts.addr).Send(ctxT(t), req))

	d, err := newReceiver(t, client.mb).Receive(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, req.ID, d.Message().RelatesTo, "the only answer is to the real request")
	require.NoError(t, d.Ack(ctxT(t)))
	assert.EqualValues(t, 3, calls.Load(), "every mail was processed")
	require.Eventually(t, func() bool { return len(files(t, svc.ts.dir, soapsmtp.FolderFailed)) == 2 }, 10*time.Second, 10*time.Millisecond,
		"the bounce's fault is parked, not mailed")
	assert.Empty(t, files(t, client.dir, soapsmtp.FolderNew))
}

// TestBodyFaultWhileStreaming: an envelope whose Body is malformed past
// what the Receiver reads on arrival (an undefined entity inside the first
// child) reaches the handler, whose read of the Body fails with a Sender
// fault; core.Serve mails that fault back to the sender, and the mail is
// settled (nothing left in work/).
func TestBodyFaultWhileStreaming(t *testing.T) {
	client := startServer(t, t.TempDir())
	var calls atomic.Int64
	svc := service(t, echoOrFail(&calls), client.addr)
	require.NoError(t, rawMail(svc.ts.addr, client.box, []string{svc.ts.box},
		"From: "+client.box+"\r\nMessage-ID: <bad-body-1@example.org>\r\nContent-Type: text/xml\r\nSOAPAction: urn:test:order\r\n\r\n"+
			`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><p:ping xmlns:p="urn:test">a &bogus; b</p:ping></s:Body></s:Envelope>`+"\r\n"))
	d, err := newReceiver(t, client.mb).Receive(ctxT(t))
	require.NoError(t, err)
	fm := d.Message()
	assert.Equal(t, "mid:bad-body-1@example.org", fm.RelatesTo)
	f := fm.Fault()
	require.NotNil(t, f, "a fault came back")
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Contains(t, f.Reason, "bogus")
	require.NoError(t, d.Ack(ctxT(t)))
	assert.EqualValues(t, 1, calls.Load(), "the handler ran and met the error while reading")
	require.Eventually(t, func() bool { return len(files(t, svc.ts.dir, soapsmtp.FolderWork)) == 0 }, 5*time.Second, 10*time.Millisecond,
		"the request mail is settled")
}
