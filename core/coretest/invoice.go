package coretest

import (
	"encoding/xml"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// Invoice is the body of InvoiceMessage: a number and a PDF that travels
// as a Binary value.
type Invoice struct {
	XMLName xml.Name    `xml:"urn:example:invoice Invoice"`
	Number  string      `xml:"urn:example:invoice number"`
	PDF     core.Binary `xml:"urn:example:invoice pdf"`
}

// InvoiceBytes returns n bytes holding every byte value, CR and LF
// included: a binary that a transport must not touch.
func InvoiceBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*13 + i/253)
	}
	return b
}

// InvoiceMessage returns a message to to in packaging p, with a fresh ID
// and the action urn:example:invoice:send: an Invoice whose PDF is a Binary
// of data, and a second, plain part. A binding's tests send it and check
// what arrives with CheckInvoice.
func InvoiceMessage(v core.Version, p core.Packaging, to string, data []byte) *core.Message {
	m := core.NewMessage(v, core.Body{})
	m.ID, m.To, m.Action, m.Packaging = core.NewMessageID(), to, "urn:example:invoice:send", p
	pdf := m.AttachBinary(core.BytesAttachment("application/pdf", data))
	m.Attachments = append(m.Attachments, core.BytesAttachment("text/plain; charset=utf-8", []byte("payable in 30 days\r\n")))
	m.Envelope.Body = core.ValueBody(&Invoice{Number: "INV-7", PDF: pdf})
	return m
}

// PartBytes returns an attachment's bytes.
func PartBytes(t testing.TB, a *core.Attachment) []byte {
	t.Helper()
	require.NotNil(t, a)
	rc, err := a.Open()
	require.NoError(t, err)
	defer rc.Close()
	b, err := io.ReadAll(rc)
	require.NoError(t, err)
	return b
}

// CheckInvoice checks that got is the InvoiceMessage sent (whose PDF was
// data): its ID, packaging, version and action, and both parts intact, the
// PDF byte for byte through the body's Binary value.
func CheckInvoice(t testing.TB, sent, got *core.Message, data []byte) {
	t.Helper()
	assert.Equal(t, sent.ID, got.ID)
	assert.Equal(t, sent.Packaging, got.Packaging)
	assert.Equal(t, sent.Version(), got.Version())
	assert.Equal(t, "urn:example:invoice:send", got.Action)
	require.Len(t, got.Attachments, 2)
	var v Invoice
	require.NoError(t, got.Body().Decode(&v))
	assert.Equal(t, "INV-7", v.Number)
	assert.Equal(t, data, PartBytes(t, v.PDF.Attachment()), "the PDF, byte for byte")
	assert.Equal(t, "application/pdf", v.PDF.Attachment().Type)
	assert.Equal(t, "payable in 30 days\r\n", string(PartBytes(t, got.Attachment(sent.Attachments[1].ID))))
}

// UnclosedPackageFile is a MIME file (a file drop's form of a package)
// whose package is never closed: a reader must refuse it, once it stops
// changing, with a Sender fault that says "never closed".
const UnclosedPackageFile = "MIME-Version: 1.0\r\nContent-Type: multipart/related; type=\"application/xop+xml\"; boundary=B\r\n\r\n" +
	"--B\r\nContent-Type: application/xop+xml; type=\"application/soap+xml\"\r\n\r\n" +
	`<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body><p:x xmlns:p="urn:x"/></e:Body></e:Envelope>` +
	"\r\n--B\r\nContent-ID: <a@b>\r\n\r\nxyz\r\n"
