package core_test

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

func TestBodyNext(t *testing.T) {
	for _, v := range versions {
		in := envOf(v, `<s:Envelope xmlns:s="{ns}" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><s:Body>`+
			`<m:Get xmlns:m="urn:m" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><m:id xsi:type="xsd:int">7</m:id>`+
			`<m:note>fish &amp; chips<![CDATA[ <raw> ]]></m:note></m:Get><m:More xmlns:m="urn:m2"/></s:Body></s:Envelope>`)
		m, err := core.ReadMessage(strings.NewReader(in), core.Limits{})
		require.NoError(t, err)
		b := m.Body()
		var got []string
		for {
			tok, err := b.Next()
			if err == io.EOF {
				break
			}
			require.NoError(t, err)
			switch tok.Kind {
			case core.StartElement:
				s := fmt.Sprintf("<{%s}%s", tok.Name.Space, tok.Name.Local)
				for _, d := range tok.NS {
					s += fmt.Sprintf(" ns[%s]", d.Prefix)
				}
				for _, a := range tok.Attr {
					s += fmt.Sprintf(" %s=%s", a.Name.Local, a.Value)
					if tok.Name.Is("urn:m", "id") {
						// a QName value resolves where the token stands
						prefix, _, _ := strings.Cut(string(a.Value), ":")
						uri, ok := b.Lookup([]byte(prefix))
						assert.True(t, ok)
						assert.Equal(t, "http://www.w3.org/2001/XMLSchema", string(uri))
					}
				}
				got = append(got, s)
			case core.EndElement:
				got = append(got, fmt.Sprintf("</%s>", tok.Name.Local))
			case core.CharData:
				got = append(got, string(tok.Text))
			}
		}
		assert.Equal(t, []string{
			"<{urn:m}Get ns[s] ns[xsd] ns[m] ns[xsi]", // the first child's start: every binding in scope
			"<{urn:m}id type=xsd:int", "7", "</id>",
			"<{urn:m}note", "fish & chips <raw> ", "</note>",
			"</Get>",
			"<{urn:m2}More ns[s] ns[xsd] ns[m]", // the next child's too, its own m innermost
			"</More>",
		}, mergeText(got), "in %s", v)
		_, err = b.Next()
		assert.Equal(t, io.EOF, err, "EOF is sticky")
		_, ok := b.Lookup([]byte("m"))
		assert.False(t, ok, "nothing is in scope once the body is read")
	}
}

// mergeText joins adjacent text pieces (a CDATA section is a token of its own).
func mergeText(toks []string) []string {
	var out []string
	for _, s := range toks {
		if n := len(out); n > 0 && !strings.HasPrefix(s, "<") && !strings.HasPrefix(out[n-1], "<") {
			out[n-1] += s
			continue
		}
		out = append(out, s)
	}
	return out
}

func TestBodyNextOutboundAndErrors(t *testing.T) {
	b := core.RawBody([]byte(`<a:x xmlns:a="urn:a">1</a:x><y/>`))
	var names []string
	for {
		tok, err := b.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if tok.Kind == core.StartElement {
			names = append(names, string(tok.Name.Space)+" "+string(tok.Name.Local))
		}
	}
	assert.Equal(t, []string{"urn:a x", " y"}, names, "an outbound body reads the same way")

	m, err := core.ReadMessage(strings.NewReader(envOf(core.V12, wrap("", `<m:a xmlns:m="urn:m"><m:b></m:c></m:a>`))), core.Limits{})
	require.NoError(t, err)
	var f *core.Fault
	for {
		_, err := m.Body().Next()
		if err != nil {
			require.ErrorAs(t, err, &f)
			break
		}
	}
	assert.Equal(t, core.CodeSender, f.Code)
	assert.Contains(t, f.Reason, "closed by </m:c>")
	_, err2 := m.Body().Next()
	assert.Equal(t, err2, f, "errors are sticky")

	var empty core.Body
	_, err = empty.Next()
	assert.Equal(t, io.EOF, err)
	_, ok := empty.Lookup(nil)
	assert.True(t, ok, "the empty default namespace")
}

// TestReadTagBound: one tag is held whole while it is read, so its size is
// bounded by the larger of MaxHeaderBytes and 1 MiB; text is not (it is
// streamed).
func TestReadTagBound(t *testing.T) {
	big := strings.Repeat("v", 1<<20)
	tag := envOf(core.V11, wrap("", `<a xmlns="urn:a" b="`+big+`"/>`))
	_, err := readAll(tag, core.Limits{MaxBytes: 4 << 20})
	f := requireFault(t, err, core.CodeSender, "a start tag is longer than 1048576 bytes")
	assert.ErrorIs(t, f, core.ErrLimit)
	_, err = readAll(tag, core.Limits{MaxBytes: 4 << 20, MaxHeaderBytes: 2 << 20})
	assert.NoError(t, err, "MaxHeaderBytes raises the bound")
	_, err = readAll(tag, core.Unlimited())
	assert.NoError(t, err)
	_, err = readAll(envOf(core.V11, wrap("", `<a xmlns="urn:a"><!--`+big+`--></a>`)), core.Limits{MaxBytes: 4 << 20})
	assert.ErrorIs(t, err, core.ErrLimit, "a comment too")
	_, err = readAll(envOf(core.V11, wrap("", `<a xmlns="urn:a">`+big+big+`</a>`)), core.Limits{MaxBytes: 4 << 20})
	assert.NoError(t, err, "text is streamed, whatever its size")
}

// TestReadHeaderCompletionBound: each header block is kept with every
// namespace in scope declared on it, which a hostile envelope could use to
// multiply the Header's size; what that adds is bounded.
func TestReadHeaderCompletionBound(t *testing.T) {
	var decls strings.Builder
	for i := range 30 {
		fmt.Fprintf(&decls, ` xmlns:n%d="urn:example:a-rather-long-namespace-name-%d"`, i, i)
	}
	doc := func(blocks int) string {
		return `<s:Envelope xmlns:s="` + core.NamespaceV11 + `"` + decls.String() + `><s:Header>` +
			strings.Repeat(`<n0:x/>`, blocks) + `</s:Header><s:Body/></s:Envelope>`
	}
	m, err := readAll(doc(10), core.Limits{})
	require.NoError(t, err)
	require.Len(t, m.Envelope.Headers, 10)
	assert.Contains(t, string(m.Envelope.Headers[3].XML), `xmlns:n29="urn:example:a-rather-long-namespace-name-29"`, "namespace-complete")
	assert.Equal(t, xml.Name{Space: "urn:example:a-rather-long-namespace-name-0", Local: "x"}, m.Envelope.Headers[9].Name)

	_, err = readAll(doc(500), core.Limits{MaxHeaderBytes: 4096})
	f := requireFault(t, err, core.CodeSender, "the Header's blocks are larger than 32768 bytes once the namespaces in scope are declared on each")
	assert.ErrorIs(t, f, core.ErrLimit)
	_, err = readAll(doc(500), core.Limits{MaxHeaderBytes: -1})
	assert.NoError(t, err, "no bound when MaxHeaderBytes is off")
}

// TestBodyDecodeFinishes: once Decode has read the only child, the rest of
// the envelope is read at once (the tokenizer is recycled even if nobody
// reads on); a second child stays for the next call.
func TestBodyDecodeFinishes(t *testing.T) {
	type get struct {
		ID int `xml:"urn:m id"`
	}
	m, err := core.ReadMessage(strings.NewReader(envOf(core.V11, wrap("", reqBody+"\n <!-- c -->\n"))), core.Limits{})
	require.NoError(t, err)
	var g get
	require.NoError(t, m.Body().Decode(&g))
	assert.Equal(t, 7, g.ID)
	_, err = m.Body().Next()
	assert.Equal(t, io.EOF, err, "the body was read to its end")

	m, err = core.ReadMessage(strings.NewReader(envOf(core.V11, wrap("", reqBody+` <m:Other xmlns:m="urn:m"/>`))), core.Limits{})
	require.NoError(t, err)
	require.NoError(t, m.Body().Decode(&g))
	tok, err := m.Body().Next()
	require.NoError(t, err)
	assert.True(t, tok.Name.Is("urn:m", "Other"), "the second child is kept")
	assert.NotEmpty(t, tok.NS, "with its scope")

	m, err = core.ReadMessage(strings.NewReader(envOf(core.V11, wrap("", reqBody+`<x:bad/>`))), core.Limits{})
	require.NoError(t, err)
	require.NoError(t, m.Body().Decode(&g), "the first child is fine")
	_, err = m.Body().Next()
	requireFault(t, err, core.CodeSender, `unbound namespace prefix "x"`)
}
