package nats_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

// TestBodyFaultWhileStreaming: a stored document whose envelope reads well
// but whose Body is malformed deep inside is taken by the Receiver; the
// handler meets the error only while streaming the Body. Under core.Serve
// the Sender fault has nowhere to go (no FaultTo, no ReplyTo), so the
// delivery is Nacked with it as malformed (core.ErrMalformed): it is
// dead-lettered at once, not redelivered (the same bytes would fail the
// same way), with that fault, the payload kept as it was, and logged.
// Nothing is lost, and the handler ran once.
func TestBodyFaultWhileStreaming(t *testing.T) {
	s, nc := ordersServer(t)
	log, lines := newLogs()
	r := newReceiver(t, connect(t, s), "nats:orders.new", "streamer",
		soapnats.WithMaxDeliveries(2), soapnats.WithBackoff(10*time.Millisecond, 20*time.Millisecond), soapnats.WithLogger(log))

	var mu sync.Mutex
	var runs int
	serveReceiver(t, r, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		_, err := m.Body().WriteTo(io.Discard)
		return nil, err
	}), core.WithLogger(log))

	good := doc(core.V11, "", "GOOD-TEXT")
	msg, err := soapnats.Encode(good, "orders.new", 0)
	require.NoError(t, err)
	msg.Data = bytes.Replace(msg.Data, []byte("GOOD-TEXT"), []byte("<a><b></a>"), 1)
	require.NotEqual(t, -1, bytes.Index(msg.Data, []byte("<a><b></a>")))
	_, err = jsMsg(t, nc).PublishMsg(testCtx(t), msg)
	require.NoError(t, err)

	dl := nextDead(t, deadLetters(t, nc, "DEAD"))
	h := dl.Headers()
	assert.Equal(t, "Sender", h.Get(soapnats.HeaderFaultCode), "a Sender fault (1.1 Client): the message is wrong")
	assert.Contains(t, h.Get(soapnats.HeaderFaultReason), "malformed")
	assert.Equal(t, "1", h.Get(soapnats.HeaderDeadDelivered), "not redelivered")
	assert.Equal(t, good.ID, h.Get(soapnats.HeaderDeadMessageID))
	assert.Equal(t, msg.Data, dl.Data(), "the payload is kept as it was")
	mu.Lock()
	assert.Equal(t, 1, runs, "the handler ran once")
	mu.Unlock()
	assert.Contains(t, lines.String(), "soap: fault with nowhere to go")
	require.Eventually(t, func() bool { return strings.Contains(lines.String(), "message dead-lettered") },
		10*time.Second, 10*time.Millisecond, "the dead-lettering is logged")
}
