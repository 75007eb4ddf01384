package imap_test

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/coretest"
)

// dovecot is a private Dovecot (Debian's dovecot-imapd) on 127.0.0.1, run
// by a test with its configuration, users and mail in a temporary folder.
type dovecot struct {
	imap, imaps string      // host:port of the STARTTLS and the TLS listener
	tls         *tls.Config // trusts its certificate
	caFile      string      // its certificate, PEM
	users       int
	next        int
}

// dovecotUsers is how many users a private Dovecot has: user1 … userN,
// password "secret".
const dovecotUsers = 200

// startDovecot starts a private Dovecot, or skips the test (fails it with
// SOAPWIRE_REQUIRE_PEERS=1) when Dovecot or root is missing. It is stopped
// when the test ends.
func startDovecot(t testing.TB) *dovecot {
	t.Helper()
	bin, err := exec.LookPath("dovecot")
	if err != nil {
		bin = "/usr/sbin/dovecot"
		if _, err2 := os.Stat(bin); err2 != nil {
			coretest.RequirePeer(t, "Dovecot", fmt.Errorf("%w (.ci/run installs dovecot-imapd; .ci/setup.d/imap.sh checks it)", err))
		}
	}
	if os.Geteuid() != 0 {
		coretest.RequirePeer(t, "Dovecot", errors.New("a private Dovecot needs root"))
	}
	base, err := os.MkdirTemp("", "sw-dovecot-") // short: Dovecot's sockets live under it
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(base) })
	require.NoError(t, os.Chmod(base, 0o755))
	_, client, certPEM, keyPEM := selfSigned(t)
	for _, d := range []string{"run", "state", "home"} {
		require.NoError(t, os.Mkdir(filepath.Join(base, d), 0o755))
	}
	require.NoError(t, os.Chown(filepath.Join(base, "home"), 65534, 65534))
	require.NoError(t, os.WriteFile(filepath.Join(base, "cert.pem"), certPEM, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(base, "key.pem"), keyPEM, 0o600))
	var passwd strings.Builder
	for i := 1; i <= dovecotUsers; i++ {
		fmt.Fprintf(&passwd, "user%d:{PLAIN}secret::::::\n", i)
	}
	require.NoError(t, os.WriteFile(filepath.Join(base, "passwd"), []byte(passwd.String()), 0o644))
	p1, p2 := freePorts(t)
	conf := fmt.Sprintf(`base_dir = %[1]s/run
state_dir = %[1]s/state
log_path = %[1]s/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = yes
ssl_cert = <%[1]s/cert.pem
ssl_key = <%[1]s/key.pem
disable_plaintext_auth = yes
auth_mechanisms = plain login
default_internal_user = dovecot
default_login_user = dovenull
mail_location = maildir:~/Maildir
first_valid_uid = 1
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%%u %[1]s/passwd
}
userdb {
  driver = static
  args = uid=65534 gid=65534 home=%[1]s/home/%%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = %[2]d
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = %[3]d
    ssl = yes
  }
}
service anvil {
  chroot =
}
protocol imap {
  mail_max_userip_connections = 1000
}
`, base, p1, p2)
	confPath := filepath.Join(base, "dovecot.conf")
	require.NoError(t, os.WriteFile(confPath, []byte(conf), 0o644))
	cmd := exec.Command(bin, "-F", "-c", confPath)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(base, "dovecot.log"))
			t.Logf("dovecot output:\n%s\nlog:\n%s", out, log)
		}
	})
	d := &dovecot{imap: fmt.Sprintf("127.0.0.1:%d", p1), imaps: fmt.Sprintf("127.0.0.1:%d", p2), tls: client, users: dovecotUsers,
		caFile: filepath.Join(base, "cert.pem")}
	deadline := time.Now().Add(20 * time.Second)
	for {
		c1, err1 := net.Dial("tcp", d.imap)
		c2, err2 := net.Dial("tcp", d.imaps)
		if err1 == nil {
			c1.Close()
		}
		if err2 == nil {
			c2.Close()
		}
		if err1 == nil && err2 == nil {
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(base, "dovecot.log"))
			t.Fatalf("Dovecot did not listen within 20 s: %v %v\n%s\n%s", err1, err2, out, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return d
}

// user returns the next unused user.
func (d *dovecot) user(t testing.TB) string {
	t.Helper()
	d.next++
	require.LessOrEqual(t, d.next, d.users, "out of Dovecot users")
	return fmt.Sprintf("user%d", d.next)
}

// url returns the address of user's INBOX: imap:// (STARTTLS) or imaps://.
func (d *dovecot) url(user string, implicit bool) string {
	if implicit {
		return "imaps://" + user + "@" + d.imaps + "/INBOX"
	}
	return "imap://" + user + "@" + d.imap + "/INBOX"
}

// freePorts returns two distinct free loopback ports.
func freePorts(t testing.TB) (int, int) {
	t.Helper()
	l1, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l1.Close()
	l2, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l2.Close()
	return l1.Addr().(*net.TCPAddr).Port, l2.Addr().(*net.TCPAddr).Port
}
