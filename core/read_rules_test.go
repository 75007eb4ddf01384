package core_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// TestEnvelopeAttributeRules: SOAP 1.2 Part 1 §5.1–5.3 allow on the
// Envelope, Header and Body only namespace-qualified attributes, and
// §5.1.1 allows encodingStyle on neither the Envelope nor the Body: such an
// envelope is a Sender fault naming the attribute. SOAP 1.1 (§4) is read
// as before: an encodingStyle there is the Body's (Body.EncodingStyle), and
// attributes of other namespaces are allowed in both versions.
func TestEnvelopeAttributeRules(t *testing.T) {
	const body = `<m:Get xmlns:m="urn:m"/>`
	cases := []struct {
		name, env string
		reason12  string // "": accepted in 1.2 too
	}{
		{"unqualified on the Envelope", `<s:Envelope xmlns:s="{ns}" id="1"><s:Body>` + body + `</s:Body></s:Envelope>`,
			"attribute id in no namespace on the SOAP 1.2 Envelope"},
		{"unqualified on the Header", `<s:Envelope xmlns:s="{ns}"><s:Header id="1"><h:a xmlns:h="urn:h"/></s:Header><s:Body>` + body + `</s:Body></s:Envelope>`,
			"attribute id in no namespace on the SOAP 1.2 Header"},
		{"unqualified on the Body", `<s:Envelope xmlns:s="{ns}"><s:Body id="1">` + body + `</s:Body></s:Envelope>`,
			"attribute id in no namespace on the SOAP 1.2 Body"},
		{"unqualified on an empty Body", `<s:Envelope xmlns:s="{ns}"><s:Body id="1"/></s:Envelope>`,
			"attribute id in no namespace on the SOAP 1.2 Body"},
		{"encodingStyle on the Envelope", `<s:Envelope xmlns:s="{ns}" s:encodingStyle="http://www.w3.org/2003/05/soap-encoding"><s:Body>` + body + `</s:Body></s:Envelope>`,
			"encodingStyle on the SOAP 1.2 Envelope"},
		{"encodingStyle on the Body", `<s:Envelope xmlns:s="{ns}"><s:Body s:encodingStyle="http://www.w3.org/2003/05/soap-encoding">` + body + `</s:Body></s:Envelope>`,
			"encodingStyle on the SOAP 1.2 Body"},
		{"encodingStyle on the Header is the Header's business", `<s:Envelope xmlns:s="{ns}"><s:Header s:encodingStyle="urn:x"/><s:Body>` + body + `</s:Body></s:Envelope>`, ""},
		{"qualified attributes of other namespaces", `<s:Envelope xmlns:s="{ns}" xmlns:o="urn:o" o:a="1"><s:Header o:b="2"/><s:Body o:c="3">` + body + `</s:Body></s:Envelope>`, ""},
		{"encodingStyle on a body child", `<s:Envelope xmlns:s="{ns}"><s:Body><m:Get xmlns:m="urn:m" s:encodingStyle="urn:x"/></s:Body></s:Envelope>`, ""},
	}
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, c := range cases {
			t.Run(v.String()+"/"+c.name, func(t *testing.T) {
				raw := strings.ReplaceAll(c.env, "{ns}", v.Namespace())
				m, err := core.ReadMessage(strings.NewReader(raw), core.Limits{})
				if v == core.V11 || c.reason12 == "" {
					require.NoError(t, err, "%s", raw)
					require.NoError(t, m.Body().Discard())
					return
				}
				require.Error(t, err, "%s", raw)
				f := core.FaultOf(err)
				assert.Equal(t, core.CodeSender, f.Code)
				assert.Equal(t, core.V12, f.Version)
				assert.Contains(t, f.Reason, c.reason12)
				var b strings.Builder
				_, err = core.NewMessage(f.Version, core.FaultBody(f)).WriteTo(&b)
				require.NoError(t, err)
				assert.Contains(t, b.String(), "<soap:Value>soap:Sender</soap:Value>", "the fault written")
			})
		}
	}
}
