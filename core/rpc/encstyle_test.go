package rpc_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/rpc"
)

// TestEnvelopeEncodingStyle: an encodingStyle the service does not know,
// declared on the Envelope, the Body or the operation element, is a
// DataEncodingUnknown fault (1.1: Client); a known one anywhere, or none
// claimed on the Body over an unknown one on the Envelope, is served. In
// SOAP 1.2 one on the Envelope or the Body is refused as the envelope is
// read (a Sender fault).
func TestEnvelopeEncodingStyle(t *testing.T) {
	const op = `<m:add xmlns:m="urn:soapwire:echo"%OP%><a>1</a><b>2</b></m:add>`
	tests := []struct {
		name, env, body, op string
		unknown             bool
	}{
		{"unknown on the Envelope", ` s:encodingStyle="urn:x-private"`, ``, ``, true},
		{"unknown on the Body", ``, ` s:encodingStyle="urn:x-private"`, ``, true},
		{"unknown on the operation", ``, ``, ` s:encodingStyle="urn:x-private"`, true},
		{"unknown on the Body, known on the operation", ``, ` s:encodingStyle="urn:x-private"`, ` s:encodingStyle="%ENC%"`, true},
		{"known on the Envelope", ` s:encodingStyle="%ENC%"`, ``, ``, false},
		{"known on the Body", ``, ` s:encodingStyle="%ENC%"`, ``, false},
		{"unknown on the Envelope, none claimed on the Body", ` s:encodingStyle="urn:x-private"`, ` s:encodingStyle=""`, ``, false},
	}
	for _, style := range styles {
		for _, v := range versions {
			enc := core.EncodingStyleV11
			if v == core.V12 {
				enc = core.EncodingStyleV12
			}
			for _, tt := range tests {
				t.Run(fmt.Sprintf("%s/%s/%s", style, v, tt.name), func(t *testing.T) {
					raw := `<s:Envelope xmlns:s="` + v.Namespace() + `"` + tt.env + `><s:Body` + tt.body + `>` +
						strings.Replace(op, "%OP%", tt.op, 1) + `</s:Body></s:Envelope>`
					raw = strings.ReplaceAll(raw, "%ENC%", enc)
					if v == core.V12 && (tt.env != "" || tt.body != "") {
						// SOAP 1.2 allows encodingStyle on neither (Part 1
						// §5.1.1): the envelope is refused as it is read
						_, err := core.ReadMessage(strings.NewReader(raw), core.Limits{})
						require.Error(t, err)
						assert.Equal(t, core.CodeSender, core.FaultOf(err).Code)
						assert.Contains(t, core.FaultOf(err).Reason, "encodingStyle on the SOAP 1.2")
						return
					}
					out, f := serveRaw(t, newEchoService(rpc.WithStyle(style)), raw)
					if !tt.unknown {
						require.Nil(t, f, "fault: %v", f)
						assert.Contains(t, out, ">3</return>")
						return
					}
					require.NotNil(t, f, "reply: %s", out)
					assert.Equal(t, core.CodeDataEncodingUnknown, f.Code, "%v", f)
					assert.Contains(t, out, "urn:x-private")
					reread, err := core.ReadMessage(strings.NewReader(out), core.Limits{})
					require.NoError(t, err)
					rf := reread.Fault()
					require.NotNil(t, rf)
					if v == core.V12 {
						assert.Equal(t, core.CodeDataEncodingUnknown, rf.Code)
						assert.Contains(t, out, ":DataEncodingUnknown</")
					} else {
						assert.Equal(t, core.CodeSender, rf.Code, "1.1 has no DataEncodingUnknown: Client")
						assert.Contains(t, out, ":Client</faultcode>")
					}
				})
			}
		}
	}
}
