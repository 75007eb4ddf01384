package file_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	os.Exit(coretest.RunWithPeerSummary(m))
}

// TestConformance runs core/coretest's Sender/Receiver and Serve suites on
// local folders: each pair is a fresh endpoint below one root, a Sender on
// the root and a Poller on the endpoint. Files are claimed by rename, so
// each message arrives exactly once; a Nack parks the file; files and
// unsettled claims survive closing the Poller.
func TestConformance(t *testing.T) {
	root := t.TempDir()
	s := sender(t, root)
	var n atomic.Int32
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := poller(t, filepath.Join(root, fmt.Sprintf("pair-%d", n.Add(1))))
		return s, p, p.Address()
	}
	reopen := func(t *testing.T, addr string) core.Receiver {
		a, err := soapfile.ParseAddress(addr)
		require.NoError(t, err)
		return poller(t, filepath.Dir(filepath.FromSlash(a.Dir)))
	}
	f := coretest.Features{ExactlyOnce: true, Persistent: true, Reopen: reopen}
	coretest.TestSendReceive(t, f, newPair)
	coretest.TestServe(t, f, newPair)
}

// TestConformanceSpoolOnDisk runs the Sender/Receiver suite with every
// file spooled to a temporary file.
func TestConformanceSpoolOnDisk(t *testing.T) {
	root := t.TempDir()
	s := sender(t, root)
	spool := t.TempDir()
	var n atomic.Int32
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := poller(t, filepath.Join(root, fmt.Sprintf("disk-%d", n.Add(1))), soapfile.WithSpool(0, spool))
		return s, p, p.Address()
	}
	coretest.TestSendReceive(t, coretest.Features{ExactlyOnce: true}, newPair)
}

// TestConformanceVerdict runs coretest's verdict suite: each broken-tail
// envelope dropped in the inbox is parked in failed/ with its fault, never
// Acked.
func TestConformanceVerdict(t *testing.T) {
	root := t.TempDir()
	s := sender(t, root)
	var n atomic.Int32
	var mu sync.Mutex
	dirs := map[string]string{}
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		dir := filepath.Join(root, fmt.Sprintf("verdict-%d", n.Add(1)))
		p := poller(t, dir)
		mu.Lock()
		dirs[p.Address()] = dir
		mu.Unlock()
		return s, p, p.Address()
	}
	dirOf := func(addr string) string {
		mu.Lock()
		defer mu.Unlock()
		return dirs[addr]
	}
	var files atomic.Int32
	coretest.TestVerdictServe(t, coretest.Features{}, newPair, func(t *testing.T, addr string, v core.Version, data []byte) error {
		drop(t, filepath.Join(dirOf(addr), "inbox"), fmt.Sprintf("m%d.xml", files.Add(1)), data)
		return nil
	}, func(t *testing.T, addr string) int {
		n := 0
		for _, name := range names(t, filepath.Join(dirOf(addr), "failed")) {
			if strings.HasSuffix(name, ".fault.xml") {
				n++
			}
		}
		return n
	})
}
