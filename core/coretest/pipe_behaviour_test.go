package coretest_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

func ping(text string) *core.Message {
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<p:Ping xmlns:p="urn:test">`+text+`</p:Ping>`)))
	m.ID = core.NewMessageID()
	return m
}

func TestPipeErrors(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T) error
		want func(t *testing.T, err error)
	}{
		{"SendAfterClose", func(t *testing.T) error {
			p := coretest.NewPipe()
			require.NoError(t, p.Close())
			return p.Send(t.Context(), ping("x"))
		}, func(t *testing.T, err error) { assert.ErrorIs(t, err, core.ErrClosed) }},
		{"SendToFullBuffer", func(t *testing.T) error {
			p := coretest.NewPipe(coretest.WithBuffer(1))
			t.Cleanup(func() { _ = p.Close() })
			require.NoError(t, p.Send(t.Context(), ping("1")))
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
			defer cancel()
			return p.Send(ctx, ping("2"))
		}, func(t *testing.T, err error) { assert.ErrorIs(t, err, context.DeadlineExceeded) }},
		{"ReceiveOverLimit", func(t *testing.T) error {
			p := coretest.NewPipe(coretest.WithLimits(core.Limits{MaxBytes: 100}))
			t.Cleanup(func() { _ = p.Close() })
			require.NoError(t, p.Send(t.Context(), ping("a body too large for a hundred bytes")))
			_, err := p.Receive(t.Context())
			assert.Zero(t, p.Len(), "an unreadable envelope is dropped")
			return err
		}, func(t *testing.T, err error) {
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.ErrorIs(t, err, core.ErrTooLarge)
		}},
		{"RoundTripWithoutHandler", func(t *testing.T) error {
			_, err := coretest.NewPipe().RoundTrip(t.Context(), ping("x"))
			return err
		}, func(t *testing.T, err error) { assert.ErrorContains(t, err, "no handler") }},
		{"HandlerPanics", func(t *testing.T) error {
			p := coretest.NewPipe(coretest.WithHandler(core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) {
				panic("boom")
			})))
			_, err := p.RoundTrip(t.Context(), ping("x"))
			return err
		}, func(t *testing.T, err error) {
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.Equal(t, core.CodeReceiver, f.Code)
			assert.True(t, f.Remote)
			assert.NotContains(t, f.Error(), "boom")
		}},
		{"RequestOverLimit", func(t *testing.T) error {
			// A limit the request breaks and the fault answering it does not.
			p := coretest.NewPipe(coretest.WithLimits(core.Limits{MaxNameLen: 20}), coretest.WithHandler(core.HandlerFunc(
				func(context.Context, *core.Message) (*core.Message, error) { return nil, errors.New("not reached") })))
			m := core.NewMessage(core.V11, core.RawBody([]byte(`<p:AnElementNameLongerThanTwenty xmlns:p="urn:test"/>`)))
			_, err := p.RoundTrip(t.Context(), m)
			return err
		}, func(t *testing.T, err error) {
			var f *core.Fault
			require.ErrorAs(t, err, &f, "the far side answers an unreadable request with a fault")
			assert.Equal(t, core.CodeSender, f.Code, "%v", err)
			assert.True(t, f.Remote)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run(t)
			require.Error(t, err)
			tt.want(t, err)
		})
	}
}

func TestPipeAttemptMeta(t *testing.T) {
	p := coretest.NewPipe()
	t.Cleanup(func() { _ = p.Close() })
	require.NoError(t, p.Send(t.Context(), ping("x")))
	for _, want := range []string{"1", "2", "3"} {
		d, err := p.Receive(t.Context())
		require.NoError(t, err)
		assert.Equal(t, want, d.Message().Meta["pipe.attempt"])
		if want != "3" {
			require.NoError(t, d.Nack(t.Context(), errors.New("again")))
		} else {
			require.NoError(t, d.Ack(t.Context()))
		}
	}
	assert.Zero(t, p.Len())
}

func TestPipeAddress(t *testing.T) {
	assert.Equal(t, "pipe:orders", coretest.NewPipe(coretest.WithAddress("pipe:orders")).Addr())
	a, b := coretest.NewPipe().Addr(), coretest.NewPipe().Addr()
	assert.Regexp(t, `^pipe:[0-9a-f-]{36}$`, a)
	assert.NotEqual(t, a, b)
}

// store is a Persistent binding built on a Pipe, to check the suite's
// Persistent subtest: closing a handle settles nothing and returns its
// unsettled deliveries to the queue, as a durable store would after a
// restart.
type store struct {
	mu     sync.Mutex
	pipes  map[string]*coretest.Pipe
	forget bool // broken: closing a handle drops its unsettled deliveries
}

type handle struct {
	p       *coretest.Pipe
	closing context.Context // done once Close was called
	close   context.CancelFunc
	mu      sync.Mutex
	out     []core.Delivery
	closed  bool
	forget  bool
}

func newHandle(p *coretest.Pipe) *handle {
	h := &handle{p: p}
	h.closing, h.close = context.WithCancel(context.Background())
	return h
}

func (h *handle) Receive(ctx context.Context) (core.Delivery, error) {
	if h.closing.Err() != nil {
		return nil, core.ErrClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(h.closing, cancel)()
	d, err := h.p.Receive(ctx)
	if err != nil {
		if h.closing.Err() != nil {
			return nil, core.ErrClosed
		}
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.out = append(h.out, d)
	return d, nil
}

func (h *handle) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		h.close()
		for _, d := range h.out {
			if h.forget {
				_ = d.Ack(context.Background())
				continue
			}
			_ = d.Nack(context.Background(), core.ErrClosed) // a settled one says ErrSettled: fine
		}
	}
	return nil
}

func (s *store) pair(t *testing.T) (core.Sender, core.Receiver, string) {
	p := coretest.NewPipe()
	t.Cleanup(func() { _ = p.Close() })
	s.mu.Lock()
	s.pipes[p.Addr()] = p
	s.mu.Unlock()
	h := newHandle(p)
	h.forget = s.forget
	t.Cleanup(func() { _ = h.Close() })
	return p, h, p.Addr()
}

func (s *store) reopen(t *testing.T, addr string) core.Receiver {
	s.mu.Lock()
	p := s.pipes[addr]
	s.mu.Unlock()
	require.NotNil(t, p, "no store at %s", addr)
	h := newHandle(p)
	h.forget = s.forget
	t.Cleanup(func() { _ = h.Close() })
	return h
}

func TestPersistentSuite(t *testing.T) {
	s := &store{pipes: map[string]*coretest.Pipe{}}
	f := pipeFeatures
	f.Persistent, f.Reopen = true, s.reopen
	f.MaxBodyBytes = -1
	coretest.TestSendReceive(t, f, s.pair)
}

// TestPipeReplyInTheOtherVersion: a handler answering in the other SOAP
// version than the request (answer or fault) gives RoundTrip's caller a
// VersionMismatch fault this side found, as every soapwire transport does
// (core.CheckReplyVersion); a VersionMismatch fault is the answer.
func TestPipeReplyInTheOtherVersion(t *testing.T) {
	for name, h := range map[string]core.HandlerFunc{
		"an answer": func(context.Context, *core.Message) (*core.Message, error) {
			return core.NewMessage(core.V11, core.RawBody([]byte(`<p:Pong xmlns:p="urn:test"/>`))), nil
		},
		"a fault": func(context.Context, *core.Message) (*core.Message, error) {
			return core.NewMessage(core.V11, core.FaultBody(core.ReceiverFault("boom"))), nil
		},
	} {
		p := coretest.NewPipe(coretest.WithHandler(h))
		_, err := p.RoundTrip(t.Context(), ping("hi"))
		var f *core.Fault
		require.ErrorAs(t, err, &f, name)
		assert.Equal(t, core.CodeVersionMismatch, f.Code, name)
		assert.False(t, f.Remote, name)
		require.NoError(t, p.Close())
	}
	p := coretest.NewPipe(coretest.WithHandler(core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) {
		return core.NewMessage(core.V11, core.FaultBody(&core.Fault{Code: core.CodeVersionMismatch, Reason: "only 1.1"})), nil
	})))
	t.Cleanup(func() { _ = p.Close() })
	_, err := p.RoundTrip(t.Context(), ping("hi"))
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, "only 1.1", f.Reason)
	assert.True(t, f.Remote, "the peer's own fault")
}
