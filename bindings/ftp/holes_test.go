package ftp_test

import (
	"context"
	"io"
	"os"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	server "goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
)

// The holes of issue 23 on FTP servers (the engine's own tests inject each
// on a fake file system: bindings/internal/drop/holes_test.go).

// layoutDriver is a file driver over a fresh root with an endpoint's
// folders at /ep.
func layoutDriver(t *testing.T) (string, server.Driver) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"inbox", "work", "outbox", "failed", "quarantine"} {
		require.NoError(t, os.MkdirAll(path.Join(root, "ep", d), 0o755))
	}
	fd, err := file.NewDriver(root)
	require.NoError(t, err)
	return root, fd
}

// longLineDriver lists, in the inbox, one more entry whose name is 70,000
// bytes: a listing line longer than jlaffaye/ftp's 64 KiB scanner limit.
type longLineDriver struct{ server.Driver }

func (d longLineDriver) ListDir(ctx *server.Context, p string, cb func(os.FileInfo) error) error {
	if err := d.Driver.ListDir(ctx, p, cb); err != nil {
		return err
	}
	if path.Base(p) == "inbox" {
		return cb(fakeInfo{"huge-" + strings.Repeat("n", 70000) + ".xml"})
	}
	return nil
}

// TestLongListingLine: one listing line over 64 KiB no longer makes every
// listing fail: it is passed over with one log line, and the files beside
// it are served.
func TestLongListingLine(t *testing.T) {
	root, fd := layoutDriver(t)
	lb := &logBuffer{}
	c := soapftp.NewClient(serveDriver(t, longLineDriver{fd}), testUser, testPass)
	t.Cleanup(func() { c.Close() })
	p, err := soapftp.NewPoller(c, "/ep", soapftp.WithLogger(lb.logger()), soapftp.WithPollInterval(5*time.Millisecond), soapftp.WithMaxPollInterval(10*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	good := ping(core.V12, "beside a long line")
	require.NoError(t, os.WriteFile(path.Join(root, "ep/inbox/good.xml"), envelope(t, good), 0o644))
	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, good.ID, d.Message().ID)
	require.NoError(t, d.Ack(ctx(t)))
	c2, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = p.Receive(c2)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 1, strings.Count(lb.String(), "a listing line longer than 8192 bytes"), lb.String())
}

// stallDriver answers RETR of stall.xml with a data connection that sends
// nothing (150, then silence) until the test ends.
type stallDriver struct {
	server.Driver
	done chan struct{}
}

func (d stallDriver) GetFile(ctx *server.Context, p string, offset int64) (int64, io.ReadCloser, error) {
	if strings.HasSuffix(p, ".stall.xml") {
		return 1000, silent{d.done}, nil
	}
	return d.Driver.GetFile(ctx, p, offset)
}

type silent struct{ done chan struct{} }

func (s silent) Read([]byte) (int, error) { <-s.done; return 0, io.EOF }
func (s silent) Close() error             { return nil }

// TestStalledDownload: a download whose data connection stays silent does
// not stop the endpoint: the other files are received meanwhile, and the
// stalled one is cut off after the Client's I/O timeout, returned to the
// inbox and logged.
func TestStalledDownload(t *testing.T) {
	root, fd := layoutDriver(t)
	done := make(chan struct{})
	lb := &logBuffer{}
	c := soapftp.NewClient(serveDriver(t, stallDriver{fd, done}), testUser, testPass, soapftp.WithIOTimeout(time.Second))
	t.Cleanup(func() { close(done); c.Close() })
	p, err := soapftp.NewPoller(c, "/ep", soapftp.WithLogger(lb.logger()), soapftp.WithPollInterval(5*time.Millisecond), soapftp.WithMaxPollInterval(10*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	require.NoError(t, os.WriteFile(path.Join(root, "ep/inbox/stall.xml"), envelope(t, ping(core.V11, "stalls")), 0o644))
	var ids []string
	for i := range 3 {
		m := ping(core.V11, "flows")
		ids = append(ids, m.ID)
		require.NoError(t, os.WriteFile(path.Join(root, "ep/inbox", "f"+string(rune('0'+i))+".xml"), envelope(t, m), 0o644))
	}
	var got []string
	for range ids {
		d, err := p.Receive(ctx(t))
		require.NoError(t, err)
		got = append(got, d.Message().ID)
		require.NoError(t, d.Ack(ctx(t)))
	}
	assert.ElementsMatch(t, ids, got)
	go p.Receive(ctx(t))              // serves the inbox until the test ends: the stalled file too
	lb.contains(t, "download failed") // cut off by the stall limit or the I/O timeout, whichever strikes first
	require.Eventually(t, func() bool {
		_, err := os.Stat(path.Join(root, "ep/inbox/stall.xml"))
		return err == nil
	}, 10*time.Second, 5*time.Millisecond, "returned to the inbox")
}

// TestPausedUploadReturned: a partner's upload under the final name that
// pauses for longer than the settle time is parked as unfinished; when the
// upload goes on (into the parked file), the file goes back to the inbox
// and the whole message is received; failed/ ends empty.
func TestPausedUploadReturned(t *testing.T) {
	e := newEnv(t)
	lb := &logBuffer{}
	p := e.poller(t, "/pause", soapftp.WithSettle(100*time.Millisecond), soapftp.WithLogger(debugLogger(e, lb)))
	m := ping(core.V11, "an upload that pauses")
	data := envelope(t, m)
	pr, pw := io.Pipe()
	t.Cleanup(func() { pw.Close() })
	stored := make(chan error, 1)
	go func() { stored <- rawConn(t, e.srv.Addr()).Stor("/pause/inbox/order.xml", pr) }()
	_, err := pw.Write(data[:len(data)/2])
	require.NoError(t, err)
	got := make(chan *core.Message, 1)
	serve(t, p, core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		got <- m
		return nil, nil
	}), nil)
	require.Eventually(t, func() bool { return len(e.files(t, "pause/failed")) == 2 }, 10*time.Second, 5*time.Millisecond, "parked as unfinished")
	_, err = pw.Write(data[len(data)/2:])
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	require.NoError(t, <-stored)
	select {
	case r := <-got:
		assert.Equal(t, m.ID, r.ID)
	case <-time.After(10 * time.Second):
		t.Fatalf("not received; inbox %v failed %v", e.files(t, "pause/inbox"), e.files(t, "pause/failed"))
	}
	require.Eventually(t, func() bool { return len(e.files(t, "pause/failed")) == 0 }, 10*time.Second, 5*time.Millisecond)
	lb.contains(t, "parked file changed after it was parked")
}

// TestStaleTempFileRemoved: a half-written reply a killed sender left in
// the outbox (.<name>.<hex>.part), older than the grace, is removed; a
// fresh one is left.
func TestStaleTempFileRemoved(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/tmp")
	stale, fresh := e.path("tmp/outbox", ".reply.xml.0123abcd.part"), e.path("tmp/outbox", ".reply2.xml.89abcdef.part")
	require.NoError(t, os.WriteFile(stale, []byte("<half"), 0o644))
	require.NoError(t, os.WriteFile(fresh, []byte("<half"), 0o644))
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err := p.Receive(c)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, []string{".reply2.xml.89abcdef.part"}, e.files(t, "tmp/outbox"))
	e.log.contains(t, "stale temporary file removed")
}
