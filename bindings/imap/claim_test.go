package imap_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
)

// splitMail runs n Receivers on one inbox under core.Serve until every one
// of the sent mails was handled, and returns how often each id was
// handled.
func splitMail(t *testing.T, ids map[string]bool, receivers []*soapimap.Receiver) map[string]int {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]int{}
	per := make([]int, len(receivers))
	all := make(chan struct{})
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for i, r := range receivers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			core.Serve(ctx, r, core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
				time.Sleep(time.Millisecond) // let the others claim meanwhile
				mu.Lock()
				defer mu.Unlock()
				seen[m.ID]++
				per[i]++
				if len(seen) == len(ids) {
					select {
					case <-all:
					default:
						close(all)
					}
				}
				return nil, nil
			}), nil, core.WithConcurrency(4))
		}()
	}
	select {
	case <-all:
	case <-time.After(60 * time.Second):
		t.Errorf("handled %d of %d mails", len(seen), len(ids))
	}
	time.Sleep(100 * time.Millisecond) // a late duplicate would show here
	cancel()
	wg.Wait()
	t.Logf("mails per receiver: %v", per)
	return seen
}

func checkOnce(t *testing.T, ids map[string]bool, seen map[string]int) {
	t.Helper()
	for id, n := range seen {
		assert.True(t, ids[id], "a mail that was not sent: %s", id)
		assert.Equal(t, 1, n, "mail %s handled %d times", id, n)
	}
	assert.Len(t, seen, len(ids))
}

// TestReceiversSplitMail: three Receivers on one inbox split 90 mails,
// each handled once (the claim is a UID MOVE).
func TestReceiversSplitMail(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	ids := sendN(t, newAppender(t, addr), addr, 90)
	rs := []*soapimap.Receiver{newReceiver(t, addr), newReceiver(t, addr), newReceiver(t, addr)}
	checkOnce(t, ids, splitMail(t, ids, rs))
	c := rawClient(t, addr)
	assert.Empty(t, folderMails(t, c, "INBOX"))
	assert.Empty(t, folderMails(t, c, soapimap.DefaultProcessingFolder))
}

// TestDovecotReceiversSplitMail: the same against Dovecot, over imaps://.
func TestDovecotReceiversSplitMail(t *testing.T) {
	dc := startDovecot(t)
	addr := dc.url(dc.user(t), true)
	a := dcAppender(t, dc, addr)
	ids := map[string]bool{}
	for i := range 60 {
		m := ping(core.V11, addr, "x")
		m.SetMeta(soapimap.MetaSubject, "mail "+string(rune('A'+i%26)))
		require.NoError(t, a.Send(t.Context(), m))
		ids[m.ID] = true
	}
	rs := []*soapimap.Receiver{dcReceiver(t, dc, addr), dcReceiver(t, dc, addr), dcReceiver(t, dc, addr)}
	checkOnce(t, ids, splitMail(t, ids, rs))
}

// TestWithoutMove: on a server without MOVE the Receiver claims by COPY,
// STORE \Deleted and UID EXPUNGE; one Receiver gets every mail once and
// leaves nothing behind.
func TestWithoutMove(t *testing.T) {
	srv := startServer(t, soapimap.WithoutMove())
	addr := srv.newUser(t)
	ids := sendN(t, newAppender(t, addr), addr, 10)
	got := receiveAll(t, newReceiver(t, addr, soapimap.WithArchive()), ids)
	for id, n := range got {
		assert.Equal(t, 1, n, id)
	}
	c := rawClient(t, addr)
	assert.Empty(t, folderMails(t, c, "INBOX"), "expunged from the inbox")
	assert.Empty(t, folderMails(t, c, soapimap.DefaultProcessingFolder), "expunged from processing")
	assert.Len(t, folderMails(t, c, soapimap.DefaultDoneFolder), 10, "archived")
}

// TestStaleClaimsRecovered: what a Receiver that died leaves in the
// processing folder goes back to the inbox after its lease: a claim with
// an old lease keyword, one with none (died between MOVE and keyword); one
// an Ack flagged \Deleted is expunged; a live claim is left alone.
func TestStaleClaimsRecovered(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	a := newAppender(t, addr)
	lease := 200 * time.Millisecond // the same for every Receiver of the inbox
	live := newReceiver(t, addr, soapimap.WithLease(lease))
	stale := ping(core.V12, addr, "stale")
	bare := ping(core.V12, addr, "bare")
	acked := ping(core.V12, addr, "acked")
	mine := ping(core.V12, addr, "mine")
	require.NoError(t, a.Send(t.Context(), mine))
	d, err := live.Receive(t.Context())
	require.NoError(t, err)
	require.Equal(t, mine.ID, d.Message().ID)
	for _, m := range []*core.Message{stale, bare, acked} {
		require.NoError(t, a.Send(t.Context(), m))
	}
	// A dead Receiver's claims, put in place by hand.
	c := rawClient(t, addr)
	var inbox []imap.UID
	for _, m := range folderMails(t, c, "INBOX") {
		inbox = append(inbox, m.uid)
	}
	require.Len(t, inbox, 3)
	_, err = c.Select("INBOX", nil).Wait()
	require.NoError(t, err)
	_, err = c.Move(imap.UIDSetNum(inbox...), soapimap.DefaultProcessingFolder).Wait()
	require.NoError(t, err)
	byText := map[string]imap.UID{}
	for _, m := range folderMails(t, c, soapimap.DefaultProcessingFolder) {
		for _, w := range []string{"stale", "bare", "acked"} {
			if strings.Contains(m.text, ">"+w+"<") {
				byText[w] = m.uid
			}
		}
	}
	require.Len(t, byText, 3)
	_, err = c.Select(soapimap.DefaultProcessingFolder, nil).Wait()
	require.NoError(t, err)
	// A keyword 3 half leases old: stale.
	old := (time.Now().UnixNano()/int64(lease/2) - 3) % 8
	store := func(uid imap.UID, f imap.Flag) {
		require.NoError(t, c.Store(imap.UIDSetNum(uid), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{f}}, nil).Close())
	}
	store(byText["stale"], imap.Flag("soapwire-lease-"+string(rune('0'+old))))
	store(byText["acked"], imap.FlagDeleted)

	r := newReceiver(t, addr, soapimap.WithLease(lease), soapimap.WithRecoverInterval(20*time.Millisecond))
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	got := map[string]int{}
	for len(got) < 2 {
		d, err := r.Receive(ctx)
		require.NoError(t, err, "received %v", got)
		got[bodyText(t, d.Message())]++
		require.NoError(t, d.Ack(ctx))
	}
	assert.Equal(t, map[string]int{"stale": 1, "bare": 1}, got)
	rest := folderMails(t, rawClient(t, addr), soapimap.DefaultProcessingFolder)
	require.Len(t, rest, 1, "only the live claim is left")
	assert.Contains(t, rest[0].text, ">mine<")
	require.NoError(t, d.Ack(t.Context()), "the live claim was not taken from its Receiver")
}

// TestTwinYields: a mail that is twice in the processing folder (another
// claimer's copy made first: COPY without MOVE, or a server whose MOVE is
// not exclusive) is handled once: the Receiver whose copy has the higher
// UID expunges it; the other copy, its claimer gone, is returned after its
// lease and handled then.
func TestTwinYields(t *testing.T) {
	srv := startServer(t, soapimap.WithoutMove())
	addr := srv.newUser(t)
	ids := sendN(t, newAppender(t, addr), addr, 1)
	lease := 200 * time.Millisecond
	r := newReceiver(t, addr, soapimap.WithLease(lease), soapimap.WithRecoverInterval(20*time.Millisecond))
	// The other claimer's copy, made before r's (a lower UID), without a
	// keyword: that claimer died at once.
	c := rawClient(t, addr)
	_, err := c.Select("INBOX", nil).Wait()
	require.NoError(t, err)
	_, err = c.Copy(allUIDs(), soapimap.DefaultProcessingFolder).Wait()
	require.NoError(t, err)
	require.NoError(t, c.Unselect().Wait())

	got := receiveAll(t, r, ids)
	for id, n := range got {
		assert.Equal(t, 1, n, id)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*lease)
	defer cancel()
	if d, err := r.Receive(ctx); err == nil {
		t.Errorf("received %s again", d.Message().ID)
	}
	assert.Empty(t, folderMails(t, c, "INBOX"))
	assert.Empty(t, folderMails(t, c, soapimap.DefaultProcessingFolder))
}

// TestWithoutKeywords: on a server that takes no keywords of the client's
// (PERMANENTFLAGS without \*; here the proxy hides it) a Receiver sets
// none, and a claim a dead Receiver left is returned once this Receiver
// has seen it in the processing folder for a lease.
func TestWithoutKeywords(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	p := startProxy(t, srv.Addr())
	p.strip.Store(&[]string{` \*)` + "\x00)", `(\*)` + "\x00()"})
	paddr := strings.Replace(addr, srv.Addr(), p.addr(), 1)
	a := newAppender(t, addr)
	ids := sendN(t, a, addr, 2)
	// A dead Receiver's claim of one of them.
	c := rawClient(t, addr)
	require.NoError(t, c.Create(soapimap.DefaultProcessingFolder, nil).Wait())
	_, err := c.Select("INBOX", nil).Wait()
	require.NoError(t, err)
	_, err = c.Move(imap.UIDSetNum(1), soapimap.DefaultProcessingFolder).Wait()
	require.NoError(t, err)
	require.NoError(t, c.Unselect().Wait())

	lease := 200 * time.Millisecond
	r := newReceiver(t, paddr, soapimap.WithLease(lease), soapimap.WithRecoverInterval(20*time.Millisecond))
	got := receiveAll(t, r, ids)
	for id, n := range got {
		assert.Equal(t, 1, n, id)
	}
	assert.False(t, p.clientSent(" +FLAGS.SILENT (soapwire-lease-"), "no keyword sent to a server that takes none")
	assert.Empty(t, folderMails(t, c, soapimap.DefaultProcessingFolder))
}
