package drop_test

import (
	"context"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/drop"
)

// newPoller returns a Poller on /ep of fsys with short poll intervals, its
// folders made, and what it logs (at debug level).
func newPoller(t *testing.T, fsys drop.FS, cfg drop.Config) (*drop.Poller, *logBuffer) {
	t.Helper()
	lb := &logBuffer{}
	cfg.Scheme = "fake"
	cfg.Log = slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if cfg.PollMin == 0 {
		cfg.PollMin, cfg.PollMax = 5*time.Millisecond, 20*time.Millisecond
	}
	p, err := drop.NewPoller(fsys, "/ep", cfg)
	require.NoError(t, err)
	require.NoError(t, p.MakeLayout(tctx(t)))
	t.Cleanup(func() { p.Close() })
	return p, lb
}

// receiveID receives one message and Acks it, returning its id.
func receiveID(t *testing.T, p *drop.Poller) string {
	t.Helper()
	d, err := p.Receive(tctx(t))
	require.NoError(t, err)
	require.NoError(t, d.Ack(tctx(t)))
	return d.Message().ID
}

// nothing checks that Receive finds nothing for a while (several polls).
func nothing(t *testing.T, p *drop.Poller, d time.Duration) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	got, err := p.Receive(c)
	require.ErrorIs(t, err, context.DeadlineExceeded, "received %v", got)
}

// TestListingEntryUnreadable: a listing entry the file system could not
// read (as FTP's over-long listing line) is passed over with one log line,
// however many listings show it; the other files are served.
func TestListingEntryUnreadable(t *testing.T) {
	f := newFakeFS()
	f.listExtra = func(dir string) []drop.Entry {
		if dir != "/ep/inbox" {
			return nil
		}
		return []drop.Entry{{Name: strings.Repeat("x", 120), Kind: drop.Other, Problem: "a listing line longer than 8192 bytes"}}
	}
	p, lb := newPoller(t, f, drop.Config{})
	f.put("/ep/inbox/good.xml", envelope(t, "urn:good", "good"))
	assert.Equal(t, "urn:good", receiveID(t, p))
	nothing(t, p, 100*time.Millisecond)
	assert.Equal(t, 1, lb.count("the listing entry cannot be read: a listing line longer than 8192 bytes"), lb.String())
}

// blocking is a download that sends nothing until its ctx ends, as a
// server that opened the data connection and went silent.
type blocking struct{ ctx context.Context }

func (b blocking) Read([]byte) (int, error) {
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}
func (b blocking) Close() error { return nil }

// TestStalledTransferIndependent: while one download is stalled (the
// server sends nothing), the others go on: the listing goes on and every
// other file is delivered.
func TestStalledTransferIndependent(t *testing.T) {
	f := newFakeFS()
	var stalls sync.WaitGroup
	stalls.Add(1)
	var once sync.Once
	f.openHook = func(ctx context.Context, p string) io.ReadCloser {
		if strings.HasSuffix(p, ".stall.xml") {
			once.Do(stalls.Done)
			return blocking{ctx}
		}
		return nil
	}
	p, _ := newPoller(t, f, drop.Config{Stall: time.Hour})
	f.put("/ep/inbox/stall.xml", envelope(t, "urn:stall", "stuck"))
	first, cancel := context.WithCancel(context.Background())
	returned := make(chan struct{})
	go func() { defer close(returned); p.Receive(first) }() // starts the stalled transfer
	stalls.Wait()
	cancel()
	<-returned
	want := []string{}
	for _, id := range []string{"urn:a", "urn:b", "urn:c"} {
		f.put("/ep/inbox/"+strings.TrimPrefix(id, "urn:")+".xml", envelope(t, id, id))
		want = append(want, id)
	}
	var got []string
	for range want {
		got = append(got, receiveID(t, p))
	}
	assert.ElementsMatch(t, want, got, "delivered while the first download stalls")
	assert.Len(t, f.names("/ep/work"), 1, "the stalled file is still claimed")
}

// TestStalledTransferCutOff: a download silent for Config.Stall is cut
// off, its file returned to the inbox and backed off (logged once); a
// download that keeps sending, however slowly, is not.
func TestStalledTransferCutOff(t *testing.T) {
	f := newFakeFS()
	const stall = 100 * time.Millisecond
	data := envelope(t, "urn:slow", "trickle")
	f.openHook = func(ctx context.Context, p string) io.ReadCloser {
		switch {
		case strings.HasSuffix(p, ".stall.xml"):
			return blocking{ctx}
		case strings.HasSuffix(p, ".slow.xml"):
			return io.NopCloser(&trickle{data: data, every: stall / 4})
		}
		return nil
	}
	p, lb := newPoller(t, f, drop.Config{Stall: stall})
	f.put("/ep/inbox/stall.xml", envelope(t, "urn:stall", "stuck"))
	f.put("/ep/inbox/slow.xml", data)
	assert.Equal(t, "urn:slow", receiveID(t, p), "a slow download that keeps sending completes")
	go p.Receive(tctx(t)) // serves the inbox until the test ends
	require.Eventually(t, func() bool { return lb.count("download failed") == 1 }, 10*time.Second, 5*time.Millisecond, lb.String())
	assert.Contains(t, lb.String(), "transfer stalled: nothing received for 100ms")
	require.Eventually(t, func() bool { return len(f.names("/ep/work")) == 0 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, []string{"stall.xml"}, f.names("/ep/inbox"), "returned to the inbox")
	opens := f.opCount("rename", "/ep/inbox/stall.xml")
	nothing(t, p, 300*time.Millisecond)
	assert.Equal(t, opens, f.opCount("rename", "/ep/inbox/stall.xml"), "not claimed again at once: it backs off")
}

// trickle sends its data a few bytes at a time, waiting between reads.
type trickle struct {
	data  []byte
	every time.Duration
}

func (r *trickle) Read(b []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	time.Sleep(r.every)
	n := copy(b[:min(len(b), len(r.data)/4+1)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// TestSettleWaitsForSizeAndTime: a file that looks unfinished is not taken
// while its size or its modification time keeps changing; once both hold
// for the settle time it is taken as it is (and parked, not being a
// message).
func TestSettleWaitsForSizeAndTime(t *testing.T) {
	f := newFakeFS()
	const settle = 200 * time.Millisecond
	p, lb := newPoller(t, f, drop.Config{Settle: settle})
	data := envelope(t, "urn:cut", "cut")
	file := f.put("/ep/inbox/cut.xml", data[:len(data)-30])
	stop := make(chan struct{})
	touched := make(chan struct{})
	go func() { // the uploader touches the file (same size) more often than the settle time
		defer close(touched)
		for {
			select {
			case <-stop:
				return
			case <-time.After(settle / 4):
				f.append(file, nil)
			}
		}
	}()
	nothing(t, p, 4*settle)
	assert.Equal(t, []string{"cut.xml"}, f.names("/ep/inbox"), "not taken while its time moves")
	assert.Empty(t, f.names("/ep/failed"))
	assert.Positive(t, lb.count("file looks unfinished"))
	close(stop)
	<-touched
	go p.Receive(tctx(t)) // serves the inbox until the test ends
	require.Eventually(t, func() bool { return len(f.names("/ep/failed")) == 2 }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, []string{"cut.fault.xml", "cut.xml"}, f.names("/ep/failed"))
}

// TestParkedFileChangesGoesBack: an upload that pauses for longer than the
// settle time is parked as unfinished; when it goes on (into the parked
// file: the uploader's handle followed the rename), the file goes back to
// the inbox, its fault file is removed, and the whole message is
// delivered.
func TestParkedFileChangesGoesBack(t *testing.T) {
	f := newFakeFS()
	p, lb := newPoller(t, f, drop.Config{Settle: 50 * time.Millisecond})
	data := envelope(t, "urn:paused", "paused upload")
	file := f.put("/ep/inbox/paused.xml", data[:120])
	nothing(t, p, 300*time.Millisecond) // Receive serves the inbox meanwhile
	require.Eventually(t, func() bool { return len(f.names("/ep/failed")) == 2 }, 10*time.Second, 5*time.Millisecond, lb.String())
	f.append(file, data[120:]) // the upload goes on
	d, err := p.Receive(tctx(t))
	require.NoError(t, err)
	assert.Equal(t, "urn:paused", d.Message().ID)
	require.NoError(t, d.Ack(tctx(t)))
	assert.Empty(t, f.names("/ep/failed"), "the file and its fault are gone from failed/")
	assert.Equal(t, 1, lb.count("parked file changed after it was parked"), lb.String())
}

// TestStaleTemporaryFilesRemoved: the binding's temporary files (a crashed
// sender's) older than the grace are removed from every folder of the
// endpoint; recent ones, and hidden files of another form, are left.
func TestStaleTemporaryFilesRemoved(t *testing.T) {
	f := newFakeFS()
	old := time.Now().Add(-2 * time.Hour)
	for _, d := range []string{"/ep", "/ep/inbox", "/ep/work", "/ep/outbox", "/ep/failed", "/ep/quarantine"} {
		f.Mkdir(context.Background(), d)
	}
	for p, mtime := range map[string]time.Time{
		"/ep/outbox/.r.xml.0123abcd.part":       old,
		"/ep/work/.x.xml.deadbeef.part":         old,
		"/ep/failed/.x.fault.xml.00000000.part": old,
		"/ep/inbox/.y.xml.01234567.part":        time.Now(),
		"/ep/outbox/.partner-upload.tmp":        old,
		"/ep/outbox/.r.xml.0123abcdX.part":      old,
		"/ep/outbox/reply.xml":                  old,
	} {
		f.put(p, []byte("x"))
		f.setTime(p, mtime)
	}
	p, lb := newPoller(t, f, drop.Config{TempGrace: time.Hour})
	nothing(t, p, 50*time.Millisecond)
	assert.Empty(t, f.names("/ep/work"))
	assert.Empty(t, f.names("/ep/failed"))
	assert.Equal(t, []string{".partner-upload.tmp", ".r.xml.0123abcdX.part", "reply.xml"}, f.names("/ep/outbox"))
	assert.Equal(t, []string{".y.xml.01234567.part"}, f.names("/ep/inbox"), "a recent one is an upload in progress")
	assert.Equal(t, 3, lb.count("stale temporary file removed"), lb.String())
}

// TestUnclaimableBackoff: a listed file the file system will not let the
// Poller move is not claimed again and again: it backs off on its own (the
// other files are served), is logged once with the count of failures,
// and once more when it is finally taken.
func TestUnclaimableBackoff(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		logAt int // the failure that is logged
	}{
		{"refused", fs.ErrPermission, 1},
		{"said missing but listed again (FTP's 550)", fs.ErrNotExist, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFS()
			var mu sync.Mutex
			stuck := true
			f.renameHook = func(from, to string) error {
				mu.Lock()
				defer mu.Unlock()
				if stuck && from == "/ep/inbox/stuck.xml" {
					return tc.err
				}
				return nil
			}
			p, lb := newPoller(t, f, drop.Config{})
			f.put("/ep/inbox/stuck.xml", envelope(t, "urn:stuck", "stuck"))
			f.put("/ep/inbox/good.xml", envelope(t, "urn:good", "good"))
			assert.Equal(t, "urn:good", receiveID(t, p))
			const line = "claim failed; the file is tried again with backoff (logged once)"
			// Receive keeps polling; the claim is tried again after 1 s, 2 s…
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			returned := make(chan struct{})
			go func() { defer close(returned); p.Receive(ctx) }()
			require.Eventually(t, func() bool { return lb.count(line) == 1 }, 10*time.Second, 5*time.Millisecond)
			assert.Contains(t, lb.String(), "failures="+string(rune('0'+tc.logAt)))
			tries := f.opCount("rename", "/ep/inbox/stuck.xml")
			assert.Equal(t, tc.logAt, tries, "one claim per backoff, not one per listing")
			require.Eventually(t, func() bool { return f.opCount("rename", "/ep/inbox/stuck.xml") > tries }, 10*time.Second, 5*time.Millisecond)
			assert.Equal(t, 1, lb.count(line), "logged once")
			cancel()
			<-returned
			mu.Lock()
			stuck = false
			mu.Unlock()
			assert.Equal(t, "urn:stuck", receiveID(t, p))
			assert.Equal(t, 1, lb.count("file claimed after failed attempts"), lb.String())
		})
	}
}

// TestRefusedNames: a file whose name no message has is moved to the
// quarantine folder when the name is safe to send back, else left; each is
// logged once with its name escaped (a right-to-left override as
// \u202e). With no quarantine folder, all are left and logged once.
func TestRefusedNames(t *testing.T) {
	names := []string{"notes.txt", "-x.xml", "rtl\u202egnp.xml", "ctl\x01.xml", "bad\xff.xml"}
	for _, tc := range []struct {
		name       string
		quarantine string
		moved      []string
	}{
		{"quarantine", "quarantine", []string{"-x.xml", "notes.txt"}},
		{"left", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeFS()
			l := drop.DefaultLayout()
			l.Quarantine = tc.quarantine
			p, lb := newPoller(t, f, drop.Config{Layout: l})
			for _, n := range names {
				f.put("/ep/inbox/"+n, []byte("x"))
			}
			f.put("/ep/inbox/good.xml", envelope(t, "urn:good", "good"))
			assert.Equal(t, "urn:good", receiveID(t, p))
			nothing(t, p, 100*time.Millisecond)
			if tc.quarantine != "" {
				assert.Equal(t, tc.moved, f.names("/ep/quarantine"))
			}
			log := lb.String()
			for _, n := range names {
				assert.Equal(t, 1, strings.Count(log, "name="+drop.Escape(n)+" ")+strings.Count(log, `name="`+drop.Escape(n)+`"`), "one line for %q:\n%s", n, log)
			}
			assert.Contains(t, log, `name=rtl\u202egnp.xml`)
			assert.Contains(t, log, `name=ctl\x01.xml`)
			assert.NotContains(t, log, "\u202e")
			assert.NotContains(t, log, "\x01")
			assert.Equal(t, len(tc.moved), strings.Count(log, "file quarantined"))
		})
	}
}

// TestEscape: what a log line shows of a name.
func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"order.xml":        "order.xml",
		"ünïcode.xml":      "ünïcode.xml",
		"rtl\u202egnp.xml": `rtl\u202egnp.xml`,
		"tab\t.xml":        `tab\t.xml`,
		"bad\xff.xml":      `bad\xff.xml`,
		`q"uote`:           `q\"uote`,
		"zw\u200bj":        `zw\u200bj`,
	} {
		assert.Equal(t, want, drop.Escape(in), "%q", in)
	}
}
