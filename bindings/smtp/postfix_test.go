package smtp_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// requirePostfix skips the test (or fails it, with SOAPWIRE_REQUIRE_PEERS=1)
// when Postfix or root is missing, and returns the postfix user's uid.
func requirePostfix(t *testing.T) int {
	t.Helper()
	skip := func(err error) {
		coretest.RequirePeer(t, "Postfix", fmt.Errorf("%w (.ci/setup.d/smtp.sh installs it)", err))
	}
	if _, err := exec.LookPath("postfix"); err != nil {
		skip(err)
	}
	if _, err := os.Stat("/etc/postfix/master.cf"); err != nil {
		skip(err)
	}
	if os.Geteuid() != 0 {
		skip(errors.New("a private Postfix instance needs root"))
	}
	u, err := user.Lookup("postfix")
	if err != nil {
		skip(err)
	}
	uid, err := strconv.Atoi(u.Uid)
	require.NoError(t, err)
	return uid
}

// smtpInet is the smtpd line of Debian's master.cf.
var smtpInet = regexp.MustCompile(`(?m)^smtp\s+inet\s.*$`)

// startPostfix runs a private Postfix on 127.0.0.1 that accepts mail for
// @soap.test and delivers it with virtual(8) into the Maildir
// <base>/vmail/box/, owned by nobody. It returns the SMTP address and the
// Maildir's folder; the instance is stopped when the test ends.
func startPostfix(t *testing.T) (addr, maildir string) {
	t.Helper()
	postfixUID := requirePostfix(t)
	base := t.TempDir()
	for d := base; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		require.NoError(t, os.Chmod(d, 0o755)) // virtual(8) runs as nobody and must reach vmail/
	}
	conf, spool, data, vmail := filepath.Join(base, "conf"), filepath.Join(base, "spool"), filepath.Join(base, "data"), filepath.Join(base, "vmail")
	for _, d := range []string{conf, spool, data, vmail} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	require.NoError(t, os.Chown(data, postfixUID, -1))
	require.NoError(t, os.Chown(vmail, 65534, 65534))

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr = l.Addr().String()
	l.Close()

	master, err := os.ReadFile("/etc/postfix/master.cf")
	require.NoError(t, err)
	require.True(t, smtpInet.Match(master), "no smtp inet line in /etc/postfix/master.cf")
	master = smtpInet.ReplaceAll(master, []byte(addr+" inet n - n - - smtpd"))
	require.NoError(t, os.WriteFile(filepath.Join(conf, "master.cf"), master, 0o644))
	mainCF := fmt.Sprintf(`compatibility_level = 3.6
queue_directory = %s
data_directory = %s
mail_owner = postfix
myhostname = mx.soap.test
mydomain = soap.test
myorigin = soap.test
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
virtual_mailbox_domains = soap.test
virtual_mailbox_base = %s
virtual_mailbox_maps = static:box/
virtual_uid_maps = static:65534
virtual_gid_maps = static:65534
maillog_file = /dev/stdout
alias_maps =
alias_database =
smtputf8_enable = no
biff = no
`, spool, data, vmail)
	require.NoError(t, os.WriteFile(filepath.Join(conf, "main.cf"), []byte(mainCF), 0o644))

	var log bytes.Buffer
	cmd := exec.Command("postfix", "-c", conf, "start-fg")
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		out, err := exec.Command("postfix", "-c", conf, "stop").CombinedOutput()
		if err != nil {
			t.Logf("postfix stop: %v: %s", err, out)
			cmd.Process.Kill()
		}
		cmd.Wait()
		if t.Failed() {
			t.Logf("postfix log:\n%s", log.String())
		}
	})
	require.Eventually(t, func() bool {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "postfix did not listen on %s", addr)
	return addr, filepath.Join(vmail, "box")
}

// TestPostfixDeliversIntoTheMaildir: a real MTA in front. The Sender
// submits to Postfix, Postfix's virtual(8) delivers into a Maildir, and
// the Receiver takes the message from there, with the trace headers
// Postfix wrote.
func TestPostfixDeliversIntoTheMaildir(t *testing.T) {
	addr, dir := startPostfix(t)
	s, err := soapsmtp.NewSender(addr, "client@example.org")
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	var ids []string
	for _, v := range []core.Version{core.V11, core.V12} {
		m := ping(v, "via postfix "+v.String())
		m.To, m.ReplyTo = "mailto:box@soap.test", "mailto:replies@example.org"
		require.NoError(t, s.Send(ctxT(t), m))
		assert.Regexp(t, `queued as [0-9A-F]+`, m.Meta[soapsmtp.MetaQueuedAs], "Postfix's queue id")
		ids = append(ids, m.ID)
	}
	require.Eventually(t, func() bool {
		entries, err := os.ReadDir(filepath.Join(dir, soapsmtp.FolderNew))
		return err == nil && len(entries) == len(ids)
	}, 30*time.Second, 50*time.Millisecond, "Postfix delivered into %s", dir)

	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	r := newReceiver(t, mb)
	got := map[string]bool{}
	for range ids {
		d, err := r.Receive(ctxT(t))
		require.NoError(t, err)
		m := d.Message()
		got[m.ID] = true
		assert.Equal(t, "via postfix "+m.Version().String(), bodyText(t, m))
		assert.Equal(t, "urn:test:ping", m.Action)
		assert.Equal(t, "mailto:replies@example.org", m.ReplyTo)
		assert.Equal(t, "client@example.org", m.Meta[soapsmtp.MetaReturnPath], "Return-Path written by Postfix")
		assert.Equal(t, "box@soap.test", m.Meta[soapsmtp.MetaDeliveredTo], "Delivered-To written by Postfix")
		require.NoError(t, d.Ack(ctxT(t)))
	}
	for _, id := range ids {
		assert.True(t, got[id], "received %s", id)
	}
}
