package imap_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// roundTrip appends invoices with attachments (MTOM and SwA, both
// versions; one fetched into memory, one spooled to a file, one whose
// part is spooled) and receives them intact.
func roundTrip(t *testing.T, a core.Sender, r core.Receiver, addr string) {
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, p := range []core.Packaging{core.MTOM, core.SwA} {
			for _, size := range []int{50 << 10, 1<<20 + 77} {
				data := coretest.InvoiceBytes(size)
				sent := coretest.InvoiceMessage(v, p, addr, data)
				require.NoError(t, a.Send(t.Context(), sent))
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				d, err := r.Receive(ctx)
				cancel()
				require.NoError(t, err)
				coretest.CheckInvoice(t, sent, d.Message(), data)
				assert.Equal(t, size > 1<<20, d.Message().Attachments[0].Spooled())
				require.NoError(t, d.Ack(t.Context()))
				require.NoError(t, d.Message().Close())
			}
		}
	}
}

// TestAttachmentRoundTrip: messages with attachments appended by the
// Appender to the embedded server as multipart/related mails come out of
// the Receiver with their parts intact.
func TestAttachmentRoundTrip(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	roundTrip(t, newAppender(t, addr), newReceiver(t, addr), addr)
	mails := folderMails(t, rawClient(t, addr), "INBOX")
	assert.Empty(t, mails)
}

// TestDovecotAttachments: the same through Dovecot, which stores and
// serves the mails itself.
func TestDovecotAttachments(t *testing.T) {
	dc := startDovecot(t)
	addr := dc.url(dc.user(t), true)
	roundTrip(t, dcAppender(t, dc, addr), dcReceiver(t, dc, addr), addr)
}

// TestAttachmentMalformedParked: a multipart/related mail that is not a
// well-formed package is parked in the failed folder beside a note with
// its Sender fault; the next mail is received.
func TestAttachmentMalformedParked(t *testing.T) {
	srv := startServer(t)
	addr := srv.newUser(t)
	c := rawClient(t, addr)
	const env = `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:x xmlns:p="urn:x"/></e:Body></e:Envelope>`
	root := "--B\nContent-Type: application/xop+xml; type=\"application/soap+xml\"\n\n" + env + "\n"
	mails := map[string]string{
		"never":   "multipart/related; type=\"application/xop+xml\"; boundary=B\n\n" + root + "--B\nContent-ID: <a@b>\n\nxyz\n",
		"noparam": "multipart/related; type=\"application/xop+xml\"\n\n" + root + "--B--\n",
		"notsoap": "multipart/related; type=\"text/xml\"; boundary=B\n\n--B\nContent-Type: image/png\n\nPNG\n--B--\n",
		"toobig":  "multipart/related; type=\"application/xop+xml\"; boundary=B\n\n" + root + "--B\nContent-ID: <a@b>\n\n" + strings.Repeat(strings.Repeat("z", 99)+"\n", 30) + "--B--\n",
	}
	for id, ct := range mails {
		appendRaw(t, c, "INBOX", "From: a@example.org\nMessage-ID: <"+id+"@example.org>\nMIME-Version: 1.0\nContent-Type: "+ct)
	}
	a := newAppender(t, addr)
	good := coretest.InvoiceMessage(core.V12, core.MTOM, addr, []byte("%PDF-1.7"))
	require.NoError(t, a.Send(t.Context(), good))
	// a package whose xop:Include names no part: it reads, its body fails
	badInclude := strings.Replace(root, `<p:x xmlns:p="urn:x"/>`, `<p:x xmlns:p="urn:x"><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:none@x"/></p:x>`, 1)
	appendRaw(t, c, "INBOX", "From: a@example.org\nMessage-ID: <badinclude@example.org>\nMIME-Version: 1.0\nContent-Type: multipart/related; type=\"application/xop+xml\"; boundary=B\n\n"+badInclude+"--B--\n")

	r := newReceiver(t, addr, soapimap.WithLimits(core.Limits{MaxPartBytes: 2000}))
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	d, err := r.Receive(ctx)
	require.NoError(t, err)
	require.Equal(t, good.ID, d.Message().ID, "the bad mails were parked on the way")
	require.NoError(t, d.Ack(ctx))

	d, err = r.Receive(ctx)
	require.NoError(t, err)
	assert.Equal(t, "mid:badinclude@example.org", d.Message().ID)
	berr := d.Message().Body().Discard()
	require.Error(t, berr)
	assert.Equal(t, core.CodeSender, core.FaultOf(berr).Code)
	require.NoError(t, d.Nack(ctx, berr))
	mails["badinclude"] = ""

	failed := folderMails(t, c, soapimap.DefaultFailedFolder)
	require.Len(t, failed, 2*len(mails), "the mails and their notes")
	for id, want := range map[string]string{
		"never":      "never closed",
		"noparam":    "without a boundary",
		"notsoap":    "not a SOAP envelope",
		"toobig":     "larger than 2000 bytes",
		"badinclude": "none@x",
	} {
		f := note(t, failed, "<"+id+"@example.org>")
		assert.Equal(t, core.CodeSender, f.Code, id)
		assert.Contains(t, f.Reason, want, id)
	}
}

// TestConformanceAttachments runs coretest's attachment suite over an
// Appender -> embedded IMAP server -> Receiver, and through Dovecot.
func TestConformanceAttachments(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		srv := startServer(t)
		coretest.TestAttachmentsSendReceive(t, coretest.Features{}, func(t *testing.T) (core.Sender, core.Receiver, string) {
			addr := srv.newUser(t)
			return newAppender(t, addr), newReceiver(t, addr), addr
		})
	})
	t.Run("Dovecot", func(t *testing.T) {
		dc := startDovecot(t)
		coretest.TestAttachmentsSendReceive(t, coretest.Features{}, func(t *testing.T) (core.Sender, core.Receiver, string) {
			addr := dc.url(dc.user(t), true)
			return dcAppender(t, dc, addr), dcReceiver(t, dc, addr), addr
		})
	})
}
