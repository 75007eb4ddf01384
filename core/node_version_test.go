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
			assert.Equal(t, []core.Version{c.node}, back.Fault().Supported, "the Upgrade list reads back")
			assert.Empty(t, back.Envelope.Headers, "the Upgrade block is part of the fault")

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

// TestUpgradeReadBack: the Upgrade header block of a received VersionMismatch
// fault (1.2, and the 1.1 form of SOAP 1.2 Part 1 Appendix A) is read into
// Fault.Supported, in its order; envelopes soapwire does not know are left
// out; written again, the fault carries the same list.
func TestUpgradeReadBack(t *testing.T) {
	const (
		ns11 = "http://schemas.xmlsoap.org/soap/envelope/"
		ns12 = "http://www.w3.org/2003/05/soap-envelope"
	)
	upgrade := func(p string, own bool, qnames ...string) string {
		s := `<` + p + `:Upgrade`
		if own {
			s += ` xmlns:` + p + `="` + ns12 + `"`
		}
		s += `>`
		for _, q := range qnames {
			s += `<` + p + `:SupportedEnvelope ` + q + `/>`
		}
		return s + `</` + p + `:Upgrade>`
	}
	fault11 := `<s:Body><s:Fault><faultcode>s:VersionMismatch</faultcode><faultstring>x</faultstring></s:Fault></s:Body></s:Envelope>`
	fault12 := `<s:Body><s:Fault><s:Code><s:Value>s:VersionMismatch</s:Value></s:Code><s:Reason><s:Text xml:lang="en">x</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>`
	cases := []struct {
		name string
		in   string
		want []core.Version
	}{
		{"1.2, both, 1.2 first", `<s:Envelope xmlns:s="` + ns12 + `"><s:Header>` +
			upgrade("s", false, `xmlns:a="`+ns12+`" qname="a:Envelope"`, `xmlns:b="`+ns11+`" qname="b:Envelope"`) + `</s:Header>` + fault12, []core.Version{core.V12, core.V11}},
		{"1.2, 1.1 only", `<s:Envelope xmlns:s="` + ns12 + `" xmlns:o="` + ns11 + `"><s:Header>` +
			upgrade("s", false, `qname="o:Envelope"`) + `</s:Header>` + fault12, []core.Version{core.V11}},
		{"1.2, an unknown envelope left out", `<s:Envelope xmlns:s="` + ns12 + `"><s:Header>` +
			upgrade("s", false, `xmlns:x="urn:soap-3" qname="x:Envelope"`, `xmlns:b="`+ns12+`" qname="b:Envelope"`) + `</s:Header>` + fault12, []core.Version{core.V12}},
		{"1.2, no Upgrade", `<s:Envelope xmlns:s="` + ns12 + `">` + fault12, nil},
		{"1.1, the 1.2 Upgrade block", `<s:Envelope xmlns:s="` + ns11 + `"><s:Header>` +
			upgrade("u", true, `xmlns:a="`+ns12+`" qname="a:Envelope"`) + `</s:Header>` + fault11, []core.Version{core.V12}},
		{"1.1, no Upgrade", `<s:Envelope xmlns:s="` + ns11 + `">` + fault11, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := core.ReadMessage(strings.NewReader(c.in), core.Limits{})
			require.NoError(t, err)
			f := m.Fault()
			require.NotNil(t, f)
			assert.Equal(t, core.CodeVersionMismatch, f.Code)
			assert.Equal(t, c.want, f.Supported)
			assert.Empty(t, m.Envelope.Headers, "the Upgrade block is folded into the fault")

			var b strings.Builder
			_, err = (&core.Envelope{Version: m.Version(), Body: core.FaultBody(f)}).WriteTo(&b)
			require.NoError(t, err)
			back, err := core.ReadMessage(strings.NewReader(b.String()), core.Limits{})
			require.NoError(t, err, "%s", b.String())
			want := c.want
			if want == nil && m.Version() == core.V12 {
				want = []core.Version{core.V12, core.V11} // nil is written as both
			}
			assert.Equal(t, want, back.Fault().Supported, "written and read again: %s", b.String())
		})
	}

	// an Upgrade block on a fault other than VersionMismatch stays a header
	m, err := core.ReadMessage(strings.NewReader(`<s:Envelope xmlns:s="`+ns12+`"><s:Header>`+
		upgrade("s", false, `xmlns:a="`+ns12+`" qname="a:Envelope"`)+`</s:Header>`+
		`<s:Body><s:Fault><s:Code><s:Value>s:Sender</s:Value></s:Code><s:Reason><s:Text xml:lang="en">x</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>`), core.Limits{})
	require.NoError(t, err)
	assert.Nil(t, m.Fault().Supported)
	assert.Len(t, m.Envelope.Headers, 1)
}
