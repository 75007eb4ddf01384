package coretest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// NewPairFunc returns a Sender and a Receiver that reads what is sent to
// addr: a fresh, empty address of its own, so subtests do not see each
// other's messages. It registers the cleanup of what it started with
// t.Cleanup; Close may then be called twice (once by the suite).
type NewPairFunc func(t *testing.T) (s core.Sender, r core.Receiver, addr string)

// TestSendReceive checks the one-way seams: what a Sender sends to addr
// arrives at the Receiver intact, once (ExactlyOnce) or at least once, and
// Delivery, Receive and Close behave as core documents. Subtests:
//
//   - Fields/SOAP11, Fields/SOAP12: body, version, Action, ID, RelatesTo,
//     To, ReplyTo, FaultTo and header blocks (name, role, mustUnderstand,
//     1.2 relay, content) arrive as sent;
//   - Concurrent: Features.Messages messages from Features.Concurrency
//     goroutines, both versions, all arrive; with ExactlyOnce, once each;
//   - Ordered (Ordered): one sender's messages arrive in order;
//   - AckNack/{AckAck,AckNack,NackNack,NackAck}: a repeated settlement is a
//     no-op, the other one core.ErrSettled; with Redelivery the Nacked
//     message comes back once;
//   - Redelivery (Redelivery): a Nacked message is received again intact;
//   - ReceiveContext/{Cancelled,CancelWhileWaiting,Deadline}: Receive
//     returns ctx's error, in its chain;
//   - Close/{UnblocksReceive,ReceiveAfterClose}: a blocked or later Receive
//     returns core.ErrClosed; a second Close does not panic;
//   - LargeBody (MaxBodyBytes >= 0): a body of MaxBodyBytes passes intact;
//   - SendCancelled: Send with a cancelled ctx fails;
//   - Persistent (Persistent): a queued message and an unsettled delivery
//     are received from a reopened Receiver after Close.
func TestSendReceive(t *testing.T, f Features, newPair NewPairFunc) {
	t.Run("Fields", func(t *testing.T) { testFields(t, f, newPair) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrentSend(t, f, newPair) })
	t.Run("Ordered", func(t *testing.T) { testOrdered(t, f, newPair) })
	t.Run("AckNack", func(t *testing.T) { testAckNack(t, f, newPair) })
	t.Run("Redelivery", func(t *testing.T) { testRedelivery(t, f, newPair) })
	t.Run("ReceiveContext", func(t *testing.T) { testReceiveContext(t, f, newPair) })
	t.Run("Close", func(t *testing.T) { testClose(t, f, newPair) })
	t.Run("LargeBody", func(t *testing.T) { testLargeBody(t, f, newPair) })
	t.Run("SendCancelled", func(t *testing.T) { testSendCancelled(t, f, newPair) })
	t.Run("Persistent", func(t *testing.T) { testPersistent(t, f, newPair) })
}

// send sends a fresh message to addr and returns it and its body.
func send(t *testing.T, f Features, s core.Sender, addr string, v core.Version, text string) (*core.Message, []byte) {
	t.Helper()
	m := message(t, v, "Ping", text)
	m.To = addr
	want := body("Ping", text)
	snap := snapshot(m)
	require.NoError(t, s.Send(f.ctx(t), m), "Send")
	return snap, want
}

func testFields(t *testing.T, f Features, newPair NewPairFunc) {
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			s, r, addr := newPair(t)
			m, want := send(t, f, s, addr, v, "fields <&> "+v.String())
			d := f.receive(t, r)
			requireSame(t, m, d.Message(), want)
			require.NoError(t, d.Ack(f.ctx(t)), "Ack")
		})
	}
}

func testConcurrentSend(t *testing.T, f Features, newPair NewPairFunc) {
	s, r, addr := newPair(t)
	n, senders := f.messages(), f.concurrency(8)
	vs := f.versions()
	sent := make(chan string, n)
	errs := make(chan error, n)
	ctx := f.ctx(t)
	var wg sync.WaitGroup
	for g := 0; g < senders; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += senders {
				m := core.NewMessage(vs[i%len(vs)], core.RawBody(body("Ping", strconv.Itoa(i))))
				id := core.NewMessageID()
				m.ID, m.To, m.Action = id, addr, Namespace+"/Ping"
				if err := s.Send(ctx, m); err != nil {
					errs <- fmt.Errorf("send %d: %w", i, err)
					continue
				}
				sent <- id + " " + strconv.Itoa(i)
			}
		}()
	}
	// Receive while sending: a binding may hold back senders until
	// messages are taken.
	seen := map[string]int{}
	var rerr error
	for len(seen) < n {
		d, err := r.Receive(f.ctx(t))
		if err != nil {
			rerr = fmt.Errorf("received %d of %d distinct messages: %w", len(seen), n, err)
			break
		}
		seen[d.Message().ID+" "+bodyText(t, d.Message())]++
		require.NoError(t, d.Ack(f.ctx(t)))
	}
	wg.Wait()
	close(errs)
	close(sent)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, rerr)
	want := map[string]bool{}
	for key := range sent {
		want[key] = true
	}
	for key := range seen {
		assert.True(t, want[key], "received a message that was not sent: %s", key)
	}
	if !f.ExactlyOnce {
		return
	}
	for key, c := range seen {
		assert.Equal(t, 1, c, "message %s received %d times", key, c)
	}
	// One more Receive must find nothing. Only a binding that delivers a
	// duplicate late can fail here; a short wait cannot cause a failure.
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if d, err := r.Receive(ctx); err == nil {
		t.Errorf("a duplicate arrived after all %d messages: %s", n, d.Message().ID)
	}
}

func testOrdered(t *testing.T, f Features, newPair NewPairFunc) {
	if !f.Ordered {
		t.Skip("binding does not promise order (Features.Ordered)")
	}
	s, r, addr := newPair(t)
	const n = 10
	errs := make(chan error, 1)
	ctx := f.ctx(t)
	go func() { // a binding may hold back the sender until messages are taken
		defer close(errs)
		for i := range n {
			m := core.NewMessage(f.versions()[0], core.RawBody(body("Ping", strconv.Itoa(i))))
			m.ID, m.To = core.NewMessageID(), addr
			if err := s.Send(ctx, m); err != nil {
				errs <- fmt.Errorf("send %d: %w", i, err)
				return
			}
		}
	}()
	for i := range n {
		d := f.receive(t, r)
		require.Equal(t, strconv.Itoa(i), bodyText(t, d.Message()), "message %d out of order", i)
		require.NoError(t, d.Ack(f.ctx(t)))
	}
	require.NoError(t, <-errs)
}

func testAckNack(t *testing.T, f Features, newPair NewPairFunc) {
	tests := []struct {
		name          string
		first, second func(d core.Delivery, ctx context.Context) error
		same, nacked  bool
	}{
		{"AckAck", ack, ack, true, false},
		{"AckNack", ack, nack, false, false},
		{"NackNack", nack, nack, true, true},
		{"NackAck", nack, ack, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, r, addr := newPair(t)
			m, _ := send(t, f, s, addr, f.versions()[0], tt.name)
			d := f.receive(t, r)
			require.Equal(t, m.ID, d.Message().ID)
			require.NoError(t, tt.first(d, f.ctx(t)), "first settlement")
			err := tt.second(d, f.ctx(t))
			if tt.same {
				assert.NoError(t, err, "repeating a settlement must be a no-op")
			} else {
				assert.ErrorIs(t, err, core.ErrSettled, "settling the other way")
			}
			if tt.nacked && f.Redelivery {
				// The message comes back once, however often it was settled.
				d := f.receive(t, r)
				assert.Equal(t, m.ID, d.Message().ID, "redelivered message")
				require.NoError(t, d.Ack(f.ctx(t)))
			}
		})
	}
}

func ack(d core.Delivery, ctx context.Context) error { return d.Ack(ctx) }
func nack(d core.Delivery, ctx context.Context) error {
	return d.Nack(ctx, errors.New("coretest: nack"))
}

func testRedelivery(t *testing.T, f Features, newPair NewPairFunc) {
	if !f.Redelivery {
		t.Skip("binding does not redeliver Nacked messages (Features.Redelivery)")
	}
	for _, v := range f.versions() {
		t.Run(versionName(v), func(t *testing.T) {
			s, r, addr := newPair(t)
			m, want := send(t, f, s, addr, v, "again")
			d := f.receive(t, r)
			require.NoError(t, d.Nack(f.ctx(t), core.ReceiverFault("coretest: try again")))
			d = f.receive(t, r)
			requireSame(t, m, d.Message(), want)
			require.NoError(t, d.Ack(f.ctx(t)))
		})
	}
}

func testReceiveContext(t *testing.T, f Features, newPair NewPairFunc) {
	tests := []struct {
		name string
		ctx  func(t *testing.T) context.Context
		want error
	}{
		{"Cancelled", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			return ctx
		}, context.Canceled},
		{"CancelWhileWaiting", func(t *testing.T) context.Context {
			ctx, cancel := context.WithCancel(t.Context())
			t.Cleanup(cancel)
			go func() { time.Sleep(20 * time.Millisecond); cancel() }()
			return ctx
		}, context.Canceled},
		{"Deadline", func(t *testing.T) context.Context {
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			t.Cleanup(cancel)
			return ctx
		}, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, r, _ := newPair(t)
			ctx := tt.ctx(t)
			err := f.within(t, "Receive on an empty receiver", func() error {
				d, err := r.Receive(ctx)
				if err == nil {
					return fmt.Errorf("received %v from an empty receiver", d.Message().ID)
				}
				return err
			})
			require.ErrorIs(t, err, tt.want)
		})
	}
}

// within runs fn and fails the test if it does not return within the
// suite's timeout (a hang, not a slow binding).
func (f Features) within(t *testing.T, what string, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(f.timeout()):
		t.Fatalf("%s did not return within %s", what, f.timeout())
		return nil
	}
}

func testClose(t *testing.T, f Features, newPair NewPairFunc) {
	t.Run("UnblocksReceive", func(t *testing.T) {
		_, r, _ := newPair(t)
		started := make(chan struct{})
		done := make(chan error, 1)
		ctx := f.ctx(t)
		go func() {
			close(started)
			_, err := r.Receive(ctx)
			done <- err
		}()
		<-started
		time.Sleep(20 * time.Millisecond) // let Receive block; the test holds if it has not
		require.NoError(t, r.Close(), "Close")
		select {
		case err := <-done:
			require.ErrorIs(t, err, core.ErrClosed, "Receive blocked when Close was called")
		case <-time.After(f.timeout()):
			t.Fatalf("Receive did not return within %s of Close", f.timeout())
		}
	})
	t.Run("ReceiveAfterClose", func(t *testing.T) {
		_, r, _ := newPair(t)
		require.NoError(t, r.Close(), "Close")
		ctx := f.ctx(t)
		err := f.within(t, "Receive after Close", func() error {
			_, err := r.Receive(ctx)
			return err
		})
		require.ErrorIs(t, err, core.ErrClosed)
		assert.NotPanics(t, func() { _ = r.Close() }, "a second Close")
	})
}

func testLargeBody(t *testing.T, f Features, newPair NewPairFunc) {
	if f.maxBody() < 0 {
		t.Skip("binding does not carry large bodies (Features.MaxBodyBytes < 0)")
	}
	s, r, addr := newPair(t)
	want := large(f.maxBody())
	m := core.NewMessage(f.versions()[len(f.versions())-1], core.RawBody(want))
	m.ID, m.To = core.NewMessageID(), addr
	require.NoError(t, s.Send(f.ctx(t), m), "Send %d bytes", len(want))
	d := f.receive(t, r)
	requireSameXML(t, want, bodyBytes(t, d.Message()), "large body")
	require.NoError(t, d.Ack(f.ctx(t)))
}

func testSendCancelled(t *testing.T, f Features, newPair NewPairFunc) {
	s, _, addr := newPair(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	m := core.NewMessage(f.versions()[0], core.RawBody(body("Ping", "cancelled")))
	m.ID, m.To = core.NewMessageID(), addr
	err := f.within(t, "Send with a cancelled context", func() error { return s.Send(ctx, m) })
	require.Error(t, err, "Send with a cancelled context must fail")
}

func testPersistent(t *testing.T, f Features, newPair NewPairFunc) {
	if !f.Persistent {
		t.Skip("binding keeps nothing across a reopen (Features.Persistent)")
	}
	require.NotNil(t, f.Reopen, "Features.Persistent needs Features.Reopen")
	s, r, addr := newPair(t)
	v := f.versions()[0]
	m1, want1 := send(t, f, s, addr, v, "unsettled")
	m2, want2 := send(t, f, s, addr, v, "queued")
	d := f.receive(t, r)
	require.Contains(t, []string{m1.ID, m2.ID}, d.Message().ID)
	require.NoError(t, r.Close(), "Close with a delivery unsettled")

	r2 := f.Reopen(t, addr)
	got := map[string]*core.Message{}
	for len(got) < 2 {
		d := f.receive(t, r2)
		got[d.Message().ID] = d.Message()
		requireSameBody(t, map[string][]byte{m1.ID: want1, m2.ID: want2}, d.Message())
		require.NoError(t, d.Ack(f.ctx(t)))
	}
}

func requireSameBody(t *testing.T, want map[string][]byte, got *core.Message) {
	t.Helper()
	w, ok := want[got.ID]
	require.True(t, ok, "unexpected message %s", got.ID)
	requireSameXML(t, w, bodyBytes(t, got), "body of "+got.ID)
}
