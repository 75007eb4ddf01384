package main_test

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
)

// readDrop reads the message stored in dir for id.
func readDrop(t *testing.T, dir, id string) got {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, soapfile.FileName(id)))
	require.NoError(t, err)
	defer f.Close()
	m, err := core.ReadMessage(f, core.Limits{MaxBytes: -1})
	require.NoError(t, err)
	g, err := capture(m)
	require.NoError(t, err)
	return g
}

// TestSendFileDrops: send to an sftp:// folder (the embedded SFTP server,
// its host key in a known_hosts file, the password from the environment)
// and to a file:// folder; the receipt names the stored file. Without a
// known host, a key or a password, or with another host's key, nothing is
// sent.
func TestSendFileDrops(t *testing.T) {
	file := writeFile(t, "order.xml", order)
	root := t.TempDir()
	srv, err := soapsftp.StartServer(root, "shop", soapsftp.WithPassword("s3cret"))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.NoError(t, os.MkdirAll(filepath.Join(root, "orders", "inbox"), 0o755))
	kh := filepath.Join(t.TempDir(), "known_hosts")
	require.NoError(t, os.WriteFile(kh, []byte(knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.HostKey())+"\n"), 0o600))
	local := t.TempDir()

	for _, tc := range []struct {
		name, to string
		args     []string
		env      []string
		dir      string
		meta     string
	}{
		{"sftp", srv.URL("/orders/inbox"), []string{"--sftp-known-hosts", kh}, []string{"SOAPWIRE_SFTP_PASSWORD=s3cret"}, filepath.Join(root, "orders", "inbox"), soapsftp.MetaFile},
		{"file", soapfile.URL(local), nil, nil, local, soapfile.MetaFile},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"send", "--to", tc.to, "--action", "urn:example:po:submit"}, tc.args...)
			res := invocation{args: append(args, file), env: tc.env}.run(t)
			require.Equal(t, 0, res.code, "%s", res)
			require.NotEmpty(t, field(t, res.stdout, tc.meta), "%s", res.stdout)
			g := readDrop(t, tc.dir, field(t, res.stdout, "message-id"))
			require.Equal(t, "urn:example:po:submit", g.action)
			require.Equal(t, orderBody, g.body)
		})
	}

	otherKH := filepath.Join(t.TempDir(), "known_hosts")
	require.NoError(t, os.WriteFile(otherKH, []byte(knownhosts.Line([]string{"example.org"}, srv.HostKey())+"\n"), 0o600))
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		code int
		says string
	}{
		{"unknown host", []string{"--sftp-known-hosts", otherKH}, []string{"SOAPWIRE_SFTP_PASSWORD=s3cret"}, 1, "unknown host"},
		{"no key or password", []string{"--sftp-known-hosts", kh}, nil, 2, "--sftp-key or $SOAPWIRE_SFTP_PASSWORD"},
		{"wrong password", []string{"--sftp-known-hosts", kh}, []string{"SOAPWIRE_SFTP_PASSWORD=nope"}, 1, "login refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"send", "--to", srv.URL("/orders/inbox"), "--timeout", "5s"}, tc.args...)
			res := invocation{args: append(args, file), env: tc.env}.run(t)
			require.Equal(t, tc.code, res.code, "%s", res)
			require.Contains(t, res.stderr, tc.says)
		})
	}
	ents, err := os.ReadDir(filepath.Join(root, "orders", "inbox"))
	require.NoError(t, err)
	require.Len(t, ents, 1, "only the first send stored a file")
}

// TestServeFileDrops: serve with an embedded SFTP server's endpoint and a
// local folder's, both echoing: a document sent to either inbox with no
// ReplyTo is answered in that endpoint's outbox; then serve stops cleanly.
func TestServeFileDrops(t *testing.T) {
	dir := t.TempDir()
	s := startServe(t, map[string]any{
		"handler": map[string]any{"type": "echo"},
		"sftp": map[string]any{
			"server":   map[string]any{"listen": "127.0.0.1:0", "root": filepath.Join(dir, "sftp"), "user": "shop", "password_env": "TEST_SFTP_PASSWORD"},
			"endpoint": "/orders",
		},
		"file": map[string]any{"endpoint": filepath.Join(dir, "drops", "orders")},
	}, "TEST_SFTP_PASSWORD=s3cret")
	require.Len(t, s.ready, 2, s.output())
	order := writeFile(t, "order.xml", order)

	for _, tc := range []struct {
		name, outbox string
		send         func() invocation
	}{
		{"file", filepath.Join(dir, "drops", "orders", "outbox"), func() invocation {
			return invocation{args: []string{"send", "--to", s.ready["file"], "--action", "urn:example:po:submit", order}}
		}},
		{"sftp", filepath.Join(dir, "sftp", "orders", "outbox"), func() invocation {
			// the embedded server's host key is new each run: pin it through a known_hosts file
			kh := knownHostsOf(t, s)
			return invocation{args: []string{"send", "--to", s.ready["sftp"], "--sftp-known-hosts", kh, "--action", "urn:example:po:submit", order},
				env: []string{"SOAPWIRE_SFTP_PASSWORD=s3cret"}}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.send().run(t)
			require.Equal(t, 0, res.code, "%s\n%s", res, s.output())
			id := field(t, res.stdout, "message-id")
			require.Eventually(t, func() bool {
				ents, _ := os.ReadDir(tc.outbox)
				for _, e := range ents {
					data, err := os.ReadFile(filepath.Join(tc.outbox, e.Name()))
					if err == nil && strings.Contains(string(data), id) {
						return true
					}
				}
				return false
			}, 20*time.Second, 20*time.Millisecond, "no reply to %s in %s:\n%s", id, tc.outbox, s.output())
		})
	}
	require.Equal(t, 0, s.stop(t), s.output())
}

// knownHostsOf writes a known_hosts file with the embedded SFTP server's
// host key, read from serve's log line.
func knownHostsOf(t *testing.T, s *serving) string {
	t.Helper()
	a, err := soapsftp.ParseAddress(s.ready["sftp"])
	require.NoError(t, err)
	m := regexp.MustCompile(`sftp server listening.*host_key=(SHA256:\S+)`).FindStringSubmatch(s.output())
	require.NotNil(t, m, s.output())
	key := scanHostKey(t, a.Host, m[1])
	p := filepath.Join(t.TempDir(), "known_hosts")
	require.NoError(t, os.WriteFile(p, []byte(knownhosts.Line([]string{knownhosts.Normalize(a.Host)}, key)+"\n"), 0o600))
	return p
}

// scanHostKey fetches host's key and checks it has the fingerprint serve
// logged (as a careful user does before trusting a key).
func scanHostKey(t *testing.T, host, fingerprint string) ssh.PublicKey {
	t.Helper()
	var got ssh.PublicKey
	_, _ = ssh.Dial("tcp", host, &ssh.ClientConfig{User: "x", HostKeyCallback: func(_ string, _ net.Addr, k ssh.PublicKey) error {
		got = k
		return errors.New("only the key was wanted")
	}, Timeout: 5 * time.Second})
	require.NotNil(t, got)
	require.Equal(t, fingerprint, ssh.FingerprintSHA256(got))
	return got
}

// TestServeOutboxDrops: serve on HTTP with outbox.sftp (an SFTP server
// elsewhere: its host key in known_hosts, the password from the
// environment) and outbox.file (a local folder) echoes each request to its
// ReplyTo, routed by scheme: an sftp:// ReplyTo is answered on the SFTP
// server, a file:// one in the folder; a ReplyTo outside outbox.file's
// root is refused before the handler runs (nothing written there).
func TestServeOutboxDrops(t *testing.T) {
	sftpRoot := t.TempDir()
	srv, err := soapsftp.StartServer(sftpRoot, "shop", soapsftp.WithPassword("s3cret"))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.NoError(t, os.MkdirAll(filepath.Join(sftpRoot, "replies"), 0o755))
	kh := filepath.Join(t.TempDir(), "known_hosts")
	require.NoError(t, os.WriteFile(kh, []byte(knownhosts.Line([]string{knownhosts.Normalize(srv.Addr())}, srv.HostKey())+"\n"), 0o600))
	local := t.TempDir()
	outside := t.TempDir()
	s := startServe(t, map[string]any{
		"handler": map[string]any{"type": "echo"},
		"http":    map[string]any{"listen": "127.0.0.1:0"},
		"outbox": map[string]any{
			"sftp": map[string]any{"addr": srv.Addr(), "user": "shop", "password_env": "TEST_OUT_SFTP_PASSWORD", "known_hosts": kh},
			"file": map[string]any{"root": local},
		},
		"policy": map[string]any{"private": true},
	}, "TEST_OUT_SFTP_PASSWORD=s3cret")
	order := writeFile(t, "order.xml", order)

	for _, tc := range []struct{ name, replyTo, dir string }{
		{"sftp", srv.URL("/replies"), filepath.Join(sftpRoot, "replies")},
		{"file", soapfile.URL(filepath.Join(local, "replies")), filepath.Join(local, "replies")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "file" {
				require.NoError(t, os.MkdirAll(tc.dir, 0o755))
			}
			res := invocation{args: []string{"send", "--to", s.ready["http"], "--reply-to", tc.replyTo, "--action", "urn:example:po:submit", order}}.run(t)
			require.Equal(t, 0, res.code, "%s\n%s", res, s.output())
			id := field(t, res.stdout, "message-id")
			require.Eventually(t, func() bool {
				ents, _ := os.ReadDir(tc.dir)
				for _, e := range ents {
					data, err := os.ReadFile(filepath.Join(tc.dir, e.Name()))
					if err == nil && strings.Contains(string(data), id) && strings.Contains(string(data), "RelatesTo") {
						return true
					}
				}
				return false
			}, 20*time.Second, 20*time.Millisecond, "no reply to %s in %s:\n%s", id, tc.dir, s.output())
		})
	}
	t.Run("outside the root", func(t *testing.T) {
		res := invocation{args: []string{"send", "--to", s.ready["http"], "--reply-to", soapfile.URL(outside), "--action", "urn:example:po:submit", order}}.run(t)
		require.Equal(t, 1, res.code, "%s", res)
		require.Contains(t, res.stderr, "Sender: reply address \""+soapfile.URL(outside)+"\" cannot be reached from here")
		ents, err := os.ReadDir(outside)
		require.NoError(t, err)
		require.Empty(t, ents)
	})
	require.Equal(t, 0, s.stop(t), s.output())
}
