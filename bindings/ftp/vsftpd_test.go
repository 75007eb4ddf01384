package ftp_test

import (
	"crypto/tls"
	"fmt"
	"os"
	"path"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/bindings/ftp/ftptest"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	os.Exit(coretest.RunWithPeerSummary(m))
}

// TestVsftpdConformance runs the coretest suites against Debian's vsftpd
// (started on loopback by ftptest; skipped without it unless
// SOAPWIRE_REQUIRE_PEERS=1).
func TestVsftpdConformance(t *testing.T) {
	v := ftptest.StartVsftpd(t, ftptest.Options{})
	c := soapftp.NewClient(v.Addr, v.User, v.Password)
	t.Cleanup(func() { c.Close() })
	lb := &logBuffer{}
	var n atomic.Int32
	poller := func(t *testing.T, root string) *soapftp.Poller {
		p, err := soapftp.NewPoller(c, root, soapftp.WithPollInterval(5e6), soapftp.WithMaxPollInterval(5e7), soapftp.WithLogger(lb.logger()))
		require.NoError(t, err)
		require.NoError(t, p.MakeLayout(ctx(t)))
		t.Cleanup(func() { p.Close() })
		return p
	}
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := poller(t, path.Join(v.Dir, fmt.Sprintf("pair-%d", n.Add(1))))
		return soapftp.NewSender(c), p, p.Address()
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

// TestVsftpdTLS sends and receives over explicit FTPS against vsftpd with
// TLS required for logins and data (and TLS session reuse on data
// connections, vsftpd's default).
func TestVsftpdTLS(t *testing.T) {
	v := ftptest.StartVsftpd(t, ftptest.Options{TLS: true})
	c := soapftp.NewClient(v.Addr, v.User, v.Password, soapftp.WithTLS(&tls.Config{RootCAs: v.RootCAs}))
	t.Cleanup(func() { c.Close() })
	p, err := soapftp.NewPoller(c, path.Join(v.Dir, "tls"), soapftp.WithPollInterval(5e6), soapftp.WithMaxPollInterval(5e7))
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	require.NoError(t, p.MakeLayout(ctx(t)))
	m := ping(core.V11, "over TLS")
	m.To = p.Address()
	require.NoError(t, soapftp.NewSender(c).Send(ctx(t), m))
	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	require.Equal(t, "over TLS", text(t, d.Message()))
	require.NoError(t, d.Ack(ctx(t)))

	// Without TLS the server refuses the login.
	plain := soapftp.NewClient(v.Addr, v.User, v.Password)
	t.Cleanup(func() { plain.Close() })
	m2 := ping(core.V11, "plain")
	m2.To = p.Address()
	require.Error(t, soapftp.NewSender(plain).Send(ctx(t), m2))
}
