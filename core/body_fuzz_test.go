package core_test

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
)

// bodyTokens renders a body's token stream (Body.Next), adjacent character
// data merged, white space between the children dropped (it is not
// content: the writer leaves it out).
func bodyTokens(b core.Body) (string, error) { return renderNext(b, true) }

// renderNext is bodyTokens, with or without the prefixes.
func renderNext(b core.Body, prefixes bool) (string, error) {
	pfx := func(p []byte) string {
		if !prefixes {
			return ""
		}
		return string(p) + ":"
	}
	var out strings.Builder
	var text []byte
	depth := 0
	flush := func() {
		if text != nil {
			fmt.Fprintf(&out, "T%q\n", text)
			text = nil
		}
	}
	for {
		t, err := b.Next()
		if err == io.EOF {
			flush()
			return out.String(), nil
		}
		if err != nil {
			return "", err
		}
		if t.Kind == core.CharData {
			if depth > 0 || strings.TrimSpace(string(t.Text)) != "" {
				text = append(text, t.Text...)
			}
			continue
		}
		flush()
		switch t.Kind {
		case core.StartElement:
			depth++
			fmt.Fprintf(&out, "<{%s}%s%s", t.Name.Space, pfx(t.Name.Prefix), t.Name.Local)
			for _, d := range t.NS {
				fmt.Fprintf(&out, " ns[%s]=%q", d.Prefix, d.URI)
			}
			for _, a := range t.Attr {
				fmt.Fprintf(&out, " {%s}%s%s=%q", a.Name.Space, pfx(a.Name.Prefix), a.Name.Local, a.Value)
			}
			out.WriteString("\n")
		case core.EndElement:
			depth--
			fmt.Fprintf(&out, "</{%s}%s%s\n", t.Name.Space, pfx(t.Name.Prefix), t.Name.Local)
		case core.Comment:
			fmt.Fprintf(&out, "C%q\n", t.Text)
		}
	}
}

// tokenReaderTokens renders a body's encoding/xml token stream (Body.Token)
// as bodyTokens renders Next's, prefixes aside (encoding/xml's tokens have
// none): the two APIs give the same stream.
func tokenReaderTokens(b core.Body) (string, error) {
	var out strings.Builder
	var text []byte
	depth := 0
	for {
		tok, err := b.Token()
		if err == io.EOF {
			if text != nil {
				fmt.Fprintf(&out, "T%q\n", text)
			}
			return out.String(), nil
		}
		if err != nil {
			return "", err
		}
		if cd, ok := tok.(xml.CharData); ok {
			if depth > 0 || strings.TrimSpace(string(cd)) != "" {
				text = append(text, cd...)
			}
			continue
		}
		if text != nil {
			fmt.Fprintf(&out, "T%q\n", text)
			text = nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			fmt.Fprintf(&out, "<{%s}%s", t.Name.Space, t.Name.Local)
			for _, a := range t.Attr {
				switch {
				case a.Name.Space == "xmlns":
					fmt.Fprintf(&out, " ns[%s]=%q", a.Name.Local, a.Value)
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					fmt.Fprintf(&out, " ns[]=%q", a.Value)
				default:
					fmt.Fprintf(&out, " {%s}%s=%q", a.Name.Space, a.Name.Local, a.Value)
				}
			}
			out.WriteString("\n")
		case xml.EndElement:
			depth--
			fmt.Fprintf(&out, "</{%s}%s\n", t.Name.Space, t.Name.Local)
		case xml.Comment:
			fmt.Fprintf(&out, "C%q\n", []byte(t))
		}
	}
}

// FuzzBodyWriter reads any bytes as the children of an envelope's Body and
// writes them with Body.WriteTo (tokenizer to writer): when the tokenizer
// accepts them, what the writer makes of them is well-formed (encoding/xml
// reads it), reads back to the same tokens, and is a fixed point (read and
// written again, the same bytes).
func FuzzBodyWriter(f *testing.F) {
	for _, s := range []string{
		reqBody, `<a xmlns="urn:a" b="x&#9;y&#10;z&#13;&quot;&lt;&amp;"><![CDATA[<&>]]>]]&gt;&#13;&#x1F600;</a>`,
		`<p:a xmlns:p="urn:p" xmlns:q="urn:q" q:b="1"><p:c xmlns:p="urn:p2"/><!-- c --></p:a>text<b/>`,
		"<a>\r\n\t é</a>", `<a xml:lang="en"/>`, `<a xmlns:p="urn:x"><p:b xmlns:p="urn:y"/></a>`, `<a></b>`, "<a>\x01</a>", `<a b="1" b="2"/>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > fuzzMaxInput {
			return
		}
		refused := core.StreamBody(xml.Name{}, func(io.Writer) error { return io.ErrUnexpectedEOF })
		body := func(children []byte) core.Body {
			env := envOf(core.V12, wrap("", "|"))
			doc := strings.Replace(env, "|", string(children), 1)
			m, err := core.ReadMessage(strings.NewReader(doc), core.Limits{})
			if err != nil {
				return refused
			}
			return m.Body()
		}
		var out bytes.Buffer
		if _, err := body(in).WriteTo(&out); err != nil {
			return // not XML the tokenizer accepts
		}
		want, err := bodyTokens(body(in))
		if err != nil {
			t.Fatalf("written but its tokens fail: %v", err)
		}
		got, err := bodyTokens(body(out.Bytes()))
		if err != nil {
			t.Fatalf("the writer's output %q does not read back: %v", out.Bytes(), err)
		}
		if got != want {
			t.Fatalf("tokens differ after writing %q as %q:\n%s\nwant:\n%s", in, out.Bytes(), got, want)
		}
		viaToken, err := tokenReaderTokens(body(in))
		if err != nil {
			t.Fatalf("Next reads the body, Token fails: %v", err)
		}
		if viaNext, _ := renderNext(body(in), false); viaNext != viaToken {
			t.Fatalf("Token and Next differ for %q:\n%s\nNext:\n%s", in, viaToken, viaNext)
		}
		var any struct {
			XMLName xml.Name
			Inner   []byte `xml:",innerxml"`
		}
		if b := body(in); b.Decode(&any) == nil {
			if _, err := b.Next(); err != nil && err != io.EOF {
				t.Fatalf("a decoded body fails after: %v", err)
			}
		}
		var again bytes.Buffer
		if _, err := body(out.Bytes()).WriteTo(&again); err != nil || !bytes.Equal(again.Bytes(), out.Bytes()) {
			t.Fatalf("not a fixed point: %q then %q (%v)", out.Bytes(), again.Bytes(), err)
		}
		d := xml.NewDecoder(io.MultiReader(strings.NewReader("<_>"), bytes.NewReader(out.Bytes()), strings.NewReader("</_>")))
		d.Strict = true
		for {
			_, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("encoding/xml refuses the writer's output %q: %v", out.Bytes(), err)
			}
		}
	})
}
