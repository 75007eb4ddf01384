package mail_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/mail"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// packaged returns a message in packaging p with a Binary of data (as the
// body's pdf) and a text attachment with CRLF and non-ASCII.
func packaged(v core.Version, p core.Packaging, data []byte) *core.Message {
	m := core.NewMessage(v, core.Body{})
	m.ID, m.Action, m.Packaging = core.NewMessageID(), "urn:example:invoice:send", p
	pdf := m.AttachBinary(core.BytesAttachment("application/pdf", data))
	note := core.BytesAttachment("text/plain; charset=utf-8", []byte("Zahlbar in 30 Tagen.\r\nDanke – café\r\n"))
	note.Header = map[string][]string{"Content-Disposition": {`attachment; filename="note.txt"`}}
	m.Attachments = append(m.Attachments, note)
	m.Envelope.Body = core.ValueBody(&coretest.Invoice{Number: "INV-1 ü", PDF: pdf})
	return m
}

// TestComposePackageReadsBack: a message with attachments is a
// multipart/related mail, 7bit throughout (lines of at most 998 bytes,
// no byte above 127, no NUL), the package's Content-Type at the top; Read
// gives back the message with its parts intact, in both versions, MTOM and
// SwA, from the mail as written, with CRLF line ends, and with LF ones (a
// Maildir's).
func TestComposePackageReadsBack(t *testing.T) {
	data := coretest.InvoiceBytes(1<<20 + 4099) // spooled when read
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, p := range []core.Packaging{core.MTOM, core.SwA} {
			t.Run(v.String()+"/"+p.String(), func(t *testing.T) {
				m := packaged(v, p, data)
				var out, scratch bytes.Buffer
				_, err := mail.Compose(&out, &scratch, m, mail.Header{From: svc, To: client})
				require.NoError(t, err)
				text := out.String()
				head, _, ok := strings.Cut(text, "\r\n\r\n")
				require.True(t, ok)
				assert.Contains(t, head, "\r\nContent-Type: multipart/related;\r\n\t")
				assert.Contains(t, head, "\r\nContent-Transfer-Encoding: 7bit")
				if v == core.V11 {
					assert.Contains(t, head, "\r\nSOAPAction: \"urn:example:invoice:send\"")
				} else {
					assert.NotContains(t, head, "SOAPAction")
				}
				for i, line := range strings.Split(text, "\r\n") {
					require.LessOrEqual(t, len(line), 998, "line %d", i)
					require.NotContains(t, line, "\r", "line %d: a lone CR", i)
					require.NotContains(t, line, "\n", "line %d: a lone LF", i)
				}
				for i := 0; i < len(text); i++ {
					require.True(t, text[i] < 0x80 && text[i] != 0, "byte %d is %#x", i, text[i])
				}
				assert.Less(t, len(text), len(data)*140/100, "base64 in lines: about 4/3")

				for name, mailText := range map[string]string{"CRLF": text, "LF": strings.ReplaceAll(text, "\r\n", "\n")} {
					t.Run(name, func(t *testing.T) {
						for _, inMem := range []bool{false, true} {
							var got *core.Message
							var err error
							cfg := &mail.ReadConfig{Prefix: testPrefix, Limits: core.Limits{SpoolDir: t.TempDir()}}
							if inMem {
								got, err = mail.ReadBytes([]byte(mailText), cfg)
							} else {
								got, err = mail.Read(strings.NewReader(mailText), cfg)
							}
							require.NoError(t, err)
							assert.Equal(t, p, got.Packaging)
							assert.Equal(t, v, got.Version())
							assert.Equal(t, m.ID, got.ID)
							assert.Equal(t, "urn:example:invoice:send", got.Action)
							assert.Equal(t, "mailto:svc@example.org", got.ReplyTo)
							assert.True(t, strings.HasPrefix(got.Meta[meta(mail.KeyContentType)], "multipart/related;"))
							require.Len(t, got.Attachments, 2)
							var doc coretest.Invoice
							require.NoError(t, got.Body().Decode(&doc))
							assert.Equal(t, "INV-1 ü", doc.Number)
							assert.Equal(t, data, coretest.PartBytes(t, doc.PDF.Attachment()), "the PDF, byte for byte")
							assert.Same(t, got.Attachments[0], doc.PDF.Attachment())
							assert.True(t, got.Attachments[0].Spooled())
							assert.Equal(t, "application/pdf", got.Attachments[0].Type)
							note := got.Attachment(m.Attachments[1].ID)
							assert.Equal(t, "Zahlbar in 30 Tagen.\r\nDanke – café\r\n", string(coretest.PartBytes(t, note)))
							assert.Equal(t, `attachment; filename="note.txt"`, note.Header.Get("Content-Disposition"))
							require.NoError(t, got.Close())
						}
					})
				}
			})
		}
	}
}

// TestComposePackageRoot: a root with non-ASCII text or long lines is
// quoted-printable (the mail stays 7bit); a plain one 7bit. A package with
// a 1.2 action too long for a header line is refused, nothing written.
func TestComposePackageRoot(t *testing.T) {
	for name, tc := range map[string]struct {
		text string
		cte  string
	}{
		"ASCII":    {"hello", "7bit"},
		"NonASCII": {"café", "quoted-printable"},
		"LongLine": {strings.Repeat("x", 2000), "quoted-printable"},
	} {
		t.Run(name, func(t *testing.T) {
			m := core.NewMessage(core.V12, core.RawBody([]byte(`<p:ping xmlns:p="urn:test">`+tc.text+`</p:ping>`)))
			m.Packaging = core.SwA
			m.Attachments = []*core.Attachment{core.BytesAttachment("", []byte{0, 1, 2})}
			var out, scratch bytes.Buffer
			_, err := mail.Compose(&out, &scratch, m, mail.Header{From: svc, To: client})
			require.NoError(t, err)
			_, body, _ := strings.Cut(out.String(), "\r\n\r\n")
			assert.Contains(t, body, "Content-Transfer-Encoding: "+tc.cte+"\r\n\r\n")
			assert.Contains(t, body, "Content-Type: application/octet-stream\r\n")
			got, err := read(out.String())
			require.NoError(t, err)
			assert.Equal(t, tc.text, bodyText(t, got))
			assert.Equal(t, []byte{0, 1, 2}, coretest.PartBytes(t, got.Attachments[0]))
		})
	}

	m := core.NewMessage(core.V12, core.RawBody([]byte(`<p:ping xmlns:p="urn:test"/>`)))
	m.Packaging, m.Action = core.MTOM, "urn:"+strings.Repeat("a", 1000)
	var out, scratch bytes.Buffer
	_, err := mail.Compose(&out, &scratch, m, mail.Header{From: svc, To: client})
	require.ErrorIs(t, err, mail.ErrHeaderTooLong)
	assert.Zero(t, out.Len())

	// an attachment that cannot be read: nothing appended
	m = core.NewMessage(core.V12, core.RawBody([]byte(`<p:ping xmlns:p="urn:test"/>`)))
	m.Packaging = core.MTOM
	m.Attachments = []*core.Attachment{core.NewAttachment("image/png", func() (io.ReadCloser, error) { return nil, assert.AnError }, -1)}
	out.WriteString("kept")
	_, err = mail.Compose(&out, &scratch, m, mail.Header{From: svc, To: client})
	require.ErrorIs(t, err, assert.AnError)
	assert.Equal(t, "kept", out.String(), "nothing appended")
}

// peerPackage is a package as a peer may mail it: LF line ends, the
// Content-Type folded with unquoted parameters, the root quoted-printable,
// the part base64 in short lines.
const peerPackage = `From: peer@example.org
To: svc@example.org
Message-ID: <p1@example.org>
MIME-Version: 1.0
Content-Type: multipart/related; type="application/xop+xml";
 boundary=XB; start="<root@p>";
 start-info="application/soap+xml; action=\"urn:peer\""

preamble
--XB
Content-Type: application/xop+xml; charset=UTF-8; type="application/soap+xml"
Content-Transfer-Encoding: quoted-printable
Content-ID: <root@p>

<env:Envelope xmlns:env=3D"http://www.w3.org/2003/05/soap-envelope"><env:Body><p:=
up xmlns:p=3D"urn:p"><p:d><xop:Include xmlns:xop=3D"http://www.w3.org/2004/08/xop/include" href=3D"cid:d%40p"/></p:d></p:up></env:Body></env:Envelope>
--XB
Content-Type: image/png
Content-Transfer-Encoding: base64
Content-ID: <d@p>

UE5H
DQoa
--XB--
`

// TestReadPeerPackage: a package mailed by another stack reads, also
// inside a multipart/mixed.
func TestReadPeerPackage(t *testing.T) {
	check := func(t *testing.T, m *core.Message, err error) {
		t.Helper()
		require.NoError(t, err)
		assert.Equal(t, core.MTOM, m.Packaging)
		assert.Equal(t, "urn:peer", m.Action)
		assert.Equal(t, "mid:p1@example.org", m.ID)
		var v struct {
			D core.Binary `xml:"urn:p d"`
		}
		require.NoError(t, m.Body().Decode(&v))
		assert.Equal(t, "PNG\r\n\x1a", string(coretest.PartBytes(t, v.D.Attachment())))
		assert.Equal(t, "PNG\r\n\x1a", string(coretest.PartBytes(t, m.Attachment("cid:d%40p"))))
	}
	m, err := read(peerPackage)
	check(t, m, err)
	m, err = read(crlf(peerPackage))
	check(t, m, err)

	head, body, _ := strings.Cut(peerPackage, "\n\n")
	head = strings.Replace(head, "Content-Type: multipart/related;", "Content-Type: multipart/mixed; boundary=OUT\n\n--OUT\nContent-Type: text/plain\n\nSee the invoice.\n--OUT\nContent-Type: multipart/related;", 1)
	m, err = read(head + "\n\n" + body + "--OUT--\n")
	check(t, m, err)
}

// TestReadPackageRefusals: a broken package in a mail is a Sender fault
// (ErrMalformed, or ErrLimit/ErrTooLarge for a bound), never a message.
func TestReadPackageRefusals(t *testing.T) {
	mtom := func(boundaryParam, body string) string {
		return "From: peer@example.org\nContent-Type: multipart/related; type=\"application/xop+xml\"" + boundaryParam + "\n\n" + body
	}
	root := "--B\nContent-Type: application/xop+xml; type=\"text/xml\"\n\n" + envelope11 + "\n"
	part := func(n int) string {
		return "--B\nContent-Type: application/octet-stream\nContent-ID: <p" + strings.Repeat("x", n%3) + string(rune('a'+n%26)) + "@x>\n\n" + strings.Repeat("z", 10) + "\n"
	}
	many := root
	for i := range 30 {
		many += strings.Replace(part(i), "<p", "<p"+strings.Repeat("i", i), 1)
	}
	tests := []struct {
		name string
		mail string
		lim  core.Limits
		want error
	}{
		{"NoBoundary", mtom("", root+"--B--\n"), core.Limits{}, core.ErrMalformed},
		{"NeverClosed", mtom("; boundary=B", root+part(1)), core.Limits{}, core.ErrMalformed},
		{"NoParts", mtom("; boundary=B", "nothing here\n"), core.Limits{}, core.ErrMalformed},
		{"RootNotSOAP", mtom("; boundary=B", "--B\nContent-Type: text/plain\n\nhi\n--B--\n"), core.Limits{}, core.ErrMalformed},
		{"BadTransferEncoding", mtom("; boundary=B", root+"--B\nContent-Transfer-Encoding: x-uu\n\nz\n--B--\n"), core.Limits{}, core.ErrMalformed},
		{"TooManyParts", mtom("; boundary=B", many+"--B--\n"), core.Limits{MaxParts: 10}, core.ErrLimit},
		{"PartTooLarge", mtom("; boundary=B", root+"--B\nContent-ID: <big@x>\n\n"+strings.Repeat("z", 2000)+"\n--B--\n"), core.Limits{MaxPartBytes: 1000}, core.ErrTooLarge},
		{"PackageTooLarge", mtom("; boundary=B", root+"--B\nContent-ID: <big@x>\n\n"+strings.Repeat("z", 5000)+"\n--B--\n"), core.Limits{MaxPackageBytes: 4000}, core.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, text := range []string{tt.mail, crlf(tt.mail)} {
				for _, inMem := range []bool{false, true} {
					cfg := &mail.ReadConfig{Prefix: testPrefix, Limits: tt.lim}
					var err error
					if inMem {
						_, err = mail.ReadBytes([]byte(text), cfg)
					} else {
						_, err = mail.Read(strings.NewReader(text), cfg)
					}
					require.Error(t, err)
					f := core.FaultOf(err)
					assert.Equal(t, core.CodeSender, f.Code, "%v", err)
					assert.ErrorIs(t, err, tt.want)
				}
			}
		})
	}
}

// TestReadHTMLRelated: a multipart/related of another type (an HTML mail
// with its images) is searched for a SOAP part, as before packages.
func TestReadHTMLRelated(t *testing.T) {
	_, err := read("Content-Type: multipart/related; type=\"text/html\"; boundary=B\n\n--B\nContent-Type: text/html\n\n<p>hi</p>\n--B--\n")
	require.Error(t, err)
	assert.Contains(t, core.FaultOf(err).Reason, "not a SOAP mail")
	m, err := read("Content-Type: multipart/related; type=\"text/html\"; boundary=B\n\n--B\nContent-Type: text/html\n\n<p>hi</p>\n--B\nContent-Type: text/xml\n\n" + envelope11 + "\n--B--\n")
	require.NoError(t, err)
	assert.Equal(t, core.Inline, m.Packaging)
	assert.Equal(t, "hello 1.1", bodyText(t, m))
}
