package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoRun runs the README's main command, `go run ./examples/crosstransport`,
// as a user would: the go tool builds the program (a plain build, not the
// race-enabled test binary) and runs it; it must complete the conversation
// and exit 0. The deadline only turns a hang into a failure; how long the
// first build takes on a cold cache is in docs/benchmarks.md, not asserted.
func TestGoRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program with the go tool; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, filepath.Join(runtime.GOROOT(), "bin", "go"), "run", ".", "-dir", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "go run: %s", stderr.String())
	out := stdout.String()
	assert.Contains(t, out, "run folder: "+dir)
	assert.Contains(t, out, "hop 7  ftp")
	assert.Regexp(t, `customer: conversation \S+ completed\n`, out)
}
