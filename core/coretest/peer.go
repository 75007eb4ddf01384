package coretest

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
)

// RequirePeersEnv is the environment variable that turns a missing interop
// peer from a skip into a failure when it is "1" (CI sets it).
const RequirePeersEnv = "SOAPWIRE_REQUIRE_PEERS"

// peerSkips counts the tests of this test binary that RequirePeer skipped.
var peerSkips struct {
	mu    sync.Mutex
	n     int
	peers []string // sorted, each once
}

// RequirePeer checks a third-party peer an interop test needs (zeep,
// node-soap, gSOAP, vsftpd, nats-server…): err says why peer is missing,
// with how to install it; nil means it is there, and RequirePeer does
// nothing. A missing peer skips t, and the skip is counted for the line
// RunWithPeerSummary prints; with SOAPWIRE_REQUIRE_PEERS=1 it fails t
// instead, so a missing peer never passes unnoticed.
//
// Call it before starting anything the test would have to stop.
func RequirePeer(t testing.TB, peer string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv(RequirePeersEnv) == "1" {
		t.Fatalf("missing peer %s: %v (%s=1 requires every interop peer)", peer, err, RequirePeersEnv)
		return
	}
	countPeerSkip(peer)
	t.Skipf("missing peer %s: %v", peer, err)
}

func countPeerSkip(peer string) {
	peerSkips.mu.Lock()
	defer peerSkips.mu.Unlock()
	peerSkips.n++
	if i, found := slices.BinarySearch(peerSkips.peers, peer); !found {
		peerSkips.peers = slices.Insert(peerSkips.peers, i, peer)
	}
}

// RunWithPeerSummary runs the package's tests from its TestMain and, when
// RequirePeer skipped any, prints one line saying how many and for which
// peers:
//
//	func TestMain(m *testing.M) { os.Exit(coretest.RunWithPeerSummary(m)) }
//
// go test ./... shows a passing package's output only under -v, so the
// line is also written to the terminal go test runs in (/dev/tty) when
// there is one and the output would be hidden; a cached result prints
// nothing (-count=1 runs the tests again). It returns m.Run's exit code.
func RunWithPeerSummary(m *testing.M) int {
	code := m.Run()
	peerSkips.mu.Lock()
	line := peerSummary(testPackage(), peerSkips.n, peerSkips.peers)
	peerSkips.mu.Unlock()
	if line != "" {
		fmt.Println(line)
		if !testing.Verbose() && !isTerminal(os.Stdout) {
			toTerminal(line)
		}
	}
	return code
}

// peerSummary is the line RunWithPeerSummary prints for pkg when n interop
// tests were skipped for the given missing peers; "" when n is 0.
func peerSummary(pkg string, n int, peers []string) string {
	if n == 0 {
		return ""
	}
	tests, missing := "interop tests", "missing peers"
	if n == 1 {
		tests = "interop test"
	}
	if len(peers) == 1 {
		missing = "a missing peer"
	}
	return fmt.Sprintf("%s: %d %s skipped for %s (%s); set %s=1 to fail instead",
		pkg, n, tests, missing, strings.Join(peers, ", "), RequirePeersEnv)
}

// testPackage is the import path of the package under test: a test
// binary's main package path is that path with ".test".
func testPackage() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Path != "" {
		return strings.TrimSuffix(bi.Path, ".test")
	}
	return strings.TrimSuffix(os.Args[0], ".test")
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// toTerminal writes line to the controlling terminal, if the process has
// one.
func toTerminal(line string) {
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer tty.Close()
	_, _ = io.WriteString(tty, line+"\n")
}
