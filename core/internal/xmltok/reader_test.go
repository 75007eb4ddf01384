package xmltok_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// render reads all of in and renders its tokens, one a line (adjacent
// character data merged).
func render(in string, lim xmltok.Limits) (string, error) {
	return renderReader(xmltok.NewReader(strings.NewReader(in), lim))
}

func renderReader(s *xmltok.Reader) (string, error) {
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
			text = append(text, t.Text...)
			if text == nil {
				text = []byte{}
			}
			continue
		}
		flush()
		switch t.Kind {
		case xmltok.StartElement:
			fmt.Fprintf(&b, "<{%s}%s:%s", t.Name.Space, t.Name.Prefix, t.Name.Local)
			for _, d := range t.NS {
				fmt.Fprintf(&b, " ns[%s]=%s", d.Prefix, d.URI)
			}
			for _, a := range t.Attr {
				fmt.Fprintf(&b, " {%s}%s:%s=%q", a.Name.Space, a.Name.Prefix, a.Name.Local, a.Value)
			}
			fmt.Fprintf(&b, " d%d\n", s.Depth())
		case xmltok.EndElement:
			fmt.Fprintf(&b, "</{%s}%s:%s d%d\n", t.Name.Space, t.Name.Prefix, t.Name.Local, s.Depth())
		case xmltok.Comment:
			fmt.Fprintf(&b, "C%q\n", t.Text)
		}
	}
}

func TestReaderTokens(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"namespaces, entities, CDATA", `<?xml version="1.0"?>
<!--c--><p:a xmlns:p="urn:p" xmlns="urn:d" p:x="1" y="2" xml:lang="en"><b>t&amp;<![CDATA[<]]></b><c xmlns=""/></p:a>
`, `C"c"
<{urn:p}p:a ns[p]=urn:p ns[]=urn:d {urn:p}p:x="1" {}:y="2" {http://www.w3.org/XML/1998/namespace}xml:lang="en" d1
<{urn:d}:b d2
T"t&<"
</{urn:d}:b d1
<{}:c ns[]= d2
</{}:c d1
</{urn:p}p:a d0
`},
		{"references", `<a b="&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x1F600;&#0000067;">&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x1F600;</a>`,
			"<{}:a {}:b=\"<>&'\\\"AB\U0001F600C\" d1\nT\"<>&'\\\"AB\U0001F600\"\n</{}:a d0\n"},
		{"line ends", "<a b=\"x\r\ny\rz\n\tw\" c=\"&#10;&#13;&#9;\">1\r\n2\r3\n</a>",
			"<{}:a {}:b=\"x y z  w\" {}:c=\"\\n\\r\\t\" d1\nT\"1\\n2\\n3\\n\"\n</{}:a d0\n"},
		{"CR at the end of text", "<a>x\r</a>", "<{}:a d1\nT\"x\\n\"\n</{}:a d0\n"},
		{"CDATA keeps markup and line ends", "<a><![CDATA[<b>&amp;]]]]><![CDATA[>\r\n]]></a>", "<{}:a d1\nT\"<b>&amp;]]>\\n\"\n</{}:a d0\n"},
		{"empty CDATA", "<a><![CDATA[]]></a>", "<{}:a d1\n</{}:a d0\n"},
		{"brackets in text", "<a>]] ]>]</a>", "<{}:a d1\nT\"]] ]>]\"\n</{}:a d0\n"},
		{"]]> in an attribute value", `<a b="]]>"/>`, "<{}:a {}:b=\"]]>\" d1\n</{}:a d0\n"},
		{"quotes inside values", `<a b="'" c='"'/>`, "<{}:a {}:b=\"'\" {}:c=\"\\\"\" d1\n</{}:a d0\n"},
		{"white space in tags", "<a \n b = \"1\"\t/>", "<{}:a {}:b=\"1\" d1\n</{}:a d0\n"},
		{"end tag with white space", "<a></a \n>", "<{}:a d1\n</{}:a d0\n"},
		{"comments", "<!----><a><!-- - x -> --></a><!--z-->", "C\"\"\n<{}:a d1\nC\" - x -> \"\n</{}:a d0\nC\"z\"\n"},
		{"non-ASCII names", "<é:ü xmlns:é=\"urn:e\" é:ß=\"1\" ñ=\"2\"/>", "<{urn:e}é:ü ns[é]=urn:e {urn:e}é:ß=\"1\" {}:ñ=\"2\" d1\n</{urn:e}é:ü d0\n"},
		{"declaration variants", `<?xml version='1.0' encoding='utf-8' standalone='yes' ?><a/>`, "<{}:a d1\n</{}:a d0\n"},
		{"declaration US-ASCII", "<?xml version=\"1.0\" encoding=\"US-ASCII\"?>\n<a/>", "<{}:a d1\n</{}:a d0\n"},
		{"xml prefix declared", `<a xmlns:xml="http://www.w3.org/XML/1998/namespace" xml:space="preserve"/>`, "<{}:a ns[xml]=http://www.w3.org/XML/1998/namespace {http://www.w3.org/XML/1998/namespace}xml:space=\"preserve\" d1\n</{}:a d0\n"},
		{"xml prefix on an element", `<xml:a/>`, "<{http://www.w3.org/XML/1998/namespace}xml:a d1\n</{http://www.w3.org/XML/1998/namespace}xml:a d0\n"},
		{"same local name, other namespace", `<a xmlns:p="urn:p" xmlns:q="urn:q" p:b="1" q:b="2" b="3"/>`, "<{}:a ns[p]=urn:p ns[q]=urn:q {urn:p}p:b=\"1\" {urn:q}q:b=\"2\" {}:b=\"3\" d1\n</{}:a d0\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := render(tc.in, xmltok.Limits{})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestReaderScope(t *testing.T) {
	const in = `<a xmlns:p="urn:1" xmlns="urn:d"><b xmlns:p="urn:2" xmlns:q="urn:q">x</b></a>`
	s := xmltok.NewReader(strings.NewReader(in), xmltok.Limits{})
	next := func() *xmltok.Token {
		tok, err := s.Next()
		require.NoError(t, err)
		return tok
	}
	scope := func() string {
		var b strings.Builder
		for _, d := range s.InScope(nil) {
			fmt.Fprintf(&b, "%s=%s ", d.Prefix, d.URI)
		}
		return b.String()
	}
	lookup := func(p string) (string, bool) {
		uri, ok := s.Lookup([]byte(p))
		return string(uri), ok
	}
	next() // <a>
	assert.Equal(t, "p=urn:1 =urn:d ", scope())
	next() // <b>
	assert.Equal(t, "=urn:d p=urn:2 q=urn:q ", scope(), "one binding per prefix, the innermost")
	next() // text
	tok := next()
	require.Equal(t, xmltok.EndElement, tok.Kind)
	uri, ok := lookup("q")
	assert.True(t, ok, "the closed element's scope lasts until the next call")
	assert.Equal(t, "urn:q", uri)
	next() // </a>
	_, ok = lookup("q")
	assert.False(t, ok)
	uri, ok = lookup("p")
	assert.True(t, ok)
	assert.Equal(t, "urn:1", uri)
	uri, ok = lookup("xml")
	assert.True(t, ok)
	assert.Equal(t, xmltok.XMLNamespace, uri)
	_, err := s.Next()
	assert.Equal(t, io.EOF, err)
	_, err = s.Next()
	assert.Equal(t, io.EOF, err, "EOF is sticky")
	assert.Equal(t, 0, s.Depth())
	assert.Equal(t, int64(len(in)), s.Offset())

	s = xmltok.NewReader(strings.NewReader(`<a/>`), xmltok.Limits{})
	_, err = s.Next()
	require.NoError(t, err)
	uri, ok = lookup("")
	assert.True(t, ok, "the empty default namespace is always bound")
	assert.Empty(t, uri)
	_, ok = lookup("p")
	assert.False(t, ok)
}

func TestReaderOffsets(t *testing.T) {
	in := `<a><b x="1"/>text<!--c--></a>`
	s := xmltok.NewReader(strings.NewReader(in), xmltok.Limits{})
	var ends []int64
	for {
		_, err := s.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		ends = append(ends, s.Offset())
	}
	assert.Equal(t, []int64{3, 13, 13, 17, 25, 29}, ends, "after a token, the offset of its end")
}

func TestReaderErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, "no root element"},
		{`  <!--x--> `, "no root element"},
		{`<!DOCTYPE a><a/>`, "document type declarations"},
		{`<a><!ELEMENT a ANY></a>`, "document type declarations"},
		{`<a><?pi?></a>`, "processing instruction <?pi?>"},
		{`<?xml-stylesheet href="a"?><a/>`, "processing instruction <?xml-stylesheet?>"},
		{`<?XML version="1.0"?><a/>`, "processing instruction <?XML?>"},
		{`<a/><?xml version="1.0"?>`, "XML declaration not at the start"},
		{` <?xml version="1.0"?><a/>`, "XML declaration not at the start"},
		{`<?xml?><a/>`, "malformed XML declaration"},
		{`<?xml encoding="utf-8"?><a/>`, "malformed XML declaration"},
		{`<?xml version="1.1"?><a/>`, `unsupported version "1.1" in the XML declaration`},
		{`<?xml version="1.0" encoding="latin1"?><a/>`, `unsupported encoding "latin1"`},
		{`<?xml version="1.0" encoding="UTF-16"?><a/>`, `unsupported encoding "UTF-16"`},
		{`<?xml version="1.0" standalone="maybe"?><a/>`, "malformed XML declaration"},
		{`<?xml version="1.0"encoding="utf-8"?><a/>`, "malformed XML declaration"},
		{`<?xml version="1.0" foo="bar"?><a/>`, "malformed XML declaration"},
		{`<a/><b/>`, "content after the root element"},
		{`<a/>x`, "text outside the root element"},
		{`x<a/>`, "text outside the root element"},
		{`<![CDATA[x]]><a/>`, "CDATA section outside the root element"},
		{`<a>`, "unexpected end of input inside <a>"},
		{`<a><b`, "unexpected end of input inside <a>"},
		{`<a b="1`, "unexpected end of input in a start tag"},
		{`<a><!-- x`, "unexpected end of input inside <a>"},
		{`<a><![CDATA[x`, "unexpected end of input inside <a>"},
		{`<a></b>`, "element <a> closed by </b>"},
		{`<a></a b>`, "in the end tag </a>"},
		{`<p:a xmlns:p="urn:p" xmlns:q="urn:p"></q:a>`, "element <p:a> closed by </q:a>"},
		{`</a>`, "unexpected end tag"},
		{`<p:a/>`, `unbound namespace prefix "p"`},
		{`<a p:b="1"/>`, `unbound namespace prefix "p"`},
		{`<a b="1" b="2"/>`, "duplicate attribute b"},
		{`<a xmlns:p="urn:x" xmlns:q="urn:x" p:b="1" q:b="2"/>`, "duplicate attribute q:b"},
		{`<a xmlns:p="urn:x" xmlns:p="urn:y"/>`, "duplicate namespace declaration"},
		{`<a xmlns="urn:x" xmlns="urn:y"/>`, "duplicate namespace declaration"},
		{`<a xmlns:p=""/>`, "cannot be undeclared"},
		{`<a xmlns:xmlns="urn:x"/>`, "the prefix xmlns cannot be declared"},
		{`<a xmlns:xml="urn:x"/>`, "the prefix xml cannot be bound"},
		{`<a xmlns:p="http://www.w3.org/XML/1998/namespace"/>`, "the XML namespace cannot be bound"},
		{`<a xmlns:p="http://www.w3.org/2000/xmlns/"/>`, "the xmlns namespace cannot be declared"},
		{`<a xmlns="http://www.w3.org/XML/1998/namespace"/>`, "the default namespace cannot be"},
		{`<a xmlns="http://www.w3.org/2000/xmlns/"/>`, "the default namespace cannot be"},
		{`<xmlns:a/>`, "the prefix xmlns is reserved"},
		{`<a:/>`, "empty local name"},
		{`<:a/>`, "empty prefix"},
		{`<a:b:c/>`, "more than one colon"},
		{`<a:1b xmlns:a="urn:a"/>`, "not an NCName"},
		{`<a xmlns:b="urn:b" b:="1"/>`, "empty local name"},
		{`<1a/>`, "invalid XML name"},
		{`<-a/>`, "invalid XML name"},
		{"<a\xff/>", "invalid XML name"},
		{"<a\u00d7/>", "invalid XML name"},
		{`< a/>`, "a name was expected, not ' '"},
		{`<a b="1"c="2"/>`, "separated by white space"},
		{`<a b/>`, "attribute b without ="},
		{`<a b=1/>`, "unquoted value"},
		{`<a b="<"/>`, "unescaped < inside the value"},
		{`<a b="&foo;"/>`, "invalid character entity &foo;"},
		{`<a b="&amp"/>`, "no semicolon"},
		{`<a>&foo;</a>`, "invalid character entity &foo;"},
		{`<a>&nbsp;</a>`, "invalid character entity &nbsp;"},
		{`<a>&amp</a>`, "invalid character entity"},
		{`<a>&#;</a>`, "invalid character reference"},
		{`<a>&#x;</a>`, "invalid character reference"},
		{`<a>&#12a;</a>`, "invalid character reference"},
		{`<a>&#x110000;</a>`, "beyond Unicode"},
		{`<a>&#99999999999999999999;</a>`, "beyond Unicode"},
		{`<a>&#xD800;</a>`, "to a surrogate"},
		{`<a>&#0;</a>`, "illegal character code U+0000"},
		{`<a>&#xFFFE;</a>`, "illegal character code U+FFFE"},
		{`<a b="&#1;"/>`, "illegal character code U+0001"},
		{"<a>\x01</a>", "illegal character code U+0001"},
		{"<a>\x00</a>", "illegal character code U+0000"},
		{"<a b=\"\x0b\"/>", "illegal character code U+000B"},
		{"<a>\xef\xbf\xbe</a>", "illegal character code U+FFFE"},
		{"<a>\xff</a>", "invalid UTF-8"},
		{"<a>\xed\xa0\x80</a>", "invalid UTF-8"}, // an encoded surrogate
		{"<a>\xc0\xaf</a>", "invalid UTF-8"},     // overlong
		{"<a b=\"\xff\"/>", "invalid UTF-8"},
		{"<a><![CDATA[\x01]]></a>", "illegal character code U+0001"},
		{"<a><![CDATA[\xff]]></a>", "invalid UTF-8"},
		{"<a>]]></a>", "]]> not allowed in text"},
		{"<a><!-- \x01 --></a>", "illegal character code U+0001 in a comment"},
		{"<a><!-- \xff --></a>", "invalid UTF-8 in a comment"},
		{"<a><!-- a -- b --></a>", `"--" not allowed in a comment`},
		{"<a><!-- a ---></a>", `"--" not allowed in a comment`},
		{"<a><!- x --></a>", "invalid sequence <!-"},
		{"<a><![CDAT[x]]></a>", "invalid <![ sequence"},
		{"<a/ >", "expected />"},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			_, err := render(tc.in, xmltok.Limits{})
			require.Error(t, err)
			assert.ErrorContains(t, err, tc.want)
			var se *xmltok.SyntaxError
			require.True(t, errors.As(err, &se))
			assert.NotErrorIs(t, err, xmltok.ErrLimit)
			assert.NotErrorIs(t, err, xmltok.ErrTooLarge)
		})
	}
}

func TestReaderTruncated(t *testing.T) {
	full := `<?xml version="1.0"?><p:a xmlns:p="urn:p" b='x&amp;y'><!--c--><p:b>t&#x20;u<![CDATA[v]]></p:b><c/></p:a>`
	_, err := render(full, xmltok.Limits{})
	require.NoError(t, err)
	for n := range len(full) {
		_, err := render(full[:n], xmltok.Limits{})
		require.Error(t, err, "cut at %d", n)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "cut at %d: %v", n, err)
	}
}

func TestReaderLimits(t *testing.T) {
	cases := []struct {
		name string
		in   string
		lim  xmltok.Limits
		ok   xmltok.Limits
		is   error
	}{
		{"bytes", `<a>0123456789</a>`, xmltok.Limits{MaxBytes: 16}, xmltok.Limits{MaxBytes: 17}, xmltok.ErrTooLarge},
		{"depth", `<a><b><c/></b></a>`, xmltok.Limits{MaxDepth: 2}, xmltok.Limits{MaxDepth: 3}, xmltok.ErrLimit},
		{"attrs", `<a xmlns:p="urn:p" b="1" c="2" p:d="3"/>`, xmltok.Limits{MaxAttrs: 2}, xmltok.Limits{MaxAttrs: 3}, xmltok.ErrLimit},
		{"decls", `<a xmlns="urn:a" xmlns:p="urn:p" b="1" c="2"/>`, xmltok.Limits{MaxNSDecls: 1}, xmltok.Limits{MaxNSDecls: 2}, xmltok.ErrLimit},
		{"name", `<abcd/>`, xmltok.Limits{MaxNameLen: 3}, xmltok.Limits{MaxNameLen: 4}, xmltok.ErrLimit},
		{"prefix", `<abcdef:e xmlns:abcdef="urn:x"/>`, xmltok.Limits{MaxNameLen: 5}, xmltok.Limits{MaxNameLen: 6}, xmltok.ErrLimit},
		{"attribute name", `<a bcdef="1"/>`, xmltok.Limits{MaxNameLen: 4}, xmltok.Limits{MaxNameLen: 5}, xmltok.ErrLimit},
		{"start tag", `<a b="` + strings.Repeat("x", 200) + `"/>`, xmltok.Limits{MaxTokenBytes: 200}, xmltok.Limits{MaxTokenBytes: 210}, xmltok.ErrLimit},
		{"comment", `<a><!--` + strings.Repeat("x", 200) + `--></a>`, xmltok.Limits{MaxTokenBytes: 200}, xmltok.Limits{MaxTokenBytes: 210}, xmltok.ErrLimit},
		{"end tag", `<a>` + strings.Repeat(`<b>`, 1) + `</b  ` + strings.Repeat(" ", 200) + `></a>`, xmltok.Limits{MaxTokenBytes: 200}, xmltok.Limits{MaxTokenBytes: 210}, xmltok.ErrLimit},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := render(tc.in, tc.lim)
			assert.ErrorIs(t, err, tc.is)
			_, err = render(tc.in, tc.ok)
			assert.NoError(t, err)
			_, err = render(tc.in, xmltok.Limits{})
			assert.NoError(t, err, "zero is no limit")
		})
	}
}

// enc16 encodes s in UTF-16 with a byte order mark.
func enc16(s string, big bool) string {
	out := []byte{0xFF, 0xFE}
	if big {
		out = []byte{0xFE, 0xFF}
	}
	for _, r := range s {
		us := []rune{r}
		if r > 0xFFFF {
			r -= 0x10000
			us = []rune{0xD800 + r>>10, 0xDC00 + r&0x3FF}
		}
		for _, u := range us {
			if big {
				out = append(out, byte(u>>8), byte(u))
			} else {
				out = append(out, byte(u), byte(u>>8))
			}
		}
	}
	return string(out)
}

// TestReaderUTF16Long reads UTF-16 documents whose first read brings more
// than the transcoder's buffer holds (a whole document of 10 KiB in memory,
// or from a reader that returns it at once): every character comes through,
// as in the document's UTF-8 form. The transcoder took at most 4 KiB of
// what the first read brought and dropped the rest.
func TestReaderUTF16Long(t *testing.T) {
	for _, doc := range []string{
		`<a>` + strings.Repeat("x", 5000) + `</a>`,
		`<a b="é">` + strings.Repeat("€𝄞x", 1200) + `</a>`,
	} {
		want, err := render(doc, xmltok.Limits{})
		require.NoError(t, err)
		for _, big := range []bool{false, true} {
			in := enc16(doc, big)
			got, err := renderReader(xmltok.NewReaderBytes([]byte(in), xmltok.Limits{}))
			require.NoError(t, err, "NewReaderBytes, %d bytes", len(in))
			assert.True(t, want == got, "NewReaderBytes, %d bytes: %d bytes of tokens, want %d", len(in), len(got), len(want))
			got, err = render(in, xmltok.Limits{})
			require.NoError(t, err, "NewReader, %d bytes", len(in))
			assert.True(t, want == got, "NewReader, %d bytes: %d bytes of tokens, want %d", len(in), len(got), len(want))
		}
	}
}

func TestReaderEncodings(t *testing.T) {
	const want = "<{}:a d1\nT\"é€𝄞\"\n</{}:a d0\n"
	for name, in := range map[string]string{
		"utf-8":              `<a>é€𝄞</a>`,
		"utf-8 BOM":          "\xEF\xBB\xBF<a>é€𝄞</a>",
		"utf-8 BOM and decl": "\xEF\xBB\xBF<?xml version=\"1.0\" encoding=\"UTF-8\"?><a>é€𝄞</a>",
		"utf-16 LE":          enc16(`<?xml version="1.0" encoding="UTF-16"?><a>é€𝄞</a>`, false),
		"utf-16 BE":          enc16(`<?xml version="1.0" encoding="utf-16"?><a>é€𝄞</a>`, true),
		"utf-16 BE no decl":  enc16(`<a>é€𝄞</a>`, true),
		"utf-16 long":        enc16(`<a>`+strings.Repeat("é€𝄞", 0)+`é€𝄞</a>`+strings.Repeat(" ", 5000), false),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := render(in, xmltok.Limits{})
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
	refused := map[string]struct{ in, want string }{
		"utf-16 declared utf-8":     {enc16(`<?xml version="1.0" encoding="UTF-8"?><a/>`, false), `unsupported encoding "UTF-8"`},
		"utf-16 truncated":          {enc16(`<a>x</a>`, false)[:9], "truncated UTF-16"},
		"utf-16 lone high":          {enc16(`<a>`, false) + "\x00\xD8\x41\x00" + enc16(`</a>`, false)[2:], "surrogate"},
		"utf-16 lone low":           {enc16(`<a>`, true) + "\xDC\x00\x00\x41" + enc16(`</a>`, true)[2:], "surrogate"},
		"utf-16 truncated in pair":  {enc16(`<a>`, true) + "\xD8\x00", "truncated UTF-16 surrogate pair"},
		"utf-16 without a BOM":      {enc16(`<a/>`, false)[2:], "a name was expected, not '\\x00'"},
		"utf-16 bytes over a limit": {enc16(`<a>xxxxxxxx</a>`, false), "input exceeds 20 bytes"},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			lim := xmltok.Limits{}
			if strings.Contains(tc.want, "exceeds") {
				lim.MaxBytes = 20
			}
			_, err := render(tc.in, lim)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}

func TestSyntaxError(t *testing.T) {
	e := &xmltok.SyntaxError{Offset: 7, Msg: "bad", Err: xmltok.ErrLimit}
	assert.Equal(t, "xml: bad (at byte 7)", e.Error())
	assert.ErrorIs(t, e, xmltok.ErrLimit)
	assert.True(t, xmltok.IsSpace([]byte(" \t\r\n")))
	assert.False(t, xmltok.IsSpace([]byte(" x")))
	assert.Equal(t, "StartElement", xmltok.StartElement.String())
	assert.Equal(t, "Kind(9)", xmltok.Kind(9).String())
	n := xmltok.Name{Space: []byte("urn:a"), Local: []byte("b")}
	assert.True(t, n.Is("urn:a", "b"))
	assert.False(t, n.Is("urn:a", "c"))

	_, err := render(`<a><b>`+"\x01", xmltok.Limits{})
	var se *xmltok.SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int64(6), se.Offset, "the offset of the bad byte")
}
