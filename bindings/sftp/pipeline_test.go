package sftp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pkg/sftp"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/drop"
	"github.com/soapwire/soapwire/bindings/sftp/sftptest"
)

// pipeServer is a server the pipelined paths are compared on: its Client,
// a fresh folder on it, and that folder on disk.
type pipeServer struct {
	name    string
	c       *Client
	dir     string              // an SFTP path
	disk    func(string) string // an SFTP path's file on disk
	asOwner bool                // the server runs as the files' owner, not root (a mode 000 file cannot be opened)
}

// mkdir makes the folder p and those above it below the server's folder,
// writable by everyone (the tests run as root, OpenSSH's sessions as its
// user).
func (s pipeServer) mkdir(t *testing.T, p string) {
	d := s.disk(p)
	require.NoError(t, os.MkdirAll(d, 0o777))
	for base := s.disk(s.dir); len(d) > len(base); d = filepath.Dir(d) {
		require.NoError(t, os.Chmod(d, 0o777))
	}
}

// embeddedPair starts an embedded server and a Client of it, both closed
// when t ends.
func embeddedPair(t *testing.T) (*Server, *Client) {
	srv, err := StartServer(t.TempDir(), "alice", WithPassword("secret"))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	c := NewClient(srv.Addr(), "alice", WithPassword("secret"), WithHostKey(srv.HostKey()))
	t.Cleanup(func() { c.Close() })
	return srv, c
}

func pipeServers(t *testing.T) []pipeServer {
	srv, ec := embeddedPair(t)
	d := sftptest.StartSSHD(t)
	oc := NewClient(d.Addr, d.User, WithKey(d.Key), WithHostKey(d.HostKey))
	t.Cleanup(func() { oc.Close() })
	return []pipeServer{
		{name: "embedded", c: ec, dir: "/", disk: func(p string) string { return srv.Root() + p }},
		{name: "openssh", c: oc, dir: d.Dir, disk: func(p string) string { return p }, asOwner: os.Geteuid() == 0},
	}
}

// outcome is what a step came to, in the terms the engine acts on.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, fs.ErrNotExist):
		return "missing"
	case errors.Is(err, fs.ErrPermission):
		return "refused"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	return "other: " + err.Error()
}

func listing(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	slices.Sort(names)
	return names
}

// TestPublishAsReference: drop.Store through sftpFS with the CLOSE and the
// rename sent together comes to what it comes to with each answer awaited
// (the reference): the same step failing in the same way, the same files
// left, the same bytes published; on the embedded server and on OpenSSH.
func TestPublishAsReference(t *testing.T) {
	body := bytes.Repeat([]byte("<x>published</x>"), 64)
	for _, s := range pipeServers(t) {
		t.Run(s.name, func(t *testing.T) {
			cases := []struct {
				name  string
				setup func(t *testing.T, dir string) (folder string)
				ctx   func() context.Context
			}{
				{name: "published", setup: func(t *testing.T, dir string) string {
					s.mkdir(t, dir)
					return dir
				}},
				{name: "replaces an older file", setup: func(t *testing.T, dir string) string {
					s.mkdir(t, dir)
					require.NoError(t, os.WriteFile(s.disk(path.Join(dir, "m.xml")), []byte("old"), 0o666))
					return dir
				}},
				{name: "no such folder", setup: func(t *testing.T, dir string) string {
					return path.Join(dir, "missing")
				}},
				{name: "final name is a folder", setup: func(t *testing.T, dir string) string {
					s.mkdir(t, path.Join(dir, "m.xml", "inside"))
					return dir
				}},
				{name: "context ended", setup: func(t *testing.T, dir string) string {
					s.mkdir(t, dir)
					return dir
				}, ctx: func() context.Context {
					c, cancel := context.WithCancel(context.Background())
					cancel()
					return c
				}},
			}
			for i, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					type result struct {
						outcome, step string
						files         []string
						published     []byte
					}
					run := func(plain bool) result {
						dir := path.Join(s.dir, "publish", strings.ReplaceAll(tc.name, " ", "-"), map[bool]string{true: "plain", false: "pipelined"}[plain])
						folder := tc.setup(t, dir)
						ctx := context.Background()
						if tc.ctx != nil {
							ctx = tc.ctx()
						}
						_, err := drop.Store(ctx, &sftpFS{c: s.c, plain: plain}, folder, "m.xml", bytes.NewReader(body), nil, Scheme)
						r := result{outcome: outcome(err), files: listing(t, s.disk(dir))}
						if err != nil {
							r.step, _, _ = strings.Cut(err.Error(), ":")
							r.step, _, _ = strings.Cut(r.step, " ")
						}
						r.published, _ = os.ReadFile(s.disk(path.Join(dir, "m.xml")))
						return r
					}
					want, got := run(true), run(false)
					assert.Equal(t, want, got, "case %d", i)
					if tc.name == "published" || tc.name == "replaces an older file" {
						assert.Equal(t, body, got.published)
					}
				})
			}
		})
	}
}

// TestRenameOpenAsReference: a claim with the OPEN sent right after the
// rename (RenameOpen) comes to what Rename and then Open come to: the same
// errors for the rename and the open, the same bytes read, the file where
// the rename put it; on the embedded server and on OpenSSH.
func TestRenameOpenAsReference(t *testing.T) {
	body := bytes.Repeat([]byte("<x>claimed</x>"), 100)
	for _, s := range pipeServers(t) {
		t.Run(s.name, func(t *testing.T) {
			cases := []struct {
				name  string
				setup func(t *testing.T, from, to string)
				skip  bool
			}{
				{name: "claimed", setup: func(t *testing.T, from, to string) {
					require.NoError(t, os.WriteFile(s.disk(from), body, 0o666))
				}},
				{name: "claimed by another first", setup: func(t *testing.T, from, to string) {}},
				{name: "no work folder", setup: func(t *testing.T, from, to string) {
					require.NoError(t, os.WriteFile(s.disk(from), body, 0o666))
					require.NoError(t, os.Remove(s.disk(path.Dir(to))))
				}},
				{name: "unreadable", skip: !s.asOwner, setup: func(t *testing.T, from, to string) {
					require.NoError(t, os.WriteFile(s.disk(from), body, 0o000))
				}},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					if tc.skip {
						t.Skip("the server runs as root here: a mode 000 file opens")
					}
					type result struct {
						rename, open string
						read         []byte
						from, to     []string
					}
					run := func(plain bool) result {
						dir := path.Join(s.dir, "claim", strings.ReplaceAll(tc.name, " ", "-"), map[bool]string{true: "plain", false: "pipelined"}[plain])
						s.mkdir(t, path.Join(dir, "inbox"))
						s.mkdir(t, path.Join(dir, "work"))
						from, to := path.Join(dir, "inbox", "m.xml"), path.Join(dir, "work", "m.xml.claim")
						tc.setup(t, from, to)
						f := &sftpFS{c: s.c, plain: plain}
						ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
						defer cancel()
						rc, rerr, oerr := f.RenameOpen(ctx, ctx, from, to)
						r := result{rename: outcome(rerr), open: outcome(oerr)}
						if rc != nil {
							var err error
							r.read, err = io.ReadAll(rc)
							require.NoError(t, err)
							require.NoError(t, rc.Close())
						} else {
							assert.False(t, rerr == nil && oerr == nil, "no reader and no error")
						}
						r.from, r.to = listing(t, s.disk(path.Dir(from))), listing(t, s.disk(path.Dir(to)))
						if rerr == nil {
							require.NoError(t, f.Remove(ctx, to)) // waits for a CLOSE sent behind
						}
						return r
					}
					want, got := run(true), run(false)
					assert.Equal(t, want, got)
					if tc.name == "claimed" {
						assert.Equal(t, body, got.read)
					}
				})
			}
		})
	}
}

// TestInOrderInFlightTogether: inOrder sends the second request once the
// first is written, before the first's answer: a first request whose
// answer comes only after the second was sent does not hold it up. When
// the first returns without writing, the second still goes.
func TestInOrderInFlightTogether(t *testing.T) {
	pw := &packetWriter{w: nopCloser{io.Discard}}
	secondSent := make(chan struct{})
	first := func() error {
		pw.Write([]byte("first request"))
		select {
		case <-secondSent: // the answer comes after the second request left
			return nil
		case <-time.After(5 * time.Second):
			return errors.New("the second request waited for the first's answer")
		}
	}
	second := func() error {
		close(secondSent)
		_, err := pw.Write([]byte("second request"))
		return err
	}
	err1, err2 := inOrder(pw, first, second)
	require.NoError(t, err1)
	require.NoError(t, err2)

	refused := errors.New("refused before sending")
	ran := false
	err1, err2 = inOrder(pw, func() error { return refused }, func() error { ran = true; return nil })
	assert.ErrorIs(t, err1, refused)
	assert.NoError(t, err2)
	assert.True(t, ran)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// TestClosedWaitsForCloseBehind: a rename or removal of a file whose
// download is being closed behind waits for the CLOSE's answer (a server
// that does not remove an open file must see it closed), or for its
// context.
func TestClosedWaitsForCloseBehind(t *testing.T) {
	f := &sftpFS{}
	done := f.closing("/work/a")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	assert.ErrorIs(t, f.closed(ctx, "/work/a"), context.DeadlineExceeded, "the CLOSE is still out")
	assert.NoError(t, f.closed(ctx, "/work/b"), "another file does not wait")
	waited := make(chan error, 1)
	go func() { waited <- f.closed(context.Background(), "/work/a") }()
	select {
	case <-waited:
		t.Fatal("did not wait for the CLOSE")
	case <-time.After(20 * time.Millisecond):
	}
	close(done)
	require.NoError(t, <-waited)
}

// TestPublishRetriesRefusedRename: a server that refuses to rename a file
// it still has open (Windows does; one that took the CLOSE and the rename
// out of order would) refuses the rename sent with the CLOSE: Publish
// sends it once more after the CLOSE's answer, and the file is published.
// A rename refused again fails the upload, as in the plain order.
func TestPublishRetriesRefusedRename(t *testing.T) {
	srv, c := embeddedPair(t)
	refusals := map[string]int{}
	var mu sync.Mutex
	limit := 1
	srv.h.refuseRename = func(from string) error {
		mu.Lock()
		defer mu.Unlock()
		if refusals[from] < limit {
			refusals[from]++
			return sftp.ErrSSHFxPermissionDenied
		}
		return nil
	}
	require.NoError(t, os.Mkdir(filepath.Join(srv.Root(), "out"), 0o777))
	_, err := drop.Store(context.Background(), &sftpFS{c: c}, "/out", "m.xml", strings.NewReader("<m/>"), nil, Scheme)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(srv.Root(), "out", "m.xml"))
	require.NoError(t, err)
	assert.Equal(t, "<m/>", string(got))
	assert.Len(t, refusals, 1, "the rename was refused once")

	limit = 2
	_, err = drop.Store(context.Background(), &sftpFS{c: c}, "/out", "n.xml", strings.NewReader("<n/>"), nil, Scheme)
	require.ErrorIs(t, err, fs.ErrPermission)
	assert.Contains(t, err.Error(), "rename")
	assert.Equal(t, []string{"m.xml"}, listing(t, filepath.Join(srv.Root(), "out")), "nothing published, the temporary file removed")
}

// TestRenameOpenRetriesOpenThatFoundNothing: a server that took the OPEN
// sent with a claim before the claim's rename (so the OPEN found nothing)
// gets the OPEN once more, after the rename's answer: the claim is read
// whole. An OPEN that finds nothing again is the open's error, the claim
// standing.
func TestRenameOpenRetriesOpenThatFoundNothing(t *testing.T) {
	srv, c := embeddedPair(t)
	var mu sync.Mutex
	opens := map[string]int{}
	limit := 1
	srv.h.refuseOpen = func(p string) error {
		mu.Lock()
		defer mu.Unlock()
		opens[p]++
		if opens[p] <= limit {
			return sftp.ErrSSHFxNoSuchFile // as if the rename had not happened yet
		}
		return nil
	}
	for _, d := range []string{"inbox", "work"} {
		require.NoError(t, os.Mkdir(filepath.Join(srv.Root(), d), 0o777))
	}
	body := []byte("<m>claimed</m>")
	require.NoError(t, os.WriteFile(filepath.Join(srv.Root(), "inbox", "a.xml"), body, 0o666))
	f := &sftpFS{c: c}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rc, rerr, oerr := f.RenameOpen(ctx, ctx, "/inbox/a.xml", "/work/a.claim")
	require.NoError(t, rerr)
	require.NoError(t, oerr)
	got, err := io.ReadAll(rc)
	require.NoError(t, err)
	require.NoError(t, rc.Close())
	assert.Equal(t, body, got)
	assert.Equal(t, 2, opens["/work/a.claim"], "opened again after the rename's answer")

	mu.Lock()
	limit = 2
	mu.Unlock()
	require.NoError(t, os.WriteFile(filepath.Join(srv.Root(), "inbox", "b.xml"), body, 0o666))
	rc, rerr, oerr = f.RenameOpen(ctx, ctx, "/inbox/b.xml", "/work/b.claim")
	assert.Nil(t, rc)
	require.NoError(t, rerr, "the claim stands")
	require.ErrorIs(t, oerr, fs.ErrNotExist)
	assert.Equal(t, []string{"a.claim", "b.claim"}, listing(t, filepath.Join(srv.Root(), "work")))
}

// TestPublishUndoesRenameOfFailedClose: a CLOSE that fails after its
// upload (the server could not finish the file) while the rename sent with
// it went through: Publish removes the file from its final name again and
// fails with the upload's error, so nothing is left published, as in the
// plain order (which never renames). When that removal is refused too, the
// error says the file is still published, under which name.
func TestPublishUndoesRenameOfFailedClose(t *testing.T) {
	srv, c := embeddedPair(t)
	var mu sync.Mutex
	var calls []string
	srv.h.trace = func(method, p, target string, err error) {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, fmt.Sprintf("%s %s %s %v", method, p, target, err == nil))
	}
	closeFailed := errors.New("disk full at close")
	srv.h.failClose = func(p string) error { return closeFailed }
	out := filepath.Join(srv.Root(), "out")
	require.NoError(t, os.Mkdir(out, 0o777))

	for _, plain := range []bool{true, false} {
		name := map[bool]string{true: "plain.xml", false: "m.xml"}[plain]
		_, err := drop.Store(context.Background(), &sftpFS{c: c, plain: plain}, "/out", name, strings.NewReader("<m/>"), nil, Scheme)
		require.Error(t, err, "plain %v", plain)
		assert.NotContains(t, err.Error(), "rename", "plain %v: the upload's error", plain)
		assert.Empty(t, listing(t, out), "plain %v: nothing published, nothing left", plain)
	}
	mu.Lock()
	renamed := false
	for _, c := range calls {
		renamed = renamed || strings.HasPrefix(c, "PosixRename /out/.") && strings.HasSuffix(c, " /out/m.xml true")
	}
	assert.True(t, renamed, "the rename went with the CLOSE: %q", calls)
	assert.Contains(t, calls, "Remove /out/m.xml  true", "and was undone")
	calls = nil
	mu.Unlock()

	srv.h.refuseRemove = func(p string) error {
		if path.Base(p) == "kept.xml" {
			return sftp.ErrSSHFxPermissionDenied
		}
		return nil
	}
	_, err := drop.Store(context.Background(), &sftpFS{c: c}, "/out", "kept.xml", strings.NewReader("<m/>"), nil, Scheme)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "still published as kept.xml")
	assert.Equal(t, []string{"kept.xml"}, listing(t, out))
}
