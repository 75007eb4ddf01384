package core_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"mime"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Upload is a body with a binary value that travels as a part under MTOM.
type Upload struct {
	XMLName xml.Name    `xml:"urn:example:docs Upload"`
	Name    string      `xml:"name"`
	Doc     core.Binary `xml:"doc"`
}

// An MTOM message written and read back: the PDF travels as a MIME part,
// the body holds an xop:Include naming it, and decoding the body gives the
// part itself.
func ExampleMessage_AttachBinary() {
	m := core.NewMessage(core.V12, core.Body{})
	m.Packaging = core.MTOM
	m.Action = "urn:example:docs:Upload"
	doc := m.AttachBinary(core.BytesAttachment("application/pdf", []byte("%PDF-1.7 ...")))
	m.Envelope.Body = core.ValueBody(&Upload{Name: "invoice.pdf", Doc: doc})

	var wire bytes.Buffer
	if _, err := m.WriteTo(&wire); err != nil {
		fmt.Println(err)
		return
	}
	ct := m.ContentType() // what the transport announces
	mt, params, _ := mime.ParseMediaType(ct)
	fmt.Println(mt, params["type"], params["start-info"])
	fmt.Println("xop:Include in the package:", strings.Contains(wire.String(), `<Include xmlns="`+core.NamespaceXOP+`" href="cid:`+doc.Attachment().ID+`">`))

	got, err := core.ReadPackage(&wire, ct, core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer got.Close() // removes what was spooled
	fmt.Println(got.Packaging, got.Action, len(got.Attachments), "part")
	var u Upload
	if err := got.Body().Decode(&u); err != nil {
		fmt.Println(err)
		return
	}
	rc, _ := u.Doc.Open()
	pdf, _ := io.ReadAll(rc)
	fmt.Printf("%s: %q (%s), the part itself: %v\n", u.Name, pdf, u.Doc.Attachment().Type, u.Doc.Attachment() == got.Attachments[0])
	// Output:
	// multipart/related application/xop+xml application/soap+xml; action="urn:example:docs:Upload"
	// xop:Include in the package: true
	// MTOM urn:example:docs:Upload 1 part
	// invoice.pdf: "%PDF-1.7 ..." (application/pdf), the part itself: true
}

// Reading a SOAP with Attachments package as a transport delivers it: the
// root is the part start names, the others are attachments found by
// Content-ID.
func ExampleReadPackage() {
	pkg := "--B\r\n" +
		"Content-Type: text/xml; charset=utf-8\r\nContent-ID: <root@example>\r\n\r\n" +
		`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>` +
		`<d:Note xmlns:d="urn:example:docs"><d:scan>cid:scan@example</d:scan></d:Note></s:Body></s:Envelope>` +
		"\r\n--B\r\n" +
		"Content-Type: image/png\r\nContent-ID: <scan@example>\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		"iVBORw0KGgo=\r\n" +
		"--B--\r\n"
	m, err := core.ReadPackage(strings.NewReader(pkg), `multipart/related; type="text/xml"; boundary=B; start="<root@example>"`, core.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer m.Close()
	var note struct {
		Scan core.Binary `xml:"scan"` // swaRef: "cid:…" names a part
	}
	if err := m.Body().Decode(&note); err != nil {
		fmt.Println(err)
		return
	}
	a := m.Attachment("cid:scan@example")
	fmt.Println(m.Packaging, m.Body().Name().Local, a.Type, a.Size(), "bytes", note.Scan.Attachment() == a)
	// Output:
	// SwA Note image/png 8 bytes true
}

// A message read as MTOM and written again (what a core.Node intermediary
// forwarding it does): its xop:Include still names the part, which is
// written once; written Inline, the Include becomes the part's base64.
func ExampleMessage_Write_forwardMTOM() {
	m := core.NewMessage(core.V11, core.Body{})
	m.Packaging = core.MTOM
	doc := m.AttachBinary(core.BytesAttachment("application/pdf", []byte("%PDF-1.7 ...")))
	m.Envelope.Body = core.ValueBody(&Upload{Name: "invoice.pdf", Doc: doc})
	var wire bytes.Buffer
	if _, err := m.WriteTo(&wire); err != nil {
		fmt.Println(err)
		return
	}
	ct := m.ContentType()

	for _, p := range []core.Packaging{core.MTOM, core.Inline} {
		in, err := core.ReadPackage(bytes.NewReader(wire.Bytes()), ct, core.Limits{})
		if err != nil {
			fmt.Println(err)
			return
		}
		in.Packaging = p // how the next hop gets it
		var out bytes.Buffer
		if _, err := in.WriteTo(&out); err != nil {
			fmt.Println(err)
			return
		}
		in.Close()
		s := out.String()
		fmt.Printf("%s: %d xop:Include, %d part, the bytes %d times, inline base64: %v\n", p,
			strings.Count(s, "Include "), strings.Count(s, "Content-ID: <"+doc.Attachment().ID+">"),
			strings.Count(s, "%PDF-1.7 ..."), strings.Contains(s, "JVBERi0xLjcgLi4u"))
	}
	// Output:
	// MTOM: 1 xop:Include, 1 part, the bytes 1 times, inline base64: false
	// inline: 0 xop:Include, 0 part, the bytes 0 times, inline base64: true
}
