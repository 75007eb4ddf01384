package coretest_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/coretest"
)

func TestMain(m *testing.M) { os.Exit(coretest.RunWithPeerSummary(m)) }

// peerChildEnv makes TestMissingPeerChild need a peer that is not there.
const peerChildEnv = "CORETEST_MISSING_PEER"

// TestMissingPeerChild needs the peers $CORETEST_MISSING_PEER names (comma
// separated), which are all missing; TestRequirePeer runs it in a child
// process.
func TestMissingPeerChild(t *testing.T) {
	peers := os.Getenv(peerChildEnv)
	if peers == "" {
		t.Skip("run only by TestRequirePeer, in a child process")
	}
	for _, peer := range strings.Split(peers, ",") {
		t.Run(peer, func(t *testing.T) {
			coretest.RequirePeer(t, peer, errors.New("not installed (apt install "+peer+")"))
			t.Error("RequirePeer returned for a missing peer")
		})
	}
}

// TestRequirePeer runs a test binary whose tests miss peers: without
// SOAPWIRE_REQUIRE_PEERS they skip, saying why, and the binary's TestMain
// prints how many skipped and for which peers; with
// SOAPWIRE_REQUIRE_PEERS=1 they fail and no summary is printed.
func TestRequirePeer(t *testing.T) {
	const pkg = "github.com/soapwire/soapwire/core/coretest"
	tests := []struct {
		name    string
		peers   string
		require string
		fails   bool
		summary string
	}{
		{"one missing", "zeep", "", false,
			pkg + ": 1 interop test skipped for a missing peer (zeep); set SOAPWIRE_REQUIRE_PEERS=1 to fail instead"},
		{"three missing, two peers", "zeep,gsoap,zeep", "", false,
			pkg + ": 3 interop tests skipped for missing peers (gsoap, zeep); set SOAPWIRE_REQUIRE_PEERS=1 to fail instead"},
		{"required", "zeep,gsoap", "1", true, ""},
		{"required only by 1", "zeep", "yes", false,
			pkg + ": 1 interop test skipped for a missing peer (zeep); set SOAPWIRE_REQUIRE_PEERS=1 to fail instead"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// -test.v: the line then goes to stdout only, never to the
			// terminal this test may run in.
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestMissingPeerChild$", "-test.v", "-test.count=1")
			cmd.Env = append(withoutEnv(os.Environ(), coretest.RequirePeersEnv), peerChildEnv+"="+tt.peers)
			if tt.require != "" {
				cmd.Env = append(cmd.Env, coretest.RequirePeersEnv+"="+tt.require)
			}
			out, err := cmd.CombinedOutput()
			if tt.fails {
				require.Error(t, err, "%s", out)
				assert.Contains(t, string(out), "missing peer zeep: not installed (apt install zeep) (SOAPWIRE_REQUIRE_PEERS=1 requires every interop peer)")
				assert.Contains(t, string(out), "--- FAIL: TestMissingPeerChild/gsoap")
				assert.NotContains(t, string(out), "interop test")
				return
			}
			require.NoError(t, err, "%s", out)
			assert.Contains(t, string(out), "--- SKIP: TestMissingPeerChild/zeep")
			assert.Contains(t, string(out), "missing peer zeep: not installed (apt install zeep)")
			assert.NotContains(t, string(out), "RequirePeer returned")
			assert.Contains(t, string(out), "\n"+tt.summary+"\n")
		})
	}
}

func withoutEnv(env []string, name string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// TestRequirePeerPresent: a peer that is there (nil error) lets the test
// run on.
func TestRequirePeerPresent(t *testing.T) {
	ran := false
	t.Run("present", func(t *testing.T) {
		coretest.RequirePeer(t, "zeep", nil)
		ran = true
	})
	assert.True(t, ran)
}

func TestPeerSummary(t *testing.T) {
	tests := []struct {
		n     int
		peers []string
		want  string
	}{
		{0, nil, ""},
		{1, []string{"zeep"}, "p: 1 interop test skipped for a missing peer (zeep); set SOAPWIRE_REQUIRE_PEERS=1 to fail instead"},
		{2, []string{"zeep"}, "p: 2 interop tests skipped for a missing peer (zeep); set SOAPWIRE_REQUIRE_PEERS=1 to fail instead"},
		{3, []string{"gsoap", "zeep"}, "p: 3 interop tests skipped for missing peers (gsoap, zeep); set SOAPWIRE_REQUIRE_PEERS=1 to fail instead"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, coretest.PeerSummary("p", tt.n, tt.peers))
	}
}
