package nats_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// deadLetters reads the dead-letter stream from its start.
func deadLetters(t testing.TB, nc *nats.Conn, stream string) jetstream.Consumer {
	t.Helper()
	c, err := jsMsg(t, nc).OrderedConsumer(testCtx(t), stream, jetstream.OrderedConsumerConfig{})
	require.NoError(t, err)
	return c
}

func nextDead(t testing.TB, c jetstream.Consumer) jetstream.Msg {
	t.Helper()
	m, err := c.Next(jetstream.FetchMaxWait(10 * time.Second))
	require.NoError(t, err, "a dead letter")
	return m
}

// serveReceiver runs core.Serve over r until the test ends.
func serveReceiver(t testing.TB, r core.Receiver, h core.Handler, opts ...core.ServeOption) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx, r, h, nil, opts...) }()
	t.Cleanup(func() {
		cancel()
		assert.NoError(t, <-done)
	})
}

// TestFailingHandlerDeadLetters: under core.Serve a handler that keeps
// failing gets the message redelivered with a backoff, WithMaxDeliveries
// times, and then it is published with its fault to the dead-letter subject
// and terminated: it leaves the consumer and is never dropped.
func TestFailingHandlerDeadLetters(t *testing.T) {
	s, nc := ordersServer(t)
	log, lines := newLogs()
	r := newReceiver(t, connect(t, s), "nats:orders.new", "billing",
		soapnats.WithMaxDeliveries(3), soapnats.WithBackoff(20*time.Millisecond, 50*time.Millisecond), soapnats.WithLogger(log))
	var mu sync.Mutex
	var deliveries []string
	serveReceiver(t, r, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		mu.Lock()
		deliveries = append(deliveries, m.Meta[soapnats.MetaDeliveries])
		mu.Unlock()
		return nil, errors.New("database down: password hunter2")
	}))
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	m := doc(core.V12, "", "doomed")
	require.NoError(t, pub.Send(testCtx(t), m))

	dl := nextDead(t, deadLetters(t, nc, "DEAD"))
	assert.Equal(t, "soapwire.dead.billing", dl.Subject())
	h := dl.Headers()
	assert.Equal(t, "Receiver", h.Get(soapnats.HeaderFaultCode))
	assert.Equal(t, core.InternalErrorReason, h.Get(soapnats.HeaderFaultReason), "the fault's reason, not the error's text")
	assert.Equal(t, "ORDERS", h.Get(soapnats.HeaderDeadStream))
	assert.Equal(t, m.Meta[soapnats.MetaSequence], h.Get(soapnats.HeaderDeadSequence))
	assert.Equal(t, "orders.new", h.Get(soapnats.HeaderDeadSubject))
	assert.Equal(t, "billing", h.Get(soapnats.HeaderDeadConsumer))
	assert.Equal(t, "3", h.Get(soapnats.HeaderDeadDelivered))
	assert.Equal(t, m.ID, h.Get(soapnats.HeaderDeadMessageID))
	assert.Empty(t, h.Get("Nats-Msg-Id"), "the dead letter is not deduplicated by the original id")

	// The dead letter is the original message: the binding reads it.
	back, err := soapnats.Decode(&nats.Msg{Header: h, Data: dl.Data()}, core.Limits{})
	require.NoError(t, err)
	assert.Equal(t, m.ID, back.ID)
	assert.Equal(t, "doomed", text(t, back))

	mu.Lock()
	assert.Equal(t, []string{"1", "2", "3"}, deliveries, "delivered three times, then parked")
	mu.Unlock()
	info, err := jsMsg(t, nc).Consumer(testCtx(t), "ORDERS", "billing")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		ci, err := info.Info(testCtx(t))
		return err == nil && ci.NumAckPending == 0 && ci.NumPending == 0 && ci.NumRedelivered == 0
	}, 5*time.Second, 20*time.Millisecond, "the message left the consumer")
	assert.Contains(t, lines.String(), "message dead-lettered")
	assert.Contains(t, lines.String(), "hunter2", "the cause is logged for the operator")
}

// TestNackRedeliversThenDeadLetters drives Nack directly: deliveries
// 1..max-1 come back, the last one is parked with the Nack's fault.
func TestNackRedeliversThenDeadLetters(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	createStream(t, nc, "ORDERS", false, "orders.>")
	createStream(t, nc, "GRAVE", false, "grave.>")
	r := newReceiver(t, connect(t, s), "nats:orders.*", "direct",
		soapnats.WithMaxDeliveries(2), soapnats.WithBackoff(10*time.Millisecond, 10*time.Millisecond), soapnats.WithDeadLetter("grave.orders"))
	pub, err := soapnats.NewPublisher(nc, "")
	require.NoError(t, err)
	m := doc(core.V11, "nats:orders.x", "bad")
	require.NoError(t, pub.Send(testCtx(t), m))
	d := receive(t, r)
	require.NoError(t, d.Nack(testCtx(t), core.SenderFault("no such customer")))
	d = receive(t, r)
	assert.Equal(t, m.ID, d.Message().ID)
	assert.Equal(t, "2", d.Message().Meta[soapnats.MetaDeliveries])
	require.NoError(t, d.Nack(testCtx(t), core.SenderFault("no such customer")))
	require.NoError(t, d.Nack(testCtx(t), core.SenderFault("again")), "a repeated Nack is a no-op")
	assert.ErrorIs(t, d.Ack(testCtx(t)), core.ErrSettled)

	dl := nextDead(t, deadLetters(t, nc, "GRAVE"))
	assert.Equal(t, "grave.orders", dl.Subject())
	assert.Equal(t, "Sender", dl.Headers().Get(soapnats.HeaderFaultCode))
	assert.Equal(t, "no such customer", dl.Headers().Get(soapnats.HeaderFaultReason))
	nothing(t, r, 200*time.Millisecond)
}

// TestRefusedOnArrivalDeadLetters: a stored message that is not SOAP, or
// whose headers are missing or contradict its envelope, never becomes
// right: it is dead-lettered at once with the Sender fault that refuses it,
// and Receive goes on to the next message.
func TestRefusedOnArrivalDeadLetters(t *testing.T) {
	s, nc := ordersServer(t)
	log, lines := newLogs()
	r := newReceiver(t, connect(t, s), "nats:orders.new", "strict", soapnats.WithLogger(log))
	js := jsMsg(t, nc)
	bad := []struct {
		name    string
		msg     *nats.Msg
		subcode string
		reason  string
	}{
		{"no Content-Type", &nats.Msg{Header: nats.Header{}, Data: envelope(core.V12, "", string(body("x", "")))},
			soapnats.SubcodeMissingContentType, "no Content-Type"},
		{"version contradicts", &nats.Msg{Header: nats.Header{"Content-Type": {ct11}}, Data: envelope(core.V12, "", string(body("x", "")))},
			soapnats.SubcodeContentTypeMismatch, "must be sent as application/soap+xml"},
		{"not XML", &nats.Msg{Header: nats.Header{"Content-Type": {ct11}}, Data: []byte("{}")}, "", ""},
	}
	for _, b := range bad {
		b.msg.Subject = "orders.new"
		_, err := js.PublishMsg(testCtx(t), b.msg)
		require.NoError(t, err)
	}
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	good := doc(core.V12, "", "good")
	require.NoError(t, pub.Send(testCtx(t), good))

	d := receive(t, r)
	assert.Equal(t, good.ID, d.Message().ID, "the refused messages were skipped")
	require.NoError(t, d.Ack(testCtx(t)))
	dead := deadLetters(t, nc, "DEAD")
	for i, b := range bad {
		t.Run(b.name, func(t *testing.T) {
			dl := nextDead(t, dead)
			assert.Equal(t, strconv.Itoa(i+1), dl.Headers().Get(soapnats.HeaderDeadSequence))
			assert.Equal(t, "Sender", dl.Headers().Get(soapnats.HeaderFaultCode))
			assert.Equal(t, "1", dl.Headers().Get(soapnats.HeaderDeadDelivered))
			if b.subcode != "" {
				assert.Equal(t, "{"+soapnats.Namespace+"}"+b.subcode, dl.Headers().Get(soapnats.HeaderFaultSubcode))
			}
			assert.Contains(t, dl.Headers().Get(soapnats.HeaderFaultReason), b.reason)
			assert.Equal(t, b.msg.Data, dl.Data(), "the payload is kept as it was")
		})
	}
	assert.Contains(t, lines.String(), "message refused on arrival")
}

// TestCrashLoopDeadLetters: a message whose handler kills the process is
// never settled; after WithMaxDeliveries deliveries the next Receiver
// dead-letters it on arrival instead of handing it out again.
func TestCrashLoopDeadLetters(t *testing.T) {
	s, nc := ordersServer(t)
	opts := []soapnats.ReceiverOption{soapnats.WithMaxDeliveries(1), soapnats.WithAckWait(500 * time.Millisecond)}
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	m := doc(core.V12, "", "poison")
	require.NoError(t, pub.Send(testCtx(t), m))

	crashing, err := s.Connect()
	require.NoError(t, err)
	r1, err := soapnats.NewReceiver(testCtx(t), crashing, "nats:orders.new", "crashy", opts...)
	require.NoError(t, err)
	t.Cleanup(func() { r1.Close() })
	d := receive(t, r1)
	require.Equal(t, m.ID, d.Message().ID)
	crashing.Close() // the process died while handling it

	r2 := newReceiver(t, connect(t, s), "nats:orders.new", "crashy", opts...)
	nothing(t, r2, 2*time.Second) // the redelivery (after AckWait) arrives and is parked
	dl := nextDead(t, deadLetters(t, nc, "DEAD"))
	assert.Equal(t, "Receiver", dl.Headers().Get(soapnats.HeaderFaultCode))
	assert.Contains(t, dl.Headers().Get(soapnats.HeaderFaultReason), "delivered 2 times without being settled")
}

// TestDeadLetterFailureKeepsMessage: when the dead letter cannot be stored
// (its stream is gone), the message is not terminated: Nack says so and the
// message comes back, to be parked, with its fault, once the dead-letter
// stream is there.
func TestDeadLetterFailureKeepsMessage(t *testing.T) {
	s, nc := ordersServer(t)
	r := newReceiver(t, connect(t, s), "nats:orders.new", "careful",
		soapnats.WithMaxDeliveries(1), soapnats.WithBackoff(10*time.Millisecond, 10*time.Millisecond))
	require.NoError(t, jsMsg(t, nc).DeleteStream(testCtx(t), "DEAD"))
	pub, err := soapnats.NewPublisher(nc, "orders.new")
	require.NoError(t, err)
	m := doc(core.V12, "", "keep me")
	require.NoError(t, pub.Send(testCtx(t), m))

	d := receive(t, r)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	assert.ErrorIs(t, d.Nack(ctx, core.ReceiverFault("failed")), soapnats.ErrDeadLetter)

	createStream(t, nc, "DEAD", false, "soapwire.dead.>")
	nothing(t, r, time.Second) // it comes back, already over its deliveries, and is parked
	dl := nextDead(t, deadLetters(t, nc, "DEAD"))
	assert.Equal(t, "failed", dl.Headers().Get(soapnats.HeaderFaultReason), "with the fault it had")
	assert.Equal(t, m.ID, dl.Headers().Get(soapnats.HeaderDeadMessageID))
}
