package soapenc_test

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// TestEnvelopeEncodingStyle: the encodingStyle declared on the Envelope or
// the Body element reaches a Decoder over a core.Body, which refuses one it
// does not know as it refuses one on an element. SOAP 1.2 allows it on
// neither: core refuses such an envelope as it reads it.
func TestEnvelopeEncodingStyle(t *testing.T) {
	const op = `<m:op xmlns:m="urn:m"><a>1</a></m:op>`
	for _, v := range []core.Version{core.V11, core.V12} {
		ns := v.Namespace()
		for _, c := range []struct {
			name, env string
			unknown   bool
		}{
			{"none", `<s:Envelope xmlns:s="` + ns + `"><s:Body>` + op + `</s:Body></s:Envelope>`, false},
			{"SOAP 1.1 encoding on the Envelope", `<s:Envelope xmlns:s="` + ns + `" s:encodingStyle="` + core.EncodingStyleV11 + `"><s:Body>` + op + `</s:Body></s:Envelope>`, false},
			{"SOAP 1.2 encoding on the Body", `<s:Envelope xmlns:s="` + ns + `"><s:Body s:encodingStyle="` + core.EncodingStyleV12 + `">` + op + `</s:Body></s:Envelope>`, false},
			{"a list with a known one", `<s:Envelope xmlns:s="` + ns + `"><s:Body s:encodingStyle="urn:x ` + core.EncodingStyleV11 + `">` + op + `</s:Body></s:Envelope>`, false},
			{"unknown on the Envelope", `<s:Envelope xmlns:s="` + ns + `" s:encodingStyle="urn:x-private"><s:Body>` + op + `</s:Body></s:Envelope>`, true},
			{"unknown on the Body", `<s:Envelope xmlns:s="` + ns + `"><s:Body s:encodingStyle="urn:x-private">` + op + `</s:Body></s:Envelope>`, true},
			{"unknown on the Envelope, none claimed on the Body", `<s:Envelope xmlns:s="` + ns + `" s:encodingStyle="urn:x-private"><s:Body s:encodingStyle="">` + op + `</s:Body></s:Envelope>`, false},
		} {
			m, err := core.ReadMessage(strings.NewReader(c.env), core.Limits{})
			if v == core.V12 && c.name != "none" {
				// SOAP 1.2 allows encodingStyle on neither (Part 1 §5.1.1)
				assert.Equal(t, core.CodeSender, core.FaultOf(err).Code, "%s %s", v, c.name)
				continue
			}
			require.NoError(t, err)
			d := soapenc.NewDecoder(m.Body())
			el, err := d.ReadBody()
			if !c.unknown {
				require.NoError(t, err, "%s %s", v, c.name)
				assert.Equal(t, "op", el.Name.Local)
				continue
			}
			assert.Equal(t, soapenc.SubcodeDataEncodingUnknown, subcode(t, err), "%s %s: %v", v, c.name, err)
			assert.ErrorContains(t, err, "urn:x-private")
		}
	}
}

func TestDecoderEncodingStyleField(t *testing.T) {
	newDecoder := func() *soapenc.Decoder {
		return soapenc.NewDecoder(xml.NewDecoder(strings.NewReader(`<m:op xmlns:m="urn:m"/>`)))
	}
	d := newDecoder()
	assert.Equal(t, "", d.EncodingStyle, "not a core.Body: nothing to take")
	d.EncodingStyle = "urn:unknown"
	_, err := d.ReadBody()
	assert.Equal(t, soapenc.SubcodeDataEncodingUnknown, subcode(t, err), "%v", err)
	d = newDecoder()
	d.EncodingStyle = " " + soapenc.EncodingStyleV11 + " "
	_, err = d.ReadBody()
	assert.NoError(t, err)
}
