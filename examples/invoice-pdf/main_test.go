package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
)

// runOnce runs the example in a fresh folder and returns its output and
// the folder.
func runOnce(t *testing.T) (string, string) {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	require.NoError(t, run(ctx, &out, dir, slog.New(slog.DiscardHandler)))
	return out.String(), dir
}

// TestRun runs the exchange and checks every step it prints, the PDF the
// archive stored (byte for byte the one the supplier made) and the MIME
// file it kept.
func TestRun(t *testing.T) {
	out, dir := runOnce(t)
	assert.Equal(t, want, out)

	pdf, err := os.ReadFile(filepath.Join(dir, "archive", "pdf", "INV-2024-0042.pdf"))
	require.NoError(t, err)
	assert.Equal(t, invoicePDF("INV-2024-0042", supplierName, "1234.50 EUR"), pdf, "the PDF intact")

	done, err := os.ReadDir(filepath.Join(dir, "archive", "done"))
	require.NoError(t, err)
	require.Len(t, done, 1)
	file, err := os.ReadFile(filepath.Join(dir, "archive", "done", done[0].Name()))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(file), "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"application/xop+xml\"; boundary="))
	assert.True(t, bytes.Contains(file, pdf), "the PDF's bytes as they are in the MIME file")

	failed, err := os.ReadDir(filepath.Join(dir, "customer", "Maildir", soapsmtp.FolderFailed))
	require.NoError(t, err)
	assert.Len(t, failed, 2, "the cut-off mail and its fault file")
}

// TestRunGivesUpWithItsContext: a ctx that ends stops the exchange with an
// error instead of hanging, and everything it started is stopped.
func TestRunGivesUpWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx, &bytes.Buffer{}, t.TempDir(), slog.New(slog.DiscardHandler)) }()
	select {
	case err := <-done:
		require.Error(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return after its ctx ended")
	}
}

// TestREADMEShowsTheOutput: the output README.md shows is what the program
// prints.
func TestREADMEShowsTheOutput(t *testing.T) {
	out, _ := runOnce(t)
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "```\n"+strings.TrimSpace(out)+"\n```", "README.md's output block is out of date")
}

const want = `== Setup ==
customer: SMTP server for ap@customer.example, storing mail in customer/Maildir/
supplier: SMTP server for billing@supplier.example, storing mail in supplier/Maildir/
archive: a folder, archive/, its inbox archive/inbox/

== 1. An invoice with its PDF, by mail, into the archive by file drop ==
supplier: mails invoice INV-2024-0042 (1234.50 EUR) to mailto:ap@customer.example with its PDF, 679 bytes, SHA-256 e0a605b09f87…
  one multipart/related mail (MTOM): the envelope in an application/xop+xml part, the PDF in a base64 part its xop:Include names (cid:INV-2024-0042.pdf@supplier.example)
customer: mail from billing@supplier.example, Subject "urn:example:invoices:Invoice": invoice INV-2024-0042, 1234.50 EUR, packaging MTOM
  its PDF: the part <INV-2024-0042.pdf@supplier.example>, application/pdf, 679 bytes, SHA-256 e0a605b09f87…
customer: the PDF matches; the invoice goes to the archive by file drop: one MIME file in archive/inbox/
archive: file urn_example_archive_INV-2024-0042-a40975db2d82.xml, packaging MTOM: invoice INV-2024-0042 from Supplier Ltd, 1234.50 EUR
  its PDF: the part <INV-2024-0042.pdf@supplier.example>, 679 bytes, SHA-256 e0a605b09f87… as the invoice says: stored as archive/pdf/INV-2024-0042.pdf
archive: the file is kept in archive/done/; it starts
  MIME-Version: 1.0
  Content-Type: multipart/related; type="application/xop+xml"; boundary=…
  then an empty line and the package: the envelope, then the PDF's bytes as they are

== 2. An invoice whose PDF does not match its digest ==
supplier: mails invoice INV-2024-0043 (99.00 EUR), but the PDF attached is not the one the invoice's digest is of (it says another total)
customer: mail from billing@supplier.example, Subject "urn:example:invoices:Invoice": invoice INV-2024-0043, 99.00 EUR, packaging MTOM
  its PDF: the part <INV-2024-0043.pdf@supplier.example>, application/pdf, 678 bytes, SHA-256 cdbf9fcaacb4…
customer: the PDF does not match the invoice's digest (1111896dd8de…): a Sender fault to mailto:billing@supplier.example
supplier: a fault arrives by mail, In-Reply-To <invoice-INV-2024-0043@supplier.example>: Sender: invoice INV-2024-0043: the PDF's SHA-256 is cdbf9fcaacb4…, the invoice says 1111896dd8de…
customer: core.Serve answered it with that fault; the mail is kept in customer/Maildir/done/, and nothing reaches the archive

== 3. A mail whose package is cut off ==
someone mails invoice INV-2024-0044 whose package ends in the middle of the PDF's part
customer: the Receiver parks it in customer/Maildir/failed/ without calling the handler, beside a fault file:
  <mail>.fault.xml: Sender: malformed package: part 2: unexpected EOF (a package cut off, or never closed)
  nothing is mailed back: a mail that cannot be read is not answered

== What is left ==
customer/Maildir/
  new/     0 files
  work/    0 files
  done/    2 files
  failed/  1 file, 1 fault file
supplier/Maildir/
  new/     0 files
  work/    0 files
  failed/  0 files
archive/
  inbox/   0 files
  work/    0 files
  done/    1 file
  failed/  0 files
  pdf/     1 file
`
