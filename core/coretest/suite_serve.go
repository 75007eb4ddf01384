package coretest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// TestServe checks the binding under core.Serve: requests arrive through
// one pair's Receiver and replies and faults leave through another pair's
// Sender, addressed by ReplyTo and FaultTo and correlated by RelatesTo.
// Subtests:
//
//   - Reply/…: each reply reaches ReplyTo with RelatesTo, To and an ID;
//   - FaultTo/…: a handler's fault reaches FaultTo (not ReplyTo) as a fault
//     message with the WS-Addressing fault Action;
//   - RetryAfterNack (Redelivery): a fault with nowhere to go is Nacked,
//     the binding redelivers, and the second attempt's reply arrives.
func TestServe(t *testing.T, f Features, newPair NewPairFunc) {
	t.Run("Reply", func(t *testing.T) { testServeReply(t, f, newPair) })
	t.Run("FaultTo", func(t *testing.T) { testServeFault(t, f, newPair) })
	t.Run("RetryAfterNack", func(t *testing.T) { testServeRetry(t, f, newPair) })
}

// serve runs core.Serve over r until the test ends.
func serve(t *testing.T, r core.Receiver, h core.Handler, replies core.Sender) {
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// The suite is about delivery, not reply destinations: answers may go
		// to any mailbox and to loopback (the binding's Sender still has to
		// route them).
		assert.NoError(t, core.Serve(ctx, r, h, replies, core.WithConcurrency(4),
			core.WithReplyPolicy(core.ReplyPolicy{Private: true, Mailboxes: []string{"*"}})))
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
}

func echo(_ context.Context, m *core.Message) (*core.Message, error) {
	var v struct {
		Text string `xml:",chardata"`
	}
	if err := m.Body().Decode(&v); err != nil {
		return nil, err
	}
	return m.Reply(core.RawBody(body("Pong", v.Text))), nil
}

func testServeReply(t *testing.T, f Features, newPair NewPairFunc) {
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			s, r, addr := newPair(t)
			rs, rr, raddr := newPair(t)
			serve(t, r, core.HandlerFunc(echo), rs)
			ids := map[string]string{}
			for i := range 3 {
				m := core.NewMessage(v, core.RawBody(body("Ping", strconv.Itoa(i))))
				id := core.NewMessageID()
				m.ID, m.To, m.ReplyTo, m.Action = id, addr, raddr, Namespace+"/Ping"
				ids[id] = strconv.Itoa(i)
				require.NoError(t, s.Send(f.ctx(t), m))
			}
			for len(ids) > 0 {
				d := f.receive(t, rr)
				reply := d.Message()
				text, ok := ids[reply.RelatesTo]
				require.True(t, ok, "reply RelatesTo %q matches no request still waiting", reply.RelatesTo)
				delete(ids, reply.RelatesTo)
				assert.Equal(t, v, reply.Version(), "reply version")
				assert.Equal(t, raddr, reply.To, "reply To")
				assert.NotEmpty(t, reply.ID, "reply ID")
				assert.Equal(t, text, bodyText(t, reply), "reply body")
				require.NoError(t, d.Ack(f.ctx(t)))
			}
		})
	}
}

func testServeFault(t *testing.T, f Features, newPair NewPairFunc) {
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			s, r, addr := newPair(t)
			rs, rr, raddr := newPair(t)
			serve(t, r, core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) {
				return nil, core.SenderFault("coretest: refused")
			}), rs)
			m := core.NewMessage(v, core.RawBody(body("Ping", "fault")))
			id := core.NewMessageID()
			// ReplyTo none: a Serve that answered a fault at ReplyTo would send
			// nothing, and the test would see nothing at FaultTo
			m.ID, m.To, m.ReplyTo, m.FaultTo = id, addr, core.NoneAddress, raddr
			require.NoError(t, s.Send(f.ctx(t), m))
			d := f.receive(t, rr)
			fm := d.Message()
			assert.Equal(t, id, fm.RelatesTo, "fault RelatesTo")
			assert.Equal(t, raddr, fm.To, "fault To")
			assert.Equal(t, core.FaultAction, fm.Action, "fault Action")
			fault := fm.Fault()
			require.NotNil(t, fault, "the message at FaultTo holds a fault")
			assert.True(t, fault.Remote, "Remote")
			assert.Equal(t, core.CodeSender, fault.Code)
			assert.Equal(t, "coretest: refused", fault.Reason)
			require.NoError(t, d.Ack(f.ctx(t)))
		})
	}
}

func testServeRetry(t *testing.T, f Features, newPair NewPairFunc) {
	if !f.Redelivery {
		t.Skip("binding does not redeliver Nacked messages (Features.Redelivery)")
	}
	s, r, addr := newPair(t)
	rs, rr, raddr := newPair(t)
	var calls atomic.Int32
	serve(t, r, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if calls.Add(1) == 1 {
			// A fault with nowhere to go: Serve Nacks, the binding redelivers.
			return nil, errors.New("coretest: first attempt fails")
		}
		return echo(ctx, m)
	}), rs)
	m := core.NewMessage(f.versions()[0], core.RawBody(body("Ping", "retry")))
	id := core.NewMessageID()
	m.ID, m.To, m.ReplyTo, m.FaultTo = id, addr, raddr, core.NoneAddress
	require.NoError(t, s.Send(f.ctx(t), m))
	d := f.receive(t, rr)
	assert.Equal(t, id, d.Message().RelatesTo)
	assert.Equal(t, "retry", bodyText(t, d.Message()))
	assert.GreaterOrEqual(t, calls.Load(), int32(2), "handler calls")
	require.NoError(t, d.Ack(f.ctx(t)))
}
