package ftp_test

import (
	"context"
	"net"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	server "goftp.io/server/v2"
	"goftp.io/server/v2/driver/file"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/core"
)

func TestFileName(t *testing.T) {
	tests := []struct {
		id, want string
	}{
		{"urn:uuid:4f1c7c3e-8f0b-4d7e-9a2b-1c2d3e4f5a6b", "4f1c7c3e-8f0b-4d7e-9a2b-1c2d3e4f5a6b.xml"},
		{"URN:UUID:ABC", "ABC.xml"},
		{"order-42_v1.2", "order-42_v1.2.xml"},
		{"", ""}, // hash only
		{"../../etc/passwd", ""},
		{"a/b", ""},
		{"-rf", ""},
		{".hidden", ""},
		{"trailing.", ""},
		{"a..b", ""},
		{"mid:colon", ""},
		{"tab\there", ""},
		{"ünïcode", ""},
		{strings.Repeat("x", 500), ""},
	}
	seen := map[string]string{}
	for _, tt := range tests {
		got := soapftp.FileName(tt.id)
		if tt.want != "" {
			assert.Equal(t, tt.want, got, "FileName(%q)", tt.id)
		}
		assert.NoError(t, soapftp.CheckName(got), "FileName(%q) = %q", tt.id, got)
		assert.True(t, strings.HasSuffix(got, soapftp.Suffix), got)
		assert.NotContains(t, got, "..", got)
		if other, dup := seen[got]; dup {
			t.Errorf("FileName(%q) = FileName(%q) = %q", tt.id, other, got)
		}
		seen[got] = tt.id
	}
	// An id that had to change gets a hash: ids that differ only in the
	// changed characters do not meet.
	assert.NotEqual(t, soapftp.FileName("a:b"), soapftp.FileName("a/b"))
	assert.NotEqual(t, soapftp.FileName("a_b"), soapftp.FileName("a:b"))
}

func TestCheckName(t *testing.T) {
	tests := []struct {
		name   string
		reason string // "" for a safe name
	}{
		{"order.xml", ""},
		{"Order 2024 #5.xml", ""},
		{"ünïcode.xml", ""},
		{"", "empty"},
		{".", "directory reference"},
		{"..", "directory reference"},
		{"../etc/passwd.xml", "separator"},
		{"/abs.xml", "separator"},
		{`..\win.xml`, "separator"},
		{"a..b.xml", `".."`},
		{".hidden.xml", "starts with a dot"},
		{"-rf.xml", "starts with '-'"},
		{" lead.xml", "starts with a space"},
		{"trail.xml ", "ends with a space"},
		{"tab\t.xml", "control character"},
		{"nul\x00.xml", "control character"},
		{"crlf\r\n.xml", "control character"},
		{"del\x7f.xml", "control character"},
		{"c1\u0085.xml", "control character"},
		{"ls\u2028.xml", "control character"},
		{"bad\xff.xml", "UTF-8"},
		{strings.Repeat("x", 197) + ".xml", "longer than"},
	}
	for _, tt := range tests {
		err := soapftp.CheckName(tt.name)
		if tt.reason == "" {
			assert.NoError(t, err, "%q", tt.name)
			continue
		}
		require.ErrorIs(t, err, soapftp.ErrUnsafeName, "%q", tt.name)
		assert.Contains(t, err.Error(), tt.reason, "%q", tt.name)
	}
}

// TestOddNamesOnDisk: files with names that are unsafe or unexpected sit in
// the inbox of the embedded server. Those whose names can be sent back to
// the server (no control character) are moved to the quarantine folder;
// the others are never touched. Each is logged once, its name escaped, and
// the good file beside them is delivered.
func TestOddNamesOnDisk(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/odd")
	left := map[string]string{ // never named in a command
		"tab\there.xml":    "control character",
		"bell\a.xml":       "control character",
		"esc\x1b[31m.xml":  "control character",
		"rtl\u202egnp.xml": "format character",
	}
	moved := map[string]string{ // moved to quarantine/
		"-dash.xml": "starts with '-'",
		" lead.xml": "starts with a space",
		"notes.txt": "does not end in .xml",
		"a..b.xml":  `contains \"..\"`,
	}
	for _, m := range []map[string]string{left, moved} {
		for name := range m {
			require.NoError(t, os.WriteFile(e.path("odd/inbox", name), []byte("x"), 0o644))
		}
	}
	require.NoError(t, os.WriteFile(e.path("odd/inbox", ".partial.xml.part"), []byte("x"), 0o644))
	good := ping(core.V11, "good")
	e.drop(t, "odd/inbox", "good.xml", envelope(t, good))

	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, good.ID, d.Message().ID)
	require.NoError(t, d.Ack(ctx(t)))
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond) // several more polls
	_, err = p.Receive(c)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)

	inbox := e.files(t, "odd/inbox")
	assert.Len(t, inbox, len(left)+1, "the unnameable files stay where they are: %q", inbox)
	assert.ElementsMatch(t, keys(moved), e.files(t, "odd/quarantine"))
	log := e.log.String()
	assert.Equal(t, len(left), strings.Count(log, "file skipped"), log)
	assert.Equal(t, len(moved), strings.Count(log, "file quarantined"), log)
	for _, m := range []map[string]string{left, moved} {
		for name, reason := range m {
			assert.Equal(t, 1, loggedName(log, drop.Escape(name)), "one log line for %q:\n%s", name, log)
			assert.Contains(t, log, reason)
		}
	}
	for name := range left {
		assert.Contains(t, inbox, name)
	}
	assert.Contains(t, log, `name=rtl\u202egnp.xml`, "a text direction override is shown escaped")
	assert.NotContains(t, log, "\u202e", "never raw")
	assert.NotContains(t, e.log.String(), "partial", "temporary files are passed over silently")
	assert.Empty(t, e.files(t, "odd/work"))
	assert.Empty(t, e.files(t, "odd/failed"))
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// loggedName counts the log lines with name=<name> (slog quotes names that
// need it).
func loggedName(log, name string) int {
	return strings.Count(log, "name="+strconv.Quote(name)+" ") + strings.Count(log, "name="+name+" ")
}

// serveDriver serves a goftp driver on loopback until the test ends, and
// returns its address.
func serveDriver(t *testing.T, drv server.Driver) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv, err := server.NewServer(&server.Options{
		Driver: drv, Auth: &server.SimpleAuth{Name: testUser, Password: testPass},
		Perm: server.NewSimplePerm(testUser, testUser), Hostname: "127.0.0.1",
		Logger: &server.DiscardLogger{},
	})
	require.NoError(t, err)
	served := make(chan struct{})
	go func() { defer close(served); srv.Serve(ln) }()
	t.Cleanup(func() { ln.Close(); <-served })
	return ln.Addr().String()
}

// hostileDriver is a file driver whose inbox listing also holds names no
// real file can have (a hostile or broken server), and that records every
// path a command touched.
type hostileDriver struct {
	server.Driver
	fake []string

	mu      sync.Mutex
	touched []string
}

func (d *hostileDriver) record(paths ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.touched = append(d.touched, paths...)
}

func (d *hostileDriver) paths() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.touched...)
}

func (d *hostileDriver) ListDir(ctx *server.Context, p string, cb func(os.FileInfo) error) error {
	if err := d.Driver.ListDir(ctx, p, cb); err != nil {
		return err
	}
	if path.Base(p) == "inbox" {
		for _, n := range d.fake {
			if err := cb(fakeInfo{n}); err != nil {
				return err
			}
		}
	}
	return nil
}

func (d *hostileDriver) Stat(ctx *server.Context, p string) (os.FileInfo, error) {
	d.record(p)
	return d.Driver.Stat(ctx, p)
}

func (d *hostileDriver) Rename(ctx *server.Context, from, to string) error {
	d.record(from, to)
	return d.Driver.Rename(ctx, from, to)
}

func (d *hostileDriver) DeleteFile(ctx *server.Context, p string) error {
	d.record(p)
	return d.Driver.DeleteFile(ctx, p)
}

type fakeInfo struct{ name string }

func (f fakeInfo) Name() string       { return f.name }
func (f fakeInfo) Size() int64        { return 100 }
func (f fakeInfo) Mode() os.FileMode  { return 0o644 }
func (f fakeInfo) ModTime() time.Time { return time.Now() }
func (f fakeInfo) IsDir() bool        { return false }
func (f fakeInfo) Sys() any           { return nil }

// TestHostileListing: names a server lists that would leave the inbox or
// smuggle commands (path traversal, absolute paths, backslashes, control
// characters) are never used in a command: the Poller logs each and moves
// on, and delivers the real file beside them.
func TestHostileListing(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"inbox", "work", "outbox", "failed"} {
		require.NoError(t, os.MkdirAll(path.Join(root, "ep", d), 0o755))
	}
	fd, err := file.NewDriver(root)
	require.NoError(t, err)
	fake := []string{
		"../../etc/passwd.xml",
		"/etc/shadow.xml",
		`..\..\boot.ini.xml`,
		"inbox/../../../x.xml",
		"evil\x01.xml",
		"nul\x00.xml",
		"bad\xff\xfe.xml",
		"..", // the parent folder: passed over silently
		strings.Repeat("long", 60) + ".xml",
	}
	drv := &hostileDriver{Driver: fd, fake: fake}
	lb := &logBuffer{}
	c := soapftp.NewClient(serveDriver(t, drv), testUser, testPass)
	t.Cleanup(func() { c.Close() })
	p, err := soapftp.NewPoller(c, "/ep", soapftp.WithLogger(lb.logger()), soapftp.WithPollInterval(5*time.Millisecond), soapftp.WithMaxPollInterval(10*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	good := ping(core.V12, "real file")
	data := envelope(t, good)
	require.NoError(t, os.WriteFile(path.Join(root, "ep/inbox/real.xml"), data, 0o644))

	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, good.ID, d.Message().ID)
	require.NoError(t, d.Ack(ctx(t)))
	c2, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	_, err = p.Receive(c2)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)

	for _, touched := range drv.paths() {
		for _, f := range fake {
			if f == ".." || drop.Nameable(f) {
				continue // a long name is safe to send: its move to quarantine/ was tried
			}
			assert.NotContains(t, touched, strings.Trim(path.Base(f), "/"), "a command touched %q", touched)
		}
		assert.True(t, strings.HasPrefix(touched, "/ep/") || touched == "/ep" || touched == "/", "a command touched %q, outside the endpoint", touched)
	}
	for _, reason := range []string{"path separator", "control character", "not valid UTF-8", "longer than"} {
		assert.Contains(t, lb.String(), reason)
	}
	assert.Equal(t, len(fake)-1, strings.Count(lb.String(), "file skipped"), "one line per odd name but \"..\":\n%s", lb)
}

// stuckDriver is a file driver that refuses to rename one file and counts
// the inbox listings.
type stuckDriver struct {
	server.Driver
	stuck    string
	listings atomic.Int32
}

func (d *stuckDriver) ListDir(ctx *server.Context, p string, cb func(os.FileInfo) error) error {
	if path.Base(p) == "inbox" {
		d.listings.Add(1)
	}
	return d.Driver.ListDir(ctx, p, cb)
}

func (d *stuckDriver) Rename(ctx *server.Context, from, to string) error {
	if path.Base(from) == d.stuck {
		return os.ErrPermission
	}
	return d.Driver.Rename(ctx, from, to)
}

// TestUnclaimableFileNoSpin: a file the server will not let the Poller
// move stays in the inbox; the Poller does not hammer the server listing
// it again and again, and still takes the other files.
func TestUnclaimableFileNoSpin(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"inbox", "work", "outbox", "failed"} {
		require.NoError(t, os.MkdirAll(path.Join(root, "ep", d), 0o755))
	}
	fd, err := file.NewDriver(root)
	require.NoError(t, err)
	drv := &stuckDriver{Driver: fd, stuck: "stuck.xml"}
	c := soapftp.NewClient(serveDriver(t, drv), testUser, testPass)
	t.Cleanup(func() { c.Close() })
	p, err := soapftp.NewPoller(c, "/ep", soapftp.WithPollInterval(50*time.Millisecond), soapftp.WithMaxPollInterval(50*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	good := ping(core.V11, "movable")
	require.NoError(t, os.WriteFile(path.Join(root, "ep/inbox/stuck.xml"), envelope(t, ping(core.V11, "stuck")), 0o644))
	require.NoError(t, os.WriteFile(path.Join(root, "ep/inbox/good.xml"), envelope(t, good), 0o644))

	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, good.ID, d.Message().ID)
	require.NoError(t, d.Ack(ctx(t)))

	before := drv.listings.Load()
	c2, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	_, err = p.Receive(c2)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	listings := drv.listings.Load() - before
	// About 6 at one listing per 50 ms; a Poller that spins lists thousands.
	assert.Less(t, listings, int32(50), "%d listings in 300 ms", listings)
	_, err = os.Stat(path.Join(root, "ep/inbox/stuck.xml"))
	assert.NoError(t, err, "the stuck file stays where it is")
}

// TestIdleBackoff: an empty inbox is listed less and less often, from the
// poll interval up to its limit, and at once again after a file arrives.
func TestIdleBackoff(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"inbox", "work", "outbox", "failed"} {
		require.NoError(t, os.MkdirAll(path.Join(root, "ep", d), 0o755))
	}
	fd, err := file.NewDriver(root)
	require.NoError(t, err)
	drv := &stuckDriver{Driver: fd}
	c := soapftp.NewClient(serveDriver(t, drv), testUser, testPass)
	t.Cleanup(func() { c.Close() })
	p, err := soapftp.NewPoller(c, "/ep", soapftp.WithPollInterval(20*time.Millisecond), soapftp.WithMaxPollInterval(320*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })

	c1, cancel := context.WithTimeout(context.Background(), time.Second)
	_, err = p.Receive(c1)
	cancel()
	require.ErrorIs(t, err, context.DeadlineExceeded)
	// 20+40+80+160+320+320 ms: 6 or 7 listings in a second; without the
	// backoff, 50.
	idle := drv.listings.Load()
	assert.Less(t, idle, int32(20), "%d listings of an empty inbox in 1 s", idle)
	assert.Positive(t, idle)

	m := ping(core.V12, "wake up")
	require.NoError(t, os.WriteFile(path.Join(root, "ep/inbox/wake.xml"), envelope(t, m), 0o644))
	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	require.NoError(t, d.Ack(ctx(t)))
}
