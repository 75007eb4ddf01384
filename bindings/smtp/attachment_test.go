package smtp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// TestAttachmentRoundTrip: a message with attachments, MTOM and SwA, in
// both versions, goes through the Sender and the Server into the Maildir
// as one multipart/related mail, and comes out of the Receiver with its
// parts intact: handed over in memory (a Receiver on the Server's
// Maildir) and read from the file (a Receiver of another process).
func TestAttachmentRoundTrip(t *testing.T) {
	data := coretest.InvoiceBytes(1<<20 + 333) // spooled when read
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, p := range []core.Packaging{core.MTOM, core.SwA} {
			t.Run(v.String()+"/"+p.String(), func(t *testing.T) {
				dir := t.TempDir()
				ts := startServer(t, dir)
				s := newSender(t, ts.addr)
				sent := coretest.InvoiceMessage(v, p, ts.mailto, data)
				require.NoError(t, s.Send(ctxT(t), sent))

				r := newReceiver(t, ts.mb)
				d, err := r.Receive(ctxT(t))
				require.NoError(t, err)
				coretest.CheckInvoice(t, sent, d.Message(), data)
				require.NoError(t, d.Ack(ctxT(t)))
				require.NoError(t, d.Message().Close())
				require.NoError(t, r.Close()) // the next mail goes to new/, not handed over

				// the file as the Maildir holds it: 7bit, the package's type on top
				sent2 := coretest.InvoiceMessage(v, p, ts.mailto, data)
				require.NoError(t, s.Send(ctxT(t), sent2))
				require.NoError(t, s.Close()) // no idle session for the server to wait for
				ts.shutdown()
				require.NoError(t, ts.mb.Close()) // every mail in new/
				names := files(t, dir, "new")
				require.Len(t, names, 1)
				raw, err := os.ReadFile(filepath.Join(dir, "new", names[0]))
				require.NoError(t, err)
				head, _, _ := strings.Cut(string(raw), "\r\n\r\n")
				assert.Contains(t, head, "Content-Type: multipart/related;")
				for i, c := range raw {
					require.Less(t, c, byte(0x80), "byte %d", i)
				}
				mb, err := soapsmtp.OpenMaildir(dir)
				require.NoError(t, err)
				d, err = newReceiver(t, mb).Receive(ctxT(t))
				require.NoError(t, err)
				coretest.CheckInvoice(t, sent2, d.Message(), data)
				require.NoError(t, d.Ack(ctxT(t)))
				require.NoError(t, d.Message().Close())
			})
		}
	}
}

// TestAttachmentServeReply: core.Serve answers a mail with attachments by
// a reply with attachments, mailed back to the sender's Maildir.
func TestAttachmentServeReply(t *testing.T) {
	svc := startServer(t, t.TempDir())
	back := startServer(t, t.TempDir())
	data := coretest.InvoiceBytes(200 << 10)
	req := coretest.InvoiceMessage(core.V12, core.MTOM, svc.mailto, data)
	req.ReplyTo = back.mailto
	require.NoError(t, newSender(t, svc.addr).Send(ctxT(t), req))

	handler := core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		var v coretest.Invoice
		if err := m.Body().Decode(&v); err != nil {
			return nil, err
		}
		reply := core.NewMessage(m.Version(), core.Body{})
		reply.Packaging = core.SwA
		pdf := reply.AttachBinary(v.PDF.Attachment()) // the received part, sent on
		reply.Envelope.Body = core.ValueBody(&coretest.Invoice{Number: v.Number + "-ack", PDF: pdf})
		return reply, nil
	})
	ctx, cancel := context.WithCancel(ctxT(t))
	done := make(chan error, 1)
	go func() {
		done <- core.Serve(ctx, newReceiver(t, svc.mb), handler, newSender(t, back.addr),
			core.WithReplyPolicy(core.ReplyPolicy{Mailboxes: []string{back.box}}))
	}()
	d, err := newReceiver(t, back.mb).Receive(ctxT(t))
	require.NoError(t, err)
	got := d.Message()
	assert.Equal(t, req.ID, got.RelatesTo)
	assert.Equal(t, core.SwA, got.Packaging)
	var v coretest.Invoice
	require.NoError(t, got.Body().Decode(&v))
	assert.Equal(t, "INV-7-ack", v.Number)
	assert.Equal(t, data, coretest.PartBytes(t, v.PDF.Attachment()))
	require.NoError(t, d.Ack(ctxT(t)))
	cancel()
	require.NoError(t, <-done)
}

// TestAttachmentMalformedParked: a multipart/related mail that is not a
// well-formed package (never closed, no boundary, no SOAP root, a part
// over the limit) is parked in failed/ with its Sender fault, as a
// malformed mail is; the next mail is received.
func TestAttachmentMalformedParked(t *testing.T) {
	ts := startServer(t, t.TempDir())
	root := "--B\r\nContent-Type: application/xop+xml; type=\"application/soap+xml\"\r\n\r\n" + envelope12 + "\r\n"
	mails := map[string]string{
		"NeverClosed": "multipart/related; type=\"application/xop+xml\"; boundary=B\r\n\r\n" + root + "--B\r\nContent-ID: <a@b>\r\n\r\nxyz\r\n",
		"NoBoundary":  "multipart/related; type=\"application/xop+xml\"\r\n\r\n" + root + "--B--\r\n",
		"NotSOAPRoot": "multipart/related; type=\"text/xml\"; boundary=B\r\n\r\n--B\r\nContent-Type: image/png\r\n\r\nPNG\r\n--B--\r\n",
		"PartTooBig":  "multipart/related; type=\"application/xop+xml\"; boundary=B\r\n\r\n" + root + "--B\r\nContent-ID: <a@b>\r\n\r\n" + strings.Repeat(strings.Repeat("z", 99)+"\r\n", 30) + "--B--\r\n",
		"BadBase64":   "multipart/related; type=\"application/xop+xml\"; boundary=B\r\n\r\n" + root + "--B\r\nContent-ID: <a@b>\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!!\r\n--B--\r\n",
	}
	for _, body := range mails {
		require.NoError(t, rawMail(ts.addr, "a@example.test", []string{ts.box}, "From: a@example.test\r\nMIME-Version: 1.0\r\nContent-Type: "+body))
	}
	ids := sendN(t, newSender(t, ts.addr), ts, 1)

	logs := &logRecorder{}
	r := newReceiver(t, ts.mb, soapsmtp.WithLogger(logs.logger()), soapsmtp.WithLimits(core.Limits{MaxPartBytes: 2000}))
	d, err := r.Receive(ctxT(t))
	require.NoError(t, err)
	assert.Equal(t, ids[0], d.Message().ID, "the good mail")
	require.NoError(t, d.Ack(ctxT(t)))

	failed := files(t, ts.dir, soapsmtp.FolderFailed)
	require.Len(t, failed, 2*len(mails), "the mails and their faults: %v", failed)
	var reasons []string
	for _, name := range failed {
		if !strings.HasSuffix(name, soapsmtp.FaultSuffix) {
			continue
		}
		f := readFaultFile(t, filepath.Join(ts.dir, soapsmtp.FolderFailed, name))
		assert.Equal(t, core.CodeSender, f.Code)
		reasons = append(reasons, f.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, want := range []string{"never closed", "without a boundary", "not a SOAP envelope", "larger than 2000 bytes", "broken base64"} {
		assert.Contains(t, all, want)
	}
	assert.Equal(t, len(mails), logs.count("not a SOAP mail; parked"))
}

// TestConformanceAttachments runs coretest's attachment suite over a
// Sender -> Server -> Maildir -> Receiver: MTOM, SwA and inline Binary
// values in both versions, a 3 MiB part among them, arrive intact.
func TestConformanceAttachments(t *testing.T) {
	coretest.TestAttachmentsSendReceive(t, coretest.Features{}, func(t *testing.T) (core.Sender, core.Receiver, string) {
		srv := startServer(t, t.TempDir())
		return newSender(t, srv.addr), newReceiver(t, srv.mb), srv.mailto
	})
}

// TestPostfixDeliversAttachments: a real MTA in front. Mails with
// attachments (MTOM and SwA) submitted to Postfix and delivered by its
// virtual(8) into a Maildir (in the form Postfix writes them there) come
// out of the Receiver with their parts intact.
func TestPostfixDeliversAttachments(t *testing.T) {
	addr, dir := startPostfix(t)
	s, err := soapsmtp.NewSender(addr, "client@example.org")
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	data := coretest.InvoiceBytes(1<<20 + 5)
	sent := map[string]*core.Message{}
	for _, p := range []core.Packaging{core.MTOM, core.SwA} {
		m := coretest.InvoiceMessage(core.V12, p, "mailto:box@soap.test", data)
		require.NoError(t, s.Send(ctxT(t), m))
		sent[m.ID] = m
	}
	require.Eventually(t, func() bool {
		entries, err := os.ReadDir(filepath.Join(dir, soapsmtp.FolderNew))
		return err == nil && len(entries) == len(sent)
	}, 30*time.Second, 50*time.Millisecond, "Postfix delivered into %s", dir)
	mb, err := soapsmtp.OpenMaildir(dir)
	require.NoError(t, err)
	r := newReceiver(t, mb)
	for range sent {
		d, err := r.Receive(ctxT(t))
		require.NoError(t, err)
		m := sent[d.Message().ID]
		require.NotNil(t, m, "received %s", d.Message().ID)
		coretest.CheckInvoice(t, m, d.Message(), data)
		assert.Equal(t, "box@soap.test", d.Message().Meta[soapsmtp.MetaDeliveredTo], "Delivered-To written by Postfix")
		require.NoError(t, d.Ack(ctxT(t)))
		delete(sent, m.ID)
	}
}
