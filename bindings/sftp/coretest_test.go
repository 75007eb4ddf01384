package sftp_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

func TestMain(m *testing.M) {
	if os.Getenv(crashChildEnv) != "" {
		os.Exit(crashChild())
	}
	os.Exit(coretest.RunWithPeerSummary(m))
}

// TestConformance runs core/coretest's Sender/Receiver and Serve suites
// over the embedded server: each pair is a fresh endpoint, a Sender and a
// Poller sharing one Client.
func TestConformance(t *testing.T) {
	e := newEnv(t)
	conformance(t, e.client, func(t *testing.T, root string) *soapsftp.Poller { return e.poller(t, root) }, soapsftp.NewSender(e.client))
}

// TestConformanceWithoutPosixRename: the same where the Client acts as if
// the server had no posix-rename@openssh.com: SFTP's own rename (which
// never replaces) does the claims, and publishing a file over an existing
// one replaces it in two steps.
func TestConformanceWithoutPosixRename(t *testing.T) {
	e := newEnv(t)
	conformance(t, e.client, func(t *testing.T, root string) *soapsftp.Poller {
		p, err := soapsftp.NewPollerWithoutPosixRename(e.client, root, soapsftp.WithPollInterval(5e6), soapsftp.WithMaxPollInterval(5e7))
		require.NoError(t, err)
		require.NoError(t, p.MakeLayout(ctx(t)))
		t.Cleanup(func() { p.Close() })
		return p
	}, soapsftp.NewSenderWithoutPosixRename(e.client))
}

func conformance(t *testing.T, c *soapsftp.Client, poller func(*testing.T, string) *soapsftp.Poller, s core.Sender) {
	var n atomic.Int32
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := poller(t, fmt.Sprintf("/pair-%d", n.Add(1)))
		return s, p, p.Address()
	}
	reopen := func(t *testing.T, addr string) core.Receiver {
		dir, err := c.Dir(addr)
		require.NoError(t, err)
		return poller(t, path.Dir(dir))
	}
	f := coretest.Features{ExactlyOnce: true, Persistent: true, Reopen: reopen}
	coretest.TestSendReceive(t, f, newPair)
	coretest.TestServe(t, f, newPair)
}

// TestConformanceVerdict runs coretest's verdict suite: each broken-tail
// envelope dropped in the inbox is parked with its fault, never Acked.
func TestConformanceVerdict(t *testing.T) {
	e := newEnv(t)
	var n atomic.Int32
	var mu sync.Mutex
	roots := map[string]string{}
	newPair := func(t *testing.T) (core.Sender, core.Receiver, string) {
		root := fmt.Sprintf("/verdict-%d", n.Add(1))
		p := e.poller(t, root)
		mu.Lock()
		roots[p.Address()] = root
		mu.Unlock()
		return soapsftp.NewSender(e.client), p, p.Address()
	}
	rootOf := func(addr string) string {
		mu.Lock()
		defer mu.Unlock()
		return roots[addr]
	}
	var files atomic.Int32
	coretest.TestVerdictServe(t, coretest.Features{}, newPair, func(t *testing.T, addr string, v core.Version, data []byte) error {
		dir := e.path(rootOf(addr), "inbox")
		name := fmt.Sprintf("m%d.xml", files.Add(1))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "."+name), data, 0o644))
		return os.Rename(filepath.Join(dir, "."+name), filepath.Join(dir, name))
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
