package core_test

import (
	"encoding/xml"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// TestTakeAction: the transport's action fills an envelope without
// wsa:Action, agrees with one, or contradicts it; a contradiction is the
// WS-Addressing ActionMismatch Sender fault in the envelope's version, and m
// keeps the envelope's action.
func TestTakeAction(t *testing.T) {
	tests := []struct {
		name      string
		wsa       string // the envelope's wsa:Action ("" = none)
		transport string
		from      string
		want      string // m.Action afterwards
		reason    string // "" = no fault
	}{
		{"no action anywhere", "", "", "the SOAPAction header", "", ""},
		{"only the transport", "", "urn:a", "the SOAPAction header", "urn:a", ""},
		{"only the envelope", "urn:a", "", "the SOAPAction header", "urn:a", ""},
		{"the same", "urn:a", "urn:a", "the SOAPAction header", "urn:a", ""},
		{"different", "urn:a", "urn:b", "the SOAPAction header", "urn:a",
			`the SOAPAction header "urn:b" does not match wsa:Action "urn:a"`},
		{"different, unnamed source", "urn:a", "urn:b", "", "urn:a",
			`the transport's action "urn:b" does not match wsa:Action "urn:a"`},
		{"differ only in case", "urn:A", "urn:a", "the frame's action", "urn:A",
			`the frame's action "urn:a" does not match wsa:Action "urn:A"`},
	}
	for _, v := range []core.Version{core.V11, core.V12} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s/%s", v, tt.name), func(t *testing.T) {
				wsa := ""
				if tt.wsa != "" {
					wsa = `<wsa:Action>` + tt.wsa + `</wsa:Action><wsa:MessageID>urn:uuid:1</wsa:MessageID>`
				}
				m := pmRead(t, pmEnvelope(v, wsa, pmBody))
				err := m.TakeAction(tt.transport, tt.from)
				assert.Equal(t, tt.want, m.Action)
				if tt.reason == "" {
					require.NoError(t, err)
					return
				}
				f := pmAsFault(t, err)
				assert.Equal(t, core.CodeSender, f.Code)
				assert.Equal(t, []xml.Name{{Space: core.NamespaceAddressing, Local: "ActionMismatch"}}, f.Subcodes)
				assert.Equal(t, tt.reason, f.Reason)
				assert.Equal(t, v, f.Version, "the fault is in the envelope's version")
				assert.Equal(t, problemAction{Action: tt.wsa, SoapAction: tt.transport}, readProblemAction(t, f.Detail))

				// On the wire, answering the request: 1.1 writes the
				// subcode as the faultcode (WS-Addressing SOAP binding §6,
				// WS-I BP R1004), 1.2 as a Subcode; both read back as
				// Sender with the subcode.
				back, raw := pmFaultWire(t, m, f)
				assert.Equal(t, v, back.Version)
				assert.Equal(t, core.CodeSender, back.Code)
				assert.Equal(t, []xml.Name{{Space: core.NamespaceAddressing, Local: "ActionMismatch"}}, back.Subcodes, "%s", raw)
				if v == core.V11 {
					assert.Contains(t, string(raw), `<faultcode xmlns:wsa="`+core.NamespaceAddressing+`">wsa:ActionMismatch</faultcode>`)
				}
				assert.Equal(t, tt.reason, back.Reason)
				assert.Equal(t, problemAction{Action: tt.wsa, SoapAction: tt.transport}, readProblemAction(t, back.Detail))
			})
		}
	}
}

// TestTakeActionEscapes: actions that are not URIs (markup, quotes,
// invalid UTF-8) still make a well-formed detail that reads back.
func TestTakeActionEscapes(t *testing.T) {
	for _, v := range []core.Version{core.V11, core.V12} {
		t.Run(v.String(), func(t *testing.T) {
			m := pmRead(t, pmEnvelope(v, `<wsa:Action>urn:a&amp;b</wsa:Action>`, pmBody))
			err := m.TakeAction(`urn:<x>&"y"`+"\xff", "the frame's action")
			f := pmAsFault(t, err)
			got := readProblemAction(t, f.Detail)
			assert.Equal(t, "urn:a&b", got.Action)
			assert.Equal(t, `urn:<x>&"y"`+"\uFFFD", got.SoapAction, "invalid UTF-8 is replaced, never written")
			back, raw := pmFaultWire(t, m, f)
			assert.Equal(t, got, readProblemAction(t, back.Detail), "%s", raw)
		})
	}
}

// TestTakeActionNoEnvelope: a message without an envelope takes the action;
// a contradiction is a fault of no version (the binding decides it).
func TestTakeActionNoEnvelope(t *testing.T) {
	m := &core.Message{}
	require.NoError(t, m.TakeAction("urn:a", ""))
	assert.Equal(t, "urn:a", m.Action)
	f := pmAsFault(t, m.TakeAction("urn:b", ""))
	assert.Equal(t, core.Version(0), f.Version)
	assert.Equal(t, "urn:a", m.Action)
}

type problemAction struct {
	Action     string `xml:"http://www.w3.org/2005/08/addressing Action"`
	SoapAction string `xml:"http://www.w3.org/2005/08/addressing SoapAction"`
}

// readProblemAction decodes a wsa:ProblemAction detail, requiring it to be
// the only element.
func readProblemAction(t *testing.T, detail []byte) problemAction {
	t.Helper()
	var p struct {
		XMLName xml.Name
		problemAction
	}
	require.NoError(t, xml.Unmarshal(detail, &p), "%s", detail)
	assert.Equal(t, xml.Name{Space: core.NamespaceAddressing, Local: "ProblemAction"}, p.XMLName)
	return p.problemAction
}
