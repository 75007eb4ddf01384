package sftp_test

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
)

// TestConformancePlain runs the suites with a Poller and a Sender that
// send one request at a time (downloads read without the read-ahead, claim
// and open, CLOSE and rename each awaited): the reference the pipelined
// paths are measured and tested against stays a working binding.
func TestConformancePlain(t *testing.T) {
	e := newEnv(t)
	conformance(t, e.client, func(t *testing.T, root string) *soapsftp.Poller {
		p, err := soapsftp.NewPollerPlain(e.client, root, soapsftp.WithPollInterval(5e6), soapsftp.WithMaxPollInterval(5e7))
		require.NoError(t, err)
		require.NoError(t, p.MakeLayout(ctx(t)))
		t.Cleanup(func() { p.Close() })
		return p
	}, soapsftp.NewSenderPlain(e.client))
}

// TestDownloadReads: the server sees two READs for a file that fits the
// first read's room, at 0 and at the file's size (the file, its end), with
// the read-ahead as with plain reads (before, the end was read twice: three
// READs); a file larger than the room (2 MiB, over the 1 MiB spool in
// memory) is read to its end and delivered whole.
func TestDownloadReads(t *testing.T) {
	for _, plain := range []bool{false, true} {
		t.Run(fmt.Sprintf("plain=%v", plain), func(t *testing.T) {
			e := newEnv(t)
			var mu sync.Mutex
			reads := map[string][]int64{}
			e.srv.SetReadTrace(func(name string, off int64) {
				mu.Lock()
				reads[name] = append(reads[name], off)
				mu.Unlock()
			})
			var p *soapsftp.Poller
			if plain {
				var err error
				p, err = soapsftp.NewPollerPlain(e.client, "/ep", soapsftp.WithPollInterval(5e6), soapsftp.WithMaxPollInterval(5e7), soapsftp.WithLimits(core.Limits{MaxBytes: 4 << 20}))
				require.NoError(t, err)
				require.NoError(t, p.MakeLayout(ctx(t)))
				t.Cleanup(func() { p.Close() })
			} else {
				p = e.poller(t, "/ep", soapsftp.WithLimits(core.Limits{MaxBytes: 4 << 20}))
			}
			for _, size := range []int{100, 8000, 2 << 20} {
				m := ping(core.V11, strings.Repeat("x", size))
				data := envelope(t, m)
				require.NoError(t, os.WriteFile(e.path("ep/inbox/f.xml"), data, 0o644))
				d, err := p.Receive(ctx(t))
				require.NoError(t, err)
				assert.Equal(t, m.ID, d.Message().ID)
				var got bytes.Buffer
				_, err = d.Message().WriteTo(&got)
				require.NoError(t, err)
				assert.Contains(t, got.String(), strings.Repeat("x", size), "delivered whole")
				require.NoError(t, d.Ack(ctx(t)))
				mu.Lock()
				var offs []int64
				for name, o := range reads {
					if strings.HasSuffix(name, ".f.xml") {
						offs = o
						delete(reads, name)
					}
				}
				mu.Unlock()
				slices.Sort(offs)
				if size < 1<<20 {
					assert.Equal(t, []int64{0, int64(len(data))}, offs, "%d bytes", len(data))
				} else {
					require.NotEmpty(t, offs)
					assert.Equal(t, int64(len(data)), offs[len(offs)-1], "the last read finds the end")
				}
			}
		})
	}
}
