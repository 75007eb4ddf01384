package core_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

func TestBodyEncodingStyle(t *testing.T) {
	const body = `<m:Get xmlns:m="urn:m"><m:id>7</m:id></m:Get>`
	for _, v := range versions {
		for _, c := range []struct{ name, env, want string }{
			{"none", `<s:Envelope xmlns:s="{ns}"><s:Body>` + body + `</s:Body></s:Envelope>`, ""},
			{"on the Envelope", `<s:Envelope xmlns:s="{ns}" s:encodingStyle="urn:env"><s:Body>` + body + `</s:Body></s:Envelope>`, "urn:env"},
			{"on the Body", `<s:Envelope xmlns:s="{ns}"><s:Header><h:a xmlns:h="urn:h"/></s:Header><s:Body s:encodingStyle="urn:a urn:b">` + body + `</s:Body></s:Envelope>`, "urn:a urn:b"},
			{"the Body's wins", `<s:Envelope xmlns:s="{ns}" s:encodingStyle="urn:env"><s:Body s:encodingStyle="urn:body">` + body + `</s:Body></s:Envelope>`, "urn:body"},
			{"an empty one on the Body wins", `<s:Envelope xmlns:s="{ns}" s:encodingStyle="urn:env"><s:Body s:encodingStyle="">` + body + `</s:Body></s:Envelope>`, ""},
			{"unqualified is not SOAP's", `<s:Envelope xmlns:s="{ns}" encodingStyle="urn:env"><s:Body encodingStyle="urn:body">` + body + `</s:Body></s:Envelope>`, ""},
			{"another namespace is not SOAP's", `<s:Envelope xmlns:s="{ns}" xmlns:o="urn:o" o:encodingStyle="urn:env"><s:Body>` + body + `</s:Body></s:Envelope>`, ""},
			{"the SOAP encoding", `<s:Envelope xmlns:s="{ns}" s:encodingStyle="` + core.EncodingStyleV11 + `"><s:Body>` + body + `</s:Body></s:Envelope>`, core.EncodingStyleV11},
			{"an empty Body", `<s:Envelope xmlns:s="{ns}"><s:Body s:encodingStyle="urn:x"></s:Body></s:Envelope>`, "urn:x"},
		} {
			m, err := core.ReadMessage(strings.NewReader(envOf(v, c.env)), core.Limits{})
			if v == core.V12 && c.name != "none" && c.name != "another namespace is not SOAP's" {
				// SOAP 1.2: no encodingStyle on the Envelope or the Body,
				// no unqualified attribute on them (Part 1 §5.1–5.3)
				require.Error(t, err, "%s %s", v, c.name)
				assert.Equal(t, core.CodeSender, core.FaultOf(err).Code)
				continue
			}
			require.NoError(t, err, "%s %s", v, c.name)
			assert.Equal(t, c.want, m.Body().EncodingStyle(), "%s %s", v, c.name)
			require.NoError(t, m.Body().Discard())
			assert.Equal(t, c.want, m.Body().EncodingStyle(), "%s %s: kept once the body is read", v, c.name)
		}
	}
	assert.Equal(t, "", core.RawBody([]byte(body)).EncodingStyle(), "outbound")
	assert.Equal(t, "", core.Body{}.EncodingStyle(), "zero Body")
}
