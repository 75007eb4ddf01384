package e2e_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// TestDurableReplyOverJetStream: a peer asks, over HTTP, for its reply to be
// stored in a JetStream stream (ReplyTo nats:replies.buyer?stream=REPLIES).
// The document.Handler's Policy accepts that address, its Outbox publishes
// the confirmation into the stream, and the buyer, which was not listening
// when the reply was sent, reads it later from a durable consumer with its
// RelatesTo intact. A ReplyTo naming a stream parameter the policy does not
// know is refused with a Sender fault and nothing is published.
func TestDurableReplyOverJetStream(t *testing.T) {
	_, serverNC, clientNC := natsServer(t)
	js, err := jetstream.New(serverNC)
	require.NoError(t, err)
	for name, subject := range map[string]string{"REPLIES": "replies.>", "DEAD": "soapwire.dead.>"} {
		_, err := js.CreateStream(natsCtx(t), jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Storage: jetstream.FileStorage})
		require.NoError(t, err)
	}

	seller := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		var o natsOrder
		if err := in.Decode(&o); err != nil {
			return nil, err
		}
		return in.Reply(natsConfirmation{Item: o.Item, Via: "jetstream"}), nil
	},
		document.WithStore(document.NewMemoryStore()),
		document.WithOutbox(document.NewOutbox(map[string]core.Sender{"nats": soapnats.NewTransport(serverNC, "")})),
		document.WithReplyPolicy(core.ReplyPolicy{Schemes: []string{"nats"}, Subjects: []string{"replies.>"}}))
	srv := httptest.NewServer(soaphttp.NewHandler(seller))
	t.Cleanup(srv.Close)
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)

	// Accepted: the reply goes into the stream; HTTP only acknowledges.
	req := document.NewMessage(srv.URL, natsOrder{Item: "quinces"},
		document.WithReplyTo("nats:replies.buyer?stream=REPLIES"), document.WithAction("urn:e2e:order"))
	require.NoError(t, tr.Send(natsCtx(t), req))
	assert.Equal(t, "202", req.Meta[soaphttp.MetaStatus])

	// Refused: an unknown parameter on the NATS address.
	bad := document.NewMessage(srv.URL, natsOrder{Item: "figs"},
		document.WithReplyTo("nats:replies.buyer?stream=REPLIES&x=1"), document.WithAction("urn:e2e:order"))
	err = tr.Send(natsCtx(t), bad)
	var f *core.Fault
	require.ErrorAs(t, err, &f, "a refused ReplyTo is a fault")
	assert.Equal(t, core.CodeSender, f.Code)

	// Later, the buyer reads its stored reply.
	r, err := soapnats.NewReceiver(natsCtx(t), clientNC, "nats:replies.buyer", "buyer")
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	d, err := r.Receive(natsCtx(t))
	require.NoError(t, err)
	var c natsConfirmation
	require.NoError(t, d.Message().Body().Decode(&c))
	assert.Equal(t, natsConfirmation{XMLName: c.XMLName, Item: "quinces", Via: "jetstream"}, c)
	assert.Equal(t, req.ID, d.Message().RelatesTo)
	assert.Equal(t, "REPLIES", d.Message().Meta[soapnats.MetaStream])
	require.NoError(t, d.Ack(natsCtx(t)))

	// Only the accepted request's reply was stored.
	info, err := js.Stream(natsCtx(t), "REPLIES")
	require.NoError(t, err)
	si, err := info.Info(natsCtx(t))
	require.NoError(t, err)
	assert.Equal(t, uint64(1), si.State.Msgs, "the refused request published nothing")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = r.Receive(ctx)
	assert.Error(t, err, "no second reply")
}
