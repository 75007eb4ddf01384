package sftp_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
)

// send sends one message to dir on srv through c.
func send(t *testing.T, c *soapsftp.Client, srv *soapsftp.Server, dir string) error {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(srv.Root(), dir), 0o755))
	m := ping(core.V11, "x")
	m.To = c.URL("/" + dir)
	return soapsftp.NewSender(c).Send(ctx(t), m)
}

// TestHostKeyVerification: the server's host key is always checked: a
// pinned key or a known_hosts entry that matches lets the Client in; an
// unknown host (no entry, no file) and a host with another key are refused
// before anything is sent, and the refusal says which.
func TestHostKeyVerification(t *testing.T) {
	srv := startServer(t)
	other := newKey(t).PublicKey()
	dir := t.TempDir()
	line := func(k ssh.PublicKey) string {
		return knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, k) + "\n"
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
		return p
	}
	good := write("good", line(srv.HostKey()))
	wrong := write("wrong", line(other))
	otherHost := write("other-host", knownhosts.Line([]string{"example.org"}, srv.HostKey())+"\n")
	for _, tc := range []struct {
		name string
		opt  soapsftp.ClientOption
		err  error
	}{
		{"pinned", soapsftp.WithHostKey(srv.HostKey()), nil},
		{"known_hosts", soapsftp.WithKnownHosts(good), nil},
		{"pinned other key", soapsftp.WithHostKey(other), soapsftp.ErrHostKey},
		{"known_hosts other key", soapsftp.WithKnownHosts(wrong), soapsftp.ErrHostKey},
		{"not in known_hosts", soapsftp.WithKnownHosts(otherHost), soapsftp.ErrUnknownHost},
		{"no known_hosts file", soapsftp.WithKnownHosts(filepath.Join(dir, "missing")), soapsftp.ErrUnknownHost},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := soapsftp.NewClient(srv.Addr(), testUser, soapsftp.WithPassword(testPass), tc.opt)
			t.Cleanup(func() { c.Close() })
			err := send(t, c, srv, "in")
			if tc.err == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.err)
		})
	}
}

// TestAuth: password and key logins; a wrong password, an unknown key and
// another user are ErrLogin, logged with the backoff.
func TestAuth(t *testing.T) {
	key := newKey(t)
	srv := startServer(t, soapsftp.WithAuthorizedKey(key.PublicKey()))
	for _, tc := range []struct {
		name string
		user string
		opts []soapsftp.ClientOption
		ok   bool
	}{
		{"password", testUser, []soapsftp.ClientOption{soapsftp.WithPassword(testPass)}, true},
		{"key", testUser, []soapsftp.ClientOption{soapsftp.WithKey(key)}, true},
		{"wrong password", testUser, []soapsftp.ClientOption{soapsftp.WithPassword("nope")}, false},
		{"unknown key", testUser, []soapsftp.ClientOption{soapsftp.WithKey(newKey(t))}, false},
		{"other user", "mallory", []soapsftp.ClientOption{soapsftp.WithPassword(testPass), soapsftp.WithKey(key)}, false},
		{"nothing", testUser, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lb := &logBuffer{}
			c := soapsftp.NewClient(srv.Addr(), tc.user, append(tc.opts, soapsftp.WithHostKey(srv.HostKey()), soapsftp.WithLogger(lb.logger()))...)
			t.Cleanup(func() { c.Close() })
			err := send(t, c, srv, "auth")
			if tc.ok {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, soapsftp.ErrLogin)
			assert.Contains(t, lb.String(), "retry_in=100ms")
		})
	}
}

// TestServerRestart: after the server restarts, the pooled connections are
// dead; the next Send notices, drops them, and succeeds on a fresh one.
func TestServerRestart(t *testing.T) {
	root := t.TempDir()
	key := newKey(t)
	srv, err := soapsftp.StartServer(root, testUser, soapsftp.WithPassword(testPass), soapsftp.WithServerKey(key))
	require.NoError(t, err)
	addr := srv.Addr()
	lb := &logBuffer{}
	c := soapsftp.NewClient(addr, testUser, soapsftp.WithPassword(testPass), soapsftp.WithHostKey(key.PublicKey()), soapsftp.WithLogger(lb.logger()))
	t.Cleanup(func() { c.Close() })
	require.NoError(t, send(t, c, srv, "r"))
	require.NoError(t, srv.Close())
	srv, err = soapsftp.StartServer(root, testUser, soapsftp.WithPassword(testPass), soapsftp.WithServerKey(key), soapsftp.WithListenAddr(addr))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.NoError(t, send(t, c, srv, "r"), "the first send after the restart")
	require.NoError(t, send(t, c, srv, "r"))
}

// TestReconnectWithBackoff: while the server is down, operations fail and
// dials back off; once it is up, the Client connects by itself.
func TestReconnectWithBackoff(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	key := newKey(t)
	lb := &logBuffer{}
	c := soapsftp.NewClient(addr, testUser, soapsftp.WithPassword(testPass), soapsftp.WithHostKey(key.PublicKey()), soapsftp.WithLogger(lb.logger()), soapsftp.WithDialTimeout(time.Second))
	t.Cleanup(func() { c.Close() })
	m := ping(core.V11, "x")
	m.To = "sftp://" + addr + "/"
	s := soapsftp.NewSender(c)
	require.Error(t, s.Send(ctx(t), m))
	require.Error(t, s.Send(ctx(t), m))
	assert.Contains(t, lb.String(), "retry_in=200ms")
	root := t.TempDir()
	srv, err := soapsftp.StartServer(root, testUser, soapsftp.WithPassword(testPass), soapsftp.WithServerKey(key), soapsftp.WithListenAddr(addr))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.Eventually(t, func() bool { return s.Send(ctx(t), m) == nil }, 20*time.Second, 20*time.Millisecond)
	_, err = os.Stat(filepath.Join(root, soapsftp.FileName(m.ID)))
	require.NoError(t, err)
}

// TestSilentServer: a server that accepts and says nothing never hangs a
// caller: the dial timeout bounds the handshake.
func TestSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	c := soapsftp.NewClient(l.Addr().String(), testUser, soapsftp.WithPassword(testPass), soapsftp.WithHostKey(newKey(t).PublicKey()), soapsftp.WithDialTimeout(200*time.Millisecond))
	t.Cleanup(func() { c.Close() })
	m := ping(core.V11, "x")
	m.To = "sftp://" + l.Addr().String() + "/"
	done := make(chan error, 1)
	go func() { done <- soapsftp.NewSender(c).Send(context.Background(), m) }()
	select {
	case err := <-done:
		require.Error(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(10 * time.Second):
		t.Fatal("Send hung on a silent server")
	}
}

// TestStalledDownload: a download the server stops answering does not stop
// the endpoint: the other files are received meanwhile, and the stalled one
// is cut off after the I/O timeout and returned to the inbox.
func TestStalledDownload(t *testing.T) {
	e := newEnv(t, soapsftp.WithIOTimeout(time.Second))
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	e.srv.SetStall(func(name string) <-chan struct{} {
		if strings.HasSuffix(name, ".stall.xml") {
			return release
		}
		return nil
	})
	p := e.poller(t, "/ep")
	require.NoError(t, os.WriteFile(e.path("ep/inbox/stall.xml"), envelope(t, ping(core.V11, "stalls")), 0o644))
	var ids []string
	for i := range 3 {
		m := ping(core.V11, "flows")
		ids = append(ids, m.ID)
		require.NoError(t, os.WriteFile(e.path("ep/inbox", fmt.Sprintf("f%d.xml", i)), envelope(t, m), 0o644))
	}
	var got []string
	for range ids {
		d, err := p.Receive(ctx(t))
		require.NoError(t, err)
		got = append(got, d.Message().ID)
		require.NoError(t, d.Ack(ctx(t)))
	}
	assert.ElementsMatch(t, ids, got)
	go p.Receive(ctx(t)) // serves the inbox until the test ends: the stalled file too
	// Cut off by the engine's stall limit or by the connection's I/O
	// timeout, whichever strikes first (both are the I/O timeout).
	require.Eventually(t, func() bool { return strings.Contains(e.log.String(), "download failed") }, 20*time.Second, 10*time.Millisecond, e.log.String())
	require.Eventually(t, func() bool {
		_, err := os.Stat(e.path("ep/inbox/stall.xml"))
		return err == nil
	}, 10*time.Second, 5*time.Millisecond, "returned to the inbox")
}

// TestForeignAddresses: a Sender refuses addresses on another server or
// for another account, and passwords in addresses.
func TestForeignAddresses(t *testing.T) {
	e := newEnv(t)
	s := soapsftp.NewSender(e.client)
	for _, tc := range []struct {
		to  string
		err error
	}{
		{"sftp://127.0.0.1:1/x", soapsftp.ErrForeignServer},
		{"sftp://mallory@" + e.srv.Addr() + "/x", soapsftp.ErrForeignServer},
		{"sftp://alice:pw@" + e.srv.Addr() + "/x", soapsftp.ErrAddress},
		{"sftp://" + e.srv.Addr() + "/a/../../x", soapsftp.ErrAddress},
		{"ftp://" + e.srv.Addr() + "/x", soapsftp.ErrAddress},
	} {
		m := ping(core.V11, "x")
		m.To = tc.to
		assert.ErrorIs(t, s.Send(ctx(t), m), tc.err, tc.to)
	}
}

// TestCheckAddress: the Sender says, before anything is sent, which
// addresses it can send to (core.Serve asks it about ReplyTo and FaultTo).
func TestCheckAddress(t *testing.T) {
	e := newEnv(t)
	s := soapsftp.NewSender(e.client)
	assert.NoError(t, s.CheckAddress(e.client.URL("/any/outbox")))
	assert.ErrorIs(t, s.CheckAddress("sftp://127.0.0.1:1/x"), soapsftp.ErrForeignServer)
	assert.ErrorIs(t, s.CheckAddress("sftp://alice:pw@"+e.srv.Addr()+"/x"), soapsftp.ErrAddress)
}
