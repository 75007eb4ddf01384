package core_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// Helpers for the processing-model, routing and Serve tests. Their names
// start with pm so they do not clash with the reader/writer tests' helpers.

const (
	pmNS        = "urn:example:pm"    // namespace of the test header blocks
	pmBodyNS    = "urn:example:body"  // namespace of the test bodies
	pmRoleGate  = "urn:example:gate"  // a custom role the nodes under test play
	pmRoleOther = "urn:example:other" // a custom role nobody plays
)

// pmName is a header block name in the test namespace.
func pmName(local string) xml.Name { return xml.Name{Space: pmNS, Local: local} }

// pmBlock describes a header block to put into a test envelope.
type pmBlock struct {
	Local string
	Role  string
	MU    bool
	Relay bool // written as the 1.2 relay attribute in either version (1.1 has none, so it must be ignored)
}

// xml renders the block with the envelope prefix "s" for the SOAP attributes.
func (b pmBlock) xml(v core.Version) string {
	var attrs strings.Builder
	if b.Role != "" {
		if v == core.V12 {
			fmt.Fprintf(&attrs, ` s:role="%s"`, b.Role)
		} else {
			fmt.Fprintf(&attrs, ` s:actor="%s"`, b.Role)
		}
	}
	if b.MU {
		attrs.WriteString(` s:mustUnderstand="1"`)
	}
	if b.Relay {
		attrs.WriteString(` s:relay="true"`)
	}
	return fmt.Sprintf(`<h:%s xmlns:h="%s"%s>%s-value</h:%s>`, b.Local, pmNS, attrs.String(), b.Local, b.Local)
}

// pmEnvelope is an envelope of version v with the blocks, the WS-Addressing
// headers in wsa (raw XML, may be "") and body (raw XML).
func pmEnvelope(v core.Version, wsa string, body string, blocks ...pmBlock) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<s:Envelope xmlns:s="%s" xmlns:wsa="%s"><s:Header>%s`, v.Namespace(), core.NamespaceAddressing, wsa)
	for _, blk := range blocks {
		b.WriteString(blk.xml(v))
	}
	fmt.Fprintf(&b, `</s:Header><s:Body>%s</s:Body></s:Envelope>`, body)
	return b.String()
}

// pmBody is the default request body.
const pmBody = `<b:Echo xmlns:b="` + pmBodyNS + `"><b:text>hello</b:text></b:Echo>`

// pmRead reads an envelope from text, failing the test on error.
func pmRead(t testing.TB, s string) *core.Message {
	t.Helper()
	m, err := core.ReadMessage(strings.NewReader(s), core.Limits{})
	require.NoError(t, err)
	return m
}

// pmWire writes m as it would go on the wire and reads it back.
func pmWire(t testing.TB, m *core.Message) (*core.Message, []byte) {
	t.Helper()
	var buf bytes.Buffer
	_, err := m.WriteTo(&buf)
	require.NoError(t, err)
	raw := bytes.Clone(buf.Bytes())
	back, err := core.ReadMessage(&buf, core.Limits{})
	require.NoError(t, err, "re-reading %s", raw)
	return back, raw
}

// pmFaultWire writes f as the fault answering req and reads it back.
func pmFaultWire(t testing.TB, req *core.Message, f *core.Fault) (*core.Fault, []byte) {
	t.Helper()
	back, raw := pmWire(t, req.FaultReply(f))
	got := back.Fault()
	require.NotNil(t, got, "no fault in %s", raw)
	return got, raw
}

// pmHeaderNames lists the (test namespace) header blocks of m in order.
func pmHeaderNames(m *core.Message) []string {
	names := []string{}
	for _, b := range m.Envelope.Headers {
		names = append(names, b.Name.Local)
	}
	return names
}

// pmAsFault requires err to be a *core.Fault and returns it.
func pmAsFault(t testing.TB, err error) *core.Fault {
	t.Helper()
	require.Error(t, err)
	f, ok := err.(*core.Fault)
	require.True(t, ok, "error %T %v is not a *core.Fault", err, err)
	return f
}

// pmEcho is a handler that answers with a small fixed body after reading the
// request body to its end.
func pmEcho(reply string) core.Handler {
	return core.HandlerFunc(func(ctx context.Context, m *core.Message) (*core.Message, error) {
		if err := m.Body().Discard(); err != nil {
			return nil, err
		}
		return m.Reply(core.RawBody([]byte(reply))), nil
	})
}

// pmVersions are both SOAP versions.
var pmVersions = []core.Version{core.V11, core.V12}
