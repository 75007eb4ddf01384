package core

import (
	"bytes"
	"encoding/xml"
	"fmt"
)

// TakeAction puts the action the transport carried beside the envelope (the
// HTTP SOAPAction header or 1.2 action parameter, a NATS header, a frame
// field) into m, after ReadMessage has put the envelope's wsa:Action there:
//
//   - action empty: m.Action stays as the envelope said;
//   - m.Action empty: m.Action becomes action;
//   - both present and equal: nothing changes;
//   - both present and different: m is left as it is and the error is the
//     WS-Addressing 1.0 SOAP Binding's ActionMismatch fault: a Sender fault
//     (1.1 Client) with the subcode wsa:ActionMismatch, a wsa:ProblemAction
//     detail holding both actions, and the Version of m's envelope.
//
// from names where the transport carried action, for the fault's reason
// ("the SOAPAction header", "the frame's action"); "" says "the transport's
// action". The error, when not nil, is a *Fault.
func (m *Message) TakeAction(action, from string) error {
	switch {
	case action == "" || action == m.Action:
		return nil
	case m.Action == "":
		m.Action = action
		return nil
	}
	if from == "" {
		from = "the transport's action"
	}
	return &Fault{
		Code:     CodeSender,
		Subcodes: []xml.Name{{Space: NamespaceAddressing, Local: "ActionMismatch"}},
		Reason:   fmt.Sprintf("%s %q does not match wsa:Action %q", from, action, m.Action),
		Detail:   problemAction(m.Action, action),
		Version:  m.Version(),
	}
}

// problemAction is the wsa:ProblemAction detail of an ActionMismatch fault:
// the envelope's wsa:Action and the transport's action (the schema of
// WS-Addressing 1.0 names it SoapAction whatever the transport).
func problemAction(wsa, transport string) []byte {
	var d bytes.Buffer
	d.WriteString(`<wsa:ProblemAction xmlns:wsa="` + NamespaceAddressing + `"><wsa:Action>`)
	_ = xml.EscapeText(&d, []byte(wsa)) // a bytes.Buffer does not fail
	d.WriteString(`</wsa:Action><wsa:SoapAction>`)
	_ = xml.EscapeText(&d, []byte(transport))
	d.WriteString(`</wsa:SoapAction></wsa:ProblemAction>`)
	return d.Bytes()
}
