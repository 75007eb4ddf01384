package document_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/document"
)

const confirmXML = `<po:Confirmation xmlns:po="urn:example:po"><po:Status>accepted</po:Status></po:Confirmation>`

// confirm is a HandleFunc that decodes an order and confirms it.
func confirm(ctx context.Context, in *document.Incoming) (*core.Message, error) {
	var o order
	if err := in.Decode(&o); err != nil {
		return nil, err
	}
	if o.Qty <= 0 {
		return nil, core.SenderFault("quantity must be positive")
	}
	return in.Reply([]byte(confirmXML), document.WithAction("urn:example:po:confirm")), nil
}

// TestHandlerAnswersOnAnotherTransport: a request that came through one
// Pipe is answered, through the Outbox, on the Pipe its ReplyTo names.
func TestHandlerAnswersOnAnotherTransport(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			inbox, replies := newPipe(t), newPipe(t)
			var seen *document.Incoming
			h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
				seen = in
				return confirm(ctx, in)
			}, document.WithOutbox(document.NewOutbox(map[string]core.Sender{"pipe": replies})))
			serve(t, inbox, h, nil)

			rc, err := document.Send(testCtx(t), inbox, inbox.Addr(), order{Item: "bolt", Qty: 3},
				document.WithVersion(v), document.WithReplyTo(replies.Addr()), document.WithConversation("conv-1"))
			require.NoError(t, err)
			reply := receive(t, replies)
			assert.Equal(t, v, reply.Version())
			assert.Equal(t, replies.Addr(), reply.To)
			assert.Equal(t, rc.MessageID, reply.RelatesTo)
			assert.NotEmpty(t, reply.ID)
			assert.NotEqual(t, rc.MessageID, reply.ID)
			assert.Equal(t, "urn:example:po:confirm", reply.Action)
			assert.Equal(t, "conv-1", document.ConversationOf(reply), "the reply stays in the conversation")
			assert.Contains(t, bodyString(t, reply), "accepted")
			require.NotNil(t, seen)
			assert.Equal(t, "conv-1", seen.Conversation)
			assert.Equal(t, rc.MessageID, seen.Message.ID)
		})
	}
}

// TestHandlerBackChannel: with no ReplyTo (or anonymous) the reply or fault
// is returned to the binding; none sends nothing.
func TestHandlerBackChannel(t *testing.T) {
	rec := &recorder{}
	h := document.NewHandler(confirm, document.WithOutbox(document.NewOutbox(map[string]core.Sender{"mailto": rec})), buyers)
	p := newPipe(t, coretest.WithHandler(h))
	ctx := testCtx(t)
	for _, replyTo := range []string{"", core.AnonymousAddress} {
		req := document.NewMessage(p.Addr(), order{Item: "nut", Qty: 1}, document.WithReplyTo(replyTo))
		reply, err := p.RoundTrip(ctx, req)
		require.NoError(t, err, replyTo)
		require.NotNil(t, reply, replyTo)
		assert.Equal(t, req.ID, reply.RelatesTo)
		assert.Contains(t, bodyString(t, reply), "accepted")

		req = document.NewMessage(p.Addr(), order{Item: "nut", Qty: 0}, document.WithReplyTo(replyTo))
		_, err = p.RoundTrip(ctx, req)
		var f *core.Fault
		require.ErrorAs(t, err, &f, replyTo)
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Equal(t, "quantity must be positive", f.Reason)
	}
	req := document.NewMessage(p.Addr(), order{Item: "nut", Qty: 1}, document.WithReplyTo(core.NoneAddress))
	reply, err := p.RoundTrip(ctx, req)
	require.NoError(t, err)
	assert.Nil(t, reply, "ReplyTo none: nothing comes back")
	assert.Empty(t, rec.messages(), "nothing went through the Outbox")
}

// TestHandlerFaultTo: a fault goes to FaultTo, a reply to ReplyTo.
func TestHandlerFaultTo(t *testing.T) {
	replies, faults := &recorder{}, &recorder{}
	out := document.NewOutbox(map[string]core.Sender{"mailto": replies, "ftp": faults})
	h := document.NewHandler(confirm, document.WithOutbox(out), buyers)
	ctx := testCtx(t)

	bad := document.NewMessage("pipe:x", order{Item: "x", Qty: -1}, document.WithReplyTo("mailto:buyer@b.example"), document.WithFaultTo("ftp://b.example/faults"))
	reply, err := h.ServeSOAP(ctx, reread(t, bad))
	require.NoError(t, err, "the fault was delivered to FaultTo")
	assert.Nil(t, reply)
	require.Len(t, faults.messages(), 1)
	f := faults.messages()[0]
	require.NotNil(t, f.Fault())
	assert.Equal(t, core.CodeSender, f.Fault().Code)
	assert.Equal(t, core.FaultAction, f.Action)
	assert.Equal(t, bad.ID, f.RelatesTo)
	assert.Equal(t, "ftp://b.example/faults", f.To)
	assert.Equal(t, bad.ID, document.ConversationOf(f))
	assert.Empty(t, replies.messages())

	// a plain error is a Receiver fault that does not reveal its text
	h = document.NewHandler(func(context.Context, *document.Incoming) (*core.Message, error) {
		return nil, errors.New("database password is hunter2")
	}, document.WithOutbox(out), buyers)
	_, err = h.ServeSOAP(ctx, reread(t, bad))
	require.NoError(t, err)
	require.Len(t, faults.messages(), 2)
	f = faults.messages()[1]
	assert.Equal(t, core.CodeReceiver, f.Fault().Code)
	assert.NotContains(t, f.Fault().Reason, "hunter2")

	// no FaultTo: the fault goes to ReplyTo
	bad = document.NewMessage("pipe:x", order{Item: "x", Qty: -1}, document.WithReplyTo("mailto:buyer@b.example"))
	h = document.NewHandler(confirm, document.WithOutbox(out), buyers)
	_, err = h.ServeSOAP(ctx, reread(t, bad))
	require.NoError(t, err)
	require.Len(t, replies.messages(), 1)
	assert.NotNil(t, replies.messages()[0].Fault())
}

// TestHandlerReceipts: with WithReceipts a document accepted without a reply
// is acknowledged to ReplyTo with a Receipt document.
func TestHandlerReceipts(t *testing.T) {
	rec := &recorder{}
	h := document.NewHandler(func(context.Context, *document.Incoming) (*core.Message, error) { return nil, nil },
		document.WithOutbox(document.NewOutbox(map[string]core.Sender{"mailto": rec})), buyers, document.WithReceipts())
	ctx := testCtx(t)
	req := document.NewMessage("pipe:x", []byte(orderXML), document.WithReplyTo("mailto:buyer@b.example"), document.WithConversation("c-r"))
	reply, err := h.ServeSOAP(ctx, reread(t, req))
	require.NoError(t, err)
	assert.Nil(t, reply)
	require.Len(t, rec.messages(), 1)
	r := rec.messages()[0]
	assert.Equal(t, document.ReceiptAction, r.Action)
	assert.Equal(t, req.ID, r.RelatesTo)
	assert.Equal(t, "c-r", document.ConversationOf(r))
	var doc document.ReceiptDocument
	require.NoError(t, r.Body().Decode(&doc))
	assert.Equal(t, req.ID, doc.MessageID)

	// no ReplyTo, or none: no receipt
	for _, to := range []string{"", core.NoneAddress} {
		_, err := h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", []byte(orderXML), document.WithReplyTo(to))))
		require.NoError(t, err)
	}
	assert.Len(t, rec.messages(), 1)
	// anonymous: the receipt comes back on the back-channel
	reply, err = h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", []byte(orderXML), document.WithReplyTo(core.AnonymousAddress))))
	require.NoError(t, err)
	require.NotNil(t, reply)
	assert.Equal(t, document.ReceiptAction, reply.Action)
}

// TestHandlerRefusesHostileReplyTo: a refused ReplyTo or FaultTo is a
// Sender fault, logged, and nothing is sent: not by the Handler, not by
// core.Serve around it.
func TestHandlerRefusesHostileReplyTo(t *testing.T) {
	for _, tc := range []struct{ replyTo, faultTo string }{
		{"https://169.254.169.254/latest/meta-data", ""},
		{"mailto:orders@partner.example?bcc=spy@evil.example", ""},
		{"mailto:spy@evil.example", ""},
		{"nats:$JS.API.STREAM.DELETE.ORDERS", ""},
		{"file:///etc/passwd", ""},
		{"mailto:buyer@partner.example", "https://evil.example/collect"},
		{"", "gopher://evil.example/"},
	} {
		t.Run(tc.replyTo+tc.faultTo, func(t *testing.T) {
			var logs logBuffer
			rec := &recorder{}
			runs := 0
			out := document.NewOutbox(map[string]core.Sender{"mailto": rec, "https": rec, "nats": rec, "file": rec, "gopher": rec})
			h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
				runs++
				return confirm(ctx, in)
			}, document.WithOutbox(out), document.WithStore(document.NewMemoryStore()), document.WithLogger(logs.logger()),
				document.WithReplyPolicy(core.ReplyPolicy{Schemes: []string{"mailto", "https", "nats"}, Hosts: []string{"partner.example"}}))

			// directly: the fault is returned for the back-channel
			req := document.NewMessage("pipe:x", order{Item: "x", Qty: 1}, document.WithReplyTo(tc.replyTo), document.WithFaultTo(tc.faultTo))
			m := reread(t, req)
			_, err := h.ServeSOAP(testCtx(t), m)
			require.ErrorIs(t, err, document.ErrAddressRefused)
			assert.Equal(t, core.CodeSender, core.FaultOf(err).Code)
			assert.Equal(t, core.NoneAddress, m.FaultTo, "core.Serve must not send the fault anywhere")
			assert.Empty(t, m.ReplyTo)
			assert.Zero(t, runs, "the handler did not run")
			assert.True(t, logs.contains("reply address refused"), logs.String())

			// through core.Serve over a Pipe: parked (Nacked), nothing sent
			inbox := newPipe(t)
			parked := make(chan struct{}, 1)
			nacks := &nackWatch{Receiver: inbox, nacked: parked}
			serve(t, nacks, h, out)
			require.NoError(t, inbox.Send(testCtx(t), req))
			<-parked
			assert.Empty(t, rec.messages(), "nothing was sent to the peer's address")
			assert.Zero(t, runs)
		})
	}
}

// TestHandlerDefaultPolicy: without WithReplyPolicy, the Handler uses the
// policy of the core.Serve around it, else the zero core.ReplyPolicy: mail
// only to the authenticated submitter, and only schemes the Outbox routes;
// with an Outbox that cannot tell its routes, only the back-channel.
func TestHandlerDefaultPolicy(t *testing.T) {
	rec := &recorder{}
	h := document.NewHandler(confirm, document.WithOutbox(document.NewOutbox(map[string]core.Sender{"mailto": rec})))
	ctx := testCtx(t)
	_, err := h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("mailto:anyone@anywhere.example"))))
	require.ErrorIs(t, err, document.ErrAddressRefused, "not an open reflector")
	submitted := reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("mailto:buyer@b.example")))
	submitted.SetMeta(core.MetaSubmitter, "buyer@b.example")
	_, err = h.ServeSOAP(ctx, submitted)
	require.NoError(t, err, "the authenticated submitter is answered")
	assert.Len(t, rec.messages(), 1)
	_, err = h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("ftp://anywhere.example/in"))))
	require.ErrorIs(t, err, document.ErrAddressRefused, "no route: the Outbox has no ftp Sender")

	// under core.Serve, the Handler follows Serve's policy
	served := core.ReplyPolicy{Mailboxes: []string{"@anywhere.example"}}
	inner := make(chan error, 1)
	probe := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		_, err := h.ServeSOAP(ctx, m)
		inner <- err
		return nil, nil
	})
	inbox := newPipe(t)
	serve(t, inbox, probe, nil, core.WithReplyPolicy(served))
	require.NoError(t, inbox.Send(ctx, document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("mailto:anyone@anywhere.example"))))
	select {
	case err := <-inner:
		require.NoError(t, err)
	case <-ctx.Done():
		t.Fatal("the served Handler never ran")
	}
	assert.Len(t, rec.messages(), 2)

	h = document.NewHandler(confirm, document.WithOutbox(rec)) // not an *Outbox: no routes known
	_, err = h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("mailto:anyone@anywhere.example"))))
	require.ErrorIs(t, err, document.ErrAddressRefused)
	reply, err := h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo(core.AnonymousAddress))))
	require.NoError(t, err)
	assert.NotNil(t, reply)
	assert.Len(t, rec.messages(), 2)
}

// TestHandlerSendFailureParks: when the reply cannot be sent the message is
// Nacked with FaultTo none (not faulted to the failing address); with a
// Store the redelivery sends the recorded reply without running the handler
// again.
func TestHandlerSendFailureParks(t *testing.T) {
	var logs logBuffer
	rec := &recorder{}
	rec.fail(errors.New("smtp: 421 service not available"))
	runs := 0
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		runs++
		return confirm(ctx, in)
	}, document.WithOutbox(document.NewOutbox(map[string]core.Sender{"mailto": rec})), buyers,
		document.WithStore(document.NewMemoryStore()), document.WithLogger(logs.logger()))
	ctx := testCtx(t)
	req := document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("mailto:buyer@b.example"), document.WithFaultTo("mailto:faults@b.example"))
	m := reread(t, req)
	_, err := h.ServeSOAP(ctx, m)
	require.Error(t, err)
	assert.Equal(t, core.CodeReceiver, core.FaultOf(err).Code)
	assert.Equal(t, core.NoneAddress, m.FaultTo)
	assert.True(t, logs.contains("sending the reply failed"))
	assert.True(t, logs.contains("421 service not available"))

	rec.fail(nil)
	_, err = h.ServeSOAP(ctx, reread(t, req))
	require.NoError(t, err)
	assert.Equal(t, 1, runs, "the redelivery was answered from the store")
	require.Len(t, rec.messages(), 1)
	assert.Equal(t, req.ID, rec.messages()[0].RelatesTo)
}

// TestHandlerWithoutOutbox: a reply addressed somewhere with no Outbox to
// send it is a Receiver fault (parked), never a silent drop.
func TestHandlerWithoutOutbox(t *testing.T) {
	h := document.NewHandler(confirm, document.WithReplyPolicy(core.ReplyPolicy{Schemes: []string{"mailto"}, Mailboxes: []string{"@b.example"}}))
	m := reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("mailto:a@b.example")))
	_, err := h.ServeSOAP(testCtx(t), m)
	require.Error(t, err)
	assert.Equal(t, core.CodeReceiver, core.FaultOf(err).Code)
	assert.Equal(t, core.NoneAddress, m.FaultTo)
	assert.Panics(t, func() { document.NewHandler(nil) })
}

// TestHandlerRefusesOverlongIDs: ids beyond MaxIDLen are a Sender fault and
// never reach the store.
func TestHandlerRefusesOverlongIDs(t *testing.T) {
	s := document.NewMemoryStore()
	var logs logBuffer
	h := document.NewHandler(confirm, document.WithStore(s), document.WithLogger(logs.logger()))
	long := strings.Repeat("x", document.MaxIDLen+1)
	for _, opt := range []document.MessageOption{document.WithMessageID(long), document.WithConversation(long)} {
		_, err := h.ServeSOAP(testCtx(t), reread(t, document.NewMessage("pipe:x", order{Qty: 1}, opt)))
		require.Error(t, err)
		assert.Equal(t, core.CodeSender, core.FaultOf(err).Code)
	}
	all, err := s.List(testCtx(t))
	require.NoError(t, err)
	assert.Empty(t, all)
	assert.True(t, logs.contains("id too long"), logs.String())
}

// TestHandlerConversationState: the receiving side records what it did.
func TestHandlerConversationState(t *testing.T) {
	s := document.NewMemoryStore()
	h := document.NewHandler(confirm, document.WithStore(s))
	ctx := testCtx(t)
	_, err := h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithConversation("ok"))))
	require.NoError(t, err)
	_, err = h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", order{Qty: 0}, document.WithConversation("bad"))))
	require.Error(t, err)
	c, err := s.Get(ctx, "ok")
	require.NoError(t, err)
	assert.Equal(t, document.StateAcknowledged, c.State)
	c, err = s.Get(ctx, "bad")
	require.NoError(t, err)
	assert.Equal(t, document.StateFailed, c.State)
}

// reread sends m through a real write and read, as a binding would.
func reread(t *testing.T, m *core.Message) *core.Message {
	t.Helper()
	p := coretest.NewPipe()
	defer p.Close()
	require.NoError(t, p.Send(context.Background(), m))
	return receive(t, p)
}

// nackWatch is a Receiver whose deliveries report a Nack on a channel.
type nackWatch struct {
	core.Receiver
	nacked chan struct{}
}

func (n *nackWatch) Receive(ctx context.Context) (core.Delivery, error) {
	d, err := n.Receiver.Receive(ctx)
	if err != nil {
		return nil, err
	}
	return &watchedDelivery{Delivery: d, w: n}, nil
}

type watchedDelivery struct {
	core.Delivery
	w *nackWatch
}

func (d *watchedDelivery) Nack(ctx context.Context, cause error) error {
	select {
	case d.w.nacked <- struct{}{}:
	default:
	}
	// park: settle as acked so the Pipe does not redeliver forever
	return d.Delivery.Ack(ctx)
}

// answerChecker is a Sender that connects where an answer's address says,
// as bindings/http's Transport does: it records the answer policy of each
// Send's ctx and refuses, as the Transport refuses a name that resolves to
// a private address.
type answerChecker struct {
	policies []core.ReplyPolicy
	marked   []bool
}

func (a *answerChecker) Send(ctx context.Context, m *core.Message) error {
	p, ok := core.AnswerPolicyOf(ctx)
	a.policies, a.marked = append(a.policies, p), append(a.marked, ok)
	return fmt.Errorf("http: post %s: dial tcp: %w", m.To, core.DialControl("tcp", "127.0.0.1:80", nil))
}

func (a *answerChecker) CheckAddress(string) error { return nil }

// TestHandlerAnswerRefusedWhereItConnects: the Handler sends an answer
// with its policy in the ctx (core.WithAnswerPolicy), and an answer the
// Sender refuses where it connects is a Sender fault naming the address,
// with core.ErrReplyRefused (core.Serve parks it at once), not a Receiver
// fault to retry.
func TestHandlerAnswerRefusedWhereItConnects(t *testing.T) {
	snd := &answerChecker{}
	policy := core.ReplyPolicy{Schemes: []string{"http"}}
	h := document.NewHandler(confirm, document.WithOutbox(document.NewOutbox(map[string]core.Sender{"http": snd})),
		document.WithReplyPolicy(policy))
	m := reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("http://inside.partner.example/replies")))
	_, err := h.ServeSOAP(testCtx(t), m)
	require.Error(t, err)
	f := core.FaultOf(err)
	assert.Equal(t, core.CodeSender, f.Code)
	assert.ErrorIs(t, err, core.ErrReplyRefused)
	assert.Contains(t, f.Reason, "http://inside.partner.example/replies")
	assert.Equal(t, core.NoneAddress, m.FaultTo, "parked: nothing more is sent")
	assert.Equal(t, []bool{true}, snd.marked, "the answer was sent with the policy in its ctx")
	assert.Equal(t, policy.Schemes, snd.policies[0].Schemes)
}
