package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// FuzzParseArg: every argument parseArg and typeArg accept can be written
// by core/soapenc in every style (no value that XML cannot carry gets
// through to the encoder).
func FuzzParseArg(f *testing.F) {
	for _, s := range []string{
		"a=1", "a:int=-5", "b:long=9223372036854775807", "s=hello, world", "x:bool=true", "x:boolean=0",
		"f:float=1.5e3", "d:double=INF", "d:double=NaN", "n:decimal=-12.50", "i:integer=123456789012345678901234567890",
		"t:dateTime=2024-02-29T12:00:00Z", "t:dateTime=2024-02-29T12:00:00.5", "b:base64=aGk=", "h:hex=00ff", "z:nil=",
		"u:unsignedByte=255", "u:unsignedShort=65536", "bad", "1a=1", "a:complex=1", "a=\x00", "a=\xff", "é=ü", "a:int= 7 ",
	} {
		f.Add(s, "")
		f.Add(s, "int")
	}
	f.Fuzz(func(t *testing.T, s, wsdlType string) {
		a, err := parseArg(s)
		if err != nil {
			return
		}
		if !isXMLName(a.name) {
			t.Fatalf("accepted name %q", a.name)
		}
		if err := typeArg(&a, wsdlType); err != nil {
			return
		}
		for _, enc := range []soapenc.Encoder{
			{Version: soapenc.V11, EncodingStyle: true},
			{Version: soapenc.V12, Literal: true},
		} {
			var b bytes.Buffer
			if err := enc.EncodeParts(&b, xml.Name{Space: "urn:fuzz", Local: "op"}, soapenc.Part{Name: a.name, Value: a.value}); err != nil {
				t.Fatalf("%q (%T %v) accepted but not encodable: %v", s, a.value, a.value, err)
			}
			m := core.NewMessage(core.V11, core.RawBody(b.Bytes()))
			var env bytes.Buffer
			if _, err := m.WriteTo(&env); err != nil {
				t.Fatal(err)
			}
			if _, err := core.ReadMessage(&env, core.Limits{}); err != nil {
				t.Fatalf("%q: the request would be refused: %v\n%s", s, err, b.String())
			}
		}
	})
}

// FuzzIndentXML: whatever XML call prints indented (--xml, --show-request)
// is well-formed and holds the same elements, attributes and text (white
// space between elements aside); input that is not XML is an error, never
// a panic.
func FuzzIndentXML(f *testing.F) {
	for _, s := range []string{
		`<s:Envelope xmlns:s="urn:s"><s:Body><m:r xmlns:m="urn:m" a="1&amp;2"><v>x &lt; y</v><e/></m:r></s:Body></s:Envelope>`,
		`<?xml version="1.0"?><a><!-- c --><b>t<c/>u</b></a>`, `<a>`, ``, `<a x="&#10;"> </a>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		if err := indentXML(&out, data); err != nil {
			return
		}
		if strings.Count(out.String(), "<?xml") != 1 {
			t.Fatalf("no or several XML declarations:\n%s", out.Bytes())
		}
		want, err1 := tokensOf(data)
		got, err2 := tokensOf(out.Bytes())
		if err1 != nil {
			return // the input's problem was not in its tokens (the indenter reads raw tokens)
		}
		if err2 != nil {
			t.Fatalf("indented output does not read: %v\n%s", err2, out.Bytes())
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("indenting changed the document:\n%q\n%q", want, got)
		}
	})
}

// tokensOf lists a document's elements, attributes and trimmed text.
func tokensOf(data []byte) ([]string, error) {
	d := xml.NewDecoder(bytes.NewReader(data))
	var out []string
	for {
		t, err := d.Token()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		switch t := t.(type) {
		case xml.StartElement:
			s := "<" + t.Name.Space + " " + t.Name.Local
			for _, a := range t.Attr {
				s += " " + a.Name.Space + ":" + a.Name.Local + "=" + a.Value
			}
			out = append(out, s)
		case xml.EndElement:
			out = append(out, ">")
		case xml.CharData:
			if s := strings.TrimSpace(string(t)); s != "" {
				out = append(out, s)
			}
		}
	}
}

// FuzzParseConfig: a configuration is refused with an error or accepted;
// an accepted one survives a JSON round trip unchanged.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		`{"handler": {"type": "echo"}, "http": {"listen": "127.0.0.1:0", "path": "/soap"}}`,
		`{"handler": {"type": "forward", "to": "http://x.example/y"}, "nats": {"url": "nats://127.0.0.1:4222", "subject": "a.b", "queue": ""}}`,
		`{"handler": {"type": "echo"}, "smtp": {"maildir": "/m", "addresses": ["a@b"], "listen": "[::1]:25"}, "policy": {"schemes": ["http"]}}`,
		`{"handler": {"type": "echo"}, "ftp": {"remote": {"addr": "h:21", "user": "u", "password_env": "HOME"}, "endpoint": "/e"}}`,
		`{"http": {}}`, `[]`, `{"a":1}`, `{} {}`, `{"store_dir": "/x", "http": {"listen": ":1"}, "handler": {"type": "echo"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		cfg, err := parseConfig(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		cfg2, err := parseConfig(again)
		if err != nil {
			t.Fatalf("round trip refused: %v\n%s", err, again)
		}
		if !reflect.DeepEqual(cfg, cfg2) {
			t.Fatalf("round trip changed the configuration:\n%s", again)
		}
	})
}

// FuzzSniff: whatever send accepts to send (a document it wraps, or an
// envelope) makes an envelope that core reads back whole: a malformed
// document is refused before it reaches a peer, never sent broken.
func FuzzSniff(f *testing.F) {
	for _, s := range []string{
		order, "\xEF\xBB\xBF<a/>", `<a xmlns="urn:x"><b/></a>`, `<a/><b/>`, `<a/>trailing`, `<?xml version="1.0"?><!-- c --><a/>`,
		`<p:a/>`, `<a><![CDATA[x]]></a>`, `<!DOCTYPE a><a/>`, `<?pi x?><a/>`, `<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><x/></s:Body></s:Envelope>`,
		`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><h xmlns="urn:h"/></s:Header><s:Body/></s:Envelope>`,
		"\xFF\xFE<\x00a\x00/\x00>\x00", `<a>&amp;&#x1;</a>`, `<a b="1" b="2"/>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		p, err := sniff(bytes.NewReader(in))
		if err != nil {
			return
		}
		m := p.envelope
		if m == nil {
			m = core.NewMessage(core.V12, core.StreamBody(p.root, func(w io.Writer) error { return copyChecked(w, p.doc) }))
		}
		var env bytes.Buffer
		if _, err := m.WriteTo(&env); err != nil {
			return // refused while streaming: nothing complete was sent
		}
		back, err := core.ReadMessage(bytes.NewReader(env.Bytes()), core.Limits{MaxBytes: -1})
		if err == nil {
			err = back.Body().Discard()
		}
		if err != nil {
			t.Fatalf("sent an envelope core refuses: %v\ninput: %q\nsent: %q", err, in, env.Bytes())
		}
	})
}

// FuzzPrintReply: any reply body prints or fails with an error, within
// bounds: shared references cannot make the output explode.
func FuzzPrintReply(f *testing.F) {
	for _, s := range []string{
		`<m:addResponse xmlns:m="urn:x"><return>42</return></m:addResponse>`,
		`<m:r xmlns:m="urn:x"><a><b>1</b><b>2</b></a><c xsi:nil="true" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"/></m:r>`,
		`<m:r xmlns:m="urn:x"><a href="#1"/><a href="#1"/></m:r><multiRef id="1"><x href="#1"/><y href="#1"/></multiRef>`,
		`<m:r xmlns:m="urn:x"/>`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, asJSON bool) {
		env := `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>` + string(body) + `</s:Body></s:Envelope>`
		m, err := core.ReadMessage(strings.NewReader(env), core.Limits{})
		if err != nil {
			return
		}
		var out countingWriter
		err = printReply(&out, m, asJSON)
		if err != nil && errors.Is(err, errTooManyValues) {
			return
		}
		if out.n > 64<<20 {
			t.Fatalf("printed %d bytes for a %d-byte body", out.n, len(body))
		}
	})
}

type countingWriter struct{ n int }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += len(p); return len(p), nil }

// order is a document with a prolog.
const order = `<?xml version="1.0" encoding="UTF-8"?>
<!-- purchase order -->
<po:order xmlns:po="urn:example:po"><po:item>bolt</po:item></po:order>
`

const wsdlDocLiteral = `<?xml version="1.0" encoding="UTF-8"?>
<wsdl:definitions name="Calc" targetNamespace="urn:calc" xmlns:tns="urn:calc" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soap="http://schemas.xmlsoap.org/wsdl/soap/">
<wsdl:types><xsd:schema targetNamespace="urn:calc" elementFormDefault="unqualified">
<xsd:element name="add"><xsd:complexType><xsd:sequence><xsd:element name="a" type="xsd:int"/><xsd:element name="b" type="xsd:int"/></xsd:sequence></xsd:complexType></xsd:element>
</xsd:schema></wsdl:types>
<wsdl:message name="addRequest"><wsdl:part name="parameters" element="tns:add"/></wsdl:message>
<wsdl:portType name="CalcPortType"><wsdl:operation name="add"><wsdl:input message="tns:addRequest"/></wsdl:operation></wsdl:portType>
<wsdl:binding name="CalcSoap11" type="tns:CalcPortType"><soap:binding style="document" transport="http://schemas.xmlsoap.org/soap/http"/>
<wsdl:operation name="add"><soap:operation soapAction="urn:calc#add" style="document"/><wsdl:input><soap:body use="literal"/></wsdl:input></wsdl:operation>
</wsdl:binding>
</wsdl:definitions>`

const wsdlRPCEncoded = `<?xml version="1.0" encoding="UTF-8"?>
<wsdl:definitions name="Calc" targetNamespace="urn:calc" xmlns:tns="urn:calc" xmlns:wsdl="http://schemas.xmlsoap.org/wsdl/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:soap12="http://schemas.xmlsoap.org/wsdl/soap12/">
<wsdl:message name="addRequest"><wsdl:part name="a" type="xsd:int"/><wsdl:part name="b" type="xsd:string"/></wsdl:message>
<wsdl:portType name="CalcPortType"><wsdl:operation name="add"><wsdl:input message="tns:addRequest"/></wsdl:operation></wsdl:portType>
<wsdl:binding name="CalcSoap12" type="tns:CalcPortType"><soap12:binding style="rpc" transport="http://schemas.xmlsoap.org/soap/http"/>
<wsdl:operation name="add"><soap12:operation soapAction="" style="rpc"/><wsdl:input><soap12:body use="encoded" namespace="urn:calc:ops" encodingStyle="http://www.w3.org/2003/05/soap-encoding"/></wsdl:input></wsdl:operation>
</wsdl:binding>
</wsdl:definitions>`
