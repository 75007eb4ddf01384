package nats_test

import (
	"bytes"
	"encoding/xml"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
)

const (
	ct11 = "text/xml; charset=utf-8"
	ct12 = "application/soap+xml; charset=utf-8"
)

// addressed is a body with WS-Addressing headers (Action, MessageID, To).
func addressed(v core.Version, action, id, to string) []byte {
	wsa := `xmlns:wsa="` + core.NamespaceAddressing + `"`
	return envelope(v, `<wsa:Action `+wsa+`>`+action+`</wsa:Action><wsa:MessageID `+wsa+`>`+id+`</wsa:MessageID><wsa:To `+wsa+`>`+to+`</wsa:To>`,
		string(body("ping", "x")))
}

// TestHeaderRefusals sends raw NATS requests whose headers are missing or
// contradict the envelope: each is answered with a Sender fault whose
// subcode and reason say what is wrong, and logged.
func TestHeaderRefusals(t *testing.T) {
	s := startServer(t)
	log, lines := newLogs()
	subscribe(t, connect(t, s), "svc.strict", echo, soapnats.WithLogger(log))
	nc := connect(t, s)
	plain11, plain12 := envelope(core.V11, "", string(body("ping", "x"))), envelope(core.V12, "", string(body("ping", "x")))
	wsaMismatch := xml.Name{Space: core.NamespaceAddressing, Local: "ActionMismatch"}
	tests := []struct {
		name    string
		header  nats.Header
		data    []byte
		version core.Version
		subcode xml.Name
		reason  string
	}{
		{"no Content-Type", nats.Header{}, plain12, core.V12,
			soapnats.Subcode(soapnats.SubcodeMissingContentType), "no Content-Type header"},
		{"no headers at all 1.1", nil, plain11, core.V11,
			soapnats.Subcode(soapnats.SubcodeMissingContentType), "no Content-Type header"},
		{"1.2 envelope as text/xml", nats.Header{"Content-Type": {ct11}}, plain12, core.V12,
			soapnats.Subcode(soapnats.SubcodeContentTypeMismatch), "must be sent as application/soap+xml, not text/xml"},
		{"1.1 envelope as soap+xml", nats.Header{"Content-Type": {ct12}}, plain11, core.V11,
			soapnats.Subcode(soapnats.SubcodeContentTypeMismatch), "must be sent as text/xml"},
		{"not a SOAP media type", nats.Header{"Content-Type": {"application/json"}}, plain12, core.V12,
			soapnats.Subcode(soapnats.SubcodeContentTypeMismatch), "not a SOAP media type"},
		{"unsupported charset", nats.Header{"Content-Type": {"text/xml; charset=latin1"}}, plain11, core.V11,
			soapnats.Subcode(soapnats.SubcodeContentTypeMismatch), "charset latin1"},
		{"malformed Content-Type", nats.Header{"Content-Type": {"text/xml; ; ="}}, plain11, core.V11,
			soapnats.Subcode(soapnats.SubcodeContentTypeMismatch), "malformed"},
		{"Content-Type twice, different", nats.Header{"Content-Type": {ct11}, "content-type": {ct12}}, plain11, core.V11,
			soapnats.Subcode(soapnats.SubcodeContentTypeMismatch), "given twice"},
		{"SOAPAction against the action parameter", nats.Header{"Content-Type": {ct12 + `; action="urn:a"`}, "SOAPAction": {"urn:b"}}, plain12, core.V12,
			soapnats.Subcode(soapnats.SubcodeMismatchedSoapAction), `"urn:b" differs from the Content-Type action "urn:a"`},
		{"SOAPAction twice, different", nats.Header{"Content-Type": {ct11}, "SOAPAction": {"urn:a", "urn:b"}}, plain11, core.V11,
			soapnats.Subcode(soapnats.SubcodeMismatchedSoapAction), "given twice"},
		{"SOAPAction against wsa:Action", nats.Header{"Content-Type": {ct11}, "SOAPAction": {`"urn:other"`}},
			addressed(core.V11, "urn:a", "urn:uuid:1", "nats:svc.strict"), core.V11, wsaMismatch, "does not match wsa:Action"},
		{"Nats-Msg-Id against wsa:MessageID", nats.Header{"Content-Type": {ct12}, "Nats-Msg-Id": {"urn:uuid:2"}},
			addressed(core.V12, "urn:a", "urn:uuid:1", "nats:svc.strict"), core.V12,
			soapnats.Subcode(soapnats.SubcodeMismatchedMessageID), `"urn:uuid:2" differs from wsa:MessageID "urn:uuid:1"`},
		{"SOAP-Target-Service against wsa:To", nats.Header{"Content-Type": {ct12}, "SOAP-Target-Service": {"nats:svc.other"}},
			addressed(core.V12, "urn:a", "urn:uuid:1", "nats:svc.strict"), core.V12,
			soapnats.Subcode(soapnats.SubcodeMismatchedTargetService), "differs from wsa:To"},
		{"not XML", nats.Header{"Content-Type": {ct12}}, []byte("hello"), core.V12, xml.Name{}, ""},
		{"empty payload", nats.Header{"Content-Type": {ct11}}, nil, core.V11, xml.Name{}, ""},
		{"DOCTYPE", nats.Header{"Content-Type": {ct11}}, append([]byte(`<!DOCTYPE x [<!ENTITY a "b">]>`), plain11...), core.V11, xml.Name{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := nc.RequestMsg(&nats.Msg{Subject: "svc.strict", Header: tt.header, Data: tt.data}, testTimeout)
			require.NoError(t, err)
			m, err := core.ReadMessage(bytes.NewReader(resp.Data), core.Limits{})
			require.NoError(t, err, "the refusal is a SOAP envelope: %s", resp.Data)
			f := m.Fault()
			require.NotNil(t, f, "a fault: %s", resp.Data)
			assert.Equal(t, core.CodeSender, f.Code, f.Error())
			assert.Equal(t, tt.version, m.Version(), "the fault is in the version of the envelope")
			if tt.subcode.Local != "" {
				if tt.version == core.V12 {
					assert.True(t, f.HasSubcode(tt.subcode), "subcode %v in %v", tt.subcode, f.Subcodes)
				} else {
					require.NotEmpty(t, f.Subcodes)
					assert.Equal(t, tt.subcode.Local, f.Subcodes[0].Local)
				}
			}
			assert.Contains(t, f.Reason, tt.reason)
			assert.Contains(t, resp.Header.Get("Content-Type"), m.Version().MediaType())
			assert.Contains(t, lines.String(), "request refused")
		})
	}
}

// TestHeadersAccepted: header shapes peers send that must be accepted.
func TestHeadersAccepted(t *testing.T) {
	s := startServer(t)
	subscribe(t, connect(t, s), "svc.lenient", echo)
	nc := connect(t, s)
	plain11, plain12 := envelope(core.V11, "", string(body("ping", "x"))), envelope(core.V12, "", string(body("ping", "x")))
	tests := []struct {
		name   string
		header nats.Header
		data   []byte
		action string
	}{
		{"1.1 quoted SOAPAction", nats.Header{"Content-Type": {ct11}, "SOAPAction": {`"urn:a"`}}, plain11, "urn:a"},
		{"1.1 no charset", nats.Header{"Content-Type": {"text/xml"}}, plain11, ""},
		{"lower-case names", nats.Header{"content-type": {ct11}, "soapaction": {"urn:a"}}, plain11, "urn:a"},
		{"same value twice", nats.Header{"Content-Type": {ct11}, "content-type": {ct11}}, plain11, ""},
		{"1.2 action parameter only", nats.Header{"Content-Type": {ct12 + `; action="urn:b"`}}, plain12, "urn:b"},
		{"1.2 unquoted action", nats.Header{"Content-Type": {ct12 + `; action=urn:b:c`}}, plain12, "urn:b:c"},
		{"1.2 both, equal", nats.Header{"Content-Type": {ct12 + `; action="urn:b"`}, "SOAPAction": {"urn:b"}}, plain12, "urn:b"},
		{"1.2 SOAPAction only", nats.Header{"Content-Type": {ct12}, "SOAPAction": {"urn:c"}}, plain12, "urn:c"},
		{"wsa agrees with headers", nats.Header{"Content-Type": {ct12}, "SOAPAction": {"urn:a"}, "Nats-Msg-Id": {"urn:uuid:1"}, "SOAP-Target-Service": {"nats:svc.lenient"}},
			addressed(core.V12, "urn:a", "urn:uuid:1", "nats:svc.lenient"), "urn:a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := nc.RequestMsg(&nats.Msg{Subject: "svc.lenient", Header: tt.header, Data: tt.data}, testTimeout)
			require.NoError(t, err)
			m, err := core.ReadMessage(bytes.NewReader(resp.Data), core.Limits{})
			require.NoError(t, err)
			require.Nil(t, m.Fault(), "refused: %v", m.Fault())
			assert.Equal(t, tt.action+"Response", resp.Header.Get("SOAPAction"), "the handler saw the action")
		})
	}
}

// TestHeadersWritten: what Transport puts on the wire.
func TestHeadersWritten(t *testing.T) {
	s := startServer(t)
	nc := connect(t, s)
	sub, err := nc.SubscribeSync("svc.raw")
	require.NoError(t, err)
	require.NoError(t, nc.Flush())
	tr := soapnats.NewTransport(connect(t, s), "svc.raw")
	tests := []struct {
		v                  core.Version
		action, id, to     string
		wantCT, wantTarget string
	}{
		{core.V11, "urn:a", "urn:uuid:1", "", ct11, "nats:svc.raw"},
		{core.V12, `urn:"q"`, "", "https://example.org/logical", ct12 + `; action="urn:\"q\""`, "https://example.org/logical"},
		{core.V12, "", "", "", ct12, "nats:svc.raw"},
	}
	for _, tt := range tests {
		m := core.NewMessage(tt.v, core.RawBody(body("x", "")))
		m.Action, m.ID, m.To = tt.action, tt.id, tt.to
		require.NoError(t, tr.Send(testCtx(t), m))
		got, err := sub.NextMsg(testTimeout)
		require.NoError(t, err)
		assert.Equal(t, tt.wantCT, got.Header.Get("Content-Type"))
		assert.Equal(t, tt.action, got.Header.Get("SOAPAction"))
		assert.Equal(t, tt.id, got.Header.Get("Nats-Msg-Id"))
		assert.Equal(t, tt.wantTarget, got.Header.Get("SOAP-Target-Service"))
		back, err := soapnats.Decode(got, core.Limits{})
		require.NoError(t, err, "what the binding writes, it reads")
		assert.Equal(t, tt.action, back.Action)
		assert.Equal(t, tt.id, back.ID)
	}
}
