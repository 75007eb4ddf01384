package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"strconv"
	"testing"

	"github.com/soapwire/soapwire/core/soapenc"
)

// The same data through soapenc and through encoding/xml, in one run:
//
//	go test -run '^$' -bench . -benchmem -count 6 ./core/soapenc/
//
// encodingxml-* marshal to and unmarshal from plain XML (no xsi:type, no
// namespace declarations), about a third of the bytes of the SOAP-encoded
// form; encodingxml-decode-soapxml unmarshals the SOAP-encoded bytes
// themselves. Both decoders tokenize with encoding/xml, which is most of the
// decoding time.

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
