package ftp_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// second returns another Client and Poller on root, as a second process
// would have.
func (e *env) second(t *testing.T, root string, opts ...soapftp.PollerOption) (*soapftp.Client, *soapftp.Poller) {
	t.Helper()
	c := soapftp.NewClient(e.srv.Addr(), testUser, testPass)
	t.Cleanup(func() { c.Close() })
	p, err := soapftp.NewPoller(c, root, append([]soapftp.PollerOption{soapftp.WithPollInterval(5 * time.Millisecond), soapftp.WithMaxPollInterval(20 * time.Millisecond), soapftp.WithLogger(e.log.logger())}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	return c, p
}

// TestPollerCancelledAfterClaim: a Poller whose Serve is cancelled while
// its handler holds a claimed file (a shutdown, or a kill that lets
// defers run) loses nothing: the Nack with context.Canceled returns the file
// to the inbox and the next Poller finishes it at once.
func TestPollerCancelledAfterClaim(t *testing.T) {
	e := newEnv(t)
	a := e.poller(t, "/jobs")
	m := ping(core.V11, "long job")
	m.To = a.Address()
	require.NoError(t, soapftp.NewSender(e.client).Send(ctx(t), m))

	claimed := make(chan struct{})
	stopA := serve(t, a, core.HandlerFunc(func(ctx context.Context, _ *core.Message) (*core.Message, error) {
		close(claimed)
		<-ctx.Done()
		return nil, ctx.Err()
	}), nil)
	<-claimed
	require.Len(t, e.files(t, "jobs/work"), 1, "the file is claimed")
	stopA()
	assert.Equal(t, []string{soapftp.FileName(m.ID)}, e.files(t, "jobs/inbox"), "the file is back in the inbox")

	_, b := e.second(t, "/jobs")
	got := make(chan string, 1)
	serve(t, b, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		got <- m.ID
		return nil, nil
	}), nil)
	select {
	case id := <-got:
		assert.Equal(t, m.ID, id)
	case <-time.After(10 * time.Second):
		t.Fatal("the second poller did not finish the file")
	}
	require.Eventually(t, func() bool { return len(e.files(t, "jobs/work")) == 0 }, 10*time.Second, 5*time.Millisecond)
	assert.Empty(t, e.files(t, "jobs/inbox"))
	assert.Empty(t, e.files(t, "jobs/failed"))
}

// TestPollerCrashLeaseExpires: a Poller that dies holding a claim (its
// connections gone, nothing released, no renewals) loses nothing: after the
// lease the next Poller returns the claim to the inbox and finishes it.
func TestPollerCrashLeaseExpires(t *testing.T) {
	e := newEnv(t)
	lease := soapftp.WithLease(300 * time.Millisecond)
	crashC, crashed := e.second(t, "/crash", lease)
	m := ping(core.V12, "survives")
	m.To = crashed.Address()
	require.NoError(t, crashed.MakeLayout(ctx(t)))
	require.NoError(t, soapftp.NewSender(e.client).Send(ctx(t), m))
	d, err := crashed.Receive(ctx(t))
	require.NoError(t, err)
	require.Equal(t, m.ID, d.Message().ID)
	require.NoError(t, crashC.Close()) // the crash: no more connections
	require.Len(t, e.files(t, "crash/work"), 1)

	next := e.poller(t, "/crash", lease)
	d2, err := next.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, m.ID, d2.Message().ID)
	assert.Equal(t, "survives", text(t, d2.Message()))
	require.NoError(t, d2.Ack(ctx(t)))
	assert.Empty(t, e.files(t, "crash/work"))
	assert.Empty(t, e.files(t, "crash/inbox"))
	e.log.contains(t, "stale claim returned to the inbox")
}

// TestLeaseRenewed: a handler that runs for several leases keeps its claim
// (the Poller renews it), so another Poller never takes the file meanwhile,
// and the Ack succeeds.
func TestLeaseRenewed(t *testing.T) {
	e := newEnv(t)
	lease := soapftp.WithLease(800 * time.Millisecond)
	a := e.poller(t, "/renew", lease)
	m := ping(core.V11, "slow handler")
	m.To = a.Address()
	require.NoError(t, soapftp.NewSender(e.client).Send(ctx(t), m))
	d, err := a.Receive(ctx(t))
	require.NoError(t, err)

	_, b := e.second(t, "/renew", lease)
	stolen := make(chan core.Delivery, 1)
	bctx, cancel := context.WithCancel(context.Background())
	go func() {
		if d, err := b.Receive(bctx); err == nil {
			stolen <- d
		}
	}()
	names := map[string]bool{}
	require.Eventually(t, func() bool {
		for _, n := range e.files(t, "renew/work") {
			names[n] = true
		}
		return len(names) >= 4
	}, 20*time.Second, 10*time.Millisecond, "the claim was not renewed: %v", names)
	cancel()
	select {
	case s := <-stolen:
		t.Fatalf("another poller took %s while it was claimed", s.Message().ID)
	default:
	}
	require.NoError(t, d.Ack(ctx(t)))
	assert.Empty(t, e.files(t, "renew/work"))
}

// TestLeaseLost: when a Poller cannot renew its claim (here its only
// connection is busy) and the lease runs out, another Poller takes the
// file; the first one's Ack then fails with ErrLeaseLost.
func TestLeaseLost(t *testing.T) {
	e := newEnv(t)
	lease := soapftp.WithLease(200 * time.Millisecond)
	busyC := soapftp.NewClient(e.srv.Addr(), testUser, testPass, soapftp.WithPoolSize(1))
	t.Cleanup(func() { busyC.Close() })
	a, err := soapftp.NewPoller(busyC, "/lost", lease, soapftp.WithLogger(e.log.logger()))
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	require.NoError(t, a.MakeLayout(ctx(t)))
	m := ping(core.V11, "lost")
	m.To = a.Address()
	require.NoError(t, soapftp.NewSender(e.client).Send(ctx(t), m))
	d, err := a.Receive(ctx(t))
	require.NoError(t, err)

	// Hold busyC's only connection with an upload that does not finish.
	release := make(chan struct{})
	hog := core.NewMessage(core.V11, core.StreamBody(xmlName("Hog"), func(w io.Writer) error {
		io.WriteString(w, `<t:Hog xmlns:t="`+testNS+`">`)
		<-release
		_, err := io.WriteString(w, `</t:Hog>`)
		return err
	}))
	hog.To = busyC.URL("/lost/outbox")
	sent := make(chan error, 1)
	go func() { sent <- soapftp.NewSender(busyC).Send(context.Background(), hog) }()

	b := e.poller(t, "/lost", lease)
	d2, err := b.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, m.ID, d2.Message().ID)
	close(release)
	require.NoError(t, <-sent)
	err = d.Ack(ctx(t))
	require.ErrorIs(t, err, soapftp.ErrLeaseLost)
	require.NoError(t, d2.Ack(ctx(t)))
	log := e.log.String()
	assert.True(t, strings.Contains(log, "lease not renewed") || strings.Contains(log, "claim lost before it was settled"), log)
}

// TestCloseReturnsOpenDeliveries: Close puts the files of unsettled
// deliveries back in the inbox; a later Ack says the Poller was closed.
func TestCloseReturnsOpenDeliveries(t *testing.T) {
	e := newEnv(t)
	a := e.poller(t, "/close")
	m := ping(core.V11, "unsettled")
	m.To = a.Address()
	require.NoError(t, soapftp.NewSender(e.client).Send(ctx(t), m))
	d, err := a.Receive(ctx(t))
	require.NoError(t, err)
	require.NoError(t, a.Close())
	assert.Equal(t, []string{soapftp.FileName(m.ID)}, e.files(t, "close/inbox"))
	assert.Empty(t, e.files(t, "close/work"))
	require.ErrorIs(t, d.Ack(ctx(t)), core.ErrClosed)
	require.NoError(t, d.Nack(ctx(t), nil), "a Nack after Close is a no-op")
	_, err = a.Receive(ctx(t))
	require.ErrorIs(t, err, core.ErrClosed)
	assert.True(t, strings.HasSuffix(soapftp.FileName(m.ID), ".xml"))
}
