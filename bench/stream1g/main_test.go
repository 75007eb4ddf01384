package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMain lets the test binary be its own server child, as the program is:
// run re-executes it with STREAM1G_SERVE set.
func TestMain(m *testing.M) {
	if path := os.Getenv(serveEnv); path != "" {
		if err := serve(path); err != nil {
			log.Fatal(err)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestStreamSmall posts a 48 MiB document (8 MiB with -race, which slows
// both sides tenfold): the server's peak RSS stays under 64 MiB, and the
// file it wrote holds every record and the whole text node.
func TestStreamSmall(t *testing.T) {
	size := int64(48 << 20)
	if raceEnabled {
		size = 8 << 20
	}
	keep := filepath.Join(t.TempDir(), "body.xml")
	res, err := run(t.Context(), size, keep)
	require.NoError(t, err)
	var report bytes.Buffer
	res.print(&report, 64<<20)
	t.Log(report.String())
	assert.Less(t, res.ServerPeakRSS, int64(64<<20), "the server's peak RSS")
	assert.Greater(t, res.ServerPeakRSS, int64(1<<20), "VmHWM was read")
	assert.Greater(t, res.Records, int(size/1000))
	assert.Greater(t, res.BlobLen, int64(size/3))

	f, err := os.Open(keep)
	require.NoError(t, err)
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	require.NoError(t, err)
	assert.Equal(t, res.Stored, st.Size(), "the reply counts what the file holds")
	records, blob, err := scan(f)
	require.NoError(t, err)
	assert.Equal(t, res.Records, records, "every record was stored")
	assert.Equal(t, res.BlobLen, blob, "the whole text node was stored")
}

// scan counts the records and the blob's text in a stored body.
func scan(r io.Reader) (records int, blob int64, err error) {
	d := xml.NewDecoder(r)
	inBlob := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return records, blob, nil
		}
		if err != nil {
			return records, blob, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if t.Name.Space == docNS && t.Name.Local == "record" {
				records++
			}
			inBlob = t.Name.Space == docNS && t.Name.Local == "blob"
		case xml.EndElement:
			inBlob = false
		case xml.CharData:
			if inBlob {
				blob += int64(len(t))
			}
		}
	}
}

func TestDocumentSize(t *testing.T) {
	for _, size := range []int64{minSize, 4096, 1 << 20, 3<<20 + 17} {
		d := newDocument(size)
		n, err := io.Copy(io.Discard, d)
		require.NoError(t, err)
		assert.Equal(t, size, n, "exactly the size asked")
		assert.Positive(t, d.records)
		assert.Positive(t, d.blobLen)
		assert.Contains(t, d.String(), "records")
	}
	// the generated document is what it says
	d := newDocument(1 << 20)
	records, blob, err := scan(d)
	require.NoError(t, err)
	assert.Equal(t, d.records, records)
	assert.Equal(t, d.blobLen, blob)
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
