package nats_test

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

func TestRequestReply(t *testing.T) {
	s := startServer(t)
	subscribe(t, connect(t, s), "svc.echo", echo)
	tr := soapnats.NewTransport(connect(t, s), "nats:svc.echo")
	tests := []struct {
		name   string
		v      core.Version
		withID bool
	}{
		{"SOAP11", core.V11, true},
		{"SOAP12", core.V12, true},
		{"SOAP11/NoAddressing", core.V11, false},
		{"SOAP12/NoAddressing", core.V12, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := core.NewMessage(tt.v, core.RawBody(body("echo", "hello <&> "+tt.name)))
			m.Action = "urn:test:echo"
			if tt.withID {
				m.ID = core.NewMessageID()
			}
			reply, err := tr.RoundTrip(testCtx(t), m)
			require.NoError(t, err)
			require.NotNil(t, reply)
			assert.Equal(t, tt.v, reply.Version())
			assert.Equal(t, "urn:test:echoResponse", reply.Action, "the reply's action travels in the headers")
			assert.Equal(t, m.ID, reply.RelatesTo)
			assert.Equal(t, "svc.echo", reply.Meta[soapnats.MetaSubject])
			assert.Equal(t, "hello <&> "+tt.name, text(t, reply))
		})
	}
}

// TestHandlerSeesTransportView checks what Subscribe puts into the Message:
// the action, id and To from the headers, the Meta keys.
func TestHandlerSeesTransportView(t *testing.T) {
	s := startServer(t)
	seen := make(chan *core.Message, 1)
	subscribe(t, connect(t, s), "svc.view", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		seen <- m
		return nil, m.Body().Discard()
	}), soapnats.WithQueue("workers"))
	tr := soapnats.NewTransport(connect(t, s), "svc.view")
	for _, v := range []core.Version{core.V11, core.V12} {
		m := core.NewMessage(v, core.RawBody(body("ping", "x")))
		m.Action = "urn:test:ping"
		reply, err := tr.RoundTrip(testCtx(t), m)
		require.NoError(t, err)
		assert.Nil(t, reply, "a one-way accept is (nil, nil)")
		got := <-seen
		assert.Equal(t, "urn:test:ping", got.Action)
		assert.Equal(t, "nats:svc.view", got.To, "To comes from SOAP-Target-Service")
		assert.Equal(t, "svc.view", got.Meta[soapnats.MetaSubject])
		assert.Equal(t, "workers", got.Meta[soapnats.MetaQueue])
		assert.NotEmpty(t, got.Meta[soapnats.MetaReply])
	}
}

func TestFaultReply(t *testing.T) {
	s := startServer(t)
	sub := xml.Name{Space: testNS, Local: "NoSuchAccount"}
	subscribe(t, connect(t, s), "svc.fault", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return nil, &core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{sub}, Reason: "no such account",
			Detail: []byte(`<t:account xmlns:t="` + testNS + `">42</t:account>`)}
	}))
	tr := soapnats.NewTransport(connect(t, s), "svc.fault")
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			m := core.NewMessage(v, core.RawBody(body("debit", "1")))
			m.ID = core.NewMessageID()
			reply, err := tr.RoundTrip(testCtx(t), m)
			assert.Nil(t, reply)
			var f *core.Fault
			require.ErrorAs(t, err, &f)
			assert.True(t, f.Remote)
			assert.Equal(t, core.CodeSender, f.Code)
			assert.Equal(t, "no such account", f.Reason)
			assert.Equal(t, v, f.Version)
			// 1.1 carries the subcode as its faultcode, a qualified name
			assert.True(t, f.HasSubcode(sub), "subcode %v in %v", sub, f.Subcodes)
			assert.Contains(t, string(f.Detail), ">42<")
		})
	}
}

func TestNoRespondersIsNotATimeout(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	subscribe(t, nc, "svc.slow", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		select {
		case <-ctx.Done():
		case <-release:
		}
		return nil, nil
	}))
	tr := soapnats.NewTransport(connect(t, s), "")
	call := func(subject string, d time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		m := core.NewMessage(core.V12, core.RawBody(body("ping", "")))
		m.To = "nats:" + subject
		_, err := tr.RoundTrip(ctx, m)
		return err
	}

	start := time.Now()
	err := call("svc.nobody", 5*time.Second)
	var nr *soapnats.NoRespondersError
	require.ErrorAs(t, err, &nr)
	assert.Equal(t, "svc.nobody", nr.Subject)
	assert.ErrorIs(t, err, soapnats.ErrNoResponders)
	assert.ErrorIs(t, err, nats.ErrNoResponders)
	assert.NotErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 4*time.Second, "no responders is known at once, not after the deadline")

	err = call("svc.slow", 100*time.Millisecond)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.NotErrorIs(t, err, soapnats.ErrNoResponders)
}

// TestDefaultTimeout: a ctx without a deadline still ends, after
// WithTimeout.
func TestDefaultTimeout(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	subscribe(t, nc, "svc.never", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	tr := soapnats.NewTransport(nc, "svc.never", soapnats.WithTimeout(50*time.Millisecond))
	_, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V11, core.RawBody(body("ping", ""))))
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestDefaultTimeoutPerRequest: requests without a deadline share one
// timer (in the order made), yet each gets its own WithTimeout: one made
// later than a stuck one does not expire with it, and requests answered
// meanwhile, behind the stuck one, are not held up.
func TestDefaultTimeoutPerRequest(t *testing.T) {
	const timeout = 400 * time.Millisecond
	s := startServer(t)
	subscribe(t, connect(t, s), "svc.some", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		text, err := bodyText(m)
		if err != nil {
			return nil, err
		}
		if text == "stuck" {
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return m.Reply(core.RawBody(body("echo", text))), nil
	}), soapnats.WithConcurrency(64))
	tr := soapnats.NewTransport(connect(t, s), "svc.some", soapnats.WithTimeout(timeout))
	stuck := func(took chan<- time.Duration) {
		start := time.Now()
		_, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V11, core.RawBody(body("ping", "stuck"))))
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("a stuck request: %v, want a timeout", err)
		}
		took <- time.Since(start)
	}
	first, second := make(chan time.Duration, 1), make(chan time.Duration, 1)
	go stuck(first)
	time.Sleep(timeout / 2)
	go stuck(second)
	for i := range 500 { // behind both, answered
		want := "fast" + strconv.Itoa(i)
		reply, err := tr.RoundTrip(context.Background(), core.NewMessage(core.V11, core.RawBody(body("echo", want))))
		require.NoError(t, err)
		got, err := bodyText(reply)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
	for i, ch := range []chan time.Duration{first, second} {
		select {
		case took := <-ch:
			// A timer never fires early: had the second expired with the
			// first, it would have waited about half the timeout.
			assert.GreaterOrEqual(t, took, timeout, "stuck request %d", i)
		case <-time.After(20 * timeout):
			t.Fatalf("stuck request %d never timed out", i)
		}
	}
}

// TestUnreadBodyJudged: the rest of a request body the handler did not
// read is read before the reply is sent (core.Message.Verdict): a
// malformed rest turns the reply into the Sender fault naming it. A
// one-way message (no reply subject) is judged too: its fault is logged
// and dropped, as its reply would have been.
func TestUnreadBodyJudged(t *testing.T) {
	s := startServer(t)
	log, lines := newLogs()
	subscribe(t, connect(t, s), "svc.unread", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return m.Reply(core.RawBody(body("ok", m.Body().Name().Local))), nil
	}), soapnats.WithLogger(log))
	tr := soapnats.NewTransport(connect(t, s), "svc.unread")
	// the body's first child is whole; a later one is not
	broken := []byte(`<m:first xmlns:m="urn:m"/><m:second xmlns:m="urn:m"><a></b></m:second>`)
	_, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(broken)))
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Contains(t, f.Reason, "closed by")

	require.NoError(t, tr.Send(testCtx(t), core.NewMessage(core.V11, core.RawBody(broken))))
	require.Eventually(t, func() bool {
		return strings.Contains(lines.String(), "fault dropped")
	}, 5*time.Second, 10*time.Millisecond, lines.String())
	assert.Contains(t, lines.String(), "closed by")
}

// TestOneWayPublish: Send publishes without a reply subject; the handler
// runs, and a reply it returns is dropped with a log line.
func TestOneWayPublish(t *testing.T) {
	s := startServer(t)
	log, lines := newLogs()
	got := make(chan string, 1)
	subscribe(t, connect(t, s), "svc.events", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		s, _ := bodyText(m)
		got <- s
		return m.Reply(core.RawBody(body("ignored", ""))), nil
	}), soapnats.WithLogger(log))
	tr := soapnats.NewTransport(connect(t, s), "svc.events")
	m := core.NewMessage(core.V12, core.RawBody(body("event", "happened")))
	require.NoError(t, tr.Send(testCtx(t), m))
	assert.Equal(t, "svc.events", m.Meta[soapnats.MetaSubject])
	select {
	case s := <-got:
		assert.Equal(t, "happened", s)
	case <-time.After(5 * time.Second):
		t.Fatal("the published message was not handled")
	}
	require.Eventually(t, func() bool { return strings.Contains(lines.String(), "reply dropped") }, 5*time.Second, 10*time.Millisecond)
}

func TestSendCancelled(t *testing.T) {
	s := startServer(t)
	tr := soapnats.NewTransport(connect(t, s), "svc.x")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := tr.Send(ctx, core.NewMessage(core.V11, core.RawBody(body("x", ""))))
	assert.ErrorIs(t, err, context.Canceled)
	_, err = tr.RoundTrip(ctx, core.NewMessage(core.V11, core.RawBody(body("x", ""))))
	assert.ErrorIs(t, err, context.Canceled)
}

func TestDestinations(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	subscribe(t, nc, "svc.a", echo)
	subscribe(t, nc, "svc.b", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return m.Reply(core.RawBody(body("b", "from b"))), nil
	}))
	tr := soapnats.NewTransport(nc, "nats:svc.a")
	bare := soapnats.NewTransport(nc, "")
	msg := func(to string) *core.Message {
		m := core.NewMessage(core.V11, core.RawBody(body("echo", "from a")))
		m.To = to
		return m
	}
	tests := []struct {
		name string
		tr   *soapnats.Transport
		to   string
		want string
		err  error
	}{
		{"default", tr, "", "from a", nil},
		{"To wins", tr, "nats:svc.b", "from b", nil},
		{"To of another scheme is logical", tr, "https://example.org/svc", "from a", nil},
		{"no destination", bare, "", "", soapnats.ErrNoDestination},
		{"wildcard", tr, "nats:svc.*", "", soapnats.ErrAddress},
		{"host in address", tr, "nats://localhost/svc.a", "", soapnats.ErrAddress},
		{"stream for a request", tr, "nats:svc.a?stream=S", "", soapnats.ErrAddress},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reply, err := tt.tr.RoundTrip(testCtx(t), msg(tt.to))
			if tt.err != nil {
				assert.ErrorIs(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, text(t, reply))
		})
	}
	assert.Panics(t, func() { soapnats.NewTransport(nc, "nats:a.*") }, "a wildcard default destination is a setup error")
}

// TestTooLarge: a request over the server's max payload is refused before
// it is sent; a reply over it becomes a Receiver fault.
func TestTooLarge(t *testing.T) {
	s := startServer(t, soapnats.WithMaxPayload(64<<10))
	nc := connect(t, s)
	calls := make(chan struct{}, 10)
	subscribe(t, nc, "svc.big", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		calls <- struct{}{}
		return m.Reply(core.RawBody(body("big", strings.Repeat("x", 100<<10)))), nil
	}))
	tr := soapnats.NewTransport(connect(t, s), "svc.big")

	_, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("big", strings.Repeat("x", 70<<10)))))
	assert.ErrorIs(t, err, soapnats.ErrTooLarge)
	assert.ErrorIs(t, err, core.ErrTooLarge)
	assert.ErrorContains(t, err, "65536")
	err = tr.Send(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("big", strings.Repeat("x", 70<<10)))))
	assert.ErrorIs(t, err, soapnats.ErrTooLarge)
	assert.Empty(t, calls, "nothing was sent")

	_, err = tr.RoundTrip(testCtx(t), core.NewMessage(core.V12, core.RawBody(body("small", ""))))
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeReceiver, f.Code)
	assert.Contains(t, f.Reason, "max payload")
}

// TestTooLargeAfterReconnect: the max payload a message is checked against
// follows the server the connection is on. A Transport on a server taking
// 64 KiB, reconnected to one taking 1 MiB, sends 100 KiB at once (the limit
// it knew is read again before a message over it is refused); on the way
// back, the message nats.go refuses is ErrTooLarge, and so is the next,
// refused before it is sent.
func TestTooLargeAfterReconnect(t *testing.T) {
	start := func(max int32) *soapnats.Server {
		s, err := soapnats.StartServer(t.TempDir(), soapnats.WithMaxPayload(max))
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return s
	}
	big := func() *core.Message {
		return core.NewMessage(core.V11, core.RawBody(body("big", strings.Repeat("x", 100<<10))))
	}
	for _, tc := range []struct {
		name        string
		first, then int32
	}{{"raised", 64 << 10, 1 << 20}, {"lowered", 1 << 20, 64 << 10}} {
		t.Run(tc.name, func(t *testing.T) {
			first, then := start(tc.first), start(tc.then)
			subscribe(t, connect(t, first, nats.NoReconnect()), "svc.echo", echo)
			subscribe(t, connect(t, then), "svc.echo", echo)
			reconnected := make(chan struct{}, 1)
			nc, err := nats.Connect(first.URL()+","+then.URL(), nats.DontRandomize(), nats.MaxReconnects(-1),
				nats.ReconnectWait(10*time.Millisecond), nats.ReconnectHandler(func(*nats.Conn) { reconnected <- struct{}{} }))
			require.NoError(t, err)
			t.Cleanup(nc.Close)
			tr := soapnats.NewTransport(nc, "svc.echo")

			_, err = tr.RoundTrip(testCtx(t), big())
			if tc.first < 100<<10 {
				require.ErrorIs(t, err, soapnats.ErrTooLarge)
			} else {
				require.NoError(t, err)
			}

			require.NoError(t, first.Close())
			select {
			case <-reconnected:
			case <-testCtx(t).Done():
				t.Fatal("no reconnect to the second server")
			}
			require.Equal(t, then.URL(), nc.ConnectedUrl())

			if tc.then > 100<<10 {
				reply, err := tr.RoundTrip(testCtx(t), big())
				require.NoError(t, err, "sent at once on the server that takes it")
				assert.Len(t, text(t, reply), 100<<10)
				return
			}
			for i := range 2 {
				_, err = tr.RoundTrip(testCtx(t), big())
				assert.ErrorIs(t, err, soapnats.ErrTooLarge, "message %d on the server that does not take it", i)
				assert.ErrorIs(t, err, core.ErrTooLarge)
			}
		})
	}
}

// TestTooLargeStreamStops: a streamed body larger than the max payload is
// refused while it is written, not after it was buffered whole: the stream
// sees a write error soon after the limit.
func TestTooLargeStreamStops(t *testing.T) {
	const maxPayload = 64 << 10
	s := startServer(t, soapnats.WithMaxPayload(maxPayload))
	tr := soapnats.NewTransport(connect(t, s), "svc.stream")
	for _, tc := range []struct {
		name string
		send func(m *core.Message) error
	}{
		{"RoundTrip", func(m *core.Message) error { _, err := tr.RoundTrip(testCtx(t), m); return err }},
		{"Send", func(m *core.Message) error { return tr.Send(testCtx(t), m) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var written int
			var streamErr error
			chunk := []byte(strings.Repeat("x", 1024))
			m := core.NewMessage(core.V11, core.StreamBody(xml.Name{Space: testNS, Local: "big"}, func(w io.Writer) error {
				for written < 64<<20 {
					n, err := w.Write(chunk)
					written += n
					if err != nil {
						streamErr = err
						return err
					}
				}
				return nil
			}))
			err := tc.send(m)
			assert.ErrorIs(t, err, soapnats.ErrTooLarge)
			assert.Error(t, streamErr, "the stream saw the refusal")
			assert.Less(t, written, 2*maxPayload, "bytes the stream wrote before it was stopped")
		})
	}
}

func TestBadHeaderValueRefused(t *testing.T) {
	s := startServer(t)
	tr := soapnats.NewTransport(connect(t, s), "svc.x")
	m := core.NewMessage(core.V11, core.RawBody(body("x", "")))
	m.Action = "urn:a\r\nInjected: yes"
	err := tr.Send(testCtx(t), m)
	assert.ErrorIs(t, err, soapnats.ErrBadHeader)
}

// TestSubscriptionLifecycle: Drain answers what is in flight; Close and the
// end of Subscribe's ctx stop serving.
func TestSubscriptionLifecycle(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	tr := soapnats.NewTransport(connect(t, s), "")
	call := func(subject string, d time.Duration) error {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		m := core.NewMessage(core.V11, core.RawBody(body("echo", "x")))
		m.To = "nats:" + subject
		_, err := tr.RoundTrip(ctx, m)
		return err
	}

	t.Run("Drain", func(t *testing.T) {
		started, release := make(chan struct{}), make(chan struct{})
		sub, err := soapnats.Subscribe(context.Background(), nc, "life.drain", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
			close(started)
			<-release
			return echo(ctx, m)
		}))
		require.NoError(t, err)
		t.Cleanup(func() { sub.Close() })
		done := make(chan error, 1)
		go func() { done <- call("life.drain", 5*time.Second) }()
		<-started
		drained := make(chan error, 1)
		go func() { drained <- sub.Drain(testCtx(t)) }()
		time.Sleep(20 * time.Millisecond)
		close(release)
		require.NoError(t, <-done, "the request in flight is answered")
		require.NoError(t, <-drained)
		assert.ErrorIs(t, call("life.drain", 5*time.Second), soapnats.ErrNoResponders)
	})
	t.Run("Close", func(t *testing.T) {
		sub, err := soapnats.Subscribe(context.Background(), nc, "life.close", echo)
		require.NoError(t, err)
		require.NoError(t, call("life.close", 5*time.Second))
		require.NoError(t, sub.Close())
		require.NoError(t, sub.Close(), "Close is idempotent")
		assert.ErrorIs(t, call("life.close", 5*time.Second), soapnats.ErrNoResponders)
	})
	t.Run("ContextEnds", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		sub, err := soapnats.Subscribe(ctx, nc, "life.ctx", echo)
		require.NoError(t, err)
		t.Cleanup(func() { sub.Close() })
		require.NoError(t, call("life.ctx", 5*time.Second))
		cancel()
		require.Eventually(t, func() bool { return errors.Is(call("life.ctx", time.Second), soapnats.ErrNoResponders) }, 8*time.Second, 10*time.Millisecond)
	})
	t.Run("BadSubject", func(t *testing.T) {
		_, err := soapnats.Subscribe(context.Background(), nc, "nats:a..b", echo)
		assert.ErrorIs(t, err, soapnats.ErrAddress)
		_, err = soapnats.Subscribe(context.Background(), nc, "nats:a?stream=S", echo)
		assert.ErrorIs(t, err, soapnats.ErrAddress)
	})
}

// TestHandlerPanic: a panic becomes a Receiver fault that does not leak,
// and is logged.
func TestHandlerPanic(t *testing.T) {
	s := startServer(t)
	log, lines := newLogs()
	subscribe(t, connect(t, s), "svc.panic", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		panic("secret state")
	}), soapnats.WithLogger(log))
	_, err := soapnats.NewTransport(connect(t, s), "svc.panic").RoundTrip(testCtx(t), core.NewMessage(core.V12, core.RawBody(body("x", ""))))
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeReceiver, f.Code)
	assert.NotContains(t, f.Error(), "secret")
	assert.Contains(t, lines.String(), "secret state")
}

// TestLateReplyDropped: a reply that comes after its request gave up (ctx
// ended, or WithTimeout) is dropped; it never answers a later request,
// while many requests are in flight. The slow requests' handlers answer
// only once every slow request has returned, so their replies are late
// however the machine schedules the test (a reply and a timeout both
// ready when the caller runs again would make either outcome correct).
func TestLateReplyDropped(t *testing.T) {
	s := startServer(t)
	release := [2]chan struct{}{make(chan struct{}), make(chan struct{})} // one for each case
	subscribe(t, connect(t, s), "svc.late", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		text, err := bodyText(m)
		if err != nil {
			return nil, err
		}
		if k, ok := strings.CutPrefix(text, "slow"); ok {
			<-release[k[0]-'0']
		}
		return m.Reply(core.RawBody(body("echo", text))), nil
	}), soapnats.WithConcurrency(64))
	for k, tc := range []struct {
		name string
		tr   *soapnats.Transport
		ctx  func() (context.Context, context.CancelFunc)
	}{
		{"ctx deadline", soapnats.NewTransport(connect(t, s), "svc.late"), func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), 20*time.Millisecond)
		}},
		{"WithTimeout", soapnats.NewTransport(connect(t, s), "svc.late", soapnats.WithTimeout(20*time.Millisecond)), func() (context.Context, context.CancelFunc) {
			return context.Background(), func() {}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const slow, fast = 20, 400
			var wg sync.WaitGroup
			errs := make(chan error, slow+fast)
			for i := range slow {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx, cancel := tc.ctx()
					defer cancel()
					_, err := tc.tr.RoundTrip(ctx, core.NewMessage(core.V11, core.RawBody(body("echo", "slow"+strconv.Itoa(k)+"-"+strconv.Itoa(i)))))
					if !errors.Is(err, context.DeadlineExceeded) {
						errs <- fmt.Errorf("slow request %d: %v, want a timeout", i, err)
					}
				}()
			}
			wg.Wait()
			close(release[k]) // the slow replies come now, late
			sem := make(chan struct{}, 16)
			for i := range fast { // while the slow replies arrive late
				sem <- struct{}{}
				wg.Add(1)
				go func() {
					defer func() { <-sem; wg.Done() }()
					want := "fast" + strconv.Itoa(i)
					reply, err := tc.tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("echo", want))))
					if err != nil {
						errs <- fmt.Errorf("fast request %d: %w", i, err)
						return
					}
					if got, err := bodyText(reply); err != nil || got != want {
						errs <- fmt.Errorf("fast request %d answered with %q (%v)", i, got, err)
					}
				}()
				if i%40 == 0 {
					time.Sleep(10 * time.Millisecond)
				}
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// TestRoundTripConnectionClosed: a request waiting for its reply when the
// connection closes fails at once with nats.ErrConnectionClosed, not a
// timeout; so does a request on the closed connection.
func TestRoundTripConnectionClosed(t *testing.T) {
	s := startServer(t)
	started := make(chan struct{}, 1)
	subscribe(t, connect(t, s), "svc.hang", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		started <- struct{}{}
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	nc := connect(t, s)
	tr := soapnats.NewTransport(nc, "svc.hang")
	done := make(chan error, 1)
	go func() {
		_, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("x", ""))))
		done <- err
	}()
	<-started
	start := time.Now()
	nc.Close()
	select {
	case err := <-done:
		require.ErrorIs(t, err, nats.ErrConnectionClosed)
		assert.NotErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 5*time.Second)
	case <-time.After(8 * time.Second):
		t.Fatal("the request did not end when its connection closed")
	}
	_, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("x", ""))))
	assert.ErrorIs(t, err, nats.ErrConnectionClosed)
}

// TestTransportReleasesInbox: a Transport subscribes to one reply inbox,
// whatever the number of requests, and the subscription ends once the
// Transport is garbage; one in use keeps it.
func TestTransportReleasesInbox(t *testing.T) {
	s := startServer(t)
	subscribe(t, connect(t, s), "svc.inbox", echo)
	nc := connect(t, s)
	before := nc.NumSubscriptions()
	call := func(tr *soapnats.Transport) {
		t.Helper()
		reply, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("echo", "x"))))
		require.NoError(t, err)
		assert.Equal(t, "x", text(t, reply))
	}

	kept := soapnats.NewTransport(nc, "svc.inbox")
	for range 3 {
		call(kept)
	}
	assert.Equal(t, before+1, nc.NumSubscriptions(), "one inbox for all of a Transport's requests")
	for range 10 {
		call(soapnats.NewTransport(nc, "svc.inbox")) // then dropped
	}
	require.Eventually(t, func() bool {
		runtime.GC()
		return nc.NumSubscriptions() == before+1
	}, 5*time.Second, 10*time.Millisecond, "the dropped Transports' inboxes are released")
	call(kept)
	runtime.KeepAlive(kept)
}

// TestBadReply: a reply that is not a SOAP envelope, or whose headers
// contradict it, is an error with ErrBadReply and the Sender fault saying
// what was wrong; a reply without a Content-Type is read by its envelope.
func TestBadReply(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	answers := map[string]*nats.Msg{
		"svc.notxml":   {Header: nats.Header{soapnats.HeaderContentType: {core.MediaTypeV11 + "; charset=utf-8"}}, Data: []byte("not xml")},
		"svc.mismatch": {Header: nats.Header{soapnats.HeaderContentType: {core.MediaTypeV12}}, Data: envelope(core.V11, "", string(body("pong", "")))},
		"svc.noctype":  {Data: envelope(core.V11, "", string(body("pong", "ok")))},
	}
	for subject, answer := range answers {
		sub, err := nc.Subscribe(subject, func(msg *nats.Msg) {
			answer := *answer
			if err := msg.RespondMsg(&answer); err != nil {
				t.Error(err)
			}
		})
		require.NoError(t, err)
		t.Cleanup(func() { _ = sub.Unsubscribe() })
	}
	require.NoError(t, nc.Flush())
	tr := soapnats.NewTransport(connect(t, s), "")
	call := func(subject string) (*core.Message, error) {
		m := core.NewMessage(core.V11, core.RawBody(body("ping", "")))
		m.To = "nats:" + subject
		return tr.RoundTrip(testCtx(t), m)
	}

	for subject, want := range map[string]struct {
		subcode string
		reason  string
	}{
		"svc.notxml":   {"", "malformed envelope"},
		"svc.mismatch": {soapnats.SubcodeContentTypeMismatch, "must be sent as text/xml"},
	} {
		_, err := call(subject)
		require.Error(t, err, subject)
		assert.ErrorIs(t, err, soapnats.ErrBadReply, subject)
		assert.Contains(t, err.Error(), "from "+subject, subject)
		var f *core.Fault
		require.ErrorAs(t, err, &f, subject)
		assert.Equal(t, core.CodeSender, f.Code, subject)
		assert.Contains(t, f.Reason, want.reason, subject)
		if want.subcode != "" {
			assert.Equal(t, []xml.Name{soapnats.Subcode(want.subcode)}, f.Subcodes, subject)
		}
	}

	reply, err := call("svc.noctype")
	require.NoError(t, err)
	assert.Equal(t, "ok", text(t, reply))
}

// TestReplyWriteFails: a reply whose body fails while it is written is not
// sent half-made: the caller gets a Receiver fault, the failure is logged
// (Warn, with the writer's error); a message that fails so is not
// published by Send either.
func TestReplyWriteFails(t *testing.T) {
	s := startServer(t)
	log, lines := newLogs()
	failing := core.StreamBody(xml.Name{Space: testNS, Local: "pong"}, func(w io.Writer) error {
		if _, err := io.WriteString(w, `<t:pong xmlns:t="`+testNS+`">`); err != nil {
			return err
		}
		return errors.New("the disk is gone")
	})
	subscribe(t, connect(t, s), "svc.broken", core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		return m.Reply(failing), nil
	}), soapnats.WithLogger(log))
	tr := soapnats.NewTransport(connect(t, s), "svc.broken")
	_, err := tr.RoundTrip(testCtx(t), core.NewMessage(core.V11, core.RawBody(body("ping", ""))))
	var f *core.Fault
	require.ErrorAs(t, err, &f)
	assert.Equal(t, core.CodeReceiver, f.Code)
	assert.NotContains(t, f.Error(), "disk")
	assert.Contains(t, lines.String(), "sending the reply failed")
	assert.Contains(t, lines.String(), "nats: writing the envelope: the disk is gone")

	nc := connect(t, s)
	sub, err := nc.SubscribeSync("svc.sink")
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	err = soapnats.NewTransport(connect(t, s), "svc.sink").Send(testCtx(t), core.NewMessage(core.V11, failing))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "nats: writing the envelope: the disk is gone")
	_, err = sub.NextMsg(200 * time.Millisecond)
	assert.ErrorIs(t, err, nats.ErrTimeout, "nothing was published")
}
