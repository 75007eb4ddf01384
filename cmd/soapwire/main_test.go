package main_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The soapwire binary, built once by the first test that runs it (with
// -race when the tests are), which every test runs as a user would.
var (
	binOnce sync.Once
	binDir  string
	bin     string
	binErr  error
)

// binary returns the path of the built binary.
func binary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "soapwire-cli-")
		if binErr != nil {
			return
		}
		_, here, _, _ := runtime.Caller(0)
		bin = filepath.Join(binDir, "soapwire")
		args := []string{"build", "-o", bin}
		if raceEnabled {
			args = append(args, "-race")
		}
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Dir = filepath.Dir(here)
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("building soapwire: %w\n%s", err, out)
		}
	})
	require.NoError(t, binErr)
	return bin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// result is what one run of the binary did.
type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\n--- stdout\n%s--- stderr\n%s", r.code, r.stdout, r.stderr)
}

// invocation is one run of the binary.
type invocation struct {
	args  []string
	env   []string // KEY=value, added to an environment without SOAPWIRE_*
	stdin io.Reader
	dir   string
}

// soapwire runs the binary with args and waits for it (at most 60 s).
func soapwire(t *testing.T, args ...string) result {
	t.Helper()
	return invocation{args: args}.run(t)
}

func (inv invocation) run(t *testing.T) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	return inv.runCtx(t, ctx)
}

func (inv invocation) runCtx(t *testing.T, ctx context.Context) result {
	t.Helper()
	binary(t)
	cmd := inv.command(ctx)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		require.NoError(t, err, "running soapwire %q", inv.args)
	}
	return result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
}

func (inv invocation) command(ctx context.Context) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, inv.args...)
	cmd.Env = append(cleanEnv(), inv.env...)
	cmd.Stdin, cmd.Dir = inv.stdin, inv.dir
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// cleanEnv is the test's environment without the variables soapwire reads.
// A race-enabled binary exits at once (the race runtime otherwise waits a
// second at exit) and with status 66 on a data race, which fails the test.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SOAPWIRE_") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	return append(env, "GORACE=atexit_sleep_ms=0 exitcode=66")
}

// field returns the value of the first "key: value" line in out.
func field(t *testing.T, out, key string) string {
	t.Helper()
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), key+": "); ok {
			return v
		}
	}
	t.Fatalf("no %q line in:\n%s", key, out)
	return ""
}

// writeFile writes content to a file in a temp dir and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(content), 0o600))
	return p
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func itoa(n int64) string { return fmt.Sprint(n) }
