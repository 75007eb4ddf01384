package imap_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
)

// sendN appends n messages to addr and returns their ids.
func sendN(t *testing.T, a *soapimap.Appender, addr string, n int) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	for i := range n {
		m := ping(core.V12, addr, "m"+string(rune('a'+i%26)))
		require.NoError(t, a.Send(t.Context(), m))
		ids[m.ID] = true
	}
	return ids
}

// receiveAll receives and acks until every id in want arrived, and returns
// how often each was received.
func receiveAll(t *testing.T, r *soapimap.Receiver, want map[string]bool) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	got := map[string]int{}
	for len(got) < len(want) {
		d, err := r.Receive(ctx)
		require.NoError(t, err, "received %d of %d", len(got), len(want))
		got[d.Message().ID]++
		require.NoError(t, d.Ack(ctx))
	}
	return got
}

// TestDropMidFetch: a server connection cut in the middle of a mail's
// FETCH loses nothing and duplicates nothing: the Receiver reconnects,
// returns the claim to the inbox and takes it again.
func TestDropMidFetch(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	p := startProxy(t, srv.Addr())
	paddr := strings.Replace(addr, srv.Addr(), p.addr(), 1)
	a := newAppender(t, addr)
	ids := sendN(t, a, addr, 3)
	p.cutMidway("BODY[] {")
	r := newReceiver(t, paddr)
	got := receiveAll(t, r, ids)
	for id, n := range got {
		assert.Equal(t, 1, n, "%s received %d times", id, n)
		assert.True(t, ids[id])
	}
	assert.Equal(t, int32(1), p.cuts.Load(), "the proxy cut one FETCH")
	assert.Greater(t, p.conns.Load(), int32(2), "the Receiver connected again")
	c := rawClient(t, addr)
	assert.Empty(t, folderMails(t, c, "INBOX"))
	assert.Empty(t, folderMails(t, c, soapimap.DefaultProcessingFolder))
}

// TestIdleReissued: IDLE is ended and issued again every WithIdleInterval,
// so a server (here a proxy) that cuts connections silent for longer never
// cuts the Receiver's, and mail is still pushed.
func TestIdleReissued(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	p := startProxy(t, srv.Addr())
	p.idleLimit.Store(int64(400 * time.Millisecond))
	paddr := strings.Replace(addr, srv.Addr(), p.addr(), 1)
	r := newReceiver(t, paddr, soapimap.WithIdleInterval(50*time.Millisecond), soapimap.WithRecoverInterval(time.Hour))
	a := newAppender(t, addr)
	conns := p.conns.Load() // the inbox's and the processing folder's (each after a refused STARTTLS)

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	got := make(chan string, 1)
	go func() {
		d, err := r.Receive(ctx)
		if err != nil {
			got <- err.Error()
			return
		}
		d.Ack(ctx)
		got <- d.Message().ID
	}()
	for p.idles.Load() < 10 {
		select {
		case <-ctx.Done():
			t.Fatalf("IDLE issued %d times", p.idles.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}
	m := ping(core.V12, addr, "after idling")
	require.NoError(t, a.Send(ctx, m))
	assert.Equal(t, m.ID, <-got)
	assert.Zero(t, p.cuts.Load(), "no connection was silent long enough to be cut")
	assert.Equal(t, conns, p.conns.Load(), "never reconnected")
}

// TestIdleCutReconnects: a server that cuts idling connections (a NAT or
// a server timeout shorter than WithIdleInterval) costs a reconnection,
// not a mail.
func TestIdleCutReconnects(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	p := startProxy(t, srv.Addr())
	p.idleLimit.Store(int64(100 * time.Millisecond))
	paddr := strings.Replace(addr, srv.Addr(), p.addr(), 1)
	r := newReceiver(t, paddr, soapimap.WithIdleInterval(time.Hour), soapimap.WithRecoverInterval(time.Hour))
	a := newAppender(t, addr)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	ids := map[string]bool{}
	go func() {
		defer wg.Done()
		for p.cuts.Load() < 2 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		ids = sendN(t, a, addr, 2)
	}()
	wg.Wait()
	got := receiveAll(t, r, ids)
	assert.Len(t, got, 2)
	assert.GreaterOrEqual(t, p.cuts.Load(), int32(2))
}

// TestPollWithoutIdle: on a server without IDLE the Receiver polls.
func TestPollWithoutIdle(t *testing.T) {
	srv := startServer(t, soapimap.WithoutIdle())
	addr := srv.newUser(t)
	p := startProxy(t, srv.Addr())
	paddr := strings.Replace(addr, srv.Addr(), p.addr(), 1)
	r := newReceiver(t, paddr, soapimap.WithPollInterval(20*time.Millisecond))
	a := newAppender(t, addr)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan map[string]int, 1)
	ids := sendN(t, a, addr, 1)
	go func() { done <- receiveAll(t, r, ids) }()
	select {
	case got := <-done:
		assert.Len(t, got, 1)
	case <-ctx.Done():
		t.Fatal("no mail received by polling")
	}
	assert.Zero(t, p.idles.Load(), "no IDLE sent to a server without it")
}
