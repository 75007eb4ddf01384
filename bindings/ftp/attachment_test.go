package ftp_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapftp "github.com/soapwire/soapwire/bindings/ftp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestAttachmentRoundTrip: a message with attachments (MTOM, SwA, both
// versions) is uploaded as one MIME file (its header, then the package)
// and received with its parts intact, held in memory or spooled.
func TestAttachmentRoundTrip(t *testing.T) {
	e := newEnv(t)
	s := soapftp.NewSender(e.client)
	for i, size := range []int{40 << 10, 1<<20 + 99} {
		root := "/ep" + string(rune('a'+i))
		p := e.poller(t, root, soapftp.WithSpool(64<<10, t.TempDir()))
		for _, v := range []core.Version{core.V11, core.V12} {
			for _, pk := range []core.Packaging{core.MTOM, core.SwA} {
				data := coretest.InvoiceBytes(size)
				sent := coretest.InvoiceMessage(v, pk, p.Address(), data)
				require.NoError(t, s.Send(ctx(t), sent))
				if v == core.V11 && pk == core.MTOM {
					// before the first Receive nothing is claimed: the file as uploaded
					files := e.files(t, root[1:]+"/inbox")
					require.Len(t, files, 1)
					raw, err := os.ReadFile(e.path(root[1:], "inbox", files[0]))
					require.NoError(t, err)
					assert.True(t, strings.HasPrefix(string(raw), "MIME-Version: 1.0\r\nContent-Type: "+sent.ContentType()+"\r\n\r\n--"), "%.300q", raw)
				}
				d, err := p.Receive(ctx(t))
				require.NoError(t, err)
				coretest.CheckInvoice(t, sent, d.Message(), data)
				require.NoError(t, d.Ack(ctx(t)))
				require.NoError(t, d.Message().Close())
			}
		}
		assert.Empty(t, e.files(t, root[1:]+"/inbox"))
		assert.Empty(t, e.files(t, root[1:]+"/work"))
		assert.Empty(t, e.files(t, root[1:]+"/failed"))
	}
}

// TestAttachmentBrokenParked: a MIME file whose package is never closed
// looks unfinished; once it stops changing it is taken as it is and
// parked with its Sender fault.
func TestAttachmentBrokenParked(t *testing.T) {
	e := newEnv(t)
	p := e.poller(t, "/broken", soapftp.WithSettle(50*time.Millisecond))
	require.NoError(t, os.WriteFile(e.path("broken", "inbox", "broken.xml"), []byte(coretest.UnclosedPackageFile), 0o644))
	c, cancel := context.WithTimeout(ctx(t), time.Second)
	defer cancel()
	_, err := p.Receive(c)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, []string{"broken.fault.xml", "broken.xml"}, e.files(t, "broken/failed"))
	fault, err := os.ReadFile(e.path("broken", "failed", "broken.fault.xml"))
	require.NoError(t, err)
	assert.Contains(t, string(fault), "Sender")
	assert.Contains(t, string(fault), "never closed")
}

// TestConformanceAttachments runs coretest's attachment suite over the
// embedded FTP server: each message one MIME file.
func TestConformanceAttachments(t *testing.T) {
	e := newEnv(t)
	var n atomic.Int32
	coretest.TestAttachmentsSendReceive(t, coretest.Features{ExactlyOnce: true}, func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := e.poller(t, fmt.Sprintf("/att-%d", n.Add(1)))
		return soapftp.NewSender(e.client), p, p.Address()
	})
}
