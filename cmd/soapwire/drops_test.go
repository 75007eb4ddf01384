package main_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
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
