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

// TestGoRun runs the README's command, `go run ./examples/contract-first`,
// as a user would: the go tool builds the program (a plain build, not the
// test binary) and runs it; it must make every call and exit 0. The
// deadline only turns a hang into a failure.
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
	assert.Contains(t, out, "customer: order O-5004 accepted")
	assert.Contains(t, out, "left in the run folder:")
}
