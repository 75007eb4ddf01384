package core_test

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

const wsaHeaders = `<wsa:To>nats:orders</wsa:To><wsa:Action>urn:place</wsa:Action><wsa:MessageID> urn:uuid:42 </wsa:MessageID>` +
	`<wsa:RelatesTo>urn:uuid:41</wsa:RelatesTo>` +
	`<wsa:ReplyTo><wsa:Address>mailto:buyer@example.com</wsa:Address><wsa:ReferenceParameters><x:p xmlns:x="urn:x">1</x:p></wsa:ReferenceParameters></wsa:ReplyTo>` +
	`<wsa:FaultTo><wsa:Address>ftp://host/faults</wsa:Address></wsa:FaultTo>`

func TestReadMessageAddressing(t *testing.T) {
	for _, v := range versions {
		in := envOf(v, `<s:Envelope xmlns:s="{ns}" xmlns:wsa="http://www.w3.org/2005/08/addressing"><s:Header>`+
			`<h:keep xmlns:h="urn:h"/>`+wsaHeaders+`<wsa:Other>kept</wsa:Other></s:Header><s:Body>`+reqBody+`</s:Body></s:Envelope>`)
		m, err := readAll(in, core.Limits{})
		require.NoError(t, err)
		assert.Equal(t, "nats:orders", m.To)
		assert.Equal(t, "urn:place", m.Action)
		assert.Equal(t, "urn:uuid:42", m.ID)
		assert.Equal(t, "urn:uuid:41", m.RelatesTo)
		assert.Equal(t, "mailto:buyer@example.com", m.ReplyTo)
		assert.Equal(t, "ftp://host/faults", m.FaultTo)
		var names []xml.Name
		for _, h := range m.Envelope.Headers {
			names = append(names, h.Name)
		}
		assert.Equal(t, []xml.Name{{Space: "urn:h", Local: "keep"}, {Space: core.NamespaceAddressing, Local: "Other"}}, names,
			"the addressing headers move into the fields; others stay")
	}
}

func TestReadEnvelopeKeepsAddressingHeaders(t *testing.T) {
	in := envOf(core.V12, `<s:Envelope xmlns:s="{ns}" xmlns:wsa="http://www.w3.org/2005/08/addressing"><s:Header>`+wsaHeaders+`</s:Header><s:Body/></s:Envelope>`)
	env, err := core.ReadEnvelope(strings.NewReader(in), core.Limits{})
	require.NoError(t, err)
	assert.Len(t, env.Headers, 6)
}

func TestWriteMessageAddressing(t *testing.T) {
	cases := []struct {
		name   string
		m      core.Message
		wsa    bool
		prefix string
	}{
		{"none", core.Message{}, false, ""},
		{"action alone is not written", core.Message{Action: "urn:a"}, false, ""},
		{"id", core.Message{ID: "urn:uuid:1", Action: "urn:a"}, true, "wsa"},
		{"relatesTo", core.Message{RelatesTo: "urn:uuid:0"}, true, "wsa"},
		{"to", core.Message{To: "https://example.com/svc"}, true, "wsa"},
		{"replyTo anonymous", core.Message{ReplyTo: core.AnonymousAddress}, true, "wsa"},
		{"faultTo none", core.Message{FaultTo: core.NoneAddress}, true, "wsa"},
		{"all", core.Message{ID: "urn:uuid:1", RelatesTo: "urn:uuid:0", To: "nats:x", Action: "urn:a", ReplyTo: "mailto:a@b", FaultTo: "ftp://h/f"}, true, "wsa"},
	}
	for _, v := range versions {
		for _, tc := range cases {
			for _, o := range []core.WriteOptions{{}, {Prefix: "wsa"}} {
				t.Run(v.String()+"/"+tc.name+"/"+o.Prefix, func(t *testing.T) {
					m := tc.m
					m.Envelope = &core.Envelope{Version: v, Body: core.RawBody([]byte(reqBody)),
						Headers: []core.HeaderBlock{{Name: xml.Name{Space: "urn:h", Local: "h"}, MustUnderstand: true}}}
					var buf bytes.Buffer
					_, err := m.Write(&buf, o)
					require.NoError(t, err)
					out := buf.String()
					assert.Equal(t, tc.wsa, strings.Contains(out, core.NamespaceAddressing), out)
					back, err := readAll(out, core.Limits{})
					require.NoError(t, err, out)
					if tc.wsa {
						assert.Equal(t, tc.m.ID, back.ID)
						assert.Equal(t, tc.m.RelatesTo, back.RelatesTo)
						assert.Equal(t, tc.m.To, back.To)
						assert.Equal(t, tc.m.Action, back.Action)
						assert.Equal(t, tc.m.ReplyTo, back.ReplyTo)
						assert.Equal(t, tc.m.FaultTo, back.FaultTo)
					} else {
						assert.Empty(t, back.Action, "Action alone travels in the transport")
					}
					require.Len(t, back.Envelope.Headers, 1, "the envelope's own blocks stay")
					assert.Equal(t, xml.Name{Space: "urn:h", Local: "h"}, back.Envelope.Headers[0].Name)
					assert.True(t, back.Envelope.Headers[0].MustUnderstand)
				})
			}
		}
	}
}

func TestAddressingConstants(t *testing.T) {
	assert.Equal(t, "http://www.w3.org/2005/08/addressing", core.NamespaceAddressing)
	assert.Equal(t, core.NamespaceAddressing+"/anonymous", core.AnonymousAddress)
	assert.Equal(t, core.NamespaceAddressing+"/none", core.NoneAddress)
	assert.Equal(t, core.NamespaceAddressing+"/soap/fault", core.FaultAction)
	assert.Regexp(t, regexp.MustCompile(`^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`), core.NewMessageID())
	assert.NotEqual(t, core.NewMessageID(), core.NewMessageID())
}

func TestAddressingRoundTrip(t *testing.T) {
	for _, v := range versions {
		req := core.NewMessage(v, core.RawBody([]byte(reqBody)))
		req.ID, req.Action, req.To, req.ReplyTo, req.FaultTo = "urn:uuid:1", "urn:place", "nats:orders", core.AnonymousAddress, core.NoneAddress
		var buf bytes.Buffer
		_, err := req.WriteTo(&buf)
		require.NoError(t, err)
		got, err := readAll(buf.String(), core.Limits{})
		require.NoError(t, err)
		assert.Equal(t, []string{req.ID, req.Action, req.To, req.ReplyTo, req.FaultTo}, []string{got.ID, got.Action, got.To, got.ReplyTo, got.FaultTo})
		checkRoundTrip(t, buf.Bytes(), core.Limits{}, core.WriteOptions{})

		reply := got.Reply(core.RawBody([]byte(`<m:Ok xmlns:m="urn:m"/>`)))
		assert.Equal(t, "urn:uuid:1", reply.RelatesTo)
		assert.NotEmpty(t, reply.ID)
		assert.Equal(t, v, reply.Version())
		fr := got.FaultReply(core.SenderFault("no"))
		assert.Equal(t, "urn:uuid:1", fr.RelatesTo)
		require.NotNil(t, fr.Fault())
	}
}

func TestMalformedAddressingHeader(t *testing.T) {
	// a wsa block is namespace-complete XML, so the only way for it to be
	// malformed is not to be (the reader guarantees it): values are trimmed text
	in := envOf(core.V11, `<s:Envelope xmlns:s="{ns}"><s:Header><a:ReplyTo xmlns:a="http://www.w3.org/2005/08/addressing"> <a:Address>
 mailto:x@y </a:Address></a:ReplyTo></s:Header><s:Body/></s:Envelope>`)
	m, err := readAll(in, core.Limits{})
	require.NoError(t, err)
	assert.Equal(t, "mailto:x@y", m.ReplyTo)
}

func TestNewMessageID(t *testing.T) {
	re := regexp.MustCompile(`^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 1000 {
		id := core.NewMessageID()
		require.Regexp(t, re, id)
		require.False(t, seen[id], "%s twice", id)
		seen[id] = true
	}
	if !raceEnabled {
		assert.Equal(t, 1.0, testing.AllocsPerRun(100, func() { _ = core.NewMessageID() }), "the string only")
	}
}
