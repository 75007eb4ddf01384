package xmltok_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// laxities are what encoding/xml's Decoder.Token (Strict) accepts and the
// scanner refuses on purpose: a part of the refusal's message, and why.
var laxities = []struct{ msg, why string }{
	{"unbound namespace prefix", "encoding/xml leaves an undeclared prefix in Name.Space (Namespaces in XML 1.0 §5: NSC Prefix Declared)"},
	{"the prefix xmlns is reserved", "an element cannot be in the xmlns prefix (Namespaces in XML 1.0 §3)"},
	{"duplicate attribute", "encoding/xml checks neither attribute uniqueness (XML 1.0 WFC Unique Att Spec) nor uniqueness by expanded name (Namespaces in XML 1.0 §6.3)"},
	{"duplicate namespace declaration", "the same: an xmlns attribute given twice"},
	{"content after the root element", "encoding/xml reads any number of root elements (XML 1.0 §2.1 document)"},
	{"text outside the root element", "encoding/xml returns text around the root element (XML 1.0 §2.1: only Misc)"},
	{"CDATA section outside the root element", "the same, for a CDATA section"},
	{"no root element", "encoding/xml accepts an empty document"},
	{"document type declarations", "no DTD by design: encoding/xml returns it as a Directive"},
	{"processing instruction", "no processing instructions by design (the XML declaration aside)"},
	{"XML declaration", "encoding/xml reads the declaration loosely (any pseudo-attributes, any order, anywhere)"},
	{"cannot be declared", "reserved prefixes and namespaces (Namespaces in XML 1.0 §3)"},
	{"cannot be bound", "the same"},
	{"the default namespace cannot be", "the same"},
	{"cannot be undeclared", "xmlns:p=\"\" is not allowed in Namespaces in XML 1.0 (§5)"},
	{"empty local name", "a QName's local part is not empty (Namespaces in XML 1.0 §4)"},
	{"empty prefix", "a QName's prefix is not empty (Namespaces in XML 1.0 §4)"},
	{"not an NCName", "a QName's local part is an NCName (Namespaces in XML 1.0 §4)"},
	{"in a comment", "encoding/xml does not check the characters of a comment (XML 1.0 §2.5: Char)"},
	{"separated by white space", "encoding/xml accepts attributes with no white space between them (XML 1.0 §3.1)"},
	{"to a surrogate", "encoding/xml turns a character reference to a surrogate into U+FFFD (XML 1.0 WFC Legal Character)"},
}

// stdTokens renders what encoding/xml's Token returns, as render does: the
// XML declaration and white space outside the root dropped, namespace
// declarations apart from attributes, adjacent character data merged.
func stdTokens(in []byte) (string, error) {
	d := xml.NewDecoder(bytes.NewReader(in))
	d.Strict = true
	d.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if l := strings.ToLower(label); l == "us-ascii" || l == "ascii" {
			return r, nil
		}
		return nil, fmt.Errorf("unsupported encoding %q", label)
	}
	var b strings.Builder
	var text []byte
	depth := 0
	flush := func() {
		if text != nil {
			fmt.Fprintf(&b, "T%q\n", text)
			text = nil
		}
	}
	for {
		tok, err := d.Token()
		if err != nil {
			flush()
			if err == io.EOF {
				return b.String(), nil
			}
			return b.String(), err
		}
		if cd, ok := tok.(xml.CharData); ok {
			if depth > 0 && len(cd) > 0 {
				text = append(text, cd...)
			}
			continue
		}
		flush()
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			fmt.Fprintf(&b, "<{%s}%s", wsToSpace(tok.Name.Space), tok.Name.Local)
			for _, a := range tok.Attr {
				if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
					continue
				}
				fmt.Fprintf(&b, " {%s}%s=%q", wsToSpace(a.Name.Space), a.Name.Local, wsToSpace(a.Value))
			}
			b.WriteString("\n")
		case xml.EndElement:
			depth--
			fmt.Fprintf(&b, "</{%s}%s\n", wsToSpace(tok.Name.Space), tok.Name.Local)
		case xml.Comment:
			fmt.Fprintf(&b, "C%q\n", []byte(tok))
		}
	}
}

// ourTokens renders the scanner's tokens like stdTokens. chunk > 0 reads
// through a buffer of that size from a reader returning at most chunk bytes
// at a time.
func ourTokens(in []byte, chunk int) (string, error) {
	var s *xmltok.Reader
	if chunk > 0 {
		s = xmltok.NewReaderSize(&chunkReader{b: in, n: chunk}, xmltok.Limits{}, 4*chunk)
	} else {
		s = xmltok.NewReader(bytes.NewReader(in), xmltok.Limits{})
	}
	var b strings.Builder
	var text []byte
	flush := func() {
		if text != nil {
			fmt.Fprintf(&b, "T%q\n", text)
			text = nil
		}
	}
	for {
		t, err := s.Next()
		if err != nil {
			flush()
			if err == io.EOF {
				return b.String(), nil
			}
			return b.String(), err
		}
		if t.Kind == xmltok.CharData {
			if len(t.Text) == 0 {
				return "", fmt.Errorf("an empty CharData token")
			}
			text = append(text, t.Text...)
			continue
		}
		flush()
		switch t.Kind {
		case xmltok.StartElement:
			fmt.Fprintf(&b, "<{%s}%s", wsToSpace(string(t.Name.Space)), t.Name.Local)
			for _, a := range t.Attr {
				fmt.Fprintf(&b, " {%s}%s=%q", wsToSpace(string(a.Name.Space)), a.Name.Local, wsToSpace(string(a.Value)))
			}
			b.WriteString("\n")
		case xmltok.EndElement:
			fmt.Fprintf(&b, "</{%s}%s\n", wsToSpace(string(t.Name.Space)), t.Name.Local)
		case xmltok.Comment:
			fmt.Fprintf(&b, "C%q\n", t.Text)
		}
	}
}

// wsToSpace maps white space to spaces in an attribute value, and in a
// namespace name (the value of an xmlns attribute): the reader normalizes
// literal white space (XML 1.0 §3.3.3) and keeps what character references
// give, encoding/xml does neither, and its output cannot tell them apart.
func wsToSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// chunkReader returns at most n bytes per Read.
type chunkReader struct {
	b []byte
	n int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.n)], c.b)
	c.b = c.b[n:]
	return n, nil
}

// diffSeeds are the fuzzer's seeds: every construct, right and wrong.
var diffSeeds = []string{
	`<a/>`, `<?xml version="1.0" encoding="UTF-8"?><a xmlns="urn:a" b="1"><b>t&amp;</b><!--c--></a>`,
	`<p:a xmlns:p="urn:p" p:x="1" xml:lang="en"><![CDATA[x]]></p:a>`, `<a><?pi?></a>`, `<!DOCTYPE a><a/>`,
	`<a/><b/>`, `<p:a/>`, `<a b="1" b="2"/>`, `<a xmlns:p="urn:x" xmlns:q="urn:x" p:b="1" q:b="2"/>`, `<a></b>`,
	`<a xmlns:p=""/>`, `<a:/>`, `<:a/>`, `<a:1/>`, "<a>\x01</a>", "<a>\xff</a>", `<a xmlns="urn:a"><b xmlns=""/></a>`,
	"<a b=\"x\r\ny\t\">1\r\n2\r</a>", `<a>&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x1F600;&#0000067;</a>`, `<a>&#xD800;</a>`,
	`<a>]]></a>`, `<a>]]]></a>`, `<a><![CDATA[]]]]></a>`, "<a><!-- \x01 --></a>", `<a><!-- a -- b --></a>`, `<a><!---></a>`,
	`<a b="1"c="2"/>`, `<?xml version="1.0" foo="bar"?><a/>`, `<?xml version="1.1"?><a/>`, `<a>&#0;</a>`, `<a>&#x110000;</a>`,
	"<\u00e9:\u00fc xmlns:\u00e9=\"urn:e\"/>", "<a\u0300/>", "<\u2070/>", "<a>\xef\xbf\xbe</a>", `<a b='"' c="'"/>`, `<a></a >`,
	`<a><b></b><c/>text<d x="&quot;"/></a>`, `<a>x</a><!--after-->`, ` <a/> `, `<a>` + strings.Repeat("x", 100) + `</a>`,
	`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><m:f xmlns:m="urn:m"><x>1</x></m:f></s:Body></s:Envelope>`,
}

// FuzzDifferential reads the same bytes with the reader and with
// encoding/xml: both accept or both refuse, except where encoding/xml is
// known to be lax (laxities), where the reader refuses; accepted documents
// give the same tokens. The scanner must also give the
// same tokens and errors when its input comes in small pieces through a
// small buffer.
func FuzzDifferential(f *testing.F) {
	for _, s := range diffSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > 64<<10 {
			return
		}
		ours, ourErr := ourTokens(in, 0)
		h := fnv.New32a()
		h.Write(in)
		chunk := 1 + int(h.Sum32()%13)
		ours2, ourErr2 := ourTokens(in, chunk)
		switch {
		case (ourErr == nil) != (ourErr2 == nil):
			t.Fatalf("read in pieces of %d: error %v, whole: %v", chunk, ourErr2, ourErr)
		case ourErr == nil && ours != ours2:
			t.Fatalf("read in pieces of %d, tokens differ:\n%s\nwhole:\n%s", chunk, ours2, ours)
		case ourErr != nil && ourErr.Error() != ourErr2.Error():
			t.Fatalf("read in pieces of %d: error %v, whole: %v", chunk, ourErr2, ourErr)
		}
		if ourErr == nil {
			for _, c := range []int{0, chunk} {
				re, err := rawRebuild(in, c)
				if err != nil {
					t.Fatalf("rebuilding from Raw (pieces of %d): %v", c, err)
				}
				if got, err := ourTokens(re, 0); err != nil || got != ours {
					t.Fatalf("rebuilt from Raw (pieces of %d) %q from %q: %v, tokens\n%s\nwant\n%s", c, re, in, err, got, ours)
				}
			}
		}
		if bytes.HasPrefix(in, []byte{0xFE, 0xFF}) || bytes.HasPrefix(in, []byte{0xFF, 0xFE}) || bytes.HasPrefix(in, []byte{0xEF, 0xBB, 0xBF}) {
			return // byte order marks: encoding/xml does not read them
		}
		std, stdErr := stdTokens(in)
		switch {
		case ourErr == nil && stdErr != nil:
			t.Fatalf("accepted what encoding/xml refuses (%v): %q", stdErr, in)
		case ourErr == nil:
			if ours != std {
				t.Fatalf("tokens differ for %q:\nours:\n%s\nstd:\n%s", in, ours, std)
			}
		case stdErr == nil:
			msg := ourErr.Error()
			for _, l := range laxities {
				if strings.Contains(msg, l.msg) {
					return
				}
			}
			t.Fatalf("refused what encoding/xml accepts, for no known laxity: %v: %q", ourErr, in)
		}
	})
}

func TestLaxitiesExplained(t *testing.T) {
	for _, l := range laxities {
		if l.msg == "" || l.why == "" {
			t.Errorf("laxity %q has no reason", l.msg)
		}
	}
}

// rawRebuild writes the document back from its tokens: each token's Raw
// bytes when it has them, else the token written out with escaping. Read
// again, the result must give the same tokens.
func rawRebuild(in []byte, chunk int) ([]byte, error) {
	var s *xmltok.Reader
	if chunk > 0 {
		s = xmltok.NewReaderSize(&chunkReader{b: in, n: chunk}, xmltok.Limits{}, 4*chunk)
	} else {
		s = xmltok.NewReader(bytes.NewReader(in), xmltok.Limits{})
		defer s.Release()
	}
	var out []byte
	var rawStart []bool // per open element: its start tag was written raw
	qname := func(n xmltok.Name) string {
		if len(n.Prefix) > 0 {
			return string(n.Prefix) + ":" + string(n.Local)
		}
		return string(n.Local)
	}
	esc := func(b []byte) []byte {
		var w bytes.Buffer
		xml.EscapeText(&w, b)
		return w.Bytes()
	}
	for {
		t, err := s.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		raw := s.Raw()
		switch t.Kind {
		case xmltok.StartElement:
			rawStart = append(rawStart, raw != nil)
			if raw != nil {
				if !bytes.HasPrefix(raw, []byte("<"+qname(t.Name))) {
					return nil, fmt.Errorf("raw start tag %q for %s", raw, qname(t.Name))
				}
				out = append(out, raw...)
				continue
			}
			out = append(out, "<"+qname(t.Name)...)
			for _, d := range t.NS {
				if len(d.Prefix) == 0 {
					out = append(out, ` xmlns="`...)
				} else {
					out = append(out, " xmlns:"+string(d.Prefix)+`="`...)
				}
				out = append(append(out, esc(d.URI)...), '"')
			}
			for _, a := range t.Attr {
				out = append(out, " "+qname(a.Name)+`="`...)
				out = append(append(out, esc(a.Value)...), '"')
			}
			out = append(out, '>')
		case xmltok.EndElement:
			wasRaw := rawStart[len(rawStart)-1]
			rawStart = rawStart[:len(rawStart)-1]
			switch {
			case raw != nil && len(raw) == 0 && wasRaw:
				// the end of an empty-element tag written raw
			case raw != nil && len(raw) > 0:
				if !bytes.HasPrefix(raw, []byte("</"+qname(t.Name))) {
					return nil, fmt.Errorf("raw end tag %q for %s", raw, qname(t.Name))
				}
				out = append(out, raw...)
			default:
				out = append(out, "</"+qname(t.Name)+">"...)
			}
		case xmltok.CharData:
			if raw != nil && !bytes.Equal(raw, t.Text) {
				return nil, fmt.Errorf("raw text %q holds %q", raw, t.Text)
			}
			// Raw text with a '>' is escaped, as the core writes it: after
			// text that ends in "]]" (a CDATA section's, say) it would
			// make "]]>".
			if raw != nil && bytes.IndexByte(raw, '>') < 0 {
				out = append(out, raw...)
			} else {
				out = append(out, esc(t.Text)...)
			}
		case xmltok.Comment:
			if raw != nil && string(raw) != "<!--"+string(t.Text)+"-->" {
				return nil, fmt.Errorf("raw comment %q holds %q", raw, t.Text)
			}
			out = append(out, "<!--"+string(t.Text)+"-->"...)
		}
	}
}
