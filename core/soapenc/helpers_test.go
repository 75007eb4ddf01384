package soapenc_test

import (
	"bytes"
	"encoding/xml"
	"io"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core/soapenc"
)

var versions = []soapenc.Version{soapenc.V11, soapenc.V12}

// read parses body XML (the children of a Body) with a Decoder of version v.
func read(t testing.TB, v soapenc.Version, body string) *soapenc.Element {
	t.Helper()
	el, err := readErr(v, body)
	require.NoError(t, err)
	return el
}

func readErr(v soapenc.Version, body string) (*soapenc.Element, error) {
	d := soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(body)))
	d.Version = v
	return d.ReadBody()
}

// encode writes v as element "value" in namespace urn:test.
func encode(t testing.TB, e soapenc.Encoder, v any) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, e.Encode(&b, xml.Name{Space: "urn:test", Local: "value"}, v))
	return b.String()
}

// subcode returns the Subcode of err, which must be an *Error.
func subcode(t testing.TB, err error) string {
	t.Helper()
	require.Error(t, err)
	var e *soapenc.Error
	require.ErrorAs(t, err, &e, "error %v is not a *soapenc.Error", err)
	return e.Subcode
}

func stringsReader(s string) *strings.Reader { return strings.NewReader(s) }

// envelopeBody is what the SOAP core's Body does, for tests: it reads a
// whole envelope, yields the tokens of the Body's children and io.EOF at the
// end of the Body, and reports the namespaces declared on Envelope and Body.
type envelopeBody struct {
	d     *xml.Decoder
	depth int // 0 outside Body, 1 directly in Body
	ns    map[string]string
}

func newEnvelopeBody(t testing.TB, envelope string) *envelopeBody {
	t.Helper()
	b := &envelopeBody{d: xml.NewDecoder(strings.NewReader(envelope)), ns: map[string]string{}}
	for {
		tok, err := b.d.Token()
		require.NoError(t, err, "no Body")
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				switch {
				case a.Name.Space == "xmlns":
					b.ns[a.Name.Local] = a.Value
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					b.ns[""] = a.Value
				}
			}
			if se.Name.Local == "Body" {
				b.depth = 1
				return b
			}
		}
	}
}

func (b *envelopeBody) Token() (xml.Token, error) {
	if b.depth == 0 {
		return nil, io.EOF
	}
	tok, err := b.d.Token()
	if err != nil {
		return nil, err
	}
	switch tok.(type) {
	case xml.StartElement:
		b.depth++
	case xml.EndElement:
		if b.depth--; b.depth == 0 {
			return nil, io.EOF
		}
	}
	return tok, nil
}

// readEnvelope decodes the Body of a whole envelope.
func readEnvelope(t testing.TB, v soapenc.Version, envelope string) (*soapenc.Element, error) {
	t.Helper()
	b := newEnvelopeBody(t, envelope)
	d := soapenc.NewDecoder(b)
	d.Version = v
	d.Namespaces = b.ns
	return d.ReadBody()
}

func bigRat(a, b int64) *big.Rat { return big.NewRat(a, b) }
