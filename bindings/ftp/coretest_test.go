package ftp_test

import (
	"fmt"
	"path"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestConformance runs core/coretest's Sender/Receiver and Serve suites
// over the embedded server: each pair is a fresh endpoint, a Sender and a
// Poller sharing one Client. Files are claimed by rename, so each message
// arrives exactly once; a Nack parks the file (no redelivery); files and
// unsettled claims survive closing the Poller (Persistent: a new Poller on
// the endpoint gets them).
func TestConformance(t *testing.T) {
	e := newEnv(t)
	var n atomic.Int32
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		root := fmt.Sprintf("/pair-%d", n.Add(1))
		p := e.poller(t, root)
		return soapftp.NewSender(e.client), p, p.Address()
	}
	reopen := func(t *testing.T, addr string) core.Receiver {
		dir, err := e.client.Dir(addr)
		require.NoError(t, err)
		return e.poller(t, path.Dir(dir))
	}
	f := coretest.Features{ExactlyOnce: true, Persistent: true, Reopen: reopen}
	coretest.TestSendReceive(t, f, newPair)
	coretest.TestServe(t, f, newPair)
}

// TestConformanceSpoolOnDisk runs the Sender/Receiver suite with every
// download spooled to a temporary file instead of memory, and over a pool
// of one connection.
func TestConformanceSpoolOnDisk(t *testing.T) {
	e := newEnv(t, soapftp.WithPoolSize(1))
	var n atomic.Int32
	spool := t.TempDir()
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := e.poller(t, fmt.Sprintf("/disk-%d", n.Add(1)), soapftp.WithSpool(0, spool))
		return soapftp.NewSender(e.client), p, p.Address()
	}
	coretest.TestSendReceive(t, coretest.Features{ExactlyOnce: true}, newPair)
}

// TestConformanceVerdict runs coretest's verdict suite: each broken-tail
// envelope dropped as a file in the inbox is parked in failed/ with its
// fault, never Acked: the Poller parks a file that does not end with an
// Envelope end tag (cut off, text after the end) once it stops changing,
// on arrival; the others reach core.Serve, which answers the Sender fault
// at ReplyTo (the outbox folder of the reply endpoint), never the
// handler's reply, and Nacks the file as malformed.
func TestConformanceVerdict(t *testing.T) {
	e := newEnv(t)
	var n atomic.Int32
	roots := map[string]string{}
	var mu sync.Mutex
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		root := fmt.Sprintf("/verdict-%d", n.Add(1))
		p := e.poller(t, root)
		mu.Lock()
		roots[p.Address()] = root
		mu.Unlock()
		return soapftp.NewSender(e.client), p, p.Address()
	}
	rootOf := func(addr string) string {
		mu.Lock()
		defer mu.Unlock()
		return roots[addr]
	}
	var files atomic.Int32
	coretest.TestVerdictServe(t, coretest.Features{}, newPair, func(t *testing.T, addr string, v core.Version, data []byte) error {
		e.drop(t, path.Join(rootOf(addr), "inbox"), fmt.Sprintf("m%d.xml", files.Add(1)), data)
		return nil
	}, func(t *testing.T, addr string) int {
		n := 0
		for _, name := range e.files(t, path.Join(rootOf(addr), "failed")) {
			if strings.HasSuffix(name, ".fault.xml") {
				n++
			}
		}
		return n
	})
}
