package document_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// countingHandler confirms orders and counts its runs.
type countingHandler struct {
	runs atomic.Int32
	hold chan struct{} // when set, each run waits for it to close
}

func (c *countingHandler) handle(ctx context.Context, in *document.Incoming) (*core.Message, error) {
	c.runs.Add(1)
	if c.hold != nil {
		<-c.hold
	}
	return confirm(ctx, in)
}

// TestDuplicateSuppressed: a message delivered again is not processed again;
// the first outcome is sent again, to where it went the first time.
func TestDuplicateSuppressed(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			rec := &recorder{}
			var ch countingHandler
			h := document.NewHandler(ch.handle, document.WithStore(open()), document.WithOutbox(document.NewOutbox(map[string]core.Sender{"mailto": rec})), buyers)
			ctx := testCtx(t)
			req := document.NewMessage("pipe:x", order{Item: "bolt", Qty: 2}, document.WithReplyTo("mailto:buyer@b.example"))
			for range 3 {
				_, err := h.ServeSOAP(ctx, reread(t, req))
				require.NoError(t, err)
			}
			assert.EqualValues(t, 1, ch.runs.Load())
			sent := rec.messages()
			require.Len(t, sent, 3, "the reply was sent again for each duplicate")
			first := bodyString(t, sent[0])
			assert.Contains(t, first, "accepted")
			for _, r := range sent[1:] {
				assert.Equal(t, sent[0].ID, r.ID, "the same reply, not a new one")
				assert.Equal(t, req.ID, r.RelatesTo)
				assert.Equal(t, "mailto:buyer@b.example", r.To)
				assert.Equal(t, first, bodyString(t, r))
			}

			// a duplicate whose ReplyTo was changed still gets the outcome
			// where the first one went
			forged := reread(t, req)
			forged.ReplyTo = "mailto:other@b.example"
			_, err := h.ServeSOAP(ctx, forged)
			require.NoError(t, err)
			assert.Equal(t, "mailto:buyer@b.example", rec.messages()[3].To)

			// the back-channel: the duplicate gets the same reply returned
			req2 := document.NewMessage("pipe:x", order{Item: "nut", Qty: 1})
			r1, err := h.ServeSOAP(ctx, reread(t, req2))
			require.NoError(t, err)
			r2, err := h.ServeSOAP(ctx, reread(t, req2))
			require.NoError(t, err)
			require.NotNil(t, r1)
			require.NotNil(t, r2)
			assert.Equal(t, r1.ID, r2.ID)
			assert.EqualValues(t, 2, ch.runs.Load())

			// a recorded Sender fault is replayed too
			bad := document.NewMessage("pipe:x", order{Qty: 0})
			_, err1 := h.ServeSOAP(ctx, reread(t, bad))
			_, err2 := h.ServeSOAP(ctx, reread(t, bad))
			require.Error(t, err1)
			require.Error(t, err2)
			assert.Equal(t, core.FaultOf(err1).Reason, core.FaultOf(err2).Reason)
			assert.Equal(t, core.CodeSender, core.FaultOf(err2).Code)
			assert.EqualValues(t, 3, ch.runs.Load())

			// a one-way document: the duplicate is accepted without a run
			oneway := document.NewHandler(ch.handle, document.WithStore(open()))
			ow := document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo(core.NoneAddress))
			for range 2 {
				reply, err := oneway.ServeSOAP(ctx, reread(t, ow))
				require.NoError(t, err)
				assert.Nil(t, reply)
			}
			assert.EqualValues(t, 4, ch.runs.Load())
		})
	}
}

// TestConcurrentDuplicates: copies of one message arriving at the same time
// run the handler once, and every copy is answered with its outcome.
func TestConcurrentDuplicates(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ch := countingHandler{hold: make(chan struct{})}
			h := document.NewHandler(ch.handle, document.WithStore(open()))
			req := document.NewMessage("pipe:x", order{Item: "bolt", Qty: 1})
			const copies = 16
			msgs := make([]*core.Message, copies)
			for i := range msgs {
				msgs[i] = reread(t, req)
			}
			var wg sync.WaitGroup
			replies := make([]*core.Message, copies)
			errs := make([]error, copies)
			for i := range copies {
				wg.Go(func() { replies[i], errs[i] = h.ServeSOAP(testCtx(t), msgs[i]) })
			}
			eventually(t, func() bool { return ch.runs.Load() == 1 }, "the first copy runs")
			time.Sleep(20 * time.Millisecond) // let the other copies pile up behind it (not an assertion)
			close(ch.hold)
			wg.Wait()
			assert.EqualValues(t, 1, ch.runs.Load(), "the handler ran once")
			for i := range copies {
				require.NoError(t, errs[i])
				require.NotNil(t, replies[i], "copy %d was answered", i)
				assert.Equal(t, replies[0].ID, replies[i].ID)
			}
		})
	}
}

// TestDuplicatesAcrossHandlers: two Handlers sharing a Store (two processes
// on one shared store) do not both process a message: the second is refused
// with ErrInFlight (parked, for a later redelivery) while the first holds
// its lease, and answered from the Store after.
func TestDuplicatesAcrossHandlers(t *testing.T) {
	s := document.NewMemoryStore()
	first := countingHandler{hold: make(chan struct{})}
	var second countingHandler
	var logs logBuffer
	h1 := document.NewHandler(first.handle, document.WithStore(s))
	h2 := document.NewHandler(second.handle, document.WithStore(s), document.WithLogger(logs.logger()))
	req := document.NewMessage("pipe:x", order{Qty: 1})
	done := make(chan error, 1)
	go func() {
		_, err := h1.ServeSOAP(testCtx(t), reread(t, req))
		done <- err
	}()
	eventually(t, func() bool { return first.runs.Load() == 1 }, "h1 runs")
	m := reread(t, req)
	_, err := h2.ServeSOAP(testCtx(t), m)
	require.ErrorIs(t, err, document.ErrInFlight)
	assert.Equal(t, core.CodeReceiver, core.FaultOf(err).Code)
	assert.Equal(t, core.NoneAddress, m.FaultTo, "parked, not faulted to the peer")
	assert.True(t, logs.contains("being processed elsewhere"), logs.String())
	close(first.hold)
	require.NoError(t, <-done)
	reply, err := h2.ServeSOAP(testCtx(t), reread(t, req))
	require.NoError(t, err)
	assert.NotNil(t, reply)
	assert.Zero(t, second.runs.Load())
}

// TestStaleClaimTakenOver: a claim whose owner died (no outcome within the
// lease) does not block the message forever.
func TestStaleClaimTakenOver(t *testing.T) {
	s := document.NewMemoryStore()
	req := document.NewMessage("pipe:x", order{Qty: 1})
	err := s.Update(testCtx(t), req.ID, func(c *document.Conversation) error {
		c.Handled = []document.Outcome{{MessageID: req.ID, Owner: "a dead process", At: time.Now().Add(-time.Hour)}}
		return nil
	})
	require.NoError(t, err)
	var ch countingHandler
	h := document.NewHandler(ch.handle, document.WithStore(s), document.WithLease(time.Minute))
	reply, err := h.ServeSOAP(testCtx(t), reread(t, req))
	require.NoError(t, err)
	assert.NotNil(t, reply)
	assert.EqualValues(t, 1, ch.runs.Load())
}

// TestHandlerPanicReleasesTheMessage: a panicking handler (recovered by the
// binding) does not leave the message id blocked.
func TestHandlerPanicReleasesTheMessage(t *testing.T) {
	var runs atomic.Int32
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		if runs.Add(1) == 1 {
			panic("boom")
		}
		return confirm(ctx, in)
	}, document.WithStore(document.NewMemoryStore()))
	safe := core.Recover(nil)(h)
	req := document.NewMessage("pipe:x", order{Qty: 1})
	_, err := safe.ServeSOAP(testCtx(t), reread(t, req))
	require.Error(t, err)
	reply, err := safe.ServeSOAP(testCtx(t), reread(t, req))
	require.NoError(t, err)
	assert.NotNil(t, reply)
	assert.EqualValues(t, 2, runs.Load())
}

// TestReceiverFaultIsRetried: a Receiver fault (the handler could not
// process the message now) is not recorded, so a resend is processed.
func TestReceiverFaultIsRetried(t *testing.T) {
	var runs atomic.Int32
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		if runs.Add(1) == 1 {
			return nil, errors.New("database unavailable")
		}
		return confirm(ctx, in)
	}, document.WithStore(document.NewMemoryStore()))
	req := document.NewMessage("pipe:x", order{Qty: 1})
	_, err := h.ServeSOAP(testCtx(t), reread(t, req))
	require.Error(t, err)
	assert.Equal(t, core.CodeReceiver, core.FaultOf(err).Code)
	reply, err := h.ServeSOAP(testCtx(t), reread(t, req))
	require.NoError(t, err)
	assert.NotNil(t, reply)
	assert.EqualValues(t, 2, runs.Load())
}

// TestDuplicateWaitHonoursContext: a duplicate waiting for the first copy
// gives up with its ctx (parked), without running the handler.
func TestDuplicateWaitHonoursContext(t *testing.T) {
	ch := countingHandler{hold: make(chan struct{})}
	defer close(ch.hold)
	h := document.NewHandler(ch.handle, document.WithStore(document.NewMemoryStore()))
	req := document.NewMessage("pipe:x", order{Qty: 1})
	go func() { _, _ = h.ServeSOAP(context.Background(), reread(t, req)) }()
	eventually(t, func() bool { return ch.runs.Load() == 1 }, "the first copy runs")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	m := reread(t, req)
	_, err := h.ServeSOAP(ctx, m)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, core.NoneAddress, m.FaultTo)
	assert.EqualValues(t, 1, ch.runs.Load())
}

// TestRetentionBoundsRecords: the duplicate-suppression records of a
// conversation are bounded in number and age.
func TestRetentionBoundsRecords(t *testing.T) {
	s := document.NewMemoryStore()
	h := document.NewHandler(confirm, document.WithStore(s), document.WithRetention(time.Hour, 3))
	ctx := testCtx(t)
	for range 10 {
		_, err := h.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:x", order{Qty: 1}, document.WithConversation("busy"))))
		require.NoError(t, err)
	}
	c, err := s.Get(ctx, "busy")
	require.NoError(t, err)
	assert.LessOrEqual(t, len(c.Handled), 3)
	assert.NotEmpty(t, c.Handled)
}

// TestMaxReplay: a reply larger than the replay limit is sent but not kept;
// its duplicate is suppressed without an answer.
func TestMaxReplay(t *testing.T) {
	var ch countingHandler
	s := document.NewMemoryStore()
	h := document.NewHandler(ch.handle, document.WithStore(s), document.WithMaxReplay(64))
	req := document.NewMessage("pipe:x", order{Qty: 1})
	r1, err := h.ServeSOAP(testCtx(t), reread(t, req))
	require.NoError(t, err)
	require.NotNil(t, r1)
	r2, err := h.ServeSOAP(testCtx(t), reread(t, req))
	require.NoError(t, err)
	assert.Nil(t, r2)
	assert.EqualValues(t, 1, ch.runs.Load())
}

// TestDuplicateAfterRestart: the outcome is in the FileStore, so a Handler
// started after a restart answers a redelivery without processing it.
func TestDuplicateAfterRestart(t *testing.T) {
	dir := t.TempDir()
	open := func() document.Store {
		s, err := document.NewFileStore(dir)
		require.NoError(t, err)
		return s
	}
	rec := &recorder{}
	out := document.NewOutbox(map[string]core.Sender{"mailto": rec})
	var before, after countingHandler
	req := document.NewMessage("pipe:x", order{Qty: 1}, document.WithReplyTo("mailto:buyer@b.example"))
	_, err := document.NewHandler(before.handle, document.WithStore(open()), document.WithOutbox(out), buyers).ServeSOAP(testCtx(t), reread(t, req))
	require.NoError(t, err)
	_, err = document.NewHandler(after.handle, document.WithStore(open()), document.WithOutbox(out), buyers).ServeSOAP(testCtx(t), reread(t, req))
	require.NoError(t, err)
	assert.EqualValues(t, 1, before.runs.Load())
	assert.Zero(t, after.runs.Load())
	require.Len(t, rec.messages(), 2)
	assert.Equal(t, rec.messages()[0].ID, rec.messages()[1].ID)
}

// TestStoreFailureParks: when the Store fails the message is parked with a
// Receiver fault and the failure logged; the handler does not run
// unguarded.
func TestStoreFailureParks(t *testing.T) {
	var logs logBuffer
	var ch countingHandler
	h := document.NewHandler(ch.handle, document.WithStore(failingStore{document.NewMemoryStore()}), document.WithLogger(logs.logger()))
	m := reread(t, document.NewMessage("pipe:x", order{Qty: 1}))
	_, err := h.ServeSOAP(testCtx(t), m)
	require.Error(t, err)
	assert.Equal(t, core.CodeReceiver, core.FaultOf(err).Code)
	assert.Equal(t, core.NoneAddress, m.FaultTo)
	assert.Zero(t, ch.runs.Load())
	assert.True(t, logs.contains("disk full"), logs.String())
}

type failingStore struct{ *document.MemoryStore }

func (failingStore) Update(context.Context, string, func(*document.Conversation) error) error {
	return errors.New("disk full")
}

// TestUnwritableReply: a reply the handler built but that cannot be written
// (here a value encoding/xml cannot marshal) becomes a logged Receiver
// fault, and is not recorded, so a resend is processed again.
func TestUnwritableReply(t *testing.T) {
	var runs atomic.Int32
	var logs logBuffer
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		runs.Add(1)
		return in.Reply(make(chan int)), nil
	}, document.WithStore(document.NewMemoryStore()), document.WithLogger(logs.logger()))
	req := document.NewMessage("pipe:x", order{Qty: 1})
	for range 2 {
		_, err := h.ServeSOAP(testCtx(t), reread(t, req))
		require.Error(t, err)
		assert.Equal(t, core.CodeReceiver, core.FaultOf(err).Code)
	}
	assert.EqualValues(t, 2, runs.Load())
	assert.True(t, logs.contains("the reply cannot be written"), logs.String())
}
