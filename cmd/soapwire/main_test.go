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
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// bin is the soapwire binary TestMain builds (with -race when the tests
// are), which every test runs as a user would.
var bin string

func TestMain(m *testing.M) {
	for _, a := range os.Args[1:] {
		if strings.HasPrefix(a, "-test.fuzz") {
			os.Exit(m.Run()) // fuzzing runs the parsers in process, not the binary
		}
	}
	dir, err := os.MkdirTemp("", "soapwire-cli-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "soapwire")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building soapwire:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
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
