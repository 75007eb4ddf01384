package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	got := out.String()

	tests := []struct {
		part  string
		lines []string // in this order
	}{
		{"request and reply", []string{
			"== 1. Request and reply (SOAP 1.2) ==",
			`<soap:Envelope xmlns:soap="http://www.w3.org/2003/05/soap-envelope"`,
			"<wsa:Action>urn:example:quickstart/Echo</wsa:Action>",
			"<Text>Hello, SOAP</Text>",
			"reply:",
			"<wsa:RelatesTo>urn:example:request-1</wsa:RelatesTo>",
			"<Text>Hello, SOAP</Text>",
		}},
		{"mustUnderstand fault", []string{
			"== 2. A mandatory header block nobody understands ==",
			"fault code: MustUnderstand",
			"node: urn:example:service",
			"not understood: {urn:example:quickstart}Priority",
			"remote: true",
			`<soap:NotUnderstood xmlns:q="urn:example:quickstart" qname="q:Priority">`,
			"<soap:Value>soap:MustUnderstand</soap:Value>",
		}},
		{"intermediary", []string{
			"== 3. An intermediary on the way ==",
			`gateway: processed Auth for "ada", inserting Stamp`,
			`service: processed Stamp "checked by gateway for ada"`,
			`  {urn:example:quickstart}Trace role="" mustUnderstand=false`,
			`  {urn:example:quickstart}Stamp role="" mustUnderstand=true`,
			`client: reply "Through the gateway"`,
		}},
		{"one-way", []string{
			"== 4. One-way documents, receipts to ReplyTo ==",
			"client: receipt at pipe:receipts: order 2 accepted (RelatesTo urn:example:order-2)",
			"client: receipt at pipe:receipts: order 3 accepted (RelatesTo urn:example:order-3)",
			"shop: 3 orders processed, 2 receipts sent",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.part, func(t *testing.T) {
			rest := got
			for _, line := range tt.lines {
				i := strings.Index(rest, line)
				require.GreaterOrEqual(t, i, 0, "missing (or out of order): %q\noutput:\n%s", line, got)
				rest = rest[i+len(line):]
			}
		})
	}
	section3 := got[strings.Index(got, "== 3."):strings.Index(got, "== 4.")]
	assert.NotContains(t, section3, "}Auth role=", "the gateway must remove the Auth block it processed")
}

func TestRunIsDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	require.NoError(t, run(&a))
	require.NoError(t, run(&b))
	assert.Equal(t, a.String(), b.String())
}
