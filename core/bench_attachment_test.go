package core_test

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/coretest"
)

// Benchmarks of attachments: a 10 MiB binary read and written again as an
// MTOM part against the same bytes as inline base64 in an envelope. Run
// (see docs/benchmarks.md):
//
//	go test -run XXX -bench 'BenchmarkAttachment|BenchmarkRatioAttachment' -benchmem -count 5 ./core/

// benchUpload is the body of the attachment benchmarks.
type benchUpload struct {
	XMLName xml.Name    `xml:"urn:example:bench Upload"`
	Name    string      `xml:"name"`
	Doc     core.Binary `xml:"doc"`
}

const benchAttachmentBytes = 10 << 20

// benchAttachmentInputs returns the 10 MiB as an MTOM package (with its
// Content-Type) and as an envelope holding it in base64.
func benchAttachmentInputs(b *testing.B) (pkg []byte, ct string, inline []byte) {
	data := pkData(benchAttachmentBytes)
	m := core.NewMessage(core.V12, core.Body{})
	m.Packaging = core.MTOM
	m.Envelope.Body = core.ValueBody(&benchUpload{Name: "scan.tiff", Doc: m.AttachBinary(core.BytesAttachment("image/tiff", data))})
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	pkg, ct = buf.Bytes(), m.ContentType()
	inline = []byte(`<env:Envelope xmlns:env="` + core.NamespaceV12 + `"><env:Body><u:Upload xmlns:u="urn:example:bench">` +
		`<name>scan.tiff</name><doc>` + base64.StdEncoding.EncodeToString(data) + `</doc></u:Upload></env:Body></env:Envelope>`)
	return pkg, ct, inline
}

// benchAttachmentPass reads a message carrying the binary (a package when
// ct is set), decodes its body into a Binary, and writes a reply carrying
// the same binary the same way.
func benchAttachmentPass(in []byte, ct string, lim core.Limits) error {
	var m *core.Message
	var err error
	if ct != "" {
		m, err = core.ReadPackage(bytes.NewReader(in), ct, lim)
	} else {
		m, err = core.ReadMessage(bytes.NewReader(in), lim)
	}
	if err != nil {
		return err
	}
	defer m.Close()
	var u benchUpload
	if err := m.Body().Decode(&u); err != nil {
		return err
	}
	reply := m.Reply(core.Body{})
	reply.Packaging = m.Packaging
	reply.Envelope.Body = core.ValueBody(&benchUpload{Name: u.Name, Doc: reply.AttachBinary(u.Doc.Attachment())})
	_, err = reply.WriteTo(io.Discard)
	return err
}

// BenchmarkAttachment: the pass over the MTOM package and over the inline
// envelope, each on its own (MB/s of the binary).
func BenchmarkAttachment(b *testing.B) {
	pkg, ct, inline := benchAttachmentInputs(b)
	lim := core.Limits{MaxBytes: 64 << 20, SpoolDir: b.TempDir()}
	for _, c := range []struct {
		name string
		in   []byte
		ct   string
	}{{"mtom-10MiB", pkg, ct}, {"inline-base64-10MiB", inline, ""}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(benchAttachmentBytes)
			for b.Loop() {
				if err := benchAttachmentPass(c.in, c.ct, lim); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(c.in)), "wire-bytes")
		})
	}
}

// BenchmarkRatioAttachment alternates one pass of each and reports the
// median of the per-pair ratios (metric "mtom/inline"): the MTOM package's
// time over the inline envelope's, measured side by side.
func BenchmarkRatioAttachment(b *testing.B) {
	pkg, ct, inline := benchAttachmentInputs(b)
	lim := core.Limits{MaxBytes: 64 << 20, SpoolDir: b.TempDir()}
	var ratios []float64
	for b.Loop() {
		t0 := time.Now()
		if err := benchAttachmentPass(inline, "", lim); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := benchAttachmentPass(pkg, ct, lim); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		ratios = append(ratios, float64(t2.Sub(t1))/float64(t1.Sub(t0)))
	}
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "mtom/inline")
}

// TestBenchAttachmentPass checks that the benchmark's pass carries the
// bytes both ways (a benchmark that lost them would measure nothing).
func TestBenchAttachmentPass(t *testing.T) {
	data := pkData(100 << 10)
	for _, p := range []core.Packaging{core.MTOM, core.Inline} {
		m := core.NewMessage(core.V12, core.Body{})
		m.Packaging = p
		m.Envelope.Body = core.ValueBody(&benchUpload{Name: "x", Doc: m.AttachBinary(core.BytesAttachment("image/tiff", data))})
		var buf bytes.Buffer
		if _, err := m.WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		ct := ""
		if p == core.MTOM {
			ct = m.ContentType()
		}
		if err := benchAttachmentPass(buf.Bytes(), ct, core.Limits{SpoolDir: t.TempDir()}); err != nil {
			t.Fatal(p, err)
		}
		got, err := core.ReadPackage(bytes.NewReader(buf.Bytes()), m.ContentType(), core.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		var u benchUpload
		if err := got.Body().Decode(&u); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(coretest.PartBytes(t, u.Doc.Attachment()), data) {
			t.Fatalf("%v: the bytes differ", p)
		}
	}
}
