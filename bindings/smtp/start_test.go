package smtp_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// TestStartServer: StartServer listens on a free loopback port (or
// WithListenAddr), serves in the background and delivers, and Close stops
// it (a second Close is nil); its setup mistakes and an address it cannot
// listen on are errors.
func TestStartServer(t *testing.T) {
	mb, err := soapsmtp.OpenMaildir(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { mb.Close() })
	box := soapsmtp.WithAddresses("orders@example.test")

	t.Run("Serves", func(t *testing.T) {
		srv, err := soapsmtp.StartServer(mb, box)
		require.NoError(t, err)
		host, port, err := net.SplitHostPort(srv.Addr())
		require.NoError(t, err)
		assert.Equal(t, "127.0.0.1", host)
		assert.NotEqual(t, "0", port)

		s := newSender(t, srv.Addr(), soapsmtp.WithRetry(1, 0))
		m := ping(core.V12, "started")
		m.To = "mailto:orders@example.test"
		require.NoError(t, s.Send(ctxT(t), m))
		r := newReceiver(t, mb)
		d, err := r.Receive(ctxT(t))
		require.NoError(t, err)
		assert.Equal(t, m.ID, d.Message().ID)
		require.NoError(t, d.Ack(ctxT(t)))

		require.NoError(t, srv.Close())
		require.NoError(t, srv.Close(), "a second Close")
		_, err = net.Dial("tcp", srv.Addr())
		assert.Error(t, err, "nothing listens after Close")
	})
	t.Run("ListenAddr", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		srv, err := soapsmtp.StartServer(mb, box, soapsmtp.WithListenAddr(addr))
		require.NoError(t, err)
		t.Cleanup(func() { srv.Close() })
		assert.Equal(t, addr, srv.Addr())
		assert.Equal(t, "220", greeting(t, addr)[:3])
	})

	for _, tt := range []struct {
		name string
		mb   *soapsmtp.Maildir
		opts []soapsmtp.ServerOption
		want string
	}{
		{"NoMaildir", nil, []soapsmtp.ServerOption{box}, "nil Maildir"},
		{"NoAddresses", mb, nil, "needs WithAddresses"},
		{"RequireTLSWithoutTLS", mb, []soapsmtp.ServerOption{box, soapsmtp.WithRequireTLS()}, "WithRequireTLS needs WithTLS"},
		{"BadListenAddr", mb, []soapsmtp.ServerOption{box, soapsmtp.WithListenAddr("no-port")}, "listen no-port"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, err := soapsmtp.StartServer(tt.mb, tt.opts...)
			require.ErrorContains(t, err, tt.want)
			assert.Nil(t, srv)
		})
	}
}

// TestNewServerAddr: a Server from NewServer says the address it was made
// with until it serves, then its listener's; WithListenAddr takes the
// place of that address; Close leaves it to Serve's ctx.
func TestNewServerAddr(t *testing.T) {
	mb, err := soapsmtp.OpenMaildir(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { mb.Close() })
	box := soapsmtp.WithAddresses("orders@example.test")
	assert.Equal(t, "127.0.0.1:2525", soapsmtp.NewServer("127.0.0.1:2525", mb, box).Addr())
	assert.Equal(t, "127.0.0.1:2526", soapsmtp.NewServer("127.0.0.1:2525", mb, box, soapsmtp.WithListenAddr("127.0.0.1:2526")).Addr())

	srv := soapsmtp.NewServer("127.0.0.1:0", mb, box)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.ListenAndServe(ctx) }()
	require.Eventually(t, func() bool { return srv.Addr() != "127.0.0.1:0" }, 10*time.Second, 5*time.Millisecond)
	assert.Equal(t, "220", greeting(t, srv.Addr())[:3])
	require.NoError(t, srv.Close())
	assert.Equal(t, "220", greeting(t, srv.Addr())[:3], "Close does not stop a Server from NewServer")
	cancel()
	require.NoError(t, <-done)
}
