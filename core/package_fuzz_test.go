package core_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// FuzzReadPackage reads arbitrary packages under small limits: it must never
// panic or hang; a refusal is a Sender or VersionMismatch fault; a package
// accepted has parts that read back at their Size, a body that reads to its
// end or fails with a fault, and, written again, reads back with the same
// parts and a body that reads to its end (its xop:Includes kept, naming
// parts the package has); Close leaves nothing in the spool folder.
func FuzzReadPackage(f *testing.F) {
	ct := `multipart/related; boundary=B; type="application/xop+xml"; start="<root@x>"`
	env := pkEnvelope(core.V11)
	f.Add(ct, []byte(pkPackage(
		pkPart{`Content-Type: application/xop+xml; type="text/xml"` + "\r\nContent-ID: <root@x>\r\n", xoEnvelope(xoInclude("cid:img@x"))},
		pkPart{"Content-Type: image/png\r\nContent-ID: <img@x>\r\n", "PNG"})))
	f.Add(ct, []byte(pkPackage( // an include in a header block
		pkPart{`Content-Type: application/xop+xml; type="text/xml"` + "\r\nContent-ID: <root@x>\r\n",
			`<s:Envelope xmlns:s="` + core.NamespaceV11 + `" xmlns:xop="` + core.NamespaceXOP + `"><s:Header><h:T xmlns:h="urn:h"><h:v>` +
				`<xop:Include href="cid:img@x"/></h:v></h:T></s:Header><s:Body><p:x xmlns:p="urn:p"/></s:Body></s:Envelope>`},
		pkPart{"Content-Type: image/png\r\nContent-ID: <img@x>\r\n", "PNG"})))
	f.Add("multipart/related; boundary=B", []byte(pkPackage(pkPart{"Content-Type: text/xml\r\n", env},
		pkPart{"Content-Transfer-Encoding: base64\r\nContent-ID: <a@x>\r\n", "UE5H"},
		pkPart{"Content-Transfer-Encoding: quoted-printable\r\n", "a=3Db"})))
	f.Add("multipart/related; boundary=B", []byte(pkPackage(pkPart{"Content-Type: text/xml\r\n", env},
		pkPart{"Content-Transfer-Encoding: base64\r\nContent-ID: <a@x>\r\n", "UE5H\r\n UE5H\tUE\n4="},
		pkPart{"Content-Transfer-Encoding: base64\r\nContent-ID: <b@x>\r\n", "UE5H!UE5H"})))
	f.Add("multipart/related; boundary=B", []byte("--B\r\nContent-Type: text/xml\r\n\r\n"+env))
	f.Add("multipart/related; boundary=B", []byte("preamble\r\n--B\r\n\r\n"+env+"\r\n--B--\r\nepilogue"))
	f.Add("text/xml", []byte(env))
	body, nct := nestedPackage(3)
	f.Add("multipart/related; boundary=B", []byte(hostileRoot+"--B\r\nContent-Type: "+nct+"\r\n\r\n"+body+"\r\n--B--\r\n"))
	for _, p := range []core.Packaging{core.MTOM, core.SwA} {
		for _, v := range []core.Version{core.V11, core.V12} {
			m := core.NewMessage(v, core.Body{})
			m.Packaging, m.Action = p, "urn:a"
			doc := m.AttachBinary(core.BytesAttachment("image/png", []byte("PNG data")))
			m.Envelope.Body = core.ValueBody(&xoDoc{Name: "n", Doc: doc})
			wire, ct := pkWire(f, m)
			f.Add(ct, wire)
		}
	}
	dir := f.TempDir()
	lim := core.Limits{MaxParts: 8, MaxPartBytes: 4 << 10, MaxPackageBytes: 64 << 10, MaxPartHeaderBytes: 512, SpoolThreshold: 256, SpoolDir: dir,
		MaxBytes: 16 << 10, MaxDepth: 32}
	f.Fuzz(func(t *testing.T, ct string, data []byte) {
		if len(data) > fuzzMaxInput {
			return
		}
		m, err := core.ReadPackage(bytes.NewReader(data), ct, lim)
		if err != nil {
			var f *core.Fault
			if !errors.As(err, &f) || f.Code != core.CodeSender && f.Code != core.CodeVersionMismatch {
				t.Fatalf("a refusal is a Sender or VersionMismatch fault: %#v", err)
			}
			return
		}
		defer func() {
			if err := m.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Fatalf("%d files left in the spool folder", len(ents))
			}
		}()
		parts := map[string][]byte{}
		for _, a := range m.Attachments {
			rc, err := a.Open()
			if err != nil {
				t.Fatalf("part %s: %v", a.ID, err)
			}
			b, err := io.ReadAll(rc)
			if err != nil || int64(len(b)) != a.Size() {
				t.Fatalf("part %s: %d bytes, Size %d, err %v", a.ID, len(b), a.Size(), err)
			}
			if a.ID != "" {
				parts[a.ID] = b
			}
		}
		var out bytes.Buffer
		if _, err := m.WriteTo(&out); err != nil {
			var f *core.Fault
			if !errors.As(err, &f) && m.Body().Err() == nil {
				// the body was sound: only parts a package cannot hold again fail
				for _, a := range m.Attachments {
					if a.ID == "" || bytes.ContainsAny([]byte(a.ID), "<> \r\n") {
						return
					}
				}
				t.Fatalf("writing an accepted package: %v", err)
			}
			return
		}
		back, err := core.ReadPackage(bytes.NewReader(out.Bytes()), m.ContentType(), core.Limits{SpoolDir: dir})
		if err != nil {
			t.Fatalf("reading back what was written: %v\n%q", err, out.Bytes())
		}
		defer back.Close()
		if back.Packaging != m.Packaging || len(back.Attachments) != len(m.Attachments) {
			t.Fatalf("read back as %v with %d parts, was %v with %d", back.Packaging, len(back.Attachments), m.Packaging, len(m.Attachments))
		}
		if err := back.Body().Discard(); err != nil {
			// written whole, the body's includes name parts the package has
			t.Fatalf("the body written again does not read back: %v\n%q", err, out.Bytes())
		}
		for id, b := range parts {
			a := back.Attachment(id)
			if a == nil {
				t.Fatalf("part <%s> lost", id)
			}
			if got := coretest.PartBytes(t, a); !bytes.Equal(got, b) {
				t.Fatalf("part <%s> changed: %q, was %q", id, got, b)
			}
		}
	})
}
