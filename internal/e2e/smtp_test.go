package e2e_test

import (
	"context"
	"encoding/xml"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// smtpParty is one side of a conversation by mail: an embedded server at
// its own address, delivering into its own Maildir.
type smtpParty struct {
	addr, box string
	mb        *soapsmtp.Maildir
}

func smtpStart(t *testing.T, box string) *smtpParty {
	t.Helper()
	mb, err := soapsmtp.OpenMaildir(t.TempDir())
	require.NoError(t, err)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := soapsmtp.NewServer(l.Addr().String(), mb, soapsmtp.WithAddresses(box))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	t.Cleanup(func() { cancel(); assert.NoError(t, <-done) })
	return &smtpParty{addr: l.Addr().String(), box: box, mb: mb}
}

// smtpSender returns a Sender from p's address to the server at to.
func (p *smtpParty) smtpSender(t *testing.T, to *smtpParty) *soapsmtp.Sender {
	t.Helper()
	s, err := soapsmtp.NewSender(to.addr, p.box)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// smtpServe serves p's Maildir with h until the test ends.
func (p *smtpParty) smtpServe(t *testing.T, h core.Handler, replies core.Sender) {
	t.Helper()
	r := soapsmtp.NewReceiver(p.mb, soapsmtp.WithAddresses(p.box))
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		assert.NoError(t, core.Serve(ctx, r, h, replies, core.WithConcurrency(4), core.WithReplyPolicy(core.ReplyPolicy{Mailboxes: []string{"@shop.example"}})))
	}()
	t.Cleanup(func() { cancel(); wg.Wait(); r.Close() })
}

type smtpQuote struct {
	XMLName xml.Name `xml:"urn:example:shop quote"`
	Item    string   `xml:"item"`
}

type smtpPrice struct {
	XMLName xml.Name `xml:"urn:example:shop price"`
	Item    string   `xml:"item"`
	Cents   int      `xml:"cents"`
}

func smtpCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestSMTPCallAnsweredByMail: an RPC call by mail, answered by mail,
// correlated by document.Correlator (Message-ID ↔ In-Reply-To in the
// mails, MessageID ↔ RelatesTo in the envelopes); a fault comes back as a
// *core.Fault; a call nobody answers times out with document.ErrTimeout.
func TestSMTPCallAnsweredByMail(t *testing.T) {
	client := smtpStart(t, "client@shop.example")
	shop := smtpStart(t, "quotes@shop.example")
	silent := smtpStart(t, "void@shop.example")

	shop.smtpServe(t, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		var q smtpQuote
		if err := m.Body().Decode(&q); err != nil {
			return nil, err
		}
		if q.Item == "unobtainium" {
			return nil, core.SenderFault("no such item: %s", q.Item)
		}
		return m.Reply(core.ValueBody(smtpPrice{Item: q.Item, Cents: 1999})), nil
	}), shop.smtpSender(t, client))
	silent.smtpServe(t, core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) { return nil, nil }), nil)

	out := document.NewOutbox(map[string]core.Sender{"mailto": soapsmtpRouter{
		"quotes@shop.example": client.smtpSender(t, shop),
		"void@shop.example":   client.smtpSender(t, silent),
	}})
	corr := document.NewCorrelator(out, "mailto:"+client.box)
	client.smtpServe(t, corr, nil)

	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run("Reply"+v.String(), func(t *testing.T) {
			req := core.NewMessage(v, core.ValueBody(smtpQuote{Item: "widget"}))
			req.To, req.Action = "mailto:quotes@shop.example", "urn:example:shop:quote"
			reply, err := corr.RoundTrip(smtpCtx(t), req)
			require.NoError(t, err)
			var p smtpPrice
			require.NoError(t, reply.Body().Decode(&p))
			assert.Equal(t, smtpPrice{XMLName: p.XMLName, Item: "widget", Cents: 1999}, p)
			assert.Equal(t, req.ID, reply.RelatesTo)
			assert.Equal(t, soapsmtp.MessageIDHeader(req.ID), reply.Meta[soapsmtp.MetaInReplyTo], "In-Reply-To = the request's Message-ID")
			assert.Equal(t, "quotes@shop.example", reply.Meta[soapsmtp.MetaFrom])
		})
	}
	t.Run("Fault", func(t *testing.T) {
		req := core.NewMessage(core.V12, core.ValueBody(smtpQuote{Item: "unobtainium"}))
		req.To = "mailto:quotes@shop.example"
		_, err := corr.RoundTrip(smtpCtx(t), req)
		f := core.FaultOf(err)
		require.NotNil(t, f)
		assert.True(t, f.Remote)
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Equal(t, "no such item: unobtainium", f.Reason)
	})
	t.Run("Timeout", func(t *testing.T) {
		req := core.NewMessage(core.V12, core.ValueBody(smtpQuote{Item: "widget"}))
		req.To = "mailto:void@shop.example"
		ctx, cancel := context.WithTimeout(t.Context(), 500*time.Millisecond)
		defer cancel()
		_, err := corr.RoundTrip(ctx, req)
		require.ErrorIs(t, err, document.ErrTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	assert.Zero(t, corr.Pending())
}

// soapsmtpRouter picks a Sender by the recipient (each test party has
// its own server); a real deployment sends through one relay.
type soapsmtpRouter map[string]core.Sender

func (r soapsmtpRouter) Send(ctx context.Context, m *core.Message) error {
	s, ok := r[strings.TrimPrefix(m.To, "mailto:")]
	if !ok {
		return soapsmtp.ErrAddress
	}
	return s.Send(ctx, m)
}

// TestSMTPDocumentSendReceipt: document.Send by mail returns a Receipt
// carrying what the server said (smtp.queued-as names the Maildir file),
// and the document arrives with its conversation header.
func TestSMTPDocumentSendReceipt(t *testing.T) {
	box := smtpStart(t, "orders@shop.example")
	s, err := soapsmtp.NewSender(box.addr, "buyer@example.org")
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })

	rc, err := document.Send(smtpCtx(t), s, "mailto:orders@shop.example", smtpQuote{Item: "gear"}, document.WithAction("urn:example:shop:order"))
	require.NoError(t, err)
	queued := rc.Transport[soapsmtp.MetaQueuedAs]
	require.NotEmpty(t, queued)
	assert.Equal(t, soapsmtp.MessageIDHeader(rc.MessageID), rc.Transport[soapsmtp.MetaMessageID])
	entries, err := os.ReadDir(filepath.Join(box.mb.Dir(), soapsmtp.FolderNew))
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Contains(t, queued, entries[0].Name())

	r := soapsmtp.NewReceiver(box.mb)
	t.Cleanup(func() { r.Close() })
	d, err := r.Receive(smtpCtx(t))
	require.NoError(t, err)
	m := d.Message()
	assert.Equal(t, rc.MessageID, m.ID)
	assert.Equal(t, rc.Conversation, document.ConversationOf(m))
	var q smtpQuote
	require.NoError(t, m.Body().Decode(&q))
	assert.Equal(t, "gear", q.Item)
	require.NoError(t, d.Ack(smtpCtx(t)))
}
