package smtp_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestConformance runs core/coretest's Sender/Receiver and Serve suites
// over a Sender → Server → Maildir → Receiver on loopback, each pair with
// its own server and Maildir. Persistent: a Receiver reopened on the same
// folder gets what was queued and what was left unsettled.
func TestConformance(t *testing.T) {
	var dirs sync.Map // mailto address → Maildir folder
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		srv := startServer(t, t.TempDir())
		dirs.Store(srv.mailto, srv.dir)
		return newSender(t, srv.addr), newReceiver(t, srv.mb), srv.mailto
	}
	f := coretest.Features{
		ExactlyOnce: true,
		Persistent:  true,
		Reopen: func(t *testing.T, addr string) core.Receiver {
			dir, ok := dirs.Load(addr)
			require.True(t, ok, "no Maildir for %s", addr)
			mb, err := soapsmtp.OpenMaildir(dir.(string))
			require.NoError(t, err)
			return newReceiver(t, mb)
		},
	}
	t.Run("SendReceive", func(t *testing.T) { coretest.TestSendReceive(t, f, newPair) })
	t.Run("Serve", func(t *testing.T) { coretest.TestServe(t, f, newPair) })
}
