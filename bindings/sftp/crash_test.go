package sftp_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/ssh"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
)

// The crash test's child: a process serving one endpoint on an SFTP server
// (its address, host key, endpoint and the log of what it handled come in
// the environment) until it is killed.
const (
	crashChildEnv   = "SOAPWIRE_SFTP_CRASH_SERVER"   // host:port
	crashHostKeyEnv = "SOAPWIRE_SFTP_CRASH_HOST_KEY" // the server's key, authorized_keys form
	crashRootEnv    = "SOAPWIRE_SFTP_CRASH_ROOT"     // the endpoint's folder on the server
	crashLogEnv     = "SOAPWIRE_SFTP_CRASH_LOG"      // a local file: each handling noted
	crashLease      = time.Second
)

// crashChild serves the endpoint with the host key pinned: each message is
// noted in the log (id, pid, unix ms: one O_APPEND write), handled for a
// few milliseconds and answered into the outbox.
func crashChild() int {
	lf, err := os.OpenFile(os.Getenv(crashLogEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(os.Getenv(crashHostKeyEnv)))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	c := soapsftp.NewClient(os.Getenv(crashChildEnv), testUser, soapsftp.WithPassword(testPass), soapsftp.WithHostKey(key))
	p, err := soapsftp.NewPoller(c, os.Getenv(crashRootEnv), soapsftp.WithLease(crashLease),
		soapsftp.WithPollInterval(5*time.Millisecond), soapsftp.WithMaxPollInterval(20*time.Millisecond))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	h := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		fmt.Fprintf(lf, "%s %d %d\n", m.ID, os.Getpid(), time.Now().UnixMilli())
		time.Sleep(time.Duration(5+rand.IntN(20)) * time.Millisecond) // handling takes a while: kills land mid-way
		return m.Reply(core.RawBody([]byte(`<t:Pong xmlns:t="` + testNS + `"/>`))), nil
	})
	fmt.Println("READY")
	core.Serve(context.Background(), p, h, soapsftp.NewSender(c), core.WithConcurrency(4))
	return 0
}

// TestCrashLosesNothing: a process serving an endpoint on the embedded SFTP
// server is killed (SIGKILL) again and again, at random moments while it
// claims, handles and answers files; then one more serves to the end. No
// file is lost (each is handled and answered), none is handled twice while
// the claim of the process that had it held (a second handling only after
// that process was killed and most of its lease ran out), and nothing is
// left behind: the inbox, work, failed and quarantine folders are empty
// and no temporary file remains (a killed writer's .part, once an hour
// old, is removed).
func TestCrashLosesNothing(t *testing.T) {
	files, kills := 200, 10
	if testing.Short() {
		files, kills = 60, 4
	}
	e := newEnv(t)
	p := e.poller(t, "/ep") // makes the layout; never receives
	dir := e.path("ep")
	logPath := filepath.Join(t.TempDir(), "handled.log")
	ids := map[string]bool{}
	s := soapsftp.NewSender(e.client)
	for i := range files {
		m := ping(core.V12, strconv.Itoa(i))
		m.To = p.Address()
		require.NoError(t, s.Send(ctx(t), m))
		ids[m.ID] = true
	}
	require.NoError(t, p.Close())

	killedAt := map[int]time.Time{}
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+e.srv.Addr(), crashHostKeyEnv+"="+strings.TrimSpace(string(ssh.MarshalAuthorizedKey(e.srv.HostKey()))),
			crashRootEnv+"=/ep", crashLogEnv+"="+logPath)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		line, err := bufio.NewReader(out).ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "READY\n", line)
		return cmd
	}
	for range kills {
		cmd := start()
		time.Sleep(time.Duration(50+rand.IntN(400)) * time.Millisecond)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		killedAt[cmd.Process.Pid] = time.Now()
		cmd.Wait()
	}
	// An hour passes for the temporary files a killed writer left.
	aged := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".part") {
			old := time.Now().Add(-2 * time.Hour)
			os.Chtimes(p, old, old)
			aged++
		}
		return nil
	})
	last := start()
	t.Cleanup(func() { last.Process.Kill(); last.Wait() })

	names := func(sub string) []string {
		ents, err := os.ReadDir(filepath.Join(dir, sub))
		require.NoError(t, err)
		var out []string
		for _, e := range ents {
			out = append(out, e.Name())
		}
		return out
	}
	answered := func() map[string]bool {
		out := map[string]bool{}
		for _, n := range names("outbox") {
			data, err := os.ReadFile(filepath.Join(dir, "outbox", n))
			if err != nil || strings.HasPrefix(n, ".") {
				continue
			}
			if m, err := core.ReadMessage(strings.NewReader(string(data)), core.Limits{}); err == nil {
				out[m.RelatesTo] = true
			}
		}
		return out
	}
	require.Eventually(t, func() bool {
		return len(names("inbox")) == 0 && len(names("work")) == 0 && len(answered()) == files
	}, 2*time.Minute, 50*time.Millisecond, "inbox %d, work %d, answered %d of %d", len(names("inbox")), len(names("work")), len(answered()), files)

	// What was handled, by whom and when.
	data, err := os.ReadFile(logPath)
	require.NoError(t, err)
	type handling struct {
		pid int
		at  time.Time
	}
	byID := map[string][]handling{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		require.Len(t, f, 3, "log line %q", line)
		pid, _ := strconv.Atoi(f[1])
		ms, _ := strconv.ParseInt(f[2], 10, 64)
		byID[f[0]] = append(byID[f[0]], handling{pid, time.UnixMilli(ms)})
	}
	again, byKilled := 0, 0
	for _, hs := range byID {
		for _, h := range hs {
			if _, k := killedAt[h.pid]; k {
				byKilled++
			}
		}
	}
	for id := range ids {
		hs := byID[id]
		require.NotEmpty(t, hs, "%s never handled", id)
		for i := 1; i < len(hs); i++ {
			again++
			k, killed := killedAt[hs[i-1].pid]
			require.True(t, killed, "%s handled again while its first handler (pid %d) lived", id, hs[i-1].pid)
			assert.GreaterOrEqual(t, hs[i].at.Sub(k), crashLease/2, "%s handled again %v after pid %d was killed: its claim still held", id, hs[i].at.Sub(k), hs[i-1].pid)
		}
	}
	assert.Len(t, byID, files, "handled ids")
	for _, f := range []string{"inbox", "work", "failed", "quarantine"} {
		assert.Empty(t, names(f), f)
	}
	require.Eventually(t, func() bool {
		left := 0
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && strings.HasSuffix(p, ".part") {
				left++
			}
			return nil
		})
		return left == 0
	}, time.Minute, 50*time.Millisecond, "temporary files left")
	t.Logf("%d files, %d kills: %d handlings by killed processes, %d handled again after a kill, %d temporary files a kill left (removed)", files, kills, byKilled, again, aged)
	assert.Positive(t, byKilled, "the killed processes handled files: the kills landed mid-way")
}
