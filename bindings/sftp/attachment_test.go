package sftp_test

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsftp "github.com/soapwire/soapwire/bindings/sftp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// invoice is a body with a Binary value.
type invoice struct {
	XMLName xml.Name    `xml:"urn:example:invoice Invoice"`
	Number  string      `xml:"urn:example:invoice number"`
	PDF     core.Binary `xml:"urn:example:invoice pdf"`
}

// pdfBytes returns n bytes holding every byte value, CR and LF included.
func pdfBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*13 + i/253)
	}
	return b
}

// invoiceMessage returns a message to to in packaging p: an invoice whose
// pdf is a Binary of data, and a second, plain part.
func invoiceMessage(v core.Version, p core.Packaging, to string, data []byte) *core.Message {
	m := core.NewMessage(v, core.Body{})
	m.ID, m.To, m.Action, m.Packaging = core.NewMessageID(), to, "urn:example:invoice:send", p
	pdf := m.AttachBinary(core.BytesAttachment("application/pdf", data))
	m.Attachments = append(m.Attachments, core.BytesAttachment("text/plain; charset=utf-8", []byte("payable in 30 days\r\n")))
	m.Envelope.Body = core.ValueBody(&invoice{Number: "INV-7", PDF: pdf})
	return m
}

// partBytes returns an attachment's bytes.
func partBytes(t *testing.T, a *core.Attachment) []byte {
	t.Helper()
	require.NotNil(t, a)
	rc, err := a.Open()
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// checkInvoice checks that got is sent, with its parts intact.
func checkInvoice(t *testing.T, sent, got *core.Message, data []byte) {
	t.Helper()
	assert.Equal(t, sent.ID, got.ID)
	assert.Equal(t, sent.Packaging, got.Packaging)
	assert.Equal(t, sent.Version(), got.Version())
	assert.Equal(t, "urn:example:invoice:send", got.Action)
	require.Len(t, got.Attachments, 2)
	var v invoice
	require.NoError(t, got.Body().Decode(&v))
	assert.Equal(t, "INV-7", v.Number)
	assert.Equal(t, data, partBytes(t, v.PDF.Attachment()), "the PDF, byte for byte")
	assert.Equal(t, "application/pdf", v.PDF.Attachment().Type)
	assert.Equal(t, "payable in 30 days\r\n", string(partBytes(t, got.Attachment(sent.Attachments[1].ID))))
}

// brokenPackage is a MIME file whose package is never closed.
const brokenPackage = "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"application/xop+xml\"; boundary=B\r\n\r\n" +
	"--B\r\nContent-Type: application/xop+xml; type=\"application/soap+xml\"\r\n\r\n" +
	`<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:x xmlns:p="urn:x"/></e:Body></e:Envelope>` +
	"\r\n--B\r\nContent-ID: <a@b>\r\n\r\nxyz\r\n"

// TestAttachmentRoundTrip: a message with attachments (MTOM, SwA, both
// versions) is uploaded as one MIME file (its header, then the package)
// and received with its parts intact, held in memory or spooled.
func TestAttachmentRoundTrip(t *testing.T) {
	e := newEnv(t)
	s := soapsftp.NewSender(e.client)
	for i, size := range []int{40 << 10, 1<<20 + 99} {
		root := "/ep" + string(rune('a'+i))
		p := e.poller(t, root, soapsftp.WithSpool(64<<10, t.TempDir()))
		for _, v := range []core.Version{core.V11, core.V12} {
			for _, pk := range []core.Packaging{core.MTOM, core.SwA} {
				data := pdfBytes(size)
				sent := invoiceMessage(v, pk, p.Address(), data)
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
				checkInvoice(t, sent, d.Message(), data)
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
	p := e.poller(t, "/broken", soapsftp.WithSettle(50*time.Millisecond))
	require.NoError(t, os.WriteFile(e.path("broken", "inbox", "broken.xml"), []byte(brokenPackage), 0o644))
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
// embedded SFTP server: each message one MIME file.
func TestConformanceAttachments(t *testing.T) {
	e := newEnv(t)
	var n atomic.Int32
	coretest.TestAttachmentsSendReceive(t, coretest.Features{ExactlyOnce: true}, func(t *testing.T) (core.Sender, core.Receiver, string) {
		p := e.poller(t, fmt.Sprintf("/att-%d", n.Add(1)))
		return soapsftp.NewSender(e.client), p, p.Address()
	})
}
