package main_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const inspectGood = `<?xml version="1.0" encoding="utf-8"?>
<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope" xmlns:wsa="http://www.w3.org/2005/08/addressing">
  <env:Header>
    <wsa:Action>urn:example:po:submit</wsa:Action>
    <wsa:MessageID>urn:uuid:6c1e2b4e-0d3f-4a57-9d7c-1f2e3d4c5b6a</wsa:MessageID>
    <wsa:RelatesTo>urn:uuid:00000000-0000-4000-8000-000000000001</wsa:RelatesTo>
    <wsa:To>mailto:orders@shop.example</wsa:To>
    <wsa:ReplyTo><wsa:Address>ftp://ftp.shop.example/replies</wsa:Address></wsa:ReplyTo>
    <wsa:FaultTo><wsa:Address>nats:faults</wsa:Address></wsa:FaultTo>
    <a:Token xmlns:a="urn:example:auth" env:mustUnderstand="true">s3cret</a:Token>
    <t:Trace xmlns:t="urn:example:trace" env:role="http://www.w3.org/2003/05/soap-envelope/role/next" env:relay="true">hop-1</t:Trace>
  </env:Header>
  <env:Body><po:order xmlns:po="urn:example:po"><po:item>bolt</po:item></po:order></env:Body>
</env:Envelope>`

// TestInspect: good envelopes are reported (exit 0); bad ones with the
// fault soapwire would answer (exit 1).
func TestInspect(t *testing.T) {
	good := writeFile(t, "good.xml", inspectGood)
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stdout []string
		stderr string
	}{
		{
			name: "SOAP 1.2 with addressing and headers", args: []string{good},
			stdout: []string{
				"version: 1.2",
				"action: urn:example:po:submit",
				"message-id: urn:uuid:6c1e2b4e-0d3f-4a57-9d7c-1f2e3d4c5b6a",
				"relates-to: urn:uuid:00000000-0000-4000-8000-000000000001",
				"to: mailto:orders@shop.example",
				"reply-to: ftp://ftp.shop.example/replies",
				"fault-to: nats:faults",
				"header: {urn:example:auth}Token role=(ultimate receiver) mustUnderstand=true relay=false",
				"header: {urn:example:trace}Trace role=http://www.w3.org/2003/05/soap-envelope/role/next mustUnderstand=false relay=true",
				"body: {urn:example:po}order",
			},
		},
		{
			name:   "SOAP 1.1 from stdin, empty body",
			stdin:  `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope>`,
			stdout: []string{"version: 1.1", "body: (empty)"},
		},
		{
			name:   "a fault message is a valid envelope",
			args:   []string{"-"},
			stdin:  `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode>s:Server</faultcode><faultstring>out of bolts</faultstring></s:Fault></s:Body></s:Envelope>`,
			stdout: []string{"version: 1.1", "body: a fault message", "  fault: Receiver (1.1 Server)", "  reason: out of bolts"},
		},
		{
			name: "mustUnderstand not understood", args: []string{"--process", good}, code: 1,
			stdout: []string{"fault: MustUnderstand", "reason: mandatory header block not understood: {urn:example:auth}Token", "not-understood: {urn:example:auth}Token"},
			stderr: "soapwire inspect: " + good + ": the envelope would be refused: MustUnderstand fault",
		},
		{
			name: "mustUnderstand understood", args: []string{"--process", "--understand", "{urn:example:auth}Token", good},
			stdout: []string{"body: {urn:example:po}order"},
		},
		{
			name: "not for this node's role", args: []string{"--process", "-"},
			stdin: strings.Replace(inspectGood, `env:mustUnderstand="true"`, `env:mustUnderstand="true" env:role="urn:example:role:auditor"`, 1),
		},
		{
			name:  "a DOCTYPE",
			stdin: `<!DOCTYPE e [<!ENTITY x "y">]><e/>`, code: 1,
			stdout: []string{"fault: Sender", "reason: malformed envelope: xml: document type declarations and other <!...> directives are not allowed (at byte 0)"},
			stderr: "soapwire inspect: stdin: the envelope would be refused: Sender fault",
		},
		{
			name:  "an unknown envelope namespace",
			stdin: `<s:Envelope xmlns:s="urn:example:not-soap"><s:Body/></s:Envelope>`, code: 1,
			stdout: []string{"fault: VersionMismatch", `reason: the envelope namespace "urn:example:not-soap" is not SOAP 1.1 or 1.2`},
		},
		{
			name:  "broken in the body",
			stdin: `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><a><b></a></s:Body></s:Envelope>`, code: 1,
			stdout: []string{"version: 1.1", "body: a", "fault: Sender (1.1 Client)", "reason: malformed envelope: xml: element <b> closed by </a> (at byte 78)"},
		},
		{
			name:  "content after the envelope",
			stdin: `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body/></s:Envelope><more/>`, code: 1,
			stdout: []string{"fault: Sender (1.1 Client)", "reason: malformed envelope: xml: content after the root element (at byte 86)"},
		},
		{
			name:  "a header over 64 KiB",
			stdin: `<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Header><h:x xmlns:h="urn:h">` + strings.Repeat("x", 70<<10) + `</h:x></s:Header><s:Body/></s:Envelope>`, code: 1,
			stdout: []string{"fault: Sender (1.1 Client)"},
		},
		{name: "empty input", code: 1, stdout: []string{"fault: Sender"}},
		{name: "missing file", args: []string{"/nonexistent.xml"}, code: 1, stderr: "soapwire inspect: open /nonexistent.xml: no such file or directory"},
		{name: "two files", args: []string{good, good}, code: 2, stderr: "more than one file"},
		{name: "--understand without --process", args: []string{"--understand", "{urn:x}y", good}, code: 2, stderr: "--role and --understand need --process"},
		{name: "bad --understand", args: []string{"--process", "--understand", "{urn:x", good}, code: 2, stderr: "missing '}'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := invocation{args: append([]string{"inspect"}, tc.args...), stdin: strings.NewReader(tc.stdin)}.run(t)
			require.Equal(t, tc.code, res.code, "%s", res)
			assertLinesInOrder(t, tc.stdout, res)
			assert.Contains(t, res.stderr, tc.stderr)
			if tc.code == 0 {
				assert.Empty(t, res.stderr)
			}
		})
	}
}

// TestInspectJSON: --json reports the same, as JSON.
func TestInspectJSON(t *testing.T) {
	res := invocation{args: []string{"inspect", "--json", "--process"}, stdin: strings.NewReader(inspectGood)}.run(t)
	require.Equal(t, 1, res.code, "%s", res)
	var rep struct {
		Version   string `json:"version"`
		MessageID string `json:"message_id"`
		ReplyTo   string `json:"reply_to"`
		Headers   []struct {
			Name           string `json:"name"`
			Role           string `json:"role"`
			MustUnderstand bool   `json:"must_understand"`
			Relay          bool   `json:"relay"`
		} `json:"headers"`
		Body  string `json:"body"`
		Fault *struct {
			Code          string   `json:"code"`
			NotUnderstood []string `json:"not_understood"`
		} `json:"fault"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.stdout), &rep), res.stdout)
	assert.Equal(t, "1.2", rep.Version)
	assert.Equal(t, "ftp://ftp.shop.example/replies", rep.ReplyTo)
	require.Len(t, rep.Headers, 2)
	assert.True(t, rep.Headers[0].MustUnderstand)
	assert.True(t, rep.Headers[1].Relay)
	assert.Equal(t, "{urn:example:po}order", rep.Body)
	require.NotNil(t, rep.Fault)
	assert.Equal(t, "MustUnderstand", rep.Fault.Code)
	assert.Equal(t, []string{"{urn:example:auth}Token"}, rep.Fault.NotUnderstood)
}

// assertLinesInOrder checks that want are lines of the output, in order.
func assertLinesInOrder(t *testing.T, want []string, res result) {
	t.Helper()
	got := lines(res.stdout)
	i := 0
	for _, l := range got {
		if i < len(want) && l == want[i] {
			i++
		}
	}
	assert.Equal(t, len(want), i, "line %d of %q missing from the output\n%s", i, want, res)
}

// TestInspectDevNull: stdin from /dev/null (a character device, not a
// terminal) is read as an empty envelope, not refused as a terminal.
func TestInspectDevNull(t *testing.T) {
	null, err := os.Open(os.DevNull)
	require.NoError(t, err)
	defer null.Close()
	res := invocation{args: []string{"inspect"}, stdin: null}.run(t)
	require.Equal(t, 1, res.code, "%s", res)
	assert.Equal(t, "fault: Sender", lines(res.stdout)[0])
	assert.NotContains(t, res.stderr, "terminal")
}
