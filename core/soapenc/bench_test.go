package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"testing"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// inEnvelope wraps body children in a SOAP 1.1 envelope.
func inEnvelope(body []byte) []byte {
	return append(append([]byte(`<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body>`), body...),
		`</s:Body></s:Envelope>`...)
}

// decodeEnvelope reads env with core and decodes its body into out.
func decodeEnvelope(b *testing.B, env []byte, out any) {
	m, err := core.ReadMessage(bytes.NewReader(env), core.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	el, err := soapenc.NewDecoder(m.Body()).ReadBody()
	if err != nil {
		b.Fatal(err)
	}
	if err := el.Decode(out); err != nil {
		b.Fatal(err)
	}
}

// The same data through soapenc and through encoding/xml, in one run:
//
//	go test -run '^$' -bench . -benchmem -count 6 ./core/soapenc/
//
// encodingxml-* marshal to and unmarshal from plain XML (no xsi:type, no
// namespace declarations): a third (struct) to a half (array) of the bytes
// of the SOAP-encoded form. encodingxml-decode-soapxml unmarshals the
// SOAP-encoded bytes themselves. soapenc-decode reads a fresh xml.Decoder
// (with RawToken); soapenc-decode-envelope reads the same body inside an
// envelope through core.ReadMessage and Body's tokens, the path core/rpc
// takes, envelope parsing included. Tokenizing is most of decoding.

type benchInner struct {
	Name  string `xml:"name"`
	Count int32  `xml:"count"`
}

type echoStruct struct {
	XMLName xml.Name   `xml:"echoStruct"`
	Str     string     `xml:"varString"`
	Int     int        `xml:"varInt"`
	Float   float64    `xml:"varFloat"`
	List    []string   `soap:"list" xml:"list>item"`
	Inner   benchInner `xml:"inner"`
}

type stringArray struct {
	XMLName xml.Name `xml:"array"`
	Items   []string `xml:"item"`
}

func benchData() (echoStruct, []string) {
	s := echoStruct{Str: "Hello, SOAP & <friends>", Int: 1234567, Float: 3.14159,
		List: []string{"alpha", "beta", "gamma"}, Inner: benchInner{Name: "inner", Count: 42}}
	arr := make([]string, 1000)
	for i := range arr {
		arr[i] = "item number " + strconv.Itoa(i)
	}
	return s, arr
}

func BenchmarkStruct(b *testing.B) {
	s, _ := benchData()
	enc := soapenc.Encoder{Version: soapenc.V11, TypeNamespace: "urn:bench"}
	name := xml.Name{Space: "urn:bench", Local: "echoStruct"}
	var buf bytes.Buffer
	if err := enc.Encode(&buf, name, s); err != nil {
		b.Fatal(err)
	}
	soapXML := bytes.Clone(buf.Bytes())
	plainXML, err := xml.Marshal(s)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("soapenc-encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(&buf, name, s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encodingxml-encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := xml.Marshal(s); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("soapenc-decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(soapXML)))
		for b.Loop() {
			el, err := soapenc.NewDecoder(xml.NewDecoder(bytes.NewReader(soapXML))).ReadBody()
			if err != nil {
				b.Fatal(err)
			}
			var out echoStruct
			if err := el.Decode(&out); err != nil {
				b.Fatal(err)
			}
		}
	})
	env := inEnvelope(soapXML)
	b.Run("soapenc-decode-envelope", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(env)))
		for b.Loop() {
			var out echoStruct
			decodeEnvelope(b, env, &out)
		}
	})
	b.Run("encodingxml-decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(plainXML)))
		for b.Loop() {
			var out echoStruct
			if err := xml.Unmarshal(plainXML, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	// encoding/xml reading the very document soapenc reads (it skips the
	// SOAP attributes): the same tokenizer work.
	b.Run("encodingxml-decode-soapxml", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(soapXML)))
		for b.Loop() {
			var out echoStruct
			if err := xml.Unmarshal(soapXML, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkStringArray(b *testing.B) {
	_, arr := benchData()
	enc := soapenc.Encoder{Version: soapenc.V11}
	name := xml.Name{Space: "urn:bench", Local: "array"}
	var buf bytes.Buffer
	if err := enc.Encode(&buf, name, arr); err != nil {
		b.Fatal(err)
	}
	soapXML := bytes.Clone(buf.Bytes())
	wrapped := stringArray{Items: arr}
	plainXML, err := xml.Marshal(wrapped)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("soapenc-encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			if err := enc.Encode(&buf, name, arr); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encodingxml-encode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := xml.Marshal(wrapped); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("soapenc-decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(soapXML)))
		for b.Loop() {
			el, err := soapenc.NewDecoder(xml.NewDecoder(bytes.NewReader(soapXML))).ReadBody()
			if err != nil {
				b.Fatal(err)
			}
			var out []string
			if err := el.Decode(&out); err != nil {
				b.Fatal(err)
			}
		}
	})
	env := inEnvelope(soapXML)
	b.Run("soapenc-decode-envelope", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(env)))
		for b.Loop() {
			var out []string
			decodeEnvelope(b, env, &out)
		}
	})
	b.Run("encodingxml-decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(plainXML)))
		for b.Loop() {
			var out stringArray
			if err := xml.Unmarshal(plainXML, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
	// encoding/xml reading the very document soapenc reads (it skips the
	// SOAP attributes): the same tokenizer work.
	b.Run("encodingxml-decode-soapxml", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(soapXML)))
		for b.Loop() {
			var out stringArray
			if err := xml.Unmarshal(soapXML, &out); err != nil {
				b.Fatal(err)
			}
		}
	})
}
