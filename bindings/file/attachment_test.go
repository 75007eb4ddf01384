package file_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestAttachmentRoundTrip: a message with attachments (MTOM, SwA, both
// versions) is dropped as one MIME file (its header, then the package)
// and received with its parts intact, held in memory or spooled.
func TestAttachmentRoundTrip(t *testing.T) {
	root := t.TempDir()
	s := sender(t, root)
	for i, size := range []int{40 << 10, 1<<20 + 99} {
		dir := filepath.Join(root, "ep"+string(rune('a'+i)))
		p := poller(t, dir, soapfile.WithSpool(64<<10, t.TempDir()))
		for _, v := range []core.Version{core.V11, core.V12} {
			for _, pk := range []core.Packaging{core.MTOM, core.SwA} {
				data := coretest.InvoiceBytes(size)
				sent := coretest.InvoiceMessage(v, pk, p.Address(), data)
				require.NoError(t, s.Send(ctx(t), sent))
				if v == core.V11 && pk == core.MTOM {
					// before the first Receive nothing is claimed: the file as dropped
					files := names(t, filepath.Join(dir, "inbox"))
					require.Len(t, files, 1)
					raw, err := os.ReadFile(filepath.Join(dir, "inbox", files[0]))
					require.NoError(t, err)
					assert.True(t, strings.HasPrefix(string(raw), "MIME-Version: 1.0\r\nContent-Type: "+sent.ContentType()+"\r\n\r\n--"), "%.300q", raw)
					assert.True(t, strings.HasSuffix(string(raw), "--\r\n"))
				}
				d, err := p.Receive(ctx(t))
				require.NoError(t, err)
				coretest.CheckInvoice(t, sent, d.Message(), data)
				require.NoError(t, d.Ack(ctx(t)))
				require.NoError(t, d.Message().Close())
			}
		}
		assert.Empty(t, names(t, filepath.Join(dir, "inbox")))
		assert.Empty(t, names(t, filepath.Join(dir, "work")))
		assert.Empty(t, names(t, filepath.Join(dir, "failed")))
	}
}

// TestAttachmentServeReply: core.Serve answers a request with attachments
// by a reply with attachments, dropped in the outbox as a MIME file.
func TestAttachmentServeReply(t *testing.T) {
	root := t.TempDir()
	s := sender(t, root)
	p := poller(t, filepath.Join(root, "svc"))
	data := coretest.InvoiceBytes(300 << 10)
	req := coretest.InvoiceMessage(core.V12, core.MTOM, p.Address(), data)
	require.NoError(t, s.Send(ctx(t), req))
	handler := core.HandlerFunc(func(c context.Context, m *core.Message) (*core.Message, error) {
		var v coretest.Invoice
		if err := m.Body().Decode(&v); err != nil {
			return nil, err
		}
		reply := core.NewMessage(m.Version(), core.Body{})
		reply.Packaging = core.SwA
		pdf := reply.AttachBinary(v.PDF.Attachment())
		reply.Attachments = append(reply.Attachments, m.Attachments[1])
		reply.Envelope.Body = core.ValueBody(&coretest.Invoice{Number: v.Number, PDF: pdf})
		reply.Action = "urn:example:invoice:send"
		return reply, nil
	})
	c, cancel := context.WithCancel(ctx(t))
	done := make(chan error, 1)
	go func() { done <- core.Serve(c, p, handler, s) }()
	out := poller(t, filepath.Join(root, "svc"), soapfile.WithLayout(soapfile.Layout{Inbox: "outbox", Work: "work-out", Failed: "failed-out"}))
	d, err := out.Receive(ctx(t))
	require.NoError(t, err)
	got := d.Message()
	assert.Equal(t, req.ID, got.RelatesTo)
	assert.Equal(t, core.SwA, got.Packaging)
	require.Len(t, got.Attachments, 2)
	var v coretest.Invoice
	require.NoError(t, got.Body().Decode(&v))
	assert.Equal(t, data, coretest.PartBytes(t, v.PDF.Attachment()))
	assert.Equal(t, "payable in 30 days\r\n", string(coretest.PartBytes(t, got.Attachment(req.Attachments[1].ID))))
	require.NoError(t, d.Ack(ctx(t)))
	cancel()
	require.NoError(t, <-done)
}

// TestAttachmentBrokenParked: a MIME file whose package is never closed
// looks unfinished; once it stops changing it is taken as it is and
// parked with its Sender fault.
func TestAttachmentBrokenParked(t *testing.T) {
	dir := t.TempDir()
	p := poller(t, dir, soapfile.WithSettle(50*time.Millisecond))
	drop(t, filepath.Join(dir, "inbox"), "broken.xml", []byte(coretest.UnclosedPackageFile))
	c, cancel := context.WithTimeout(ctx(t), 500*time.Millisecond)
	defer cancel()
	_, err := p.Receive(c)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, []string{"broken.fault.xml", "broken.xml"}, names(t, filepath.Join(dir, "failed")))
	fault, err := os.ReadFile(filepath.Join(dir, "failed", "broken.fault.xml"))
	require.NoError(t, err)
	assert.Contains(t, string(fault), "Sender")
	assert.Contains(t, string(fault), "never closed")
}

// TestConformanceAttachments runs coretest's attachment suite on local
// folders: each message one MIME file, in memory and spooled to disk.
func TestConformanceAttachments(t *testing.T) {
	root := t.TempDir()
	s := sender(t, root)
	var n atomic.Int32
	for name, opts := range map[string][]soapfile.PollerOption{"memory": nil, "disk": {soapfile.WithSpool(0, t.TempDir())}} {
		t.Run(name, func(t *testing.T) {
			coretest.TestAttachmentsSendReceive(t, coretest.Features{ExactlyOnce: true}, func(t *testing.T) (core.Sender, core.Receiver, string) {
				p := poller(t, filepath.Join(root, fmt.Sprintf("att-%d", n.Add(1))), opts...)
				return s, p, p.Address()
			})
		})
	}
}
