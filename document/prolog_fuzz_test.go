package document_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/document"
)

// chunkReader returns at most n bytes a read, and its last data with io.EOF.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	k := min(len(p), c.n, len(c.b))
	copy(p, c.b[:k])
	c.b = c.b[k:]
	if len(c.b) == 0 {
		return k, io.EOF
	}
	return k, nil
}

// stripped is what NewBody makes of doc, as written into an envelope.
func stripped(doc any) ([]byte, error) {
	b, err := document.NewBody(doc)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	_, err = b.WriteTo(&buf)
	return buf.Bytes(), err
}

// xmlProlog reads doc with encoding/xml up to its first start tag and
// returns that tag's offset, whether only whitespace and comments came
// before it (plain), and whether a DOCTYPE or a processing instruction other
// than the declaration did (refused). ok is false when encoding/xml found
// no start tag (an error, or the end).
func xmlProlog(doc []byte) (offset int64, plain, refused, ok bool) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "US-ASCII") || strings.EqualFold(label, "ASCII") {
			return r, nil // what Send accepts besides UTF-8
		}
		return nil, errors.New("unsupported")
	}
	plain = true
	for {
		off := d.InputOffset()
		tok, err := d.Token()
		if err != nil {
			return 0, plain, refused, false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return off, plain, refused, true
		case xml.ProcInst:
			plain = false
			refused = refused || t.Target != "xml"
		case xml.Directive:
			plain, refused = false, true
		case xml.CharData:
			if strings.Trim(string(t), " \t\r\n") != "" {
				plain = false
			}
		}
	}
}

// FuzzStripProlog: for any bytes, the prolog stripper gives the same
// result whole and streamed in chunks of any size (never a panic); what it
// keeps starts at a root element's '<' and is the tail of the input (for
// UTF-8); and it agrees with encoding/xml about where the root element
// starts and that a DOCTYPE or processing instruction is refused.
func FuzzStripProlog(f *testing.F) {
	for _, s := range []string{
		orderXML, bom + orderXML, decl + "\n" + orderXML, bom + decl + "\r\n<!-- c -->\n" + orderXML,
		"<?xml version='1.0' encoding='utf-8' standalone='no'?><a/>", "<!DOCTYPE a [<!ENTITY x 'y'>]><a>&x;</a>",
		`<?xml-stylesheet href="a.xsl"?><a/>`, `<?xml version="1.0" encoding="ISO-8859-1"?><a/>`,
		`<?xml version="1.1"?><a/>`, "<!-- -- --><a/>", "<!-- a --->", "text<a/>", "", " \n", bom,
		"\x00<\x00a\x00/\x00>", "<![CDATA[x]]><a/>", "</a>", "<", "<?", "<!", "<?xml", "<!--", "<?xml version=\"1.0\"",
		utf16Doc(`<?xml version="1.0" encoding="UTF-16"?><a>é🔩</a>`, false), utf16Doc("<!-- c --><b/>", true),
		utf16Doc(`<?xml version="1.0" encoding="UTF-8"?><a/>`, true), "\xFF\xFE\x00\xDC<\x00", "\xFE\xFF\x00<\x00a\x00",
		"\n  <?xml version=\"1.0\"?><a/>", "<!-- c --><?xml version=\"1.0\"?><a/>", "<?XML version=\"1.0\"?><a/>",
		`<?xml version="1.0"encoding="UTF-8"?><a/>`, `<?xml version="1.0" standalone="yes" encoding="UTF-8"?><a/>`,
		"<é/>", "<_a/>", "<:a/>", "<1a/>", "<-a/>",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, doc []byte, chunk uint8) {
		whole, werr := stripped(doc)
		streamed, serr := stripped(&chunkReader{b: doc, n: int(chunk%16) + 1})
		if (werr == nil) != (serr == nil) || werr != nil && werr.Error() != serr.Error() {
			t.Fatalf("%q: whole %v, streamed in %d-byte reads %v", doc, werr, chunk%16+1, serr)
		}
		if werr == nil && !bytes.Equal(whole, streamed) {
			t.Fatalf("%q: whole %q, streamed %q", doc, whole, streamed)
		}
		if werr != nil && !errors.Is(werr, document.ErrProlog) && !errors.Is(werr, document.ErrEncoding) {
			t.Fatalf("%q: %v is neither ErrProlog nor ErrEncoding", doc, werr)
		}
		var pe *document.PrologError
		if errors.As(werr, &pe) && (pe.Offset < 0 || pe.Reason == "") {
			t.Fatalf("%q: %#v", doc, pe)
		}
		if werr == nil && len(whole) > 0 && (len(whole) < 2 || whole[0] != '<' || strings.ContainsRune("?!/ \t\r\n", rune(whole[1]))) {
			t.Fatalf("%q: kept %q, which does not start with an element", doc, whole)
		}
		if bytes.HasPrefix(doc, []byte{0xFE, 0xFF}) || bytes.HasPrefix(doc, []byte{0xFF, 0xFE}) {
			return // transcoded: no byte comparison with the input
		}
		if werr == nil && !bytes.HasSuffix(doc, whole) {
			t.Fatalf("%q: kept %q, not the input's tail", doc, whole)
		}
		body := bytes.TrimPrefix(doc, []byte(bom))

		if werr == nil && len(whole) > 0 {
			// what was dropped is a prolog encoding/xml reads up to a root here
			prolog := body[:len(body)-len(whole)]
			off, _, refused, ok := xmlProlog(append(append([]byte{}, prolog...), "<x/>"...))
			if !ok || refused || off != int64(len(prolog)) {
				t.Fatalf("%q: dropped %q, which encoding/xml does not read as a prolog (root at %d, ok %v, refused %v)", doc, prolog, off, ok, refused)
			}
		}
		off, plain, refused, ok := xmlProlog(body)
		switch {
		case !ok:
		case refused && werr == nil:
			t.Fatalf("%q: encoding/xml sees a DOCTYPE or processing instruction before the root; kept %q", doc, whole)
		case plain && off <= document.MaxProlog && (werr != nil || int64(len(body)-len(whole)) != off):
			t.Fatalf("%q: encoding/xml finds the root at %d after whitespace and comments; got %q, %v", doc, off, whole, werr)
		}
	})
}
