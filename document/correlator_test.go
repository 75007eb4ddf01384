package document_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/document"
)

// fallback collects what a Correlator hands to its fallback.
type fallback struct {
	mu   sync.Mutex
	msgs []*core.Message
}

func (f *fallback) ServeSOAP(_ context.Context, m *core.Message) (*core.Message, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, m)
	return nil, nil
}

func (f *fallback) got() []*core.Message {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*core.Message(nil), f.msgs...)
}

// exchange is a requester and a responder joined by two Pipes: requests go
// through one (served by a document Handler), replies come back through the
// other (served by the Correlator), so every round trip is two one-way
// transfers.
type exchange struct {
	c        *document.Correlator
	store    *document.MemoryStore
	fb       *fallback
	requests *coretest.Pipe
	replies  *coretest.Pipe
}

func newExchange(t *testing.T, fn document.HandleFunc, opts ...document.CorrelatorOption) *exchange {
	t.Helper()
	x := &exchange{store: document.NewMemoryStore(), fb: &fallback{}, requests: newPipe(t), replies: newPipe(t)}
	responder := document.NewHandler(fn, document.WithOutbox(document.NewOutbox(map[string]core.Sender{"pipe": x.replies})))
	serve(t, x.requests, responder, nil, core.WithConcurrency(8))
	opts = append([]document.CorrelatorOption{document.WithStore(x.store), document.WithFallback(x.fb)}, opts...)
	x.c = document.NewCorrelator(x.requests, x.replies.Addr(), opts...)
	serve(t, x.replies, x.c, nil, core.WithConcurrency(8))
	return x
}

func orderRequest(v core.Version, qty int) *core.Message {
	return document.NewMessage("pipe:orders", order{Item: "bolt", Qty: qty}, document.WithVersion(v), document.WithAction("urn:example:po:submit"))
}

func TestCorrelatorRoundTrip(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			x := newExchange(t, confirm)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			req := orderRequest(v, 5)
			reply, err := x.c.RoundTrip(ctx, req)
			require.NoError(t, err)
			assert.Equal(t, req.ID, reply.RelatesTo)
			assert.Equal(t, v, reply.Version())
			assert.Equal(t, "urn:example:po:confirm", reply.Action)
			assert.Contains(t, bodyString(t, reply), "accepted", "the body outlives the delivery")
			assert.Zero(t, x.c.Pending())
			assert.Equal(t, x.replies.Addr(), req.ReplyTo, "RoundTrip set ReplyTo")
			assert.Equal(t, x.replies.Addr(), req.FaultTo)

			conv, err := x.store.Get(ctx, document.ConversationOf(req))
			require.NoError(t, err)
			assert.Equal(t, document.StateCompleted, conv.State)
			assert.Empty(t, conv.Pending)
			dl, _ := ctx.Deadline()
			assert.True(t, conv.Deadline.Equal(dl), "the deadline is recorded for a restart")
			assert.Empty(t, x.fb.got())
		})
	}
}

func TestCorrelatorFaultReply(t *testing.T) {
	x := newExchange(t, confirm)
	ctx := testCtx(t)
	req := orderRequest(core.V12, 0)
	reply, err := x.c.RoundTrip(ctx, req)
	assert.Nil(t, reply)
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.True(t, f.Remote)
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Equal(t, "quantity must be positive", f.Reason)
	conv, err := x.store.Get(ctx, req.ID)
	require.NoError(t, err)
	assert.Equal(t, document.StateFailed, conv.State)
}

// TestCorrelatorTimeoutThenLateReply: no reply in time is a *TimeoutError,
// the waiter is gone and the conversation expired; the reply that comes
// later reaches the fallback, marked late, and completes the conversation.
func TestCorrelatorTimeoutThenLateReply(t *testing.T) {
	hold := make(chan struct{})
	var logs logBuffer
	x := newExchange(t, func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		<-hold
		return confirm(ctx, in)
	}, document.WithLogger(logs.logger()))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req := orderRequest(core.V12, 1)
	reply, err := x.c.RoundTrip(ctx, req)
	assert.Nil(t, reply)
	var te *document.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, req.ID, te.MessageID)
	assert.Equal(t, req.ID, te.Conversation)
	require.ErrorIs(t, err, document.ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Zero(t, x.c.Pending(), "the waiter was removed")
	conv, err := x.store.Get(testCtx(t), req.ID)
	require.NoError(t, err)
	assert.Equal(t, document.StateExpired, conv.State)
	assert.Equal(t, []string{req.ID}, conv.Expired)
	assert.Empty(t, conv.Pending)

	close(hold)
	eventually(t, func() bool { return len(x.fb.got()) == 1 }, "the late reply reaches the fallback")
	late := x.fb.got()[0]
	assert.Equal(t, req.ID, late.RelatesTo)
	assert.Equal(t, "late", late.Meta[document.MetaMatch])
	assert.Contains(t, bodyString(t, late), "accepted")
	conv, err = x.store.Get(testCtx(t), req.ID)
	require.NoError(t, err)
	assert.Equal(t, document.StateCompleted, conv.State)
	assert.Empty(t, conv.Expired)
	assert.True(t, logs.contains("reply for no waiting caller"))
}

// TestCorrelatorUnmatched: a reply to no known request goes to the
// fallback, marked unmatched, and creates no conversation; without a
// fallback it is refused (so the binding keeps it), never dropped.
func TestCorrelatorUnmatched(t *testing.T) {
	ctx := testCtx(t)
	s := document.NewMemoryStore()
	fb := &fallback{}
	c := document.NewCorrelator(&recorder{}, "pipe:replies", document.WithStore(s), document.WithFallback(fb))
	stray := document.NewMessage("pipe:replies", []byte(confirmXML), document.WithConversation("not-ours"))
	stray.RelatesTo = "urn:uuid:never-sent"
	reply, err := c.ServeSOAP(ctx, reread(t, stray))
	require.NoError(t, err)
	assert.Nil(t, reply)
	require.Len(t, fb.got(), 1)
	assert.Equal(t, "unmatched", fb.got()[0].Meta[document.MetaMatch])
	all, err := s.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, all, "a stray reply creates no conversation")

	// a message that relates to nothing at all (a new request) also goes there
	_, err = c.ServeSOAP(ctx, reread(t, document.NewMessage("pipe:replies", []byte(orderXML))))
	require.NoError(t, err)
	assert.Len(t, fb.got(), 2)

	bare := document.NewCorrelator(&recorder{}, "pipe:replies")
	_, err = bare.ServeSOAP(ctx, reread(t, stray))
	require.ErrorIs(t, err, document.ErrUnmatched)
	assert.Equal(t, core.CodeReceiver, core.FaultOf(err).Code)

	// over core.Serve the refused reply is Nacked (kept), not acked away
	p := newPipe(t)
	parked := make(chan struct{}, 1)
	serve(t, &nackWatch{Receiver: p, nacked: parked}, bare, nil)
	require.NoError(t, p.Send(ctx, stray))
	<-parked
}

// TestCorrelatorConcurrent: many callers at once each get their own reply.
func TestCorrelatorConcurrent(t *testing.T) {
	x := newExchange(t, func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		var o order
		if err := in.Decode(&o); err != nil {
			return nil, err
		}
		return in.Reply(fmt.Appendf(nil, `<e:Echo xmlns:e="urn:example">%d</e:Echo>`, o.Qty)), nil
	})
	ctx := testCtx(t)
	var wg sync.WaitGroup
	for i := 1; i <= 64; i++ {
		wg.Go(func() {
			reply, err := x.c.RoundTrip(ctx, orderRequest(core.V12, i))
			if !assert.NoError(t, err) {
				return
			}
			var echo struct {
				XMLName xml.Name `xml:"urn:example Echo"`
				N       int      `xml:",chardata"`
			}
			assert.NoError(t, reply.Body().Decode(&echo))
			assert.Equal(t, i, echo.N)
		})
	}
	wg.Wait()
	assert.Zero(t, x.c.Pending())
	assert.Empty(t, x.fb.got())
}

// TestCorrelatorRepliesRaceTimeouts: with deadlines about as long as the
// exchange, every reply ends up either with its caller or at the fallback,
// exactly once; no waiter is left behind.
func TestCorrelatorRepliesRaceTimeouts(t *testing.T) {
	var answered atomic.Int32 // replies the responder sent
	x := newExchange(t, func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		answered.Add(1)
		return confirm(ctx, in)
	})
	const n = 200
	var ok, timedOut atomic.Int32
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rand.IntN(10000))*time.Microsecond)
			defer cancel()
			_, err := x.c.RoundTrip(ctx, orderRequest(core.V12, i+1))
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, document.ErrTimeout):
				timedOut.Add(1)
			default:
				t.Errorf("round trip: %v", err)
			}
		})
	}
	wg.Wait()
	assert.Zero(t, x.c.Pending(), "no waiter left behind")
	assert.EqualValues(t, n, ok.Load()+timedOut.Load())
	eventually(t, func() bool {
		return x.requests.Len() == 0 && x.replies.Len() == 0 && int(ok.Load())+len(x.fb.got()) == int(answered.Load())
	}, "every reply reached its caller or the fallback")
	assert.EqualValues(t, answered.Load(), int(ok.Load())+len(x.fb.got()), "exactly once")
	t.Logf("%d sent, %d answered in time, %d timed out, %d late replies", n, ok.Load(), timedOut.Load(), len(x.fb.got()))
	for _, m := range x.fb.got() {
		assert.Equal(t, "late", m.Meta[document.MetaMatch])
	}
	all, err := x.store.List(testCtx(t))
	require.NoError(t, err)
	require.Len(t, all, n)
	states := map[document.State]int{}
	for _, c := range all {
		states[c.State]++
		assert.Empty(t, c.Pending, c.ID)
	}
	assert.Equal(t, int(answered.Load()), states[document.StateCompleted], "answered conversations are completed: %v", states)
	assert.Equal(t, n-int(answered.Load()), states[document.StateExpired], "the rest expired: %v", states)
}

func TestCorrelatorSendFailure(t *testing.T) {
	s := document.NewMemoryStore()
	rec := &recorder{}
	rec.fail(errors.New("connection refused"))
	c := document.NewCorrelator(rec, "pipe:replies", document.WithStore(s))
	req := orderRequest(core.V12, 1)
	_, err := c.RoundTrip(testCtx(t), req)
	require.ErrorContains(t, err, "connection refused")
	assert.NotErrorIs(t, err, document.ErrTimeout)
	assert.Zero(t, c.Pending())
	conv, err := s.Get(testCtx(t), req.ID)
	require.NoError(t, err)
	assert.Equal(t, document.StateFailed, conv.State)
	assert.Empty(t, conv.Pending)
}

func TestCorrelatorRefusesAnIDAlreadyWaiting(t *testing.T) {
	c := document.NewCorrelator(&recorder{}, "pipe:replies")
	req := orderRequest(core.V12, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.RoundTrip(ctx, req)
		done <- err
	}()
	eventually(t, func() bool { return c.Pending() == 1 }, "the first call waits")
	again := orderRequest(core.V12, 1)
	again.ID = req.ID
	_, err := c.RoundTrip(testCtx(t), again)
	require.ErrorIs(t, err, document.ErrAwaiting)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	assert.Zero(t, c.Pending())
}

func TestCorrelatorDefaultTimeout(t *testing.T) {
	c := document.NewCorrelator(&recorder{}, "pipe:replies", document.WithTimeout(20*time.Millisecond))
	_, err := c.RoundTrip(context.Background(), orderRequest(core.V12, 1))
	require.ErrorIs(t, err, document.ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	_, err = c.RoundTrip(testCtx(t), &core.Message{})
	require.Error(t, err, "no envelope")
}

// TestCorrelatorKeepsCallerAddressing: what the caller set is not replaced.
func TestCorrelatorKeepsCallerAddressing(t *testing.T) {
	rec := &recorder{}
	c := document.NewCorrelator(rec, "pipe:replies")
	req := document.NewMessage("mailto:po@seller.example", []byte(orderXML), document.WithConversation("c-7"),
		document.WithReplyTo("pipe:elsewhere"), document.WithFaultTo("pipe:faults"), document.WithMessageID("urn:example:m7"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := c.RoundTrip(ctx, req)
	require.ErrorIs(t, err, document.ErrTimeout)
	require.Len(t, rec.messages(), 1)
	sent := rec.messages()[0]
	assert.Equal(t, "urn:example:m7", sent.ID)
	assert.Equal(t, "pipe:elsewhere", sent.ReplyTo)
	assert.Equal(t, "pipe:faults", sent.FaultTo)
	assert.Equal(t, "c-7", document.ConversationOf(sent))

	bare := core.NewMessage(core.V11, core.RawBody([]byte(orderXML)))
	bare.To = "mailto:po@seller.example"
	_, err = c.RoundTrip(ctx, bare)
	require.ErrorIs(t, err, document.ErrTimeout)
	sent = rec.messages()[1]
	assert.NotEmpty(t, sent.ID)
	assert.Equal(t, "pipe:replies", sent.ReplyTo)
	assert.Equal(t, sent.ID, document.ConversationOf(sent), "a new conversation, carried in the header")
	assert.Len(t, sent.Envelope.Headers, 1)
}

// TestCorrelatorMalformedReply: a reply that relates to a waiting call but
// is malformed ends the call at once with its fault (as a malformed reply
// over request-reply does), instead of leaving it to its deadline; the
// binding parks the reply; the conversation fails; the next call is
// answered as usual.
func TestCorrelatorMalformedReply(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			requests, replies := newPipe(t), newPipe(t)
			var broken atomic.Bool
			broken.Store(true)
			serve(t, requests, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				if !broken.Load() {
					return nil, replies.Send(ctx, m.Reply(core.RawBody([]byte(`<o:Confirmation xmlns:o="urn:example:po"><o:Status>accepted</o:Status></o:Confirmation>`))))
				}
				// the operation element closed by the wrong end tag
				raw := `<e:Envelope xmlns:e="` + v.Namespace() + `"><e:Header>` +
					`<a:MessageID xmlns:a="` + core.NamespaceAddressing + `">urn:uuid:broken-reply</a:MessageID>` +
					`<a:RelatesTo xmlns:a="` + core.NamespaceAddressing + `">` + m.ID + `</a:RelatesTo></e:Header>` +
					`<e:Body><o:Confirmation xmlns:o="urn:example:po"><o:Status>accepted</o:Mismatch></e:Body></e:Envelope>`
				return nil, replies.SendRaw(ctx, []byte(raw), "")
			}), nil)
			store := document.NewMemoryStore()
			c := document.NewCorrelator(requests, replies.Addr(), document.WithStore(store))
			serve(t, replies, c, nil)

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			req := orderRequest(v, 1)
			_, err := c.RoundTrip(ctx, req)
			require.Error(t, err)
			assert.NotErrorIs(t, err, document.ErrTimeout, "the call ends with the reply's fault, not its deadline")
			f := core.FaultOf(err)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Contains(t, f.Reason, "closed by")
			assert.False(t, f.Remote, "soapwire's verdict on the reply, not the peer's fault")
			require.Eventually(t, func() bool { return len(replies.Parked()) == 1 }, 10*time.Second, time.Millisecond, "the reply is parked")
			conv, err := store.Get(ctx, document.ConversationOf(req))
			require.NoError(t, err)
			assert.Equal(t, document.StateFailed, conv.State)
			assert.Zero(t, c.Pending())

			broken.Store(false)
			reply, err := c.RoundTrip(ctx, orderRequest(v, 2))
			require.NoError(t, err, "the next call is answered")
			assert.Contains(t, bodyString(t, reply), "accepted")
		})
	}
}

// TestCorrelatorUnreadableReply: a reply its binding could not read at all
// (core.UnreadableMessage, related by the transport: a mail's In-Reply-To)
// ends its call at once through ServeUnreadable; one that relates to no
// waiting call changes nothing.
func TestCorrelatorUnreadableReply(t *testing.T) {
	requests := newPipe(t)
	c := document.NewCorrelator(requests, "pipe:replies")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req := orderRequest(core.V12, 1)
	done := make(chan error, 1)
	go func() { _, err := c.RoundTrip(ctx, req); done <- err }()
	require.Eventually(t, func() bool { return c.Pending() == 1 }, 10*time.Second, time.Millisecond)

	stray := core.UnreadableMessage(core.V12, core.SenderFault("not a SOAP mail"))
	stray.RelatesTo = "urn:uuid:nobody-waits"
	c.ServeUnreadable(ctx, stray, core.SenderFault("not a SOAP mail"))
	assert.Equal(t, 1, c.Pending(), "a stray one changes nothing")

	f := core.SenderFault("not a SOAP mail: text/plain")
	m := core.UnreadableMessage(core.V12, f)
	m.RelatesTo = req.ID
	c.ServeUnreadable(ctx, m, f)
	err := <-done
	require.Error(t, err)
	assert.NotErrorIs(t, err, document.ErrTimeout)
	assert.Equal(t, f.Reason, core.FaultOf(err).Reason)
	assert.Zero(t, c.Pending())
}

// TestCorrelatorReplyInTheOtherVersion: a reply in the other SOAP version
// than its request (answer or fault) ends the call at once with a
// VersionMismatch fault this side found, the conversation failed and the
// reply parked; a VersionMismatch fault from the peer is its answer.
func TestCorrelatorReplyInTheOtherVersion(t *testing.T) {
	other := func(v core.Version) core.Version {
		if v == core.V11 {
			return core.V12
		}
		return core.V11
	}
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			requests, replies := newPipe(t), newPipe(t)
			var answer atomic.Int32 // 0: an answer in the other version, 1: a fault in it, 2: its VersionMismatch fault, 3: right
			serve(t, requests, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				var r *core.Message
				switch answer.Load() {
				case 0:
					r = core.NewMessage(other(v), core.RawBody([]byte(`<o:Confirmation xmlns:o="urn:example:po"/>`)))
				case 1:
					r = core.NewMessage(other(v), core.FaultBody(core.ReceiverFault("boom")))
				case 2:
					r = core.NewMessage(other(v), core.FaultBody(&core.Fault{Code: core.CodeVersionMismatch, Reason: "not this version"}))
				default:
					r = m.Reply(core.RawBody([]byte(`<o:Confirmation xmlns:o="urn:example:po"><o:Status>accepted</o:Status></o:Confirmation>`)))
				}
				r.ID, r.RelatesTo = core.NewMessageID(), m.ID
				return nil, replies.Send(ctx, r)
			}), nil)
			store := document.NewMemoryStore()
			c := document.NewCorrelator(requests, replies.Addr(), document.WithStore(store))
			serve(t, replies, c, nil)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()

			for i, name := range []string{"an answer", "a fault"} {
				answer.Store(int32(i))
				req := orderRequest(v, i+1)
				_, err := c.RoundTrip(ctx, req)
				require.Error(t, err, name)
				assert.NotErrorIs(t, err, document.ErrTimeout, name)
				f := core.FaultOf(err)
				assert.Equal(t, core.CodeVersionMismatch, f.Code, name)
				assert.False(t, f.Remote, "%s: this side found it", name)
				require.Eventually(t, func() bool { return len(replies.Parked()) == i+1 }, 10*time.Second, time.Millisecond, "%s: the reply is parked", name)
				conv, err := store.Get(ctx, document.ConversationOf(req))
				require.NoError(t, err)
				assert.Equal(t, document.StateFailed, conv.State, name)
			}
			answer.Store(2)
			_, err := c.RoundTrip(ctx, orderRequest(v, 3))
			f := core.FaultOf(err)
			assert.Equal(t, "not this version", f.Reason, "the peer's VersionMismatch fault is its answer")
			answer.Store(3)
			reply, err := c.RoundTrip(ctx, orderRequest(v, 4))
			require.NoError(t, err, "the next call is answered")
			assert.Contains(t, bodyString(t, reply), "accepted")
			assert.Zero(t, c.Pending())
		})
	}
}
