package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/smtp"
	"os"
	"path/filepath"
	"strings"
	"time"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// supplierName is who issues the invoices.
const supplierName = "Supplier Ltd"

// invoiceMail returns the supplier's message: the invoice, its PDF an
// MTOM attachment (pdf), the digest of want.
func invoiceMail(to, number, total string, pdf, want []byte) *core.Message {
	m := core.NewMessage(core.V12, core.Body{})
	m.ID, m.To, m.Action, m.Packaging = "mid:invoice-"+number+"@supplier.example", to, actionInvoice, core.MTOM
	att := core.BytesAttachment("application/pdf", pdf)
	att.ID = number + ".pdf@supplier.example"
	att.Header = map[string][]string{"Content-Disposition": {`attachment; filename="` + number + `.pdf"`}}
	b := m.AttachBinary(att)
	b.ContentType = "application/pdf"
	sum := sha256.Sum256(want)
	m.Envelope.Body = core.ValueBody(&Invoice{Number: number, Supplier: supplierName, Total: total, PDFSHA256: hex.EncodeToString(sum[:]), PDF: b})
	return m
}

// sendInvoice mails an invoice with its PDF and waits for the archive to
// store it; it shows the MIME file the archive kept.
func sendInvoice(ctx context.Context, w io.Writer, out core.Sender, ap *party, arch *archive, number, total string) error {
	pdf := invoicePDF(number, supplierName, total)
	m := invoiceMail(ap.mailto(), number, total, pdf, pdf)
	sum := sha256.Sum256(pdf)
	fmt.Fprintf(w, "supplier: mails invoice %s (%s) to %s with its PDF, %d bytes, SHA-256 %s\n", number, total, m.To, len(pdf), short(hex.EncodeToString(sum[:])))
	fmt.Fprintf(w, "  one multipart/related mail (MTOM): the envelope in an application/xop+xml part, the PDF in a base64 part its xop:Include names (cid:%s)\n", m.Attachments[0].ID)
	if err := out.Send(ctx, m); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	select {
	case <-arch.stored:
	case <-ctx.Done():
		return fmt.Errorf("the archive stored nothing: %w", context.Cause(ctx))
	}
	done := filepath.Join(arch.root, "archive", "done")
	name, err := waitFor(ctx, done, ".xml")
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(done, name))
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	fmt.Fprintf(w, "archive: the file is kept in %s/; it starts\n", rel(arch.root, done))
	for range 2 {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		if i := strings.Index(line, "; boundary="); i >= 0 {
			line = line[:i] + "; boundary=…" // chosen afresh for each message
		}
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintln(w, "  then an empty line and the package: the envelope, then the PDF's bytes as they are")
	return nil
}

// damagedInvoice mails an invoice whose PDF is not the one its digest is
// of, and prints the fault that comes back by mail.
func damagedInvoice(ctx context.Context, w io.Writer, dir string, out core.Sender, ap *party, supplierIn core.Receiver, number, total string) error {
	pdf := invoicePDF(number, supplierName, total)
	damaged := bytes.Replace(pdf, []byte("Total: "+total), []byte("Total: 9"+total), 1)
	m := invoiceMail(ap.mailto(), number, total, damaged, pdf)
	fmt.Fprintf(w, "supplier: mails invoice %s (%s), but the PDF attached is not the one the invoice's digest is of (it says another total)\n", number, total)
	if err := out.Send(ctx, m); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d, err := supplierIn.Receive(ctx)
	if err != nil {
		return err
	}
	r := d.Message()
	f := r.Fault()
	if f == nil {
		return fmt.Errorf("the supplier got a mail that is not a fault")
	}
	fmt.Fprintf(w, "supplier: a fault arrives by mail, In-Reply-To %s: %s: %s\n", r.Meta[soapsmtp.MetaInReplyTo], f.Code, shortDigests(f.Reason))
	if err := d.Ack(ctx); err != nil {
		return err
	}
	fmt.Fprintf(w, "customer: core.Serve answered it with that fault; the mail is kept in %s/, and nothing reaches the archive\n", rel(dir, filepath.Join(ap.dir, soapsmtp.FolderDone)))
	return nil
}

// shortDigests shortens the SHA-256 digests in a text.
func shortDigests(s string) string {
	words := strings.Fields(s)
	for i, f := range words {
		if len(strings.TrimRight(f, ",")) == 64 {
			words[i] = short(f) + strings.TrimLeft(f[64:], "")
		}
	}
	return strings.Join(words, " ")
}

// brokenMail sends accounts payable a mail whose package is cut off (no
// closing delimiter), as a mail program that lost its connection halfway
// through a relay might leave it, and prints the fault it is parked with.
func brokenMail(ctx context.Context, w io.Writer, dir string, ap, supplier *party) error {
	mail := strings.ReplaceAll(`From: <billing@supplier.example>
To: <ap@customer.example>
Subject: Invoice INV-2024-0044
Message-ID: <invoice-INV-2024-0044@supplier.example>
MIME-Version: 1.0
Content-Type: multipart/related; type="application/xop+xml"; boundary="cut";
 start-info="application/soap+xml"

--cut
Content-Type: application/xop+xml; type="application/soap+xml"

<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body><i:Invoice xmlns:i="urn:example:invoices"><i:Number>INV-2024-0044</i:Number><i:PDF><xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:INV-2024-0044.pdf@supplier.example"/></i:PDF></i:Invoice></env:Body></env:Envelope>
--cut
Content-Type: application/pdf
Content-ID: <INV-2024-0044.pdf@supplier.example>
Content-Transfer-Encoding: base64

JVBERi0xLjQK
`, "\n", "\r\n")
	fmt.Fprintln(w, "someone mails invoice INV-2024-0044 whose package ends in the middle of the PDF's part")
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	failed := filepath.Join(ap.dir, soapsmtp.FolderFailed)
	if err := smtp.SendMail(ap.addr, nil, supplier.address, []string{ap.address}, []byte(mail)); err != nil {
		return err
	}
	name, err := waitFor(ctx, failed, soapsmtp.FaultSuffix)
	if err != nil {
		return err
	}
	f, err := os.Open(filepath.Join(failed, name))
	if err != nil {
		return err
	}
	defer f.Close()
	fm, err := core.ReadMessage(f, core.Limits{})
	if err != nil {
		return err
	}
	fault := fm.Fault()
	if fault == nil {
		return fmt.Errorf("%s holds no fault", name)
	}
	fmt.Fprintf(w, "customer: the Receiver parks it in %s/ without calling the handler, beside a fault file:\n", rel(dir, failed))
	fmt.Fprintf(w, "  <mail>%s: %s: %s\n", soapsmtp.FaultSuffix, fault.Code, fault.Reason)
	fmt.Fprintln(w, "  nothing is mailed back: a mail that cannot be read is not answered")
	return nil
}
