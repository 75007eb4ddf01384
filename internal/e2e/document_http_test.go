package e2e_test

import (
	"context"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
	"github.com/soapwire/soapwire/document"
)

type docOrder struct {
	XMLName xml.Name `xml:"urn:example:po Order"`
	Item    string   `xml:"Item"`
	Qty     int      `xml:"Qty"`
}

type docConfirmation struct {
	XMLName xml.Name `xml:"urn:example:po Confirmation"`
	Item    string   `xml:"Item"`
	Status  string   `xml:"Status"`
}

// docSeller is a document handler that confirms orders and counts its runs;
// hold, when set, makes each run wait for it.
type docSeller struct {
	runs atomic.Int32
	hold chan struct{}
}

func (s *docSeller) handle(ctx context.Context, in *document.Incoming) (*core.Message, error) {
	s.runs.Add(1)
	if s.hold != nil {
		select {
		case <-s.hold:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var o docOrder
	if err := in.Decode(&o); err != nil {
		return nil, err
	}
	if o.Qty <= 0 {
		return nil, core.SenderFault("quantity must be positive")
	}
	return in.Reply(docConfirmation{Item: o.Item, Status: "accepted"}, document.WithAction("urn:example:po:confirm")), nil
}

// TestDocumentHTTPSendReceipt: a one-way document posted over HTTP is
// acknowledged with 202 and an empty body; Send returns its Receipt.
func TestDocumentHTTPSendReceipt(t *testing.T) {
	var got atomic.Pointer[document.Incoming]
	h := document.NewHandler(func(ctx context.Context, in *document.Incoming) (*core.Message, error) {
		var o docOrder
		if err := in.Decode(&o); err != nil {
			return nil, err
		}
		got.Store(in)
		return nil, nil // accepted: nothing to say
	}, document.WithStore(document.NewMemoryStore()))
	srv := docServer(t, h)
	out, statuses := docOutbox(t)
	for _, v := range []core.Version{core.V11, core.V12} {
		rc, err := document.Send(docCtx(t), out, srv.URL+"/orders", docOrder{Item: "bolt", Qty: 3},
			document.WithVersion(v), document.WithAction("urn:example:po:submit"), document.WithConversation("po-http-"+v.String()))
		require.NoError(t, err, v)
		assert.Equal(t, srv.URL+"/orders", rc.To)
		assert.Equal(t, "po-http-"+v.String(), rc.Conversation)
		in := got.Load()
		require.NotNil(t, in)
		assert.Equal(t, rc.MessageID, in.Message.ID, "the document arrived with its WS-Addressing MessageID")
		assert.Equal(t, "urn:example:po:submit", in.Message.Action)
		assert.Equal(t, srv.URL+"/orders", in.Message.To)
		assert.Equal(t, rc.Conversation, in.Conversation)
		assert.Equal(t, v, in.Message.Version())
		assert.Equal(t, "202", rc.Transport["http.status"], "the Receipt holds what HTTP confirmed")
	}
	assert.Equal(t, []int{http.StatusAccepted, http.StatusAccepted}, statuses.all(), "HTTP only acknowledged receipt")
}

// docLoopback lets a seller answer its buyers, who listen on loopback
// (private hosts need an opt-in).
var docLoopback = document.WithReplyPolicy(core.ReplyPolicy{Hosts: []string{"127.0.0.1"}})

// docAsyncSeller accepts documents over HTTP at once (202) into a queue, and
// processes them from there with a document Handler, replying by HTTP to
// ReplyTo later: the store-and-forward shape of document exchanges.
func docAsyncSeller(t *testing.T, h core.Handler) *httptest.Server {
	t.Helper()
	queue := coretest.NewPipe()
	srv := docServer(t, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return nil, queue.Send(ctx, m)
	}))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx, queue, h, nil) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
		_ = queue.Close()
	})
	return srv
}

// docBuyer is a Correlator whose replies arrive over HTTP.
type docBuyer struct {
	c     *document.Correlator
	store document.Store
	fb    *docCollector
	srv   *httptest.Server
}

func newDocBuyer(t *testing.T, out core.Sender, store document.Store) *docBuyer {
	t.Helper()
	b := &docBuyer{store: store, fb: &docCollector{}}
	sw := &docSwappable{}
	b.srv = httptest.NewServer(sw)
	t.Cleanup(b.srv.Close)
	b.c = document.NewCorrelator(out, b.srv.URL+"/replies", document.WithStore(store), document.WithFallback(b.fb))
	sw.set(soaphttp.NewHandler(b.c))
	return b
}

// TestDocumentHTTPRoundTrip: a request posted one way to the seller is
// answered by a second one-way post to the buyer's ReplyTo; the Correlator
// makes the two look like one call. Faults go to FaultTo the same way.
func TestDocumentHTTPRoundTrip(t *testing.T) {
	out, statuses := docOutbox(t)
	var s docSeller
	sellerSrv := docServer(t, document.NewHandler(s.handle, document.WithStore(document.NewMemoryStore()), document.WithOutbox(out), docLoopback))
	buyer := newDocBuyer(t, out, document.NewMemoryStore())

	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			req := document.NewMessage(sellerSrv.URL+"/orders", docOrder{Item: "bolt", Qty: 2}, document.WithVersion(v), document.WithAction("urn:example:po:submit"))
			ctx, cancel := context.WithTimeout(docCtx(t), 10*time.Second)
			defer cancel()
			reply, err := buyer.c.RoundTrip(ctx, req)
			require.NoError(t, err)
			assert.Equal(t, req.ID, reply.RelatesTo)
			assert.Equal(t, v, reply.Version())
			assert.Equal(t, buyer.srv.URL+"/replies", reply.To)
			var conf docConfirmation
			require.NoError(t, reply.Body().Decode(&conf))
			assert.Equal(t, "accepted", conf.Status)
			c, err := buyer.store.Get(ctx, req.ID)
			require.NoError(t, err)
			assert.Equal(t, document.StateCompleted, c.State)

			_, err = buyer.c.RoundTrip(ctx, document.NewMessage(sellerSrv.URL+"/orders", docOrder{Item: "bolt", Qty: 0}, document.WithVersion(v)))
			var f *core.Fault
			require.ErrorAs(t, err, &f, "the fault came to FaultTo")
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "quantity must be positive", f.Reason)
		})
	}
	assert.Zero(t, buyer.c.Pending())
	assert.Empty(t, buyer.fb.got())
	for _, code := range statuses.all() {
		assert.Equal(t, http.StatusAccepted, code, "every leg was a one-way post")
	}
}

// TestDocumentHTTPAnsweredOnAnotherTransport: a request that came over HTTP
// is answered through the Outbox on another transport (a Pipe standing for
// a mailbox or file drop), where the buyer's Correlator is served.
func TestDocumentHTTPAnsweredOnAnotherTransport(t *testing.T) {
	httpOut, _ := docOutbox(t)
	mailbox := coretest.NewPipe(coretest.WithAddress("pipe:buyer-mailbox"))
	t.Cleanup(func() { _ = mailbox.Close() })
	out := document.NewOutbox(map[string]core.Sender{"pipe": mailbox})
	var s docSeller
	sellerSrv := docServer(t, document.NewHandler(s.handle, document.WithOutbox(out)))

	c := document.NewCorrelator(httpOut, mailbox.Addr(), document.WithStore(document.NewMemoryStore()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- core.Serve(ctx, mailbox, c, nil) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })

	callCtx, stop := context.WithTimeout(docCtx(t), 10*time.Second)
	defer stop()
	reply, err := c.RoundTrip(callCtx, document.NewMessage(sellerSrv.URL, docOrder{Item: "nut", Qty: 1}))
	require.NoError(t, err)
	assert.Equal(t, "pipe:buyer-mailbox", reply.To)
	var conf docConfirmation
	require.NoError(t, reply.Body().Decode(&conf))
	assert.Equal(t, "nut", conf.Item)
}

// TestDocumentHTTPDuplicates: the same message posted again is not
// processed again; the earlier reply is answered again.
func TestDocumentHTTPDuplicates(t *testing.T) {
	var s docSeller
	srv := docServer(t, document.NewHandler(s.handle, document.WithStore(document.NewMemoryStore())))
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	req := document.NewMessage(srv.URL, docOrder{Item: "bolt", Qty: 1})
	var ids []string
	for range 3 {
		reply, err := tr.RoundTrip(docCtx(t), req)
		require.NoError(t, err)
		require.NotNil(t, reply)
		assert.Equal(t, req.ID, reply.RelatesTo)
		ids = append(ids, reply.ID)
	}
	assert.EqualValues(t, 1, s.runs.Load())
	assert.Equal(t, ids[0], ids[1])
	assert.Equal(t, ids[0], ids[2])
}

// TestDocumentHTTPConcurrentDuplicates: copies of one message posted at the
// same time run the handler once, and every post gets the same reply.
func TestDocumentHTTPConcurrentDuplicates(t *testing.T) {
	s := docSeller{hold: make(chan struct{})}
	srv := docServer(t, document.NewHandler(s.handle, document.WithStore(document.NewMemoryStore())))
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)
	id := core.NewMessageID()
	const copies = 12
	replies := make([]*core.Message, copies)
	errs := make([]error, copies)
	var wg sync.WaitGroup
	for i := range copies {
		// each copy its own Message (a body is written by one goroutine),
		// all with the same MessageID and conversation
		req := document.NewMessage(srv.URL, docOrder{Item: "bolt", Qty: 1}, document.WithMessageID(id))
		wg.Go(func() { replies[i], errs[i] = tr.RoundTrip(docCtx(t), req) })
	}
	docEventually(t, func() bool { return s.runs.Load() == 1 }, "the first copy is being processed")
	time.Sleep(50 * time.Millisecond) // let the other posts arrive behind it (not an assertion)
	close(s.hold)
	wg.Wait()
	assert.EqualValues(t, 1, s.runs.Load(), "the handler ran once")
	for i := range copies {
		require.NoError(t, errs[i])
		require.NotNil(t, replies[i])
		assert.Equal(t, replies[0].ID, replies[i].ID)
	}
}

// TestDocumentHTTPHostileReplyTo: a ReplyTo or FaultTo the policy refuses
// gets a Sender fault on the HTTP back-channel; the handler does not run and
// nothing is sent to the hostile address.
func TestDocumentHTTPHostileReplyTo(t *testing.T) {
	var hits atomic.Int32
	hostile := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(hostile.Close)
	out, _ := docOutbox(t)
	var s docSeller
	srv := docServer(t, document.NewHandler(s.handle, document.WithOutbox(out),
		document.WithReplyPolicy(core.ReplyPolicy{Schemes: []string{"http"}, Hosts: []string{"buyer.example"}})))
	tr := soaphttp.NewTransport(srv.URL)
	t.Cleanup(tr.CloseIdleConnections)

	for _, tc := range []struct {
		v                core.Version
		replyTo, faultTo string
		status           int
	}{
		{core.V12, hostile.URL + "/steal", "", http.StatusBadRequest},
		{core.V11, hostile.URL + "/steal", "", http.StatusInternalServerError},
		{core.V12, "http://buyer.example/replies", hostile.URL + "/faults", http.StatusBadRequest},
		{core.V12, "mailto:spy@evil.example", "", http.StatusBadRequest},
	} {
		req := document.NewMessage(srv.URL, docOrder{Item: "bolt", Qty: 1}, document.WithVersion(tc.v),
			document.WithReplyTo(tc.replyTo), document.WithFaultTo(tc.faultTo))
		_, err := tr.RoundTrip(docCtx(t), req)
		var f *core.Fault
		require.ErrorAs(t, err, &f, tc.replyTo)
		assert.Equal(t, core.CodeSender, f.Code)
		assert.Contains(t, f.Reason, "not allowed")
		var se *soaphttp.StatusError
		require.ErrorAs(t, err, &se)
		assert.Equal(t, tc.status, se.Code)
	}
	assert.Zero(t, s.runs.Load(), "the handler never ran")
	assert.Zero(t, hits.Load(), "nothing was sent to the hostile address")
}

// TestDocumentHTTPTimeoutAndLateReply: a seller slower than the caller's
// deadline gives the caller a *TimeoutError, and the waiter is gone; its
// reply, posted later, reaches the fallback marked late and completes the
// conversation.
func TestDocumentHTTPTimeoutAndLateReply(t *testing.T) {
	out, _ := docOutbox(t)
	s := docSeller{hold: make(chan struct{})}
	sellerSrv := docAsyncSeller(t, document.NewHandler(s.handle, document.WithOutbox(out), docLoopback))
	buyer := newDocBuyer(t, out, document.NewMemoryStore())

	req := document.NewMessage(sellerSrv.URL, docOrder{Item: "bolt", Qty: 1}, document.WithConversation("po-late"))
	ctx, cancel := context.WithTimeout(docCtx(t), 100*time.Millisecond)
	defer cancel()
	_, err := buyer.c.RoundTrip(ctx, req)
	var te *document.TimeoutError
	require.ErrorAs(t, err, &te)
	require.ErrorIs(t, err, document.ErrTimeout)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, req.ID, te.MessageID)
	assert.Zero(t, buyer.c.Pending(), "the waiter is gone")
	c, err := buyer.store.Get(docCtx(t), "po-late")
	require.NoError(t, err)
	assert.Equal(t, document.StateExpired, c.State)

	close(s.hold) // the seller answers, too late
	docEventually(t, func() bool { return len(buyer.fb.got()) == 1 }, "the late reply reaches the fallback")
	late := buyer.fb.got()[0]
	assert.Equal(t, "late", late.Meta[document.MetaMatch])
	assert.Equal(t, req.ID, late.RelatesTo)
	var conf docConfirmation
	require.NoError(t, late.Body().Decode(&conf))
	assert.Equal(t, "accepted", conf.Status)
	c, err = buyer.store.Get(docCtx(t), "po-late")
	require.NoError(t, err)
	assert.Equal(t, document.StateCompleted, c.State)
	assert.EqualValues(t, 1, s.runs.Load())
}

// TestDocumentHTTPRestart: the buyer's process stops while it waits for a
// reply; its FileStore keeps the conversation awaiting the reply; after a
// restart on the same address a new Correlator, which no caller waits on,
// completes the conversation and hands the reply to its fallback.
func TestDocumentHTTPRestart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "buyer-state")
	out, _ := docOutbox(t)
	s := docSeller{hold: make(chan struct{})}
	sellerSrv := docAsyncSeller(t, document.NewHandler(s.handle, document.WithOutbox(out), docLoopback))

	// The buyer, first run: a request goes out, tracked in the FileStore,
	// replies expected at the buyer's address.
	buyerMux := &docSwappable{}
	buyerSrv := httptest.NewServer(buyerMux)
	addr := buyerSrv.Listener.Addr().String()
	store1, err := document.NewFileStore(dir)
	require.NoError(t, err)
	c1 := document.NewCorrelator(out, buyerSrv.URL+"/replies", document.WithStore(store1))
	buyerMux.set(soaphttp.NewHandler(c1))

	rc, err := document.Send(docCtx(t), out, sellerSrv.URL, docOrder{Item: "bolt", Qty: 9},
		document.WithConversation("po-restart"), document.WithReplyTo(buyerSrv.URL+"/replies"),
		document.WithTracking(store1, time.Now().Add(time.Hour)))
	require.NoError(t, err)
	docEventually(t, func() bool { return s.runs.Load() == 1 }, "the docSeller is working on the order")
	conv, err := store1.Get(docCtx(t), "po-restart")
	require.NoError(t, err)
	require.Equal(t, document.StateAwaitingReply, conv.State)
	require.Equal(t, []string{rc.MessageID}, conv.Pending)

	// The buyer stops: its server goes away with its Correlator.
	buyerSrv.Close()

	// The buyer starts again on the same address, with the same directory.
	store2, err := document.NewFileStore(dir)
	require.NoError(t, err)
	conv, err = store2.Get(docCtx(t), "po-restart")
	require.NoError(t, err)
	assert.Equal(t, document.StateAwaitingReply, conv.State, "still awaiting after the restart")
	require.Len(t, conv.Pending, 1)
	fb := &docCollector{}
	c2 := document.NewCorrelator(out, "http://"+addr+"/replies", document.WithStore(store2), document.WithFallback(fb))
	restarted := httptest.NewUnstartedServer(soaphttp.NewHandler(c2))
	restarted.Listener.Close()
	restarted.Listener = docListenAgain(t, addr)
	restarted.Start()
	t.Cleanup(restarted.Close)

	// The seller answers now.
	close(s.hold)
	docEventually(t, func() bool { return len(fb.got()) == 1 }, "the reply reaches the restarted buyer's fallback")
	got := fb.got()[0]
	assert.Equal(t, rc.MessageID, got.RelatesTo)
	assert.Equal(t, "late", got.Meta[document.MetaMatch])
	var conf docConfirmation
	require.NoError(t, got.Body().Decode(&conf))
	assert.Equal(t, "accepted", conf.Status)
	conv, err = store2.Get(docCtx(t), "po-restart")
	require.NoError(t, err)
	assert.Equal(t, document.StateCompleted, conv.State)
	assert.Empty(t, conv.Pending)
}
