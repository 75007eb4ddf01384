package core_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// TestNodeVersion: a Node limited to one SOAP version answers a message of
// the other with a VersionMismatch fault before anything runs, written in
// the message's version with an Upgrade header block listing the node's
// envelope (in 1.1 too: SOAP 1.2 Part 1 Appendix A); its own version is
// served.
func TestNodeVersion(t *testing.T) {
	const body = `<m:Ping xmlns:m="urn:m"/>`
	cases := []struct {
		node, msg core.Version
		want      string // the fault envelope written
	}{
		{core.V12, core.V11, `<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header>` +
			`<upg:Upgrade xmlns:upg="http://www.w3.org/2003/05/soap-envelope"><upg:SupportedEnvelope xmlns:v0="http://www.w3.org/2003/05/soap-envelope" qname="v0:Envelope"/></upg:Upgrade>` +
			`</soap:Header><soap:Body><soap:Fault><faultcode>soap:VersionMismatch</faultcode>` +
			`<faultstring>this node processes SOAP 1.2 envelopes only, not SOAP 1.1</faultstring><faultactor>urn:node</faultactor></soap:Fault></soap:Body></soap:Envelope>`},
		{core.V11, core.V12, `<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"><soap:Header>` +
			`<soap:Upgrade><soap:SupportedEnvelope xmlns:v0="http://schemas.xmlsoap.org/soap/envelope/" qname="v0:Envelope"/></soap:Upgrade>` +
			`</soap:Header><soap:Body><soap:Fault><soap:Code><soap:Value>soap:VersionMismatch</soap:Value></soap:Code>` +
			`<soap:Reason><soap:Text xml:lang="en">this node processes SOAP 1.1 envelopes only, not SOAP 1.2</soap:Text></soap:Reason><soap:Node>urn:node</soap:Node></soap:Fault></soap:Body></soap:Envelope>`},
	}
	for _, c := range cases {
		t.Run(c.node.String()+"-only/"+c.msg.String(), func(t *testing.T) {
			ran := false
			n := &core.Node{URI: "urn:node", Version: c.node, Handler: core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
				ran = true
				return m.Reply(core.RawBody([]byte(body))), nil
			})}
			req := `<s:Envelope xmlns:s="` + c.msg.Namespace() + `"><s:Body>` + body + `</s:Body></s:Envelope>`
			m, err := core.ReadMessage(strings.NewReader(req), core.Limits{})
			require.NoError(t, err)
			_, err = n.ServeSOAP(t.Context(), m)
			require.Error(t, err)
			assert.False(t, ran, "nothing runs")
			f := core.FaultOf(err)
			assert.Equal(t, core.CodeVersionMismatch, f.Code)
			var b strings.Builder
			_, err = m.FaultReply(f).WriteTo(&b)
			require.NoError(t, err)
			assert.Equal(t, c.want, b.String())
			back, err := core.ReadMessage(strings.NewReader(b.String()), core.Limits{})
			require.NoError(t, err, "the fault reads back")
			assert.Equal(t, core.CodeVersionMismatch, back.Fault().Code)

			// its own version is served
			own := `<s:Envelope xmlns:s="` + c.node.Namespace() + `"><s:Body>` + body + `</s:Body></s:Envelope>`
			m, err = core.ReadMessage(strings.NewReader(own), core.Limits{})
			require.NoError(t, err)
			reply, err := n.ServeSOAP(t.Context(), m)
			require.NoError(t, err)
			assert.NotNil(t, reply)
			assert.True(t, ran)
		})
	}
}
