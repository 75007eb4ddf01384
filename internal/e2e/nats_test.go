package e2e_test

import (
	"context"
	"encoding/xml"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

type natsOrder struct {
	XMLName xml.Name `xml:"urn:e2e:nats order"`
	Item    string   `xml:"item"`
}

type natsConfirmation struct {
	XMLName xml.Name `xml:"urn:e2e:nats confirmation"`
	Item    string   `xml:"item"`
	Via     string   `xml:"via"`
}

// natsServer runs an embedded nats-server for the test and returns two
// connections to it (the server side's and the client side's).
func natsServer(t *testing.T) (*soapnats.Server, *nats.Conn, *nats.Conn) {
	t.Helper()
	s, err := soapnats.StartServer(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	conns := make([]*nats.Conn, 2)
	for i := range conns {
		nc, err := s.Connect()
		require.NoError(t, err)
		t.Cleanup(nc.Close)
		conns[i] = nc
	}
	return s, conns[0], conns[1]
}

// TestHTTPRequestAnsweredOverNATS: a client sends a document by HTTP with
// ReplyTo a NATS subject; the server (the HTTP binding serving a
// document.Handler) accepts it (202) and sends the confirmation, or the
// fault, over NATS through its Outbox; the client's document.Correlator,
// served on that subject by soapnats.Subscribe, matches it by RelatesTo, so
// the caller sees one call.
func TestHTTPRequestAnsweredOverNATS(t *testing.T) {
	_, serverNC, clientNC := natsServer(t)

	// The server: HTTP in, NATS out.
	outbox := document.NewOutbox(map[string]core.Sender{"nats": soapnats.NewTransport(serverNC, "")})
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		var o natsOrder
		if err := in.Decode(&o); err != nil {
			return nil, err
		}
		if o.Item == "" {
			return nil, core.SenderFault("an order needs an item")
		}
		return in.Reply(natsConfirmation{Item: o.Item, Via: in.Message.Meta[soaphttp.MetaMethod]}), nil
	}, document.WithOutbox(outbox), document.WithReplyPolicy(core.ReplyPolicy{Schemes: []string{"nats"}, Subjects: []string{"client.*.replies"}}))
	srv := httptest.NewServer(soaphttp.NewHandler(h))
	t.Cleanup(srv.Close)

	// The client: HTTP out, NATS in.
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	corr := document.NewCorrelator(tr, "nats:client.7.replies")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	replies, err := soapnats.Subscribe(ctx, clientNC, "client.7.replies", corr)
	require.NoError(t, err)
	t.Cleanup(func() { replies.Close() })

	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run("Reply/"+v.String(), func(t *testing.T) {
			req := document.NewMessage(srv.URL, natsOrder{Item: "apples " + v.String()}, document.WithVersion(v), document.WithAction("urn:e2e:order"))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			reply, err := corr.RoundTrip(ctx, req)
			require.NoError(t, err)
			assert.Equal(t, req.ID, reply.RelatesTo)
			assert.Equal(t, v, reply.Version())
			assert.Equal(t, "client.7.replies", reply.Meta[soapnats.MetaSubject], "the reply came over NATS")
			assert.Equal(t, "nats:client.7.replies", reply.To)
			assert.Equal(t, document.ConversationOf(req), document.ConversationOf(reply), "one conversation across both transports")
			var c natsConfirmation
			require.NoError(t, reply.Body().Decode(&c))
			assert.Equal(t, natsConfirmation{XMLName: c.XMLName, Item: "apples " + v.String(), Via: "POST"}, c)
		})
		t.Run("Fault/"+v.String(), func(t *testing.T) {
			req := document.NewMessage(srv.URL, natsOrder{}, document.WithVersion(v))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := corr.RoundTrip(ctx, req)
			var f *core.Fault
			require.ErrorAs(t, err, &f, "the fault came back over NATS")
			assert.True(t, f.Remote)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "an order needs an item", f.Reason)
		})
	}
	t.Run("ReplyAddressRefused", func(t *testing.T) {
		// A peer-supplied reply subject outside the policy: the server sends
		// nothing over NATS and answers the fault on the HTTP back-channel.
		req := document.NewMessage(srv.URL, natsOrder{Item: "pears"}, document.WithReplyTo("nats:someone.else"))
		_, err := tr.RoundTrip(natsCtx(t), req)
		var f *core.Fault
		require.ErrorAs(t, err, &f)
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Contains(t, f.Reason, "someone.else")
	})
	assert.Zero(t, corr.Pending())
}

// TestDocumentSendOverJetStream: document.Send through an Outbox whose
// "nats" route is a soapnats.Transport stores the document in a stream; the
// Receipt carries the stream and sequence; a Receiver on a durable consumer,
// served by core.Serve with a document.Handler, processes it once, even
// when it is sent again with the same id.
func TestDocumentSendOverJetStream(t *testing.T) {
	_, serverNC, clientNC := natsServer(t)
	js, err := jetstream.New(serverNC)
	require.NoError(t, err)
	for name, subject := range map[string]string{"ORDERS": "orders.>", "DEAD": "soapwire.dead.>"} {
		_, err := js.CreateStream(natsCtx(t), jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Storage: jetstream.FileStorage})
		require.NoError(t, err)
	}

	handled := make(chan string, 10)
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		var o natsOrder
		if err := in.Decode(&o); err != nil {
			return nil, err
		}
		handled <- o.Item + " " + in.Message.Meta[soapnats.MetaStream] + "/" + in.Message.Meta[soapnats.MetaSequence]
		return nil, nil
	}, document.WithStore(document.NewMemoryStore()))
	r, err := soapnats.NewReceiver(natsCtx(t), serverNC, "nats:orders.>", "fulfilment")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx, r, h, nil) }()
	t.Cleanup(func() { cancel(); assert.NoError(t, <-done); r.Close() })

	outbox := document.NewOutbox(map[string]core.Sender{"nats": soapnats.NewTransport(clientNC, "")})
	to := "nats:orders.placed?stream=ORDERS"
	receipt, err := document.Send(natsCtx(t), outbox, to, natsOrder{Item: "plums"}, document.WithMessageID("urn:uuid:0b6f2b52-1111-4111-8111-000000000001"))
	require.NoError(t, err)
	assert.Equal(t, "ORDERS", receipt.Transport["nats.stream"])
	assert.Equal(t, "1", receipt.Transport["nats.seq"])
	assert.Equal(t, to, receipt.To)

	again, err := document.Send(natsCtx(t), outbox, to, natsOrder{Item: "plums"}, document.WithMessageID(receipt.MessageID))
	require.NoError(t, err)
	assert.Equal(t, "true", again.Transport["nats.duplicate"], "the stream dropped the second copy")

	select {
	case got := <-handled:
		assert.Equal(t, "plums ORDERS/1", got)
	case <-time.After(10 * time.Second):
		t.Fatal("the document was not processed")
	}
	select {
	case got := <-handled:
		t.Fatalf("processed twice: %s", got)
	case <-time.After(300 * time.Millisecond):
	}
	_, err = document.Send(natsCtx(t), outbox, "nats:orders.placed?stream=OTHER", natsOrder{Item: "x"})
	require.Error(t, err, "a subject outside the named stream is refused by the server")
	assert.True(t, strings.Contains(err.Error(), "stream"), err.Error())
}

func natsCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}
