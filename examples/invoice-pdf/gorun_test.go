package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGoRun runs the README's command, `go run ./examples/invoice-pdf`, as
// a user would: the go tool builds the program (a plain build, not the
// test binary) and runs it; it must do every step and exit 0, leaving the
// PDF in the archive. The deadline only turns a hang into a failure.
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
	assert.Equal(t, want+"\nThe Maildirs and the archive are in "+dir+"\n", stdout.String())
	_, err := os.Stat(filepath.Join(dir, "archive", "pdf", "INV-2024-0042.pdf"))
	require.NoError(t, err)
}
