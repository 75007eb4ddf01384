package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// TestPrintReplyHeaderReference: a reply value that refers to a value in a
// header block is printed (as rpc's Client reads it), and an id carried in
// a header block and again in the body is refused.
func TestPrintReplyHeaderReference(t *testing.T) {
	const env = `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><h:D xmlns:h="urn:h"><h:v id="d1">from the header</h:v></h:D></s:Header>` +
		`<s:Body><m:echoResponse xmlns:m="urn:x"><return href="#d1"/></m:echoResponse>%s</s:Body></s:Envelope>`
	m, err := core.ReadMessage(strings.NewReader(strings.Replace(env, "%s", "", 1)), core.Limits{})
	require.NoError(t, err)
	var out strings.Builder
	require.NoError(t, printReply(&out, m, false))
	assert.Equal(t, "return = from the header\n", out.String())

	m, err = core.ReadMessage(strings.NewReader(strings.Replace(env, "%s", `<multiRef id="d1">again</multiRef>`, 1)), core.Limits{})
	require.NoError(t, err)
	err = printReply(&out, m, false)
	assert.ErrorContains(t, err, "DuplicateID")
}
