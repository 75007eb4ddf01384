package main

import (
	"bytes"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary be its own server child, as the program is:
// run re-executes it with ATTACH1G_SERVE set.
func TestMain(m *testing.M) {
	if v := os.Getenv(serveEnv); v != "" {
		if err := serveFromEnv(v); err != nil {
			log.Fatal(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestAttachSmall posts a 48 MiB attachment (8 MiB with -race, which slows
// both sides tenfold) to both servers: the soapwire server's peak RSS stays
// under 64 MiB, and both files hold the part, byte for byte.
func TestAttachSmall(t *testing.T) {
	size := int64(48 << 20)
	if raceEnabled {
		size = 8 << 20
	}
	keep := t.TempDir()
	res, err := run(t.Context(), size, 1, keep)
	require.NoError(t, err)
	var report bytes.Buffer
	res.print(&report, 64<<20)
	t.Log(report.String())
	assert.Less(t, res.PeakRSS["soapwire"], int64(64<<20), "the soapwire server's peak RSS")
	assert.Greater(t, res.PeakRSS["soapwire"], int64(1<<20), "VmHWM was read")
	for _, s := range servers {
		f, err := os.Open(filepath.Join(keep, s+".bin"))
		require.NoError(t, err)
		assert.NoError(t, check(f, size), s)
		f.Close()
	}
	assert.Len(t, res.Times["soapwire"], 1)
	assert.Len(t, res.Times["plain"], 1)
}

// TestPackage: the generated package is what its Content-Type and length
// say, and its part is the pattern check accepts.
func TestPackage(t *testing.T) {
	for _, size := range []int64{1, blockSize - 1, blockSize, 3*blockSize + 17} {
		p := newPackage(size)
		var buf bytes.Buffer
		n, err := io.Copy(&buf, p)
		require.NoError(t, err)
		assert.Equal(t, p.Len(), n)
		data := buf.Bytes()
		part := data[len(pkgHead) : len(data)-len(pkgTail)]
		assert.NoError(t, check(bytes.NewReader(part), size))
		assert.Error(t, check(bytes.NewReader(part[:len(part)-1]), size), "a cut copy")
		bad := bytes.Clone(part)
		bad[len(bad)/2]++
		assert.Error(t, check(bytes.NewReader(bad), size), "a changed byte")
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GiB": 1 << 30, "512MiB": 512 << 20, "64KiB": 64 << 10, "1000": 1000} {
		n, err := parseSize(in)
		require.NoError(t, err)
		assert.Equal(t, want, n)
	}
	for _, bad := range []string{"", "x", "-1", "0MiB", "1TB"} {
		_, err := parseSize(bad)
		assert.Error(t, err, bad)
	}
}

// TestFileSmall drops a 48 MiB attachment (8 MiB with -race) as a MIME
// file in each server's inbox: the soapwire server's peak RSS stays under
// 64 MiB, and both files hold the part, byte for byte.
func TestFileSmall(t *testing.T) {
	size := int64(48 << 20)
	if raceEnabled {
		size = 8 << 20
	}
	keep := t.TempDir()
	res, err := runFile(t.Context(), size, 1, keep)
	require.NoError(t, err)
	var report bytes.Buffer
	res.print(&report, 64<<20)
	t.Log(report.String())
	assert.Contains(t, report.String(), "a MIME file of")
	assert.Less(t, res.PeakRSS["soapwire"], int64(64<<20), "the soapwire server's peak RSS")
	assert.Greater(t, res.PeakRSS["soapwire"], int64(1<<20), "VmHWM was read")
	assert.Greater(t, res.Posted, size)
	for _, s := range servers {
		f, err := os.Open(filepath.Join(keep, s+".bin"))
		require.NoError(t, err)
		assert.NoError(t, check(f, size), s)
		f.Close()
	}
	assert.Len(t, res.Times["soapwire"], 1)
	assert.Len(t, res.Times["plain"], 1)
}

// TestPartReader: the file mode's part is the pattern check accepts.
func TestPartReader(t *testing.T) {
	for _, size := range []int64{0, 1, blockSize + 5} {
		assert.NoError(t, check(&partReader{part: block(), size: size}, size))
	}
}
