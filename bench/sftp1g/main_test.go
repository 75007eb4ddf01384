package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDropSmall drops a 48 MiB document (8 MiB with -race) through SFTP:
// the handler reads the whole body, and the process's peak RSS stays under
// 64 MiB (the test binary's own memory included).
func TestDropSmall(t *testing.T) {
	size := int64(48 << 20)
	if raceEnabled {
		size = 8 << 20
	}
	res, err := run(t.Context(), size)
	require.NoError(t, err)
	var report bytes.Buffer
	res.print(&report, 64<<20)
	t.Log(report.String())
	assert.Greater(t, res.Read, size, "the whole body was read (with its element tags)")
	assert.Less(t, res.Read, size+200)
	assert.Greater(t, res.PeakRSS, int64(1<<20), "VmHWM was read")
	if !raceEnabled {
		assert.Less(t, res.PeakRSS, int64(64<<20), "peak RSS")
	}
}
