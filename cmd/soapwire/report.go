package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// clark writes a name in Clark notation, {namespace}local, or local alone
// for a name in no namespace.
func clark(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// faultReport is a fault as the commands print it.
type faultReport struct {
	Code          string   `json:"code"`
	Subcodes      []string `json:"subcodes,omitempty"`
	Reason        string   `json:"reason"`
	Node          string   `json:"node,omitempty"`
	Role          string   `json:"role,omitempty"`
	NotUnderstood []string `json:"not_understood,omitempty"`
	Detail        string   `json:"detail,omitempty"`
}

func reportFault(f *core.Fault) *faultReport {
	if f == nil {
		return nil
	}
	code := f.Code.String()
	if f.Version == core.V11 {
		switch f.Code {
		case core.CodeSender, core.CodeDataEncodingUnknown:
			code += " (1.1 Client)"
		case core.CodeReceiver:
			code += " (1.1 Server)"
		}
	}
	r := &faultReport{Code: code, Reason: f.Reason, Node: f.Node, Role: f.Role, Detail: string(f.Detail)}
	for _, s := range f.Subcodes {
		r.Subcodes = append(r.Subcodes, clark(s))
	}
	for _, n := range f.NotUnderstood {
		r.NotUnderstood = append(r.NotUnderstood, clark(n))
	}
	return r
}

// write prints the fault as "key: value" lines.
func (r *faultReport) write(w io.Writer) {
	fmt.Fprintf(w, "fault: %s\n", r.Code)
	for _, s := range r.Subcodes {
		fmt.Fprintf(w, "subcode: %s\n", s)
	}
	fmt.Fprintf(w, "reason: %s\n", oneLine(r.Reason))
	if r.Node != "" {
		fmt.Fprintf(w, "node: %s\n", r.Node)
	}
	if r.Role != "" {
		fmt.Fprintf(w, "role: %s\n", r.Role)
	}
	for _, n := range r.NotUnderstood {
		fmt.Fprintf(w, "not-understood: %s\n", n)
	}
	if r.Detail != "" {
		fmt.Fprintf(w, "detail: %s\n", oneLine(r.Detail))
	}
}

// oneLine keeps a value on one line of output: line breaks and other
// control characters become spaces or escapes, so a peer's text cannot
// forge further "key: value" lines.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return '\uFFFD'
		}
		return r
	}, s)
}

// writeJSON prints v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
