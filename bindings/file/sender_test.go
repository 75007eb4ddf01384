package file_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	"github.com/soapwire/soapwire/core"
)

// TestSendStoresFile: a message sent to a folder below the root appears
// there whole under FileName(id), with no temporary file left, and
// Meta[MetaFile] is its path.
func TestSendStoresFile(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a", "inbox"), 0o755))
	m := ping(core.V11, "stored")
	m.To = soapfile.URL(filepath.Join(root, "a", "inbox"))
	require.NoError(t, sender(t, root).Send(ctx(t), m))
	name := soapfile.FileName(m.ID)
	assert.Equal(t, []string{name}, names(t, filepath.Join(root, "a", "inbox")))
	assert.Equal(t, filepath.ToSlash(filepath.Join(root, "a", "inbox", name)), m.Meta[soapfile.MetaFile])
	data, err := os.ReadFile(filepath.Join(root, "a", "inbox", name))
	require.NoError(t, err)
	assert.Equal(t, string(envelope(t, m)), string(data))
	info, err := os.Stat(filepath.Join(root, "a", "inbox", name))
	require.NoError(t, err)
	assert.Zero(t, info.Mode().Perm()&0o007, "no access for others: %v", info.Mode())
}

// TestSendRefusals: addresses outside the root, a symbolic link below the
// root that leads out of it, a missing folder and a cancelled context are
// refused, and nothing is left behind.
func TestSendRefusals(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "in"), 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "escape")))
	s := sender(t, root)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name, to string
		ctx      context.Context
		err      error
		contains string
	}{
		{"outside", soapfile.URL(outside), ctx(t), soapfile.ErrOutsideRoot, ""},
		{"parent", "file://" + filepath.ToSlash(root) + "/../x", ctx(t), soapfile.ErrAddress, ".."},
		{"host", "file://example.org" + filepath.ToSlash(root), ctx(t), soapfile.ErrAddress, "localhost"},
		{"other scheme", "ftp://h/x", ctx(t), soapfile.ErrAddress, ""},
		{"symlink out", soapfile.URL(filepath.Join(root, "escape")), ctx(t), nil, "escapes"},
		{"missing folder", soapfile.URL(filepath.Join(root, "nope")), ctx(t), os.ErrNotExist, ""},
		{"cancelled", soapfile.URL(filepath.Join(root, "in")), cancelled, context.Canceled, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := ping(core.V12, "x")
			m.To = tc.to
			err := s.Send(tc.ctx, m)
			require.Error(t, err)
			if tc.err != nil {
				assert.ErrorIs(t, err, tc.err)
			}
			assert.Contains(t, err.Error(), tc.contains)
		})
	}
	assert.Empty(t, names(t, outside), "nothing written outside the root")
	assert.Empty(t, names(t, filepath.Join(root, "in")))
}

// TestTwoProcessesOneInbox is the claim across processes in one process's
// terms: two Pollers (two roots opened on one folder, as two processes
// would) serve one inbox of 500 files; each is received exactly once.
func TestTwoPollersExactlyOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ep")
	a, b := poller(t, dir), poller(t, dir)
	n := 500
	if testing.Short() {
		n = 100
	}
	for i := range n {
		drop(t, filepath.Join(dir, "inbox"), soapfile.FileName("id-"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+time.Now().Format("150405.000000000")), envelope(t, ping(core.V11, "x")))
	}
	got := make(chan string, 2*n)
	for _, p := range []*soapfile.Poller{a, b} {
		go func() {
			for {
				d, err := p.Receive(context.Background())
				if err != nil {
					return
				}
				got <- d.Message().Meta[soapfile.MetaFile]
				d.Ack(context.Background())
			}
		}()
	}
	seen := map[string]int{}
	for range n {
		select {
		case f := <-got:
			seen[f]++
		case <-time.After(30 * time.Second):
			t.Fatalf("received %d of %d", len(seen), n)
		}
	}
	require.Eventually(t, func() bool { return len(names(t, filepath.Join(dir, "work"))) == 0 }, 10*time.Second, 5*time.Millisecond)
	for f, c := range seen {
		assert.Equal(t, 1, c, "%s received %d times", f, c)
	}
	assert.Len(t, seen, n)
	assert.Empty(t, names(t, filepath.Join(dir, "inbox")))
}

func TestParseAddress(t *testing.T) {
	for _, tc := range []struct {
		in, dir string
		ok      bool
	}{
		{"file:///srv/drops/acme/inbox", "/srv/drops/acme/inbox", true},
		{"file://localhost/srv/x/", "/srv/x", true},
		{"FILE:///a//b/./c", "/a/b/c", true},
		{"file:///", "/", true},
		{"file://host/srv", "", false},
		{"file:relative", "", false},
		{"file:///a/../b", "", false},
		{"file:///a%0Ab", "", false},
		{"file:///a?x=1", "", false},
		{"file:///a#f", "", false},
		{"file://u@localhost/a", "", false},
		{"ftp:///a", "", false},
	} {
		a, err := soapfile.ParseAddress(tc.in)
		if !tc.ok {
			assert.ErrorIs(t, err, soapfile.ErrAddress, "%q", tc.in)
			continue
		}
		require.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.dir, a.Dir, "%q", tc.in)
		back, err := soapfile.ParseAddress(a.String())
		require.NoError(t, err)
		assert.Equal(t, a, back)
	}
}

// FuzzParseAddress: any input parses to an absolute clean folder without
// "..", or fails with ErrAddress.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"file:///a/b", "file://localhost/x", "file:///a/../b", "file://h/x", "file:///%2e%2e/x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := soapfile.ParseAddress(s)
		if err != nil {
			require.ErrorIs(t, err, soapfile.ErrAddress)
			return
		}
		require.True(t, strings.HasPrefix(a.Dir, "/"))
		require.NotContains(t, "/"+a.Dir+"/", "/../")
		back, err := soapfile.ParseAddress(a.String())
		require.NoError(t, err)
		require.Equal(t, a, back)
	})
}

// TestCheckAddress: the Sender says, before anything is sent, which
// addresses it can send to (core.Serve asks it about ReplyTo and FaultTo).
func TestCheckAddress(t *testing.T) {
	root := t.TempDir()
	s := sender(t, root)
	assert.NoError(t, s.CheckAddress(soapfile.URL(filepath.Join(root, "a", "outbox"))))
	assert.ErrorIs(t, s.CheckAddress(soapfile.URL(t.TempDir())), soapfile.ErrOutsideRoot)
	assert.ErrorIs(t, s.CheckAddress("file://evil.example/x"), soapfile.ErrAddress)
}
