package sftp_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh/knownhosts"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/bindings/sftp/sftptest"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestOpenSSHConformance runs the coretest suites against Debian's OpenSSH
// (sshd with internal-sftp, started on loopback by sftptest; skipped
// without it unless SOAPWIRE_REQUIRE_PEERS=1), logging in with the test
// key and checking the host key against a known_hosts file.
func TestOpenSSHConformance(t *testing.T) {
	d := sftptest.StartSSHD(t)
	kh := filepath.Join(t.TempDir(), "known_hosts")
	require.NoError(t, os.WriteFile(kh, []byte(knownhosts.Line([]string{knownhosts.Normalize(d.Addr)}, d.HostKey)+"\n"), 0o600))
	c := soapsftp.NewClient(d.Addr, d.User, soapsftp.WithKey(d.Key), soapsftp.WithKnownHosts(kh))
	t.Cleanup(func() { c.Close() })
	var n atomic.Int32
	poller := func(t *testing.T, root string) *soapsftp.Poller {
		p, err := soapsftp.NewPoller(c, root, soapsftp.WithPollInterval(5e6), soapsftp.WithMaxPollInterval(5e7))
		require.NoError(t, err)
		require.NoError(t, p.MakeLayout(ctx(t)))
		t.Cleanup(func() { p.Close() })
		return p
	}
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := poller(t, path.Join(d.Dir, fmt.Sprintf("pair-%d", n.Add(1))))
		return soapsftp.NewSender(c), p, p.Address()
	}
	reopen := func(t *testing.T, addr string) core.Receiver {
		dir, err := c.Dir(addr)
		require.NoError(t, err)
		return poller(t, path.Dir(dir))
	}
	f := coretest.Features{ExactlyOnce: true, Persistent: true, Reopen: reopen}
	coretest.TestSendReceive(t, f, newPair)
	coretest.TestServe(t, f, newPair)
	t.Run("Attachments", func(t *testing.T) { coretest.TestAttachmentsSendReceive(t, f, newPair) })
}

// TestOpenSSHPasswordAndPosixRename: a password login to OpenSSH; the
// server offers posix-rename@openssh.com, and the Client's fallback (SFTP's
// own rename, which OpenSSH makes atomic with link and unlink) works there
// too, a message sent twice replacing its file.
func TestOpenSSHPasswordAndPosixRename(t *testing.T) {
	d := sftptest.StartSSHD(t)
	c := soapsftp.NewClient(d.Addr, d.User, soapsftp.WithPassword(d.Password), soapsftp.WithHostKey(d.HostKey))
	t.Cleanup(func() { c.Close() })
	for _, tc := range []struct {
		name string
		s    *soapsftp.Sender
		p    func(root string) (*soapsftp.Poller, error)
	}{
		{"posix-rename", soapsftp.NewSender(c), func(root string) (*soapsftp.Poller, error) { return soapsftp.NewPoller(c, root) }},
		{"fallback", soapsftp.NewSenderWithoutPosixRename(c), func(root string) (*soapsftp.Poller, error) {
			return soapsftp.NewPollerWithoutPosixRename(c, root)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := tc.p(path.Join(d.Dir, tc.name))
			require.NoError(t, err)
			t.Cleanup(func() { p.Close() })
			require.NoError(t, p.MakeLayout(ctx(t)))
			m := ping(core.V12, "twice")
			m.To = p.Address()
			require.NoError(t, tc.s.Send(ctx(t), m))
			require.NoError(t, tc.s.Send(ctx(t), m), "the same message again replaces its file")
			dl, err := p.Receive(ctx(t))
			require.NoError(t, err)
			require.Equal(t, m.ID, dl.Message().ID)
			require.NoError(t, dl.Ack(ctx(t)))
			ents, err := os.ReadDir(filepath.Join(d.DiskDir, tc.name, "inbox"))
			require.NoError(t, err)
			require.Empty(t, ents)
		})
	}
}
