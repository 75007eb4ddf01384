package smtp_test

import (
	"strings"
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

// TestConformanceVerdict runs coretest's verdict suite: each broken-tail
// envelope mailed (by an independent SMTP client) to the Server and served
// by core.Serve from the Maildir's Receiver is answered at ReplyTo with
// the Sender fault, never with the handler's reply, and parked (failed/,
// with its fault), never Acked.
func TestConformanceVerdict(t *testing.T) {
	var servers sync.Map // mailto address → *testServer
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		srv := startServer(t, t.TempDir())
		servers.Store(srv.mailto, srv)
		return newSender(t, srv.addr), newReceiver(t, srv.mb), srv.mailto
	}
	coretest.TestVerdictServe(t, coretest.Features{}, newPair, func(t *testing.T, addr string, v core.Version, data []byte) error {
		s, ok := servers.Load(addr)
		require.True(t, ok, "no server for %s", addr)
		srv := s.(*testServer)
		mail := "From: peer@example.org\r\nTo: " + srv.box + "\r\nContent-Type: " + v.MediaType() + "; charset=utf-8\r\n\r\n" + string(data) + "\r\n"
		return rawMail(srv.addr, "peer@example.org", []string{srv.box}, mail)
	}, func(t *testing.T, addr string) int {
		// parked: in failed/, with its fault beside it
		s, ok := servers.Load(addr)
		require.True(t, ok, "no server for %s", addr)
		n := 0
		for _, name := range files(t, s.(*testServer).dir, "failed") {
			if strings.HasSuffix(name, ".fault.xml") {
				n++
			}
		}
		return n
	})
}
