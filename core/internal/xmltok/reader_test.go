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

// render reads all of in and renders its tokens, one a line.
func render(in string, lim xmltok.Limits) (string, error) {
	r := xmltok.NewReader(strings.NewReader(in), lim)
	var b strings.Builder
	for {
		t, err := r.Next()
		if err == io.EOF {
			return b.String(), nil
		}
		if err != nil {
			return b.String(), err
		}
		switch t.Kind {
		case xmltok.StartElement:
			fmt.Fprintf(&b, "<{%s}%s:%s", t.Name.Space, t.Name.Prefix, t.Name.Local)
			for _, d := range t.NS {
				fmt.Fprintf(&b, " ns[%s]=%s", d.Prefix, d.URI)
			}
			for _, a := range t.Attr {
				fmt.Fprintf(&b, " {%s}%s:%s=%q", a.Name.Space, a.Name.Prefix, a.Name.Local, a.Value)
			}
			fmt.Fprintf(&b, " d%d\n", r.Depth())
		case xmltok.EndElement:
			fmt.Fprintf(&b, "</{%s}%s d%d\n", t.Name.Space, t.Name.Local, r.Depth())
		case xmltok.CharData:
			fmt.Fprintf(&b, "T%q\n", t.Text)
		case xmltok.Comment:
			fmt.Fprintf(&b, "C%q\n", t.Text)
		}
	}
}

func TestReaderTokens(t *testing.T) {
	got, err := render(`<?xml version="1.0"?>
<!--c--><p:a xmlns:p="urn:p" xmlns="urn:d" p:x="1" y="2" xml:lang="en"><b>t&amp;<![CDATA[<]]></b><c xmlns=""/></p:a>
`, xmltok.Limits{})
	require.NoError(t, err)
	assert.Equal(t, `C"c"
<{urn:p}p:a ns[p]=urn:p ns[]=urn:d {urn:p}p:x="1" {}:y="2" {http://www.w3.org/XML/1998/namespace}xml:lang="en" d1
<{urn:d}:b d2
T"t&"
T"<"
</{urn:d}b d1
<{}:c ns[]= d2
</{}c d1
</{urn:p}a d0
`, got)
}

func TestReaderScope(t *testing.T) {
	r := xmltok.NewReader(strings.NewReader(`<a xmlns:p="urn:1" xmlns="urn:d"><b xmlns:p="urn:2" xmlns:q="urn:q">x</b></a>`), xmltok.Limits{})
	next := func() *xmltok.Token {
		tok, err := r.Next()
		require.NoError(t, err)
		return tok
	}
	next() // <a>
	assert.Equal(t, []xmltok.NS{{Prefix: "p", URI: "urn:1"}, {URI: "urn:d"}}, r.InScope(nil))
	next() // <b>
	assert.Equal(t, []xmltok.NS{{URI: "urn:d"}, {Prefix: "p", URI: "urn:2"}, {Prefix: "q", URI: "urn:q"}}, r.InScope(nil), "one binding per prefix, the innermost")
	next() // text
	tok := next()
	require.Equal(t, xmltok.EndElement, tok.Kind)
	uri, ok := r.Lookup("q")
	assert.True(t, ok, "the closed element's scope lasts until the next call")
	assert.Equal(t, "urn:q", uri)
	next() // </a>
	_, ok = r.Lookup("q")
	assert.False(t, ok)
	uri, ok = r.Lookup("p")
	assert.True(t, ok)
	assert.Equal(t, "urn:1", uri)
	uri, ok = r.Lookup("xml")
	assert.True(t, ok)
	assert.Equal(t, xmltok.XMLNamespace, uri)
	_, err := r.Next()
	assert.Equal(t, io.EOF, err)
	_, err = r.Next()
	assert.Equal(t, io.EOF, err, "EOF is sticky")
	assert.Equal(t, 0, r.Depth())
	assert.Positive(t, r.Offset())

	r = xmltok.NewReader(strings.NewReader(`<a/>`), xmltok.Limits{})
	_, err = r.Next()
	require.NoError(t, err)
	uri, ok = r.Lookup("")
	assert.True(t, ok, "the empty default namespace is always bound")
	assert.Empty(t, uri)
}

func TestReaderErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, "no root element"},
		{`<!DOCTYPE a><a/>`, "document type declarations"},
		{`<a><?pi?></a>`, "processing instruction <?pi?>"},
		{`<a/><?xml version="1.0"?>`, "XML declaration not at the start"},
		{`<a/><b/>`, "content after the root element"},
		{`<a/>x`, "text outside the root element"},
		{`x<a/>`, "text outside the root element"},
		{`<a>`, "unexpected end of input inside <a>"},
		{`<a></b>`, "element <a> closed by </b>"},
		{`<p:a xmlns:p="urn:p" xmlns:q="urn:p"></q:a>`, "element <p:a> closed by </q:a>"},
		{`</a>`, "unexpected end tag"},
		{`<p:a/>`, `unbound namespace prefix "p"`},
		{`<a p:b="1"/>`, `unbound namespace prefix "p"`},
		{`<a b="1" b="2"/>`, "duplicate attribute b"},
		{`<a xmlns:p="urn:x" xmlns:q="urn:x" p:b="1" q:b="2"/>`, "duplicate attribute q:b"},
		{`<a xmlns:p="urn:x" xmlns:p="urn:y"/>`, "duplicate namespace declaration"},
		{`<a xmlns:p=""/>`, "cannot be undeclared"},
		{`<a xmlns:xmlns="urn:x"/>`, "the prefix xmlns cannot be declared"},
		{`<a xmlns:xml="urn:x"/>`, "the prefix xml cannot be bound"},
		{`<a xmlns:p="http://www.w3.org/XML/1998/namespace"/>`, "the XML namespace cannot be bound"},
		{`<a xmlns:p="http://www.w3.org/2000/xmlns/"/>`, "the xmlns namespace cannot be declared"},
		{`<a xmlns="http://www.w3.org/XML/1998/namespace"/>`, "the default namespace cannot be"},
		{`<xmlns:a/>`, "the prefix xmlns is reserved"},
		{`<a:/>`, "more than one colon"},
		{`<a xmlns:b="urn:b" b:="1"/>`, "more than one colon"},
		{"<a>\x01</a>", "illegal character code U+0001"},
		{"<a>\xff</a>", "invalid UTF-8"},
		{`<?xml version="1.0" encoding="latin1"?><a/>`, `unsupported encoding "latin1"`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			_, err := render(tc.in, xmltok.Limits{})
			require.Error(t, err)
			assert.ErrorContains(t, err, tc.want)
			var se *xmltok.SyntaxError
			require.True(t, errors.As(err, &se))
			assert.NotErrorIs(t, err, xmltok.ErrLimit)
		})
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

func TestReaderEncodings(t *testing.T) {
	const want = "<{}:a d1\nT\"é€𝄞\"\n</{}a d0\n"
	enc16 := func(s string, big bool) string {
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
	for name, in := range map[string]string{
		"utf-8":             `<a>é€𝄞</a>`,
		"utf-8 BOM":         "\xEF\xBB\xBF<a>é€𝄞</a>",
		"utf-16 LE":         enc16(`<?xml version="1.0" encoding="UTF-16"?><a>é€𝄞</a>`, false),
		"utf-16 BE":         enc16(`<?xml version="1.0" encoding="utf-16"?><a>é€𝄞</a>`, true),
		"utf-16 BE no decl": enc16(`<a>é€𝄞</a>`, true),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := render(in, xmltok.Limits{})
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

func TestSyntaxErrorUnwraps(t *testing.T) {
	e := &xmltok.SyntaxError{Offset: 7, Msg: "bad", Err: xmltok.ErrLimit}
	assert.Equal(t, "xml: bad (at byte 7)", e.Error())
	assert.ErrorIs(t, e, xmltok.ErrLimit)
	assert.True(t, xmltok.IsSpace([]byte(" \t\r\n")))
	assert.False(t, xmltok.IsSpace([]byte(" x")))
}
