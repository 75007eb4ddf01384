package imap_test

import (
	"testing"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestConformance runs core/coretest's Sender/Receiver and Serve suites
// over an Appender → embedded IMAP server → Receiver on loopback, each pair
// a fresh account. Persistent: a Receiver reopened on the same folder gets
// what was queued and what was left unsettled.
func TestConformance(t *testing.T) {
	srv := startServer(t)
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		addr := srv.newUser(t)
		return newAppender(t, addr), newReceiver(t, addr), addr
	}
	f := coretest.Features{
		ExactlyOnce: true,
		Persistent:  true,
		Reopen:      func(t *testing.T, addr string) core.Receiver { return newReceiver(t, addr) },
	}
	t.Run("SendReceive", func(t *testing.T) { coretest.TestSendReceive(t, f, newPair) })
	t.Run("Serve", func(t *testing.T) { coretest.TestServe(t, f, newPair) })
}

// TestConformanceVerdict runs coretest's verdict suite: each broken-tail
// envelope appended (by an independent IMAP client) to the inbox and served
// by core.Serve from the Receiver is answered at ReplyTo with the Sender
// fault, never with the handler's reply, and parked in the failed folder
// with its note, never Acked.
func TestConformanceVerdict(t *testing.T) {
	srv := startServer(t)
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		addr := srv.newUser(t)
		return newAppender(t, addr), newReceiver(t, addr), addr
	}
	coretest.TestVerdictServe(t, coretest.Features{}, newPair, func(t *testing.T, addr string, v core.Version, data []byte) error {
		c := rawClient(t, addr)
		appendRaw(t, c, "INBOX", "From: peer@example.org\nTo: svc@example.org\nContent-Type: "+v.MediaType()+"; charset=utf-8\n\n"+string(data)+"\n")
		return nil
	}, func(t *testing.T, addr string) int {
		n := 0
		for _, m := range folderMails(t, rawClient(t, addr), soapimap.DefaultFailedFolder) {
			if m.has(soapimap.NoteKeyword) {
				n++
			}
		}
		return n
	})
}
