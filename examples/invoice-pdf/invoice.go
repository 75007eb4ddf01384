package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"io"

	"github.com/soapwire/soapwire/core"
)

// ns is the namespace of the invoice documents.
const ns = "urn:example:invoices"

// actionInvoice is the action of an invoice.
const actionInvoice = ns + ":Invoice"

// Invoice is the document: its fields, the SHA-256 of its PDF as the
// supplier computed it, and the PDF itself, a core.Binary: under MTOM an
// xop:Include naming the PDF's part, never base64 in the envelope.
type Invoice struct {
	XMLName   xml.Name    `xml:"urn:example:invoices Invoice"`
	Number    string      `xml:"urn:example:invoices Number"`
	Supplier  string      `xml:"urn:example:invoices Supplier"`
	Total     string      `xml:"urn:example:invoices Total"`
	PDFSHA256 string      `xml:"urn:example:invoices PDFSHA256"`
	PDF       core.Binary `xml:"urn:example:invoices PDF"`
}

// digest returns the SHA-256 of what r holds, in hex, and its length.
func digest(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// pdfDigest reads an invoice's PDF through its attachment and returns its
// SHA-256 and length.
func pdfDigest(b core.Binary) (string, int64, error) {
	rc, err := b.Open()
	if err != nil {
		return "", 0, err
	}
	defer rc.Close()
	return digest(rc)
}

// invoicePDF returns a one-page PDF showing an invoice's number, supplier
// and total: a real PDF (open it), with the binary comment line PDF
// writers put after the header, so the bytes are not text.
func invoicePDF(number, supplier, total string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	text := fmt.Sprintf("BT /F1 20 Tf 72 760 Td (Invoice %s) Tj /F1 12 Tf 0 -32 Td (From: %s) Tj 0 -18 Td (Total: %s) Tj ET", number, supplier, total)
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	obj("<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	obj("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>")
	obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(text), text))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

// short is the first 12 hex digits of a digest, for printing.
func short(d string) string { return d[:12] + "…" }
