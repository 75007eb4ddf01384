package ftp_test

import (
	"crypto/tls"
	"crypto/x509"
	"log/slog"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/bindings/ftp/ftptest"
	"github.com/soapwire/soapwire/core"
)

// TestLoginRefused: a wrong password is ErrLogin, logged with the backoff.
func TestLoginRefused(t *testing.T) {
	srv := startServer(t)
	lb := &logBuffer{}
	c := soapftp.NewClient(srv.Addr(), testUser, "wrong", soapftp.WithLogger(lb.logger()))
	t.Cleanup(func() { c.Close() })
	m := ping(core.V11, "x")
	m.To = srv.URL("/")
	err := soapftp.NewSender(c).Send(ctx(t), m)
	require.ErrorIs(t, err, soapftp.ErrLogin)
	lb.contains(t, "connect failed")
	lb.contains(t, "retry_in=100ms")
}

// TestReconnectWithBackoff: while the server is down, operations fail and
// dials back off; once it is up, the Client connects again by itself.
func TestReconnectWithBackoff(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close() // nothing listens there yet
	lb := &logBuffer{}
	c := soapftp.NewClient(addr, testUser, testPass, soapftp.WithLogger(lb.logger()), soapftp.WithDialTimeout(time.Second))
	t.Cleanup(func() { c.Close() })
	s := soapftp.NewSender(c)
	m := ping(core.V11, "x")
	m.To = "ftp://" + addr + "/"
	require.Error(t, s.Send(ctx(t), m))
	require.Error(t, s.Send(ctx(t), m))
	lb.contains(t, "retry_in=200ms") // the second failure doubled the backoff

	root := t.TempDir()
	srv, err := soapftp.StartServer(root, testUser, testPass, soapftp.WithListenAddr(addr))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.Eventually(t, func() bool { return s.Send(ctx(t), m) == nil }, 20*time.Second, 20*time.Millisecond)
	_, err = os.Stat(root + "/" + soapftp.FileName(m.ID))
	require.NoError(t, err)
}

// TestServerRestart: after the server restarts, the pooled connections are
// dead; the next Send notices, drops them, and succeeds on a fresh one
// without failing.
func TestServerRestart(t *testing.T) {
	root := t.TempDir()
	srv, err := soapftp.StartServer(root, testUser, testPass)
	require.NoError(t, err)
	addr := srv.Addr()
	lb := &logBuffer{}
	c := soapftp.NewClient(addr, testUser, testPass, soapftp.WithLogger(lb.logger()))
	t.Cleanup(func() { c.Close() })
	s := soapftp.NewSender(c)
	send := func() error {
		m := ping(core.V11, "x")
		m.To = "ftp://" + addr + "/"
		return s.Send(ctx(t), m)
	}
	require.NoError(t, send())
	require.NoError(t, srv.Close())
	srv, err = soapftp.StartServer(root, testUser, testPass, soapftp.WithListenAddr(addr))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	require.NoError(t, send(), "the first send after the restart")
	lb.contains(t, "retrying on a fresh one")
	require.NoError(t, send())
}

// TestClientClosed: operations on a closed Client fail with
// ErrClientClosed; a Poller on it ends with core.ErrClosed.
func TestClientClosed(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/closed")
	require.NoError(t, e.client.Close())
	m := ping(core.V11, "x")
	m.To = p.Address()
	require.ErrorIs(t, soapftp.NewSender(e.client).Send(ctx(t), m), soapftp.ErrClientClosed)
	_, err := p.Receive(ctx(t))
	require.ErrorIs(t, err, core.ErrClosed)
	require.NoError(t, e.client.Close(), "a second Close")
}

// TestEmbeddedFTPS: explicit FTPS (AUTH TLS, PROT P) against the embedded
// server: a message goes through, and the server saw the upgrade.
func TestEmbeddedFTPS(t *testing.T) {
	cert, der, _ := ftptest.SelfSigned(t)
	lb := &logBuffer{}
	debug := slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := soapftp.StartServer(t.TempDir(), testUser, testPass,
		soapftp.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}}), soapftp.WithLogger(debug))
	require.NoError(t, err)
	t.Cleanup(func() { srv.Close() })
	pool := x509.NewCertPool()
	c0, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool.AddCert(c0)
	c := soapftp.NewClient(srv.Addr(), testUser, testPass, soapftp.WithTLS(&tls.Config{RootCAs: pool}))
	t.Cleanup(func() { c.Close() })

	p, err := soapftp.NewPoller(c, "/secure", soapftp.WithPollInterval(5*time.Millisecond), soapftp.WithMaxPollInterval(20*time.Millisecond))
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	require.NoError(t, p.MakeLayout(ctx(t)))
	m := ping(core.V12, "encrypted")
	m.To = p.Address()
	require.NoError(t, soapftp.NewSender(c).Send(ctx(t), m))
	d, err := p.Receive(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, "encrypted", text(t, d.Message()))
	require.NoError(t, d.Ack(ctx(t)))
	log := lb.String()
	assert.Contains(t, log, "cmd=AUTH params=TLS")
	assert.Contains(t, log, "cmd=PROT params=P")
	assert.NotContains(t, log, "Ping", "message content never in the server's command log")
	assert.Contains(t, log, "cmd=PASS params=****")
	assert.NotContains(t, log, testPass, "the password never in the server's log")

	// A client that does not trust the certificate cannot log in.
	bad := soapftp.NewClient(srv.Addr(), testUser, testPass, soapftp.WithTLS(&tls.Config{}))
	t.Cleanup(func() { bad.Close() })
	err = soapftp.NewSender(bad).Send(ctx(t), m)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "certificate"), err.Error())
}

// TestPollerConfig: NewPoller refuses roots and layouts that are not
// folders below the root.
func TestPollerConfig(t *testing.T) {
	c := soapftp.NewClient("127.0.0.1:1", "u", "p")
	t.Cleanup(func() { c.Close() })
	tests := []struct {
		name   string
		root   string
		layout soapftp.Layout
		ok     bool
	}{
		{"Default", "/ep", soapftp.DefaultLayout(), true},
		{"Nested", "/a/b/c", soapftp.Layout{Inbox: "in/box", Work: "w", Failed: "f"}, true},
		{"RootUp", "/a/../..", soapftp.DefaultLayout(), false},
		{"RootControl", "/a\nb", soapftp.DefaultLayout(), false},
		{"NoInbox", "/ep", soapftp.Layout{Work: "w", Failed: "f"}, false},
		{"NoWork", "/ep", soapftp.Layout{Inbox: "i", Failed: "f"}, false},
		{"NoFailed", "/ep", soapftp.Layout{Inbox: "i", Work: "w"}, false},
		{"Same", "/ep", soapftp.Layout{Inbox: "i", Work: "i", Failed: "f"}, false},
		{"SameAfterClean", "/ep", soapftp.Layout{Inbox: "i", Work: "./i/", Failed: "f"}, false},
		{"Absolute", "/ep", soapftp.Layout{Inbox: "/i", Work: "w", Failed: "f"}, false},
		{"Escapes", "/ep", soapftp.Layout{Inbox: "../i", Work: "w", Failed: "f"}, false},
		{"IsRoot", "/ep", soapftp.Layout{Inbox: ".", Work: "w", Failed: "f"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := soapftp.NewPoller(c, tt.root, soapftp.WithLayout(tt.layout))
			if tt.ok {
				require.NoError(t, err)
				require.NotNil(t, p)
				return
			}
			require.Error(t, err)
		})
	}
}

func TestParseAddress(t *testing.T) {
	tests := []struct {
		in   string
		host string
		dir  string
		err  bool
	}{
		{"ftp://Example.ORG/drop/in", "example.org:21", "/drop/in", false},
		{"FTP://127.0.0.1:2121", "127.0.0.1:2121", "/", false},
		{"ftp://[::1]:21/x/", "[::1]:21", "/x", false},
		{"ftp://h/a%20b", "h:21", "/a b", false},
		{"ftp://h/a/./b//c", "h:21", "/a/b/c", false},
		{"ftp:relative", "", "", true},
		{"http://h/x", "", "", true},
		{"ftp://u@h/x", "", "", true},
		{"ftp://h/x?q", "", "", true},
		{"ftp://h/../x", "", "", true},
		{"ftp://h/a%5cb", "", "", true},
		{"ftp://h/a%00b", "", "", true},
		{"ftp:///x", "", "", true},
		{"::", "", "", true},
		{"ftp://::", "", "", true}, // found by FuzzParseAddress
		{"ftp://h:0/x", "", "", true},
		{"ftp://h:99999/x", "", "", true},
		{"ftp://-h/x", "", "", true},
		{"ftp://h%20x/x", "", "", true},
	}
	for _, tt := range tests {
		a, err := soapftp.ParseAddress(tt.in)
		if tt.err {
			require.ErrorIs(t, err, soapftp.ErrAddress, "%q", tt.in)
			continue
		}
		require.NoError(t, err, "%q", tt.in)
		assert.Equal(t, tt.host, a.Host, "%q", tt.in)
		assert.Equal(t, tt.dir, a.Dir, "%q", tt.in)
		b, err := soapftp.ParseAddress(a.String())
		require.NoError(t, err, "round trip of %q", a.String())
		assert.Equal(t, a, b)
	}
}

// TestPassiveModes: data connections use EPSV by default and PASV with
// WithEPSV(false).
func TestPassiveModes(t *testing.T) {
	for _, tt := range []struct {
		name      string
		epsv      bool
		want, not string
	}{
		{"EPSV", true, "cmd=EPSV", "cmd=PASV"},
		{"PASV", false, "cmd=PASV", "cmd=EPSV"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lb := &logBuffer{}
			debug := slog.New(slog.NewTextHandler(lb, &slog.HandlerOptions{Level: slog.LevelDebug}))
			srv, err := soapftp.StartServer(t.TempDir(), testUser, testPass, soapftp.WithLogger(debug))
			require.NoError(t, err)
			t.Cleanup(func() { srv.Close() })
			c := soapftp.NewClient(srv.Addr(), testUser, testPass, soapftp.WithEPSV(tt.epsv))
			t.Cleanup(func() { c.Close() })
			p, err := soapftp.NewPoller(c, "/modes", soapftp.WithPollInterval(5*time.Millisecond), soapftp.WithMaxPollInterval(20*time.Millisecond))
			require.NoError(t, err)
			t.Cleanup(func() { p.Close() })
			require.NoError(t, p.MakeLayout(ctx(t)))
			m := ping(core.V11, tt.name)
			m.To = p.Address()
			require.NoError(t, soapftp.NewSender(c).Send(ctx(t), m))
			d, err := p.Receive(ctx(t))
			require.NoError(t, err)
			assert.Equal(t, tt.name, text(t, d.Message()))
			require.NoError(t, d.Ack(ctx(t)))
			assert.Contains(t, lb.String(), tt.want)
			assert.NotContains(t, lb.String(), tt.not)
		})
	}
}
