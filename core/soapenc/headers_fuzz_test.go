package soapenc_test

import (
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// FuzzDecodeEnvelope reads a body whose envelope has header blocks
// (Decoder.Headers): no input panics or hangs, the main element is always
// the body's, and an envelope whose ids are not unique across its header
// blocks and body is never read.
func FuzzDecodeEnvelope(f *testing.F) {
	seeds := []struct{ header, body string }{
		{`<h:D xmlns:h="urn:h"><h:v id="d1" xsi:type="xsd:string">x</h:v></h:D>`, wrap(`<s href="#d1"/>`)},
		{`<h:D xmlns:h="urn:h" id="d1">x</h:D>`, wrap(`<s href="#d1"/>`) + `<multiRef id="d1">y</multiRef>`},
		{`<h:D xmlns:h="urn:h"><h:v enc:id="data">hello</h:v></h:D>`, wrap(`<s enc:ref="#data"/>`)},
		{`<h:D xmlns:h="urn:h"><h:v enc:id="a">1</h:v></h:D>`, wrap(`<s enc:id="a">2</s>`)},
		{`<h:D xmlns:h="urn:h"><h:v id="a" href="#b"/></h:D>`, wrap(`<s href="#a"/>`) + `<multiRef id="b" href="#a"/>`},
		{`<h:D xmlns:h="urn:h"><h:v id="a"><n href="#a"/></h:v></h:D>`, wrap(`<P href="#a"/><N href="#a"/>`)},
		{`<l:L xmlns:l="urn:l" href="http://x/" s:encodingStyle="urn:o"><l:x id="z" href="#q" xsi:type="no:t"/></l:L>`, wrap(`<S href="#z"/>`)},
		{`<w:Action xmlns:w="http://www.w3.org/2005/08/addressing">urn:a</w:Action>`, wrap(`<S>x</S>`)},
	}
	for i, s := range seeds {
		f.Add(s.header, s.body, uint8(i%3))
	}
	f.Fuzz(func(t *testing.T, header, body string, version uint8) {
		env := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" ` + nsDecl + `><s:Header>` + header +
			`</s:Header><s:Body>` + body + `</s:Body></s:Envelope>`
		m, err := core.ReadMessage(strings.NewReader(env), core.Limits{})
		if err != nil {
			return
		}
		main := m.Body().Name()
		d := soapenc.NewDecoder(m.Body())
		d.Headers = m.Envelope.Headers
		d.Version = soapenc.Version(version % 3)
		d.MaxNodes, d.MaxDepth, d.MaxArraySize = 5000, 64, 1<<16
		el, err := d.ReadBody()
		if err != nil {
			return
		}
		if el.Name != main {
			t.Fatalf("the main element is %v, not the body's first child %v", el.Name, main)
		}
		if dup := duplicateID(env, d.Version); dup != "" {
			t.Fatalf("id %q is carried twice in the envelope, yet it was read", dup)
		}
		var target fuzzTarget
		_ = el.Decode(&target)
		var generic any
		_ = el.Decode(&generic)
		for _, c := range el.Children() {
			_ = c.Decode(&generic)
			_ = c.Type()
			_ = c.Text()
		}
	})
}

// duplicateID returns an id that two elements of the envelope's header
// blocks and body carry (1.1 id in no namespace, 1.2 enc:id), as a decoder
// of version v reads them; "" if none does, or for the zero version.
func duplicateID(env string, v soapenc.Version) string {
	if v == 0 {
		return ""
	}
	seen := map[string]bool{}
	d := xml.NewDecoder(strings.NewReader(env))
	depth := 0
	for {
		tok, err := d.Token()
		if err == io.EOF || err != nil {
			return ""
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			if depth <= 2 { // the Envelope, Header and Body themselves
				continue
			}
			for _, a := range tok.Attr {
				if a.Name.Local != "id" || (v == soapenc.V11) != (a.Name.Space == "") ||
					v == soapenc.V12 && a.Name.Space != soapenc.NamespaceV12 {
					continue
				}
				id := strings.TrimSpace(a.Value)
				if seen[id] {
					return id
				}
				seen[id] = true
			}
		case xml.EndElement:
			depth--
		}
	}
}
