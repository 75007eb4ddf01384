package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// BenchmarkDocumentCopy measures what send's streaming check of a document
// (copyChecked: core's strict reader over the same bytes, in step with the
// copy) costs against copying the document into the envelope unchecked
// (io.Copy, what document.Send does with a reader): the whole envelope is
// written, as a binding writes it, to a writer that drops it. 4 MiB
// document of small elements with attributes and entity references.
func BenchmarkDocumentCopy(b *testing.B) {
	var doc strings.Builder
	doc.WriteString(`<po:orders xmlns:po="urn:example:po">`)
	for i := 0; doc.Len() < 4<<20; i++ {
		doc.WriteString(`<po:order id="` + itoa(i) + `" currency="EUR"><po:item>bolt &amp; nut</po:item><po:qty>3</po:qty><po:note>deliver to the back door</po:note></po:order>`)
	}
	doc.WriteString(`</po:orders>`)
	src := []byte(doc.String())
	for _, bc := range []struct {
		name string
		copy func(w io.Writer, r io.Reader) error
	}{
		{"raw", func(w io.Writer, r io.Reader) error { _, err := io.Copy(w, r); return err }},
		{"checked", copyChecked},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				r := onlyReader{bytes.NewReader(src)}
				m := core.NewMessage(core.V12, core.StreamBody(xml.Name{Space: "urn:example:po", Local: "orders"},
					func(w io.Writer) error { return bc.copy(w, r) }))
				if _, err := m.WriteTo(onlyWriter{io.Discard}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// onlyReader and onlyWriter hide io.WriterTo and io.ReaderFrom, as a file
// and a network connection behind a binding's writer do not offer them to
// each other.
type (
	onlyReader struct{ io.Reader }
	onlyWriter struct{ io.Writer }
)

func itoa(i int) string {
	var buf [20]byte
	n := len(buf)
	for {
		n--
		buf[n] = byte('0' + i%10)
		i /= 10
		if i == 0 {
			return string(buf[n:])
		}
	}
}
