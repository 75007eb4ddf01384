package drop_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

// TestSettlements: Ack deletes (or moves to done/), Nack parks with the
// fault beside the file, a Nack for a shutdown returns the file to the
// inbox, and a message with an anonymous ReplyTo is answered in the outbox.
func TestSettlements(t *testing.T) {
	f := newFakeFS()
	l := drop.DefaultLayout()
	l.Done = "done"
	p, _ := newPoller(t, f, drop.Config{Layout: l, URL: func(dir string) string { return "fake://" + dir }})
	for _, n := range []string{"ack", "nack", "cancel"} {
		f.put("/ep/inbox/"+n+".xml", envelope(t, "urn:"+n, n))
	}
	seen := map[string]bool{}
	for len(seen) < 3 { // the canceled one may come back before the others
		d, err := p.Receive(tctx(t))
		require.NoError(t, err)
		m := d.Message()
		seen[m.ID] = true
		assert.Equal(t, "fake:///ep/outbox", m.ReplyTo, "anonymous ReplyTo: the outbox")
		assert.Equal(t, strings.TrimPrefix(m.ID, "urn:")+".xml", m.Meta["fake.file"])
		assert.True(t, strings.HasPrefix(m.Meta["fake.claim"], "/ep/work/"))
		switch m.ID {
		case "urn:ack":
			require.NoError(t, d.Ack(tctx(t)))
			require.NoError(t, d.Ack(tctx(t)), "a second Ack")
			assert.ErrorIs(t, d.Nack(tctx(t), nil), core.ErrSettled)
		case "urn:nack":
			require.NoError(t, d.Nack(tctx(t), core.SenderFault("no such account")))
		case "urn:cancel":
			require.NoError(t, d.Nack(tctx(t), context.Canceled))
		}
	}
	assert.Equal(t, []string{"ack.xml"}, f.names("/ep/done"))
	assert.Equal(t, []string{"nack.fault.xml", "nack.xml"}, f.names("/ep/failed"))
	assert.Contains(t, string(f.data("/ep/failed/nack.fault.xml")), "no such account")
	assert.Equal(t, []string{"cancel.xml"}, f.names("/ep/inbox"))
	assert.Empty(t, f.names("/ep/work"))
}

// TestStaleClaimReturned: a claim older than the lease (its Poller died)
// is returned to the inbox and delivered; a fresh one is left alone.
func TestStaleClaimReturned(t *testing.T) {
	f := newFakeFS()
	for _, d := range []string{"/ep", "/ep/inbox", "/ep/work", "/ep/outbox", "/ep/failed", "/ep/quarantine"} {
		f.Mkdir(context.Background(), d)
	}
	old := drop.FormatClaim(time.Now().Add(-time.Hour), "0badf00d", "old.xml")
	fresh := drop.FormatClaim(time.Now().Add(time.Hour), "0badf00d", "fresh.xml")
	f.put("/ep/work/"+old, envelope(t, "urn:old", "old"))
	f.put("/ep/work/"+fresh, envelope(t, "urn:fresh", "fresh"))
	p, lb := newPoller(t, f, drop.Config{Lease: time.Minute})
	assert.Equal(t, "urn:old", receiveID(t, p))
	assert.Equal(t, []string{fresh}, f.names("/ep/work"))
	assert.Contains(t, lb.String(), "stale claim returned to the inbox")
}

// TestCloseReturnsFiles: Close returns every file the Poller holds (a
// delivery handed out, one read and waiting for a Receive) to the inbox; a
// later Ack of the first fails, and Receive says closed.
func TestCloseReturnsFiles(t *testing.T) {
	f := newFakeFS()
	release := make(chan struct{})
	f.openHook = func(ctx context.Context, p string) io.ReadCloser {
		if strings.HasSuffix(p, ".b.xml") {
			<-release // b's download waits until the test lets it go
		}
		return nil
	}
	p, _ := newPoller(t, f, drop.Config{})
	f.put("/ep/inbox/a.xml", envelope(t, "urn:a", "a"))
	d, err := p.Receive(tctx(t))
	require.NoError(t, err)
	f.put("/ep/inbox/b.xml", envelope(t, "urn:b", "b"))
	c, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = p.Receive(c) // starts b's transfer, which waits
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	close(release) // b is read, and waits for a Receive that does not come
	require.Eventually(t, func() bool { return len(f.names("/ep/work")) == 2 }, 10*time.Second, time.Millisecond)
	time.Sleep(50 * time.Millisecond) // b's read ends (Close returns it either way: read, or still reading)
	require.NoError(t, p.Close())
	assert.Equal(t, []string{"a.xml", "b.xml"}, f.names("/ep/inbox"))
	assert.Empty(t, f.names("/ep/work"))
	assert.ErrorIs(t, d.Ack(tctx(t)), core.ErrClosed)
	_, err = p.Receive(tctx(t))
	assert.ErrorIs(t, err, core.ErrClosed)
}

// TestLeaseRenewed: a claim held longer than its lease is renewed, so
// another Poller of the endpoint does not take it back.
func TestLeaseRenewed(t *testing.T) {
	f := newFakeFS()
	const lease = time.Second // well above a loaded machine's scheduling gaps
	a, la := newPoller(t, f, drop.Config{Lease: lease})
	b, lb := newPoller(t, f, drop.Config{Lease: lease})
	defer func() {
		if t.Failed() {
			t.Logf("a:\n%s\nb:\n%s", la, lb)

		}
	}()
	f.put("/ep/inbox/long.xml", envelope(t, "urn:long", "long"))
	d, err := a.Receive(tctx(t))
	require.NoError(t, err)
	nothing(t, b, 2*lease) // b looks for stale claims meanwhile
	require.NoError(t, d.Ack(tctx(t)), "still a's")
	assert.Empty(t, f.names("/ep/inbox"))
}

// TestStore: a stored file appears whole under its name, never under a
// partial one; a failed write leaves nothing.
func TestStore(t *testing.T) {
	f := newFakeFS()
	f.Mkdir(context.Background(), "/out")
	p, err := drop.Store(tctx(t), f, "/out", "a.xml", strings.NewReader("<x/>"), nil, "fake")
	require.NoError(t, err)
	assert.Equal(t, "/out/a.xml", p)
	assert.Equal(t, []string{"a.xml"}, f.names("/out"))
	_, err = drop.Store(tctx(t), f, "/out", "b.xml", &failing{}, nil, "fake")
	require.Error(t, err)
	assert.Equal(t, []string{"a.xml"}, f.names("/out"))
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, context.DeadlineExceeded }

// reads is a download that notes the size of each read asked of it.
type reads struct {
	r    io.Reader
	mu   *sync.Mutex
	asks *[]int
}

func (r reads) Read(b []byte) (int, error) {
	r.mu.Lock()
	*r.asks = append(*r.asks, len(b))
	r.mu.Unlock()
	return r.r.Read(b)
}
func (r reads) Close() error { return nil }

// TestDownloadAsksForListedSize: a download is read with room for the size
// the listing gave at once: one read brings the whole file and the next
// finds its end (over SFTP each read is a round trip; in 512-byte steps a
// 1 KiB file took four).
func TestDownloadAsksForListedSize(t *testing.T) {
	f := newFakeFS()
	data := envelope(t, "urn:big", strings.Repeat("x", 8000))
	var mu sync.Mutex
	var asks []int
	f.openHook = func(ctx context.Context, p string) io.ReadCloser {
		return reads{r: bytes.NewReader(data), mu: &mu, asks: &asks}
	}
	p, _ := newPoller(t, f, drop.Config{})
	f.put("/ep/inbox/big.xml", data)
	assert.Equal(t, "urn:big", receiveID(t, p))
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, asks, 2, "reads asked: %v", asks)
	assert.Greater(t, asks[0], len(data), "the first read has room for the whole file and its end")
}

// endsAtOnce is a download that returns the file's last bytes with io.EOF
// (as pkg/sftp's File.Read does when its read runs into the end), counts
// the reads asked, and records the size the engine said to expect.
type endsAtOnce struct {
	data   []byte
	off    int
	asks   int
	expect int64
}

func (r *endsAtOnce) ExpectSize(n int64) { r.expect = n }

func (r *endsAtOnce) Read(b []byte) (int, error) {
	r.asks++
	n := copy(b, r.data[r.off:])
	r.off += n
	if r.off == len(r.data) {
		return n, io.EOF
	}
	return n, nil
}

func (r *endsAtOnce) Close() error { return nil }

// TestDownloadEndReadOnce: a download whose read brought the file's end
// (data and io.EOF together) is not read again: one read for a file that
// fits its room (before, the end was asked for a second time: over SFTP
// three READs, now two); the reader is told the listed size first
// (drop.SizeExpecter); a file larger than the first read's room is read
// to its end.
func TestDownloadEndReadOnce(t *testing.T) {
	for _, c := range []struct {
		size  int
		spool int64 // Config.SpoolMemory
		asks  int   // 0: more than one
	}{{1000, 0, 1}, {8000, 0, 1}, {8000, 4096, 0}} {
		f := newFakeFS()
		data := envelope(t, "urn:end", strings.Repeat("x", c.size))
		var mu sync.Mutex
		var r *endsAtOnce
		f.openHook = func(ctx context.Context, p string) io.ReadCloser {
			mu.Lock()
			defer mu.Unlock()
			r = &endsAtOnce{data: data}
			return r
		}
		p, _ := newPoller(t, f, drop.Config{SpoolMemory: c.spool})
		f.put("/ep/inbox/end.xml", data)
		assert.Equal(t, "urn:end", receiveID(t, p))
		mu.Lock()
		assert.Equal(t, int64(len(data)), r.expect, "the listed size, told before the first read")
		assert.Equal(t, len(data), r.off, "read to its end")
		if c.asks > 0 {
			assert.Equal(t, c.asks, r.asks, "one read brings the file and its end")
		} else {
			assert.Greater(t, r.asks, 1)
		}
		mu.Unlock()
	}
}
