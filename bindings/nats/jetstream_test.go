package nats_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// doc returns a one-way document message to addr with a fresh id.
func doc(v core.Version, addr, text string) *core.Message {
	m := core.NewMessage(v, core.RawBody(body("order", text)))
	m.ID, m.To, m.Action = core.NewMessageID(), addr, "urn:test:order"
	return m
}

// receive waits for the next delivery.
func receive(t testing.TB, r core.Receiver) core.Delivery {
	t.Helper()
	d, err := r.Receive(testCtx(t))
	require.NoError(t, err)
	return d
}

// nothing checks that no delivery arrives within d.
func nothing(t testing.TB, r core.Receiver, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	got, err := r.Receive(ctx)
	if err == nil {
		t.Fatalf("unexpected delivery %s (%s)", got.Message().ID, got.Message().Meta[soapnats.MetaDeliveries])
	}
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestJetStreamReceipt(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	createStream(t, nc, "ORDERS", true, "orders.>")
	createStream(t, nc, "DEAD", false, "soapwire.dead.>")
	pub, err := soapnats.NewPublisher(nc, "nats:orders.new?stream=ORDERS")
	require.NoError(t, err)
	tr := soapnats.NewTransport(nc, "")
	r := newReceiver(t, connect(t, s), "nats:orders.new", "billing")
	assert.Equal(t, "ORDERS", r.Stream(), "the stream that captures the subject")
	assert.Equal(t, "soapwire.dead.billing", r.DeadLetter())

	tests := []struct {
		name   string
		send   core.Sender
		to     string
		v      core.Version
		wantTo string
	}{
		{"Publisher default destination", pub, "", core.V12, "nats:orders.new?stream=ORDERS"},
		{"Publisher To", pub, "nats:orders.new", core.V11, "nats:orders.new"},
		{"Transport.Send with a stream", tr, "nats:orders.new?stream=ORDERS", core.V12, "nats:orders.new?stream=ORDERS"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := doc(tt.v, tt.to, tt.name)
			require.NoError(t, tt.send.Send(testCtx(t), m))
			assert.Equal(t, "ORDERS", m.Meta[soapnats.MetaStream])
			assert.Equal(t, strconv.Itoa(i+1), m.Meta[soapnats.MetaSequence])
			assert.Empty(t, m.Meta[soapnats.MetaDuplicate])

			d := receive(t, r)
			got := d.Message()
			assert.Equal(t, m.ID, got.ID)
			assert.Equal(t, tt.v, got.Version())
			assert.Equal(t, "urn:test:order", got.Action)
			assert.Equal(t, tt.wantTo, got.To)
			assert.Equal(t, tt.name, text(t, got))
			assert.Equal(t, "orders.new", got.Meta[soapnats.MetaSubject])
			assert.Equal(t, "ORDERS", got.Meta[soapnats.MetaStream])
			assert.Equal(t, strconv.Itoa(i+1), got.Meta[soapnats.MetaSequence])
			assert.Equal(t, "1", got.Meta[soapnats.MetaDeliveries])
			assert.Equal(t, "billing", got.Meta[soapnats.MetaConsumer])
			require.NoError(t, d.Ack(testCtx(t)))
		})
	}
}

// TestJetStreamPublisherGivesAnID: the id is what duplicates are known by.
func TestJetStreamPublisherGivesAnID(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	createStream(t, nc, "ORDERS", false, "orders.>")
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	m := core.NewMessage(core.V12, core.RawBody(body("order", "no id")))
	require.NoError(t, pub.Send(testCtx(t), m))
	assert.True(t, strings.HasPrefix(m.ID, "urn:uuid:"), m.ID)
}

func TestJetStreamDuplicatesDropped(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	stream := createStream(t, nc, "ORDERS", false, "orders.>")
	createStream(t, nc, "DEAD", false, "soapwire.dead.>")
	pub, err := soapnats.NewPublisher(nc, "nats:orders.new?stream=ORDERS")
	require.NoError(t, err)
	r := newReceiver(t, connect(t, s), "nats:orders.new?stream=ORDERS", "dedupe")

	first := doc(core.V12, "", "the order")
	require.NoError(t, pub.Send(testCtx(t), first))
	again := doc(core.V12, "", "the order, sent again")
	again.ID = first.ID
	require.NoError(t, pub.Send(testCtx(t), again), "a duplicate is not an error")
	assert.Equal(t, "true", again.Meta[soapnats.MetaDuplicate])
	assert.Equal(t, first.Meta[soapnats.MetaSequence], again.Meta[soapnats.MetaSequence], "the earlier copy's sequence")
	other := doc(core.V12, "", "another order")
	require.NoError(t, pub.Send(testCtx(t), other))

	info, err := stream.Info(testCtx(t))
	require.NoError(t, err)
	assert.EqualValues(t, 2, info.State.Msgs, "the stream kept one copy of the duplicate")
	d := receive(t, r)
	assert.Equal(t, first.ID, d.Message().ID)
	assert.Equal(t, "the order", text(t, d.Message()))
	require.NoError(t, d.Ack(testCtx(t)))
	d = receive(t, r)
	assert.Equal(t, other.ID, d.Message().ID)
	require.NoError(t, d.Ack(testCtx(t)))
	nothing(t, r, 200*time.Millisecond)
}

func TestJetStreamRefusals(t *testing.T) {
	s := startServer(t, soapnats.WithMaxPayload(64<<10))
	nc := connect(t, s)
	stream := createStream(t, nc, "ORDERS", false, "orders.>")
	createStream(t, nc, "OTHER", false, "other.>")
	pub, err := soapnats.NewPublisher(nc, "")
	require.NoError(t, err)
	tests := []struct {
		name string
		m    *core.Message
		err  error
		text string
	}{
		{"over the max payload", doc(core.V12, "nats:orders.big", strings.Repeat("x", 70<<10)), soapnats.ErrTooLarge, "65536"},
		{"no stream captures the subject", doc(core.V12, "nats:nowhere.new", "x"), soapnats.ErrNoStream, "nowhere.new"},
		{"subject of another stream", doc(core.V12, "nats:other.new?stream=ORDERS", "x"), nil, "stream"},
		{"no destination", doc(core.V12, "", "x"), soapnats.ErrNoDestination, ""},
		{"pattern", doc(core.V12, "nats:orders.*?stream=ORDERS", "x"), soapnats.ErrAddress, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := pub.Send(testCtx(t), tt.m)
			require.Error(t, err)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
			}
			if tt.err == soapnats.ErrTooLarge {
				assert.ErrorIs(t, err, core.ErrTooLarge)
			}
			assert.ErrorContains(t, err, tt.text)
		})
	}
	info, err := stream.Info(testCtx(t))
	require.NoError(t, err)
	assert.EqualValues(t, 0, info.State.Msgs, "nothing was published")
}

func TestReceiverSetupRefusals(t *testing.T) {
	_, nc := ordersServer(t)
	tests := []struct {
		name, addr, durable string
		opts                []soapnats.ReceiverOption
		err                 error
		text                string
	}{
		{"no stream for the subject", "nats:nowhere.>", "a", nil, soapnats.ErrNoStream, "nowhere.>"},
		{"no stream for the dead letters", "nats:orders.>", "b", []soapnats.ReceiverOption{soapnats.WithDeadLetter("graveyard.b")}, soapnats.ErrNoStream, "graveyard.b"},
		{"dead letters received again", "nats:orders.>", "c", []soapnats.ReceiverOption{soapnats.WithDeadLetter("orders.dead")}, soapnats.ErrAddress, "orders.dead"},
		{"bad durable name", "nats:orders.>", "a.b", nil, nil, "durable"},
		{"bad address", "http://x", "d", nil, soapnats.ErrAddress, ""},
		{"bad dead-letter subject", "nats:orders.>", "e", []soapnats.ReceiverOption{soapnats.WithDeadLetter("a..b")}, soapnats.ErrAddress, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := soapnats.NewReceiver(testCtx(t), nc, tt.addr, tt.durable, tt.opts...)
			if r != nil {
				r.Close()
			}
			require.Error(t, err)
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
			}
			assert.ErrorContains(t, err, tt.text)
		})
	}
}

// TestDocumentSurvivesConsumerRestart: what a Receiver had pulled, or
// received and not settled, when its process went away (its connection
// closed) is received by the next Receiver on the same durable consumer.
func TestDocumentSurvivesConsumerRestart(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	createStream(t, nc, "ORDERS", true, "orders.>")
	createStream(t, nc, "DEAD", true, "soapwire.dead.>")
	pub, err := soapnats.NewPublisher(nc, "nats:orders.new?stream=ORDERS")
	require.NoError(t, err)
	var sent []*core.Message
	for i := range 4 {
		m := doc(core.V11, "", "order "+strconv.Itoa(i))
		require.NoError(t, pub.Send(testCtx(t), m))
		sent = append(sent, m)
	}
	opts := []soapnats.ReceiverOption{soapnats.WithAckWait(time.Second)}

	// The first process acks one document, holds another, and dies.
	nc1, err := s.Connect()
	require.NoError(t, err)
	r1, err := soapnats.NewReceiver(testCtx(t), nc1, "nats:orders.new", "shipping", opts...)
	require.NoError(t, err)
	t.Cleanup(func() { r1.Close() })
	d := receive(t, r1)
	require.Equal(t, sent[0].ID, d.Message().ID)
	require.NoError(t, d.Ack(testCtx(t)))
	d = receive(t, r1)
	require.Equal(t, sent[1].ID, d.Message().ID)
	nc1.Close() // no Close, no settlement: the process is gone

	// The next process gets the rest, the unsettled one included, once.
	r2 := newReceiver(t, connect(t, s), "nats:orders.new", "shipping", opts...)
	got := map[string]int{}
	for len(got) < 3 {
		d := receive(t, r2)
		got[d.Message().ID]++
		require.NoError(t, d.Ack(testCtx(t)))
	}
	for _, m := range sent[1:] {
		assert.Equal(t, 1, got[m.ID], "document %s", m.ID)
	}
	assert.NotContains(t, got, sent[0].ID, "the acknowledged document is not delivered again")
	nothing(t, r2, 300*time.Millisecond)
}

// TestAckRecyclesUnreadBody: once a delivery is acknowledged, the rest of
// a body not read is read (so its tokenizer is reused): a malformed rest
// shows in the Debug log, and the Ack stands.
func TestAckRecyclesUnreadBody(t *testing.T) {
	s, nc := ordersServer(t)
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	m := core.NewMessage(core.V11, core.RawBody([]byte(`<m:first xmlns:m="urn:m"/><m:second xmlns:m="urn:m"><a></b></m:second>`)))
	require.NoError(t, pub.Send(testCtx(t), m))
	log, lines := newLogs()
	r := newReceiver(t, connect(t, s), "nats:orders.new", "reader", soapnats.WithLogger(log))
	d := receive(t, r)
	assert.Equal(t, "first", d.Message().Body().Name().Local)
	assert.NotContains(t, lines.String(), "did not read after its ack")
	require.NoError(t, d.Ack(testCtx(t)))
	assert.Contains(t, lines.String(), "did not read after its ack")
	nothing(t, r, 300*time.Millisecond)
}

// TestDocumentSurvivesServerRestart: file storage keeps the stream, its
// documents and the durable consumer across a restart of the embedded
// server on the same folder and port; a connection reconnects by itself.
func TestDocumentSurvivesServerRestart(t *testing.T) {
	dir := t.TempDir()
	s1, err := soapnats.StartServer(dir)
	require.NoError(t, err)
	port := s1.URL()[strings.LastIndexByte(s1.URL(), ':')+1:]
	nc, err := nats.Connect(s1.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	createStream(t, nc, "ORDERS", true, "orders.>")
	createStream(t, nc, "DEAD", true, "soapwire.dead.>")
	pub, err := soapnats.NewPublisher(nc, "nats:orders.new?stream=ORDERS")
	require.NoError(t, err)
	before := doc(core.V12, "", "before the restart")
	require.NoError(t, pub.Send(testCtx(t), before))
	r, err := soapnats.NewReceiver(testCtx(t), connect(t, s1), "nats:orders.new", "archive")
	require.NoError(t, err)
	require.NoError(t, r.Close())
	require.NoError(t, s1.Close())

	s2, err := soapnats.StartServer(dir, soapnats.WithListenAddr("127.0.0.1:"+port))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s2.Close()) })
	require.Eventually(t, nc.IsConnected, 10*time.Second, 20*time.Millisecond, "the publisher's connection reconnects")
	after := doc(core.V12, "", "after the restart")
	require.NoError(t, pub.Send(testCtx(t), after))
	assert.Equal(t, "2", after.Meta[soapnats.MetaSequence], "the stream continued")

	// The first Receiver may have pulled "before" ahead and handed it back
	// when it closed (redelivered a second later), so the order may change.
	r2 := newReceiver(t, connect(t, s2), "nats:orders.new", "archive")
	want := map[string]string{before.ID: "before the restart", after.ID: "after the restart"}
	for range 2 {
		d := receive(t, r2)
		assert.Equal(t, want[d.Message().ID], text(t, d.Message()))
		delete(want, d.Message().ID)
		require.NoError(t, d.Ack(testCtx(t)))
	}
	assert.Empty(t, want, "not received")
	nothing(t, r2, 200*time.Millisecond)
}

// TestSlowHandlerKeepsItsMessage: while a delivery is unsettled, the
// Receiver keeps it in progress, so it is not redelivered to another
// Receiver of the durable consumer after AckWait; nor is a message waiting
// for a Receive on the Receiver the server gave it to. Either Receiver may
// be given the message (whichever pull request the server serves first).
func TestSlowHandlerKeepsItsMessage(t *testing.T) {
	s, nc := ordersServer(t)
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	opts := []soapnats.ReceiverOption{soapnats.WithAckWait(time.Second)}
	r1 := newReceiver(t, connect(t, s), "nats:orders.new", "slow", opts...)
	r2 := newReceiver(t, connect(t, s), "nats:orders.new", "slow", opts...)
	m := doc(core.V12, "", "slow")
	require.NoError(t, pub.Send(testCtx(t), m))
	d, other := receiveEither(t, r1, r2)
	nothing(t, other, 3*time.Second) // three AckWaits
	require.NoError(t, d.Ack(testCtx(t)))
	assert.Equal(t, m.ID, d.Message().ID)
	assert.Equal(t, "1", d.Message().Meta[soapnats.MetaDeliveries])
}

// TestWaitingMessageKeptInProgress: a message the server gave a Receiver
// nobody calls Receive on for a while (three AckWaits) is not redelivered
// to another Receiver of the durable consumer, and is then received once.
func TestWaitingMessageKeptInProgress(t *testing.T) {
	s, nc := ordersServer(t)
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	opts := []soapnats.ReceiverOption{soapnats.WithAckWait(time.Second)}
	r1 := newReceiver(t, connect(t, s), "nats:orders.new", "idle", opts...)
	m := doc(core.V12, "", "waiting")
	require.NoError(t, pub.Send(testCtx(t), m))
	// The message goes to r1's pull request before r2 subscribes.
	require.Eventually(t, func() bool {
		info, err := jsMsg(t, nc).Consumer(testCtx(t), "ORDERS", "idle")
		if err != nil {
			return false
		}
		i, err := info.Info(testCtx(t))
		return err == nil && i.NumAckPending == 1
	}, 10*time.Second, 10*time.Millisecond, "delivered to r1")
	r2 := newReceiver(t, connect(t, s), "nats:orders.new", "idle", opts...)
	nothing(t, r2, 3*time.Second) // three AckWaits
	d := receive(t, r1)
	assert.Equal(t, m.ID, d.Message().ID)
	assert.Equal(t, "1", d.Message().Meta[soapnats.MetaDeliveries])
	require.NoError(t, d.Ack(testCtx(t)))
	nothing(t, r1, 200*time.Millisecond)
}

// receiveEither returns the first delivery of a or b, and the other one.
func receiveEither(t testing.TB, a, b core.Receiver) (core.Delivery, core.Receiver) {
	t.Helper()
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	type result struct {
		d   core.Delivery
		err error
		i   int
	}
	results := make(chan result, 2)
	for i, r := range []core.Receiver{a, b} {
		go func() {
			d, err := r.Receive(ctx)
			results <- result{d, err, i}
		}()
	}
	first := <-results
	cancel()
	second := <-results
	require.NoError(t, first.err)
	if second.err == nil {
		t.Fatalf("both Receivers got a delivery: %s (%s) and %s (%s)", first.d.Message().ID, first.d.Message().Meta[soapnats.MetaDeliveries],
			second.d.Message().ID, second.d.Message().Meta[soapnats.MetaDeliveries])
	}
	require.ErrorIs(t, second.err, context.Canceled)
	if first.i == 0 {
		return first.d, b
	}
	return first.d, a
}

func jsMsg(t testing.TB, nc *nats.Conn) jetstream.JetStream {
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	return js
}

// TestCloseGivesBackPrefetched: messages a Receiver pulled ahead and had not
// returned when it was closed go to its successor, each delivered at most
// once more, so a restart does not eat into WithMaxDeliveries.
func TestCloseGivesBackPrefetched(t *testing.T) {
	s, nc := ordersServer(t)
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	const n = 20
	for i := range n {
		require.NoError(t, pub.Send(testCtx(t), doc(core.V11, "", strconv.Itoa(i))))
	}
	opts := []soapnats.ReceiverOption{soapnats.WithAckWait(2 * time.Second), soapnats.WithPrefetch(8), soapnats.WithMaxDeliveries(2)}
	r1, err := soapnats.NewReceiver(testCtx(t), connect(t, s), "nats:orders.new", "prefetch", opts...)
	require.NoError(t, err)
	d := receive(t, r1)
	require.NoError(t, d.Ack(testCtx(t)))
	time.Sleep(100 * time.Millisecond) // let it pull ahead
	require.NoError(t, r1.Close())
	_, err = r1.Receive(testCtx(t))
	require.ErrorIs(t, err, core.ErrClosed)

	r2 := newReceiver(t, connect(t, s), "nats:orders.new", "prefetch", opts...)
	got := map[string]bool{}
	for len(got) < n-1 {
		d := receive(t, r2)
		got[text(t, d.Message())] = true
		deliveries, err := strconv.Atoi(d.Message().Meta[soapnats.MetaDeliveries])
		require.NoError(t, err)
		assert.LessOrEqual(t, deliveries, 2)
		require.NoError(t, d.Ack(testCtx(t)))
	}
	nothing(t, r2, 300*time.Millisecond)
}

// TestReceiverConnectionClosed: when its connection is closed, a Receiver
// stops: Receive returns core.ErrClosed, and Close returns at once.
func TestReceiverConnectionClosed(t *testing.T) {
	s, _ := ordersServer(t)
	rc, err := s.Connect()
	require.NoError(t, err)
	r, err := soapnats.NewReceiver(testCtx(t), rc, "nats:orders.>", "gone")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		_, err := r.Receive(testCtx(t))
		done <- err
	}()
	rc.Close()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, core.ErrClosed)
	case <-time.After(10 * time.Second):
		t.Fatal("Receive still blocked after the connection was closed")
	}
	closed := make(chan struct{})
	go func() { r.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close hung on a closed connection")
	}
}
