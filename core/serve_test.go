package core_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// pmEvents records what happened, in order, across goroutines.
type pmEvents struct {
	mu  sync.Mutex
	log []string
}

func (e *pmEvents) add(format string, args ...any) {
	e.mu.Lock()
	e.log = append(e.log, fmt.Sprintf(format, args...))
	e.mu.Unlock()
}

func (e *pmEvents) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.log...)
}

// pmDelivery is a Delivery that records how it was settled.
type pmDelivery struct {
	m       *core.Message
	events  *pmEvents
	mu      sync.Mutex
	state   string // "", "ack" or "nack"
	cause   error
	settled chan struct{}
}

func newPMDelivery(m *core.Message, ev *pmEvents) *pmDelivery {
	return &pmDelivery{m: m, events: ev, settled: make(chan struct{})}
}

func (d *pmDelivery) Message() *core.Message { return d.m }

func (d *pmDelivery) settle(state string, cause error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.state {
	case state:
		return nil
	case "":
		d.state, d.cause = state, cause
		d.events.add("%s %s", state, d.m.ID)
		close(d.settled)
		return nil
	}
	return core.ErrSettled
}

func (d *pmDelivery) Ack(ctx context.Context) error { return d.settle("ack", nil) }

func (d *pmDelivery) Nack(ctx context.Context, cause error) error { return d.settle("nack", cause) }

// wait waits for the delivery to be settled and returns how. The timeout only
// keeps a broken Serve from hanging the test run.
func (d *pmDelivery) wait(t *testing.T) (string, error) {
	t.Helper()
	select {
	case <-d.settled:
	case <-time.After(30 * time.Second):
		t.Fatalf("delivery %s was never settled", d.m.ID)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state, d.cause
}

func (d *pmDelivery) isSettled() bool {
	select {
	case <-d.settled:
		return true
	default:
		return false
	}
}

// pmReceiver hands out deliveries pushed into a channel.
type pmReceiver struct {
	ch        chan core.Delivery
	closed    chan struct{}
	closeOnce sync.Once
	failFirst atomic.Int32 // Receive calls that fail with errPMReceive before any delivery
	calls     atomic.Int32
	handed    atomic.Int32  // deliveries handed to Serve
	exited    chan struct{} // closed when a Receive returned because of ctx or Close
	exitOnce  sync.Once
}

var errPMReceive = errors.New("mailbox temporarily unavailable")

func newPMReceiver() *pmReceiver {
	return &pmReceiver{ch: make(chan core.Delivery), closed: make(chan struct{}), exited: make(chan struct{})}
}

func (r *pmReceiver) Receive(ctx context.Context) (core.Delivery, error) {
	r.calls.Add(1)
	if r.failFirst.Add(-1) >= 0 {
		return nil, errPMReceive
	}
	select {
	case d := <-r.ch:
		r.handed.Add(1)
		return d, nil
	case <-ctx.Done():
		r.exitOnce.Do(func() { close(r.exited) })
		return nil, ctx.Err()
	case <-r.closed:
		r.exitOnce.Do(func() { close(r.exited) })
		return nil, core.ErrClosed
	}
}

func (r *pmReceiver) Close() error {
	r.closeOnce.Do(func() { close(r.closed) })
	return nil
}

// push hands d to Serve (blocks until Serve receives it).
func (r *pmReceiver) push(t *testing.T, d core.Delivery) {
	t.Helper()
	select {
	case r.ch <- d:
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not receive the delivery")
	}
}

// pmSent records what Serve handed to its Sender.
type pmSent struct {
	events *pmEvents
	mu     sync.Mutex
	msgs   []*core.Message
	err    error // returned by Send when set
}

func (s *pmSent) Send(ctx context.Context, m *core.Message) error {
	s.events.add("send begin %s", m.To)
	s.mu.Lock()
	s.msgs = append(s.msgs, m)
	s.mu.Unlock()
	s.events.add("send end %s", m.To)
	return s.err
}

// CheckAddress routes everything: these tests are about Serve's Ack/Nack
// policy, not its reply destinations (serve_policy_test.go).
func (s *pmSent) CheckAddress(string) error { return nil }

func (s *pmSent) all() []*core.Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*core.Message(nil), s.msgs...)
}

// pmServe runs Serve in the background until the test ends; the returned
// channel yields Serve's result.
func pmServe(t *testing.T, r core.Receiver, h core.Handler, s core.Sender, opts ...core.ServeOption) (context.CancelFunc, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	finished := make(chan struct{})
	// the addresses these tests answer to: mail at example.org
	opts = append([]core.ServeOption{core.WithReplyPolicy(core.ReplyPolicy{Mailboxes: []string{"@example.org"}})}, opts...)
	go func() { done <- core.Serve(ctx, r, h, s, opts...); close(finished) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return after cancel")
		}
	})
	return cancel, done
}

func pmWaitServe(t *testing.T, done <-chan error) error {
	t.Helper()
	select {
	case err := <-done:
		return err
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return")
		return nil
	}
}

// pmRequest is a request with the given id and addresses.
func pmRequest(t *testing.T, v core.Version, id, replyTo, faultTo string) *core.Message {
	m := pmRead(t, pmEnvelope(v, "", pmBody))
	m.ID, m.ReplyTo, m.FaultTo, m.Action = id, replyTo, faultTo, "urn:example:echo"
	return m
}

func TestServeReply(t *testing.T) {
	for _, v := range pmVersions {
		t.Run(v.String(), func(t *testing.T) {
			ev := &pmEvents{}
			sent := &pmSent{events: ev}
			rcv := newPMReceiver()
			h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				ev.add("handle %s", m.ID)
				// a bare reply: Serve must fill in RelatesTo, ID and To
				return core.NewMessage(m.Version(), core.RawBody([]byte(`<b:EchoResponse xmlns:b="`+pmBodyNS+`">hi</b:EchoResponse>`))), nil
			})
			pmServe(t, rcv, h, sent)
			d := newPMDelivery(pmRequest(t, v, "urn:uuid:req-1", "mailto:client@example.org", "mailto:errors@example.org"), ev)
			rcv.push(t, d)
			state, _ := d.wait(t)
			require.Equal(t, "ack", state)
			assert.Equal(t, []string{"handle urn:uuid:req-1", "send begin mailto:client@example.org", "send end mailto:client@example.org", "ack urn:uuid:req-1"}, ev.all(),
				"the reply goes to ReplyTo, and the Ack comes only after the Sender returned")

			msgs := sent.all()
			require.Len(t, msgs, 1)
			back, raw := pmWire(t, msgs[0])
			assert.Equal(t, "mailto:client@example.org", back.To)
			assert.Equal(t, "urn:uuid:req-1", back.RelatesTo, "%s", raw)
			assert.True(t, strings.HasPrefix(back.ID, "urn:uuid:"), "a fresh id: %q", back.ID)
			assert.NotEqual(t, "urn:uuid:req-1", back.ID)
			assert.Equal(t, v, back.Version())
			assert.Equal(t, "EchoResponse", back.Body().Name().Local)
		})
	}
}

func TestServeFault(t *testing.T) {
	cases := []struct {
		name             string
		replyTo, faultTo string
		want             string
	}{
		{"to FaultTo", "mailto:client@example.org", "mailto:errors@example.org", "mailto:errors@example.org"},
		{"to ReplyTo without FaultTo", "mailto:client@example.org", "", "mailto:client@example.org"},
		{"FaultTo without ReplyTo", core.NoneAddress, "ftp://example.org/faults", "ftp://example.org/faults"},
	}
	handlers := map[string]core.HandlerFunc{
		"fault": func(ctx context.Context, m *core.Message) (*core.Message, error) {
			return nil, &core.Fault{Code: core.CodeSender, Reason: "no such order", Detail: []byte(`<e:Order xmlns:e="urn:e">42</e:Order>`)}
		},
		"panic": func(ctx context.Context, m *core.Message) (*core.Message, error) {
			panic("secret panic text")
		},
	}
	for _, v := range pmVersions {
		for _, c := range cases {
			for hname, h := range handlers {
				t.Run(v.String()+"/"+hname+"/"+c.name, func(t *testing.T) {
					ev := &pmEvents{}
					sent := &pmSent{events: ev}
					rcv := newPMReceiver()
					pmServe(t, rcv, h, sent)
					d := newPMDelivery(pmRequest(t, v, "urn:uuid:req-2", c.replyTo, c.faultTo), ev)
					rcv.push(t, d)
					state, _ := d.wait(t)
					require.Equal(t, "ack", state, "a fault that was sent settles the delivery")
					assert.Equal(t, []string{"send begin " + c.want, "send end " + c.want, "ack urn:uuid:req-2"}, ev.all())
					msgs := sent.all()
					require.Len(t, msgs, 1)
					back, raw := pmWire(t, msgs[0])
					assert.Equal(t, c.want, back.To)
					assert.Equal(t, core.FaultAction, back.Action)
					assert.Equal(t, "urn:uuid:req-2", back.RelatesTo)
					f := back.Fault()
					require.NotNil(t, f, "%s", raw)
					if hname == "panic" {
						assert.Equal(t, core.CodeReceiver, f.Code)
						assert.Equal(t, core.InternalErrorReason, f.Reason)
						assert.NotContains(t, string(raw), "secret")
					} else {
						assert.Equal(t, core.CodeSender, f.Code)
						assert.Equal(t, "no such order", f.Reason)
						assert.Contains(t, string(f.Detail), "42")
					}
				})
			}
		}
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestServeMalformedBody: a handler that meets an error reading the Body
// (here malformed XML deep inside it) and returns an error of its own, or
// a fault of its own, does not hide the Body's fault: Serve answers the
// Body's fault (as the HTTP binding does), sends it to FaultTo, and Nacks
// the delivery with ErrMalformed (parked, never Acked as processed). A
// handler that fails after a Body read whole gets the Receiver fault as
// before, and the delivery is Acked once the fault is sent.
func TestServeMalformedBody(t *testing.T) {
	malformed := `<b:Echo xmlns:b="` + pmBodyNS + `"><b:text>hi</b:txet></b:Echo>`
	cases := []struct {
		name   string
		body   string
		err    error
		code   core.Code
		reason string
		state  string
	}{
		{"swallowed", malformed, errors.New("something went wrong"), core.CodeSender, "malformed", "nack"},
		{"the Body's fault wins over the handler's", malformed, core.SenderFault("order refused"), core.CodeSender, "malformed", "nack"},
		{"a body read whole", pmBody, errors.New("database down"), core.CodeReceiver, core.InternalErrorReason, "ack"},
	}
	for _, v := range pmVersions {
		for _, c := range cases {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				ev := &pmEvents{}
				sent := &pmSent{events: ev}
				rcv := newPMReceiver()
				var logs syncBuffer
				pmServe(t, rcv, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
					if err := m.Body().Discard(); err != nil {
						ev.add("body: %v", err)
					}
					return nil, c.err
				}), sent, core.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
				m := pmRead(t, pmEnvelope(v, "", c.body))
				m.ID, m.FaultTo = "urn:uuid:req-3", "mailto:errors@example.org"
				d := newPMDelivery(m, ev)
				rcv.push(t, d)
				state, cause := d.wait(t)
				require.Equal(t, c.state, state)
				if state == "nack" {
					assert.ErrorIs(t, cause, core.ErrMalformed)
					assert.Equal(t, core.CodeSender, core.FaultOf(cause).Code)
				}
				msgs := sent.all()
				require.Len(t, msgs, 1)
				back, raw := pmWire(t, msgs[0])
				f := back.Fault()
				require.NotNil(t, f, "%s", raw)
				assert.Equal(t, c.code, f.Code)
				assert.Contains(t, f.Reason, c.reason)
				assert.Contains(t, logs.String(), `msg="soap: fault sent" id=urn:uuid:req-3`, "the fault sent is logged")
				assert.Contains(t, logs.String(), "to=mailto:errors@example.org")
			})
		}
	}
}

func TestServeNacks(t *testing.T) {
	errSend := errors.New("smtp: 451 try again later")
	faulting := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return nil, core.SenderFault("bad order")
	})
	replying := pmEcho(`<b:Ok xmlns:b="` + pmBodyNS + `"/>`)
	cases := []struct {
		name             string
		h                core.Handler
		replyTo, faultTo string
		sendErr          error
		check            func(t *testing.T, cause error)
	}{
		{"reply send fails", replying, "mailto:client@example.org", "", errSend,
			func(t *testing.T, cause error) { assert.ErrorIs(t, cause, errSend) }},
		{"fault send fails", faulting, "mailto:client@example.org", "", errSend,
			func(t *testing.T, cause error) { assert.ErrorIs(t, cause, errSend) }},
	}
	parked := func(t *testing.T, cause error) {
		f := pmAsFault(t, cause)
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Equal(t, "bad order", f.Reason)
	}
	for _, a := range []struct{ name, replyTo, faultTo string }{
		{"no address", "", ""},
		{"anonymous", core.AnonymousAddress, ""},
		{"ReplyTo none", core.NoneAddress, ""},
		{"FaultTo none", "mailto:client@example.org", core.NoneAddress},
		{"FaultTo anonymous", "mailto:client@example.org", core.AnonymousAddress},
	} {
		cases = append(cases, struct {
			name             string
			h                core.Handler
			replyTo, faultTo string
			sendErr          error
			check            func(t *testing.T, cause error)
		}{"fault parked: " + a.name, faulting, a.replyTo, a.faultTo, nil, parked})
	}
	for _, v := range pmVersions {
		for _, c := range cases {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				ev := &pmEvents{}
				sent := &pmSent{events: ev, err: c.sendErr}
				rcv := newPMReceiver()
				pmServe(t, rcv, c.h, sent)
				d := newPMDelivery(pmRequest(t, v, "urn:uuid:req-3", c.replyTo, c.faultTo), ev)
				rcv.push(t, d)
				state, cause := d.wait(t)
				require.Equal(t, "nack", state)
				require.Error(t, cause)
				c.check(t, cause)
				if c.sendErr == nil {
					assert.Empty(t, sent.all(), "a parked fault is not sent")
				}
			})
		}
	}
}

func TestServeNothingToSend(t *testing.T) {
	replying := pmEcho(`<b:Ok xmlns:b="` + pmBodyNS + `"/>`)
	oneWay := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) { return nil, nil })
	cases := []struct {
		name    string
		h       core.Handler
		replyTo string
	}{
		{"ReplyTo none", replying, core.NoneAddress},
		{"one-way with a ReplyTo", oneWay, "mailto:client@example.org"},
		{"one-way without a ReplyTo", oneWay, ""},
		{"reply without an address is dropped", replying, ""},
		{"reply to anonymous is dropped", replying, core.AnonymousAddress},
	}
	for _, v := range pmVersions {
		for _, c := range cases {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				ev := &pmEvents{}
				sent := &pmSent{events: ev, err: errors.New("must not be called")}
				rcv := newPMReceiver()
				pmServe(t, rcv, c.h, sent)
				d := newPMDelivery(pmRequest(t, v, "urn:uuid:req-4", c.replyTo, ""), ev)
				rcv.push(t, d)
				state, _ := d.wait(t)
				assert.Equal(t, "ack", state)
				assert.Empty(t, sent.all())
			})
		}
	}
}

// TestServeStopsAfterInFlightSettled: Serve returns nil on cancel or
// ErrClosed, and only once the delivery being handled was settled.
func TestServeStopsAfterInFlightSettled(t *testing.T) {
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			ev := &pmEvents{}
			rcv := newPMReceiver()
			started := make(chan struct{})
			h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				close(started)
				<-rcv.exited // Serve's loop has seen the stop; the handler is still running
				return nil, nil
			})
			cancel, done := pmServe(t, rcv, h, &pmSent{events: ev})
			d := newPMDelivery(pmRequest(t, core.V12, "urn:uuid:inflight", "", ""), ev)
			rcv.push(t, d)
			<-started
			if how == "cancel" {
				cancel()
			} else {
				require.NoError(t, rcv.Close())
			}
			require.NoError(t, pmWaitServe(t, done))
			assert.True(t, d.isSettled(), "Serve returned before the delivery in flight was settled")
			state, _ := d.wait(t)
			assert.Equal(t, "ack", state)
		})
	}
}

// TestServeConcurrency proves WithConcurrency(n) runs n handlers at once:
// the first n handlers wait until all n have started (a barrier), which
// deadlocks with fewer; and while they hold their slots, a further delivery
// Serve has received does not start.
func TestServeConcurrency(t *testing.T) {
	for _, n := range []int{1, 3, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ev := &pmEvents{}
			rcv := newPMReceiver()
			var running, peak, started atomic.Int32
			var arrived sync.WaitGroup
			arrived.Add(n)
			release := make(chan struct{})
			extra := make(chan struct{}, 4*n)
			h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				r := running.Add(1)
				defer running.Add(-1)
				for p := peak.Load(); r > p && !peak.CompareAndSwap(p, r); p = peak.Load() {
				}
				if started.Add(1) <= int32(n) {
					arrived.Done()
					<-release
				} else {
					extra <- struct{}{}
				}
				return nil, nil
			})
			pmServe(t, rcv, h, &pmSent{events: ev}, core.WithConcurrency(n))
			var ds []*pmDelivery
			push := func(i int) {
				d := newPMDelivery(pmRequest(t, core.V11, fmt.Sprintf("urn:uuid:c%d", i), "", ""), ev)
				ds = append(ds, d)
				rcv.push(t, d)
			}
			for i := range n {
				push(i)
			}
			barrier := make(chan struct{})
			go func() { arrived.Wait(); close(barrier) }()
			select {
			case <-barrier: // n handlers run at once
			case <-time.After(30 * time.Second):
				t.Fatalf("%d handlers never ran at once", n)
			}
			push(n) // Serve has taken one more delivery: it must wait for a free slot
			select {
			case <-extra:
				t.Fatalf("a handler started while %d were running", n)
			case <-time.After(50 * time.Millisecond): // a correct Serve always gets here
			}
			close(release)
			for i := n + 1; i < 3*n; i++ {
				push(i)
			}
			for _, d := range ds {
				state, _ := d.wait(t)
				assert.Equal(t, "ack", state)
			}
			assert.Equal(t, int32(n), peak.Load(), "handlers running at once")
		})
	}
}

func TestServeRetriesReceiveErrors(t *testing.T) {
	ev := &pmEvents{}
	rcv := newPMReceiver()
	rcv.failFirst.Store(2)
	pmServe(t, rcv, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) { return nil, nil }), &pmSent{events: ev})
	d := newPMDelivery(pmRequest(t, core.V12, "urn:uuid:after-errors", "", ""), ev)
	rcv.push(t, d)
	state, _ := d.wait(t)
	assert.Equal(t, "ack", state)
	assert.GreaterOrEqual(t, rcv.calls.Load(), int32(3), "two failed Receive calls, then the one that delivered")
}

func TestServeNilSender(t *testing.T) {
	ev := &pmEvents{}
	rcv := newPMReceiver()
	pmServe(t, rcv, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return nil, core.SenderFault("bad")
	}), nil)
	d := newPMDelivery(pmRequest(t, core.V12, "urn:uuid:nil-sender", "mailto:a@example.org", ""), ev)
	rcv.push(t, d)
	state, cause := d.wait(t)
	assert.Equal(t, "nack", state, "a fault with no Sender to carry it is parked")
	assert.Equal(t, core.CodeSender, pmAsFault(t, cause).Code)
}

// TestServeShutdownHandsBack: a handler that stops because Serve is stopping
// did not process its message. Serve Nacks it with an error wrapping
// context.Canceled (bindings hand such a message back for the next
// Receiver) and sends no fault, even though the request has a FaultTo. A
// handler whose own deadline passes while Serve runs has failed: a fault.
func TestServeShutdownHandsBack(t *testing.T) {
	t.Run("shutdown", func(t *testing.T) {
		ev := &pmEvents{}
		rcv := newPMReceiver()
		started := make(chan struct{})
		h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
		sent := &pmSent{events: ev}
		cancel, done := pmServe(t, rcv, h, sent)
		d := newPMDelivery(pmRequest(t, core.V12, "urn:uuid:stopped", "mailto:a@example.org", "mailto:f@example.org"), ev)
		rcv.push(t, d)
		<-started
		cancel()
		require.NoError(t, pmWaitServe(t, done))
		state, cause := d.wait(t)
		assert.Equal(t, "nack", state)
		assert.ErrorIs(t, cause, context.Canceled)
		assert.Empty(t, sent.all(), "no fault is sent for a message that was not processed")
	})
	t.Run("own deadline", func(t *testing.T) {
		ev := &pmEvents{}
		rcv := newPMReceiver()
		h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			dctx, cancel := context.WithTimeout(ctx, time.Millisecond)
			defer cancel()
			<-dctx.Done()
			return nil, dctx.Err()
		})
		sent := &pmSent{events: ev}
		pmServe(t, rcv, h, sent)
		d := newPMDelivery(pmRequest(t, core.V12, "urn:uuid:slow", "", "mailto:f@example.org"), ev)
		rcv.push(t, d)
		state, _ := d.wait(t)
		assert.Equal(t, "ack", state, "the fault went to FaultTo")
		require.Len(t, sent.all(), 1)
		f := sent.all()[0].Fault()
		require.NotNil(t, f)
		assert.Equal(t, core.CodeReceiver, f.Code)
	})
}

// TestServeShutdownGrace: WithShutdownGrace lets a handler in flight finish
// (its ctx stays alive after Serve's ends) and its reply is sent; a handler
// still waiting when the grace runs out sees its ctx cancelled and its
// message is handed back.
func TestServeShutdownGrace(t *testing.T) {
	t.Run("finishes", func(t *testing.T) {
		ev := &pmEvents{}
		rcv := newPMReceiver()
		started, proceed := make(chan struct{}), make(chan struct{})
		var alive atomic.Bool
		h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			close(started)
			<-proceed
			alive.Store(ctx.Err() == nil)
			return m.Reply(core.RawBody([]byte(`<r xmlns="urn:example"/>`))), nil
		})
		sent := &pmSent{events: ev}
		cancel, done := pmServe(t, rcv, h, sent, core.WithShutdownGrace(time.Hour))
		d := newPMDelivery(pmRequest(t, core.V12, "urn:uuid:graceful", "mailto:a@example.org", ""), ev)
		rcv.push(t, d)
		<-started
		cancel()
		<-rcv.exited // Serve stopped receiving
		close(proceed)
		require.NoError(t, pmWaitServe(t, done))
		assert.True(t, alive.Load(), "the handler's ctx was still alive within the grace")
		state, _ := d.wait(t)
		assert.Equal(t, "ack", state)
		require.Len(t, sent.all(), 1)
		assert.Equal(t, "urn:uuid:graceful", sent.all()[0].RelatesTo)
	})
	t.Run("runs out", func(t *testing.T) {
		ev := &pmEvents{}
		rcv := newPMReceiver()
		started := make(chan struct{})
		h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			close(started)
			<-ctx.Done()
			return nil, ctx.Err()
		})
		sent := &pmSent{events: ev}
		cancel, done := pmServe(t, rcv, h, sent, core.WithShutdownGrace(10*time.Millisecond))
		d := newPMDelivery(pmRequest(t, core.V11, "urn:uuid:late", "", "mailto:f@example.org"), ev)
		rcv.push(t, d)
		<-started
		cancel()
		require.NoError(t, pmWaitServe(t, done))
		state, cause := d.wait(t)
		assert.Equal(t, "nack", state)
		assert.ErrorIs(t, cause, context.Canceled)
		assert.Empty(t, sent.all())
	})
}

// TestServeHandlerFindsMalformed: a handler's fault with core.ErrMalformed
// in its chain (the handler found the message wrong in a way only it can
// tell) parks the delivery at once with that fault, as Serve's own verdict
// does.
func TestServeHandlerFindsMalformed(t *testing.T) {
	inbox := coretest.NewPipe()
	t.Cleanup(func() { _ = inbox.Close() })
	var runs atomic.Int32
	h := core.HandlerFunc(func(context.Context, *core.Message) (*core.Message, error) {
		runs.Add(1)
		return nil, &core.Fault{Code: core.CodeVersionMismatch, Reason: "the reply is a SOAP 1.1 envelope",
			Cause: fmt.Errorf("%w: wrong version", core.ErrMalformed)}
	})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx, inbox, h, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	m := core.NewMessage(core.V12, core.RawBody([]byte(`<e:Reply xmlns:e="urn:e"/>`)))
	m.ID = core.NewMessageID()
	require.NoError(t, inbox.Send(t.Context(), m))
	require.Eventually(t, func() bool { return len(inbox.Parked()) == 1 }, 10*time.Second, time.Millisecond)
	assert.Equal(t, core.CodeVersionMismatch, inbox.Parked()[0].Code)
	assert.Equal(t, int32(1), runs.Load(), "parked at once, not redelivered")
}

func TestServeClosesMessages(t *testing.T) {
	ev := &pmEvents{}
	sent := &pmSent{events: ev}
	rcv := newPMReceiver()
	var inHandler []error
	h := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		_, err := m.Attachments[0].Open()
		inHandler = append(inHandler, err)
		if m.ID == "urn:uuid:fault" {
			return nil, &core.Fault{Code: core.CodeSender, Reason: "no"}
		}
		return m.Reply(core.RawBody([]byte(`<b:R xmlns:b="` + pmBodyNS + `"/>`))), nil
	})
	cancel, done := pmServe(t, rcv, h, sent)
	dir := t.TempDir()
	var msgs []*core.Message
	for _, id := range []string{"urn:uuid:ok", "urn:uuid:fault"} {
		req := pkMessage(core.V11, core.MTOM, core.BytesAttachment("x/y", pkData(10000)))
		wire, ct := pkWire(t, req)
		m, err := core.ReadPackage(bytes.NewReader(wire), ct, core.Limits{SpoolThreshold: 1000, SpoolDir: dir})
		require.NoError(t, err)
		require.True(t, m.Attachments[0].Spooled())
		m.ID, m.ReplyTo = id, "mailto:client@example.org"
		msgs = append(msgs, m)
		d := newPMDelivery(m, ev)
		rcv.push(t, d)
		d.wait(t)
	}
	cancel()
	require.NoError(t, pmWaitServe(t, done))
	assert.Equal(t, []error{nil, nil}, inHandler, "the parts are there while the handler runs")
	for _, m := range msgs {
		_, err := m.Attachments[0].Open()
		assert.ErrorIs(t, err, core.ErrAttachmentClosed, "%s: closed once settled", m.ID)
	}
	pkDirEmpty(t, dir)
}
