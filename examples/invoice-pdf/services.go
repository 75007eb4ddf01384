package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

	soapfile "github.com/soapwire/soapwire/bindings/file"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// payables is the customer's accounts-payable service: it takes invoices
// out of its Maildir, checks each PDF against the digest its invoice
// carries and drops the invoice in the archive's inbox.
type payables struct {
	w           io.Writer
	root        string
	archive     core.Sender // soapfile.Sender
	archiveAddr string      // file:///…/archive/inbox
}

func (p *payables) receive(ctx context.Context, m *core.Message) (*core.Message, error) {
	var inv Invoice
	if err := m.Body().Decode(&inv); err != nil {
		return nil, err
	}
	pdf := inv.PDF.Attachment()
	if pdf == nil {
		return nil, core.SenderFault("invoice %s: no PDF", inv.Number)
	}
	sum, n, err := pdfDigest(inv.PDF)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(p.w, "customer: mail from %s, Subject %q: invoice %s, %s, packaging %s\n",
		m.Meta[soapsmtp.MetaFrom], m.Meta[soapsmtp.MetaSubject], inv.Number, inv.Total, m.Packaging)
	fmt.Fprintf(p.w, "  its PDF: the part <%s>, %s, %d bytes, SHA-256 %s\n", pdf.ID, pdf.Type, n, short(sum))
	if sum != inv.PDFSHA256 {
		fmt.Fprintf(p.w, "customer: the PDF does not match the invoice's digest (%s): a Sender fault to %s\n", short(inv.PDFSHA256), m.ReplyTo)
		return nil, core.SenderFault("invoice %s: the PDF's SHA-256 is %s, the invoice says %s", inv.Number, sum, inv.PDFSHA256)
	}

	// Forward it: the same invoice, the PDF's part as it came (Content-ID
	// and all), in one MIME file.
	fwd := core.NewMessage(core.V12, core.Body{})
	fwd.ID, fwd.To, fwd.Action, fwd.Packaging = "urn:example:archive:"+inv.Number, p.archiveAddr, actionInvoice, core.MTOM
	ct := inv.PDF.ContentType
	inv.PDF = fwd.AttachBinary(pdf)
	inv.PDF.ContentType = ct
	fwd.Envelope.Body = core.ValueBody(&inv)
	fmt.Fprintf(p.w, "customer: the PDF matches; the invoice goes to the archive by file drop: one MIME file in %s/\n",
		rel(p.root, filepath.Join(p.root, "archive", "inbox")))
	return nil, p.archive.Send(ctx, fwd)
}

// archive takes the invoices dropped in its inbox and stores each PDF as
// a file.
type archive struct {
	w      io.Writer
	root   string
	pdfDir string
	stored chan string // the number of each invoice stored
}

func (a *archive) store(ctx context.Context, m *core.Message) (*core.Message, error) {
	var inv Invoice
	if err := m.Body().Decode(&inv); err != nil {
		return nil, err
	}
	name := inv.Number + ".pdf"
	if err := soapfile.CheckName(name); err != nil { // the number comes from outside
		return nil, core.SenderFault("invoice number %q: %v", inv.Number, err)
	}
	rc, err := inv.PDF.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if err := os.MkdirAll(a.pdfDir, 0o755); err != nil {
		return nil, err
	}
	dst := filepath.Join(a.pdfDir, name)
	f, err := os.Create(dst)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), rc)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if sum != inv.PDFSHA256 {
		return nil, core.SenderFault("invoice %s: the PDF's SHA-256 is %s, the invoice says %s", inv.Number, sum, inv.PDFSHA256)
	}
	fmt.Fprintf(a.w, "archive: file %s, packaging %s: invoice %s from %s, %s\n", m.Meta[soapfile.MetaFile], m.Packaging, inv.Number, inv.Supplier, inv.Total)
	fmt.Fprintf(a.w, "  its PDF: the part <%s>, %d bytes, SHA-256 %s as the invoice says: stored as %s\n",
		inv.PDF.Attachment().ID, n, short(sum), rel(a.root, dst))
	a.stored <- inv.Number
	return nil, nil
}
