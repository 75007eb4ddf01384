package main

import (
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
)

const inspectSynopsis = `Usage: soapwire inspect [flags] [FILE|-]

Reads a SOAP envelope from FILE (stdin for "-" or no FILE) the way every
soapwire binding reads one (core.ReadMessage with the default limits: 16 MiB,
64 KiB of header, depth 128, …; strict XML, no DOCTYPE) and reports its SOAP
version, WS-Addressing fields, header blocks (name, role, mustUnderstand,
relay) and the name of the body's first child. The whole body is read, so an
error anywhere in it is found.

An envelope soapwire would refuse is reported as the fault it would answer
with (code, subcodes, reason), and the exit code is 1. An envelope whose body
is a fault message is valid: its fault is reported as the body, exit code 0.

With --process the envelope also goes through the SOAP processing model as
an ultimate receiver (core.Node) that plays the --role roles and understands
the --understand header blocks: a mustUnderstand block targeted at it and not
understood is the MustUnderstand fault it would raise (exit code 1).

Examples:
  soapwire inspect order.xml
  soapwire inspect --json < order.xml
  soapwire inspect --process --understand '{urn:example:auth}Token' request.xml
`

func runInspect(ctx context.Context, c *cli, args []string) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	jsonOut := fs.Bool("json", false, "print the report as JSON")
	process := fs.Bool("process", false, "also run the SOAP processing model as the ultimate receiver")
	var roles, understood stringList
	fs.Var(&roles, "role", "with --process: a role URI the node plays besides next and ultimateReceiver (repeatable)")
	fs.Var(&understood, "understand", "with --process: a header block the node understands, as {namespace}local (repeatable)")
	pos, code, done := c.parseFlags(fs, inspectSynopsis, args)
	if done {
		return code
	}
	headers := map[xml.Name]core.HeaderFunc{}
	for _, q := range understood {
		n, err := parseClark(q)
		if err != nil {
			return c.usageError("inspect", fmt.Errorf("--understand %q: %w", q, err))
		}
		headers[n] = func(ctx context.Context, _ *core.Message, _ *core.HeaderBlock) (context.Context, error) {
			return ctx, nil
		}
	}
	if (len(roles) > 0 || len(understood) > 0) && !*process {
		return c.usageError("inspect", fmt.Errorf("--role and --understand need --process"))
	}
	in, err := c.openInput(pos)
	if err != nil {
		if len(pos) > 1 || errors.Is(err, errTerminal) {
			return c.usageError("inspect", err)
		}
		return c.fail("inspect", err)
	}
	defer in.Close()

	rep, ferr := inspect(ctx, in, *process, roles, headers)
	if *jsonOut {
		if err := writeJSON(c.stdout, rep); err != nil {
			return c.fail("inspect", err)
		}
	} else {
		rep.write(c.stdout)
	}
	if ferr != nil {
		fmt.Fprintf(c.stderr, "soapwire inspect: %s: the envelope would be refused: %s fault: %s\n", in.name, ferr.Code, oneLine(ferr.Reason))
		return exitFailure
	}
	return exitOK
}

// inspectReport is what inspect prints.
type inspectReport struct {
	Version   string         `json:"version,omitempty"`
	Action    string         `json:"action,omitempty"`
	MessageID string         `json:"message_id,omitempty"`
	RelatesTo string         `json:"relates_to,omitempty"`
	To        string         `json:"to,omitempty"`
	ReplyTo   string         `json:"reply_to,omitempty"`
	FaultTo   string         `json:"fault_to,omitempty"`
	Headers   []headerReport `json:"headers,omitempty"`
	Body      string         `json:"body,omitempty"`       // the first child's name; "" for an empty body
	BodyFault *faultReport   `json:"body_fault,omitempty"` // the body is a fault message
	Fault     *faultReport   `json:"fault,omitempty"`      // the fault reading or processing the envelope raises
}

type headerReport struct {
	Name           string `json:"name"`
	Role           string `json:"role,omitempty"`
	MustUnderstand bool   `json:"must_understand"`
	Relay          bool   `json:"relay"`
}

// inspect reads and checks an envelope; the returned fault is the one a
// soapwire node would raise.
func inspect(ctx context.Context, r io.Reader, process bool, roles []string, headers map[xml.Name]core.HeaderFunc) (*inspectReport, *core.Fault) {
	rep := &inspectReport{}
	m, err := core.ReadMessage(r, core.Limits{})
	if err != nil {
		f := core.FaultOf(err)
		rep.Fault = reportFault(f)
		return rep, f
	}
	rep.Version = m.Version().String()
	rep.Action, rep.MessageID, rep.RelatesTo = m.Action, m.ID, m.RelatesTo
	rep.To, rep.ReplyTo, rep.FaultTo = m.To, m.ReplyTo, m.FaultTo
	for _, h := range m.Envelope.Headers {
		rep.Headers = append(rep.Headers, headerReport{Name: clark(h.Name), Role: h.Role, MustUnderstand: h.MustUnderstand, Relay: h.Relay})
	}
	if bf := m.Fault(); bf != nil {
		rep.BodyFault = reportFault(bf)
		rep.Body = clark(m.Body().Name())
		return rep, nil
	}
	if !m.Body().IsEmpty() {
		rep.Body = clark(m.Body().Name())
	}
	discard := core.HandlerFunc(func(_ context.Context, m *core.Message) (*core.Message, error) {
		return nil, m.Body().Discard()
	})
	if process {
		n := &core.Node{Roles: roles, Headers: headers, Handler: discard}
		_, err = n.ServeSOAP(ctx, m)
	} else {
		_, err = discard.ServeSOAP(ctx, m)
	}
	if err != nil {
		f := core.FaultOf(err)
		rep.Fault = reportFault(f)
		return rep, f
	}
	return rep, nil
}

func (r *inspectReport) write(w io.Writer) {
	if r.Version != "" {
		fmt.Fprintf(w, "version: %s\n", r.Version)
	}
	for _, kv := range [...][2]string{
		{"action", r.Action}, {"message-id", r.MessageID}, {"relates-to", r.RelatesTo},
		{"to", r.To}, {"reply-to", r.ReplyTo}, {"fault-to", r.FaultTo},
	} {
		if kv[1] != "" {
			fmt.Fprintf(w, "%s: %s\n", kv[0], oneLine(kv[1]))
		}
	}
	for _, h := range r.Headers {
		role := h.Role
		if role == "" {
			role = "(ultimate receiver)"
		}
		fmt.Fprintf(w, "header: %s role=%s mustUnderstand=%t relay=%t\n", oneLine(h.Name), oneLine(role), h.MustUnderstand, h.Relay)
	}
	switch {
	case r.BodyFault != nil:
		fmt.Fprintln(w, "body: a fault message")
		var b strings.Builder
		r.BodyFault.write(&b)
		for line := range strings.Lines(b.String()) {
			fmt.Fprint(w, "  ", line)
		}
	case r.Version != "" && r.Body == "":
		fmt.Fprintln(w, "body: (empty)")
	case r.Body != "":
		fmt.Fprintf(w, "body: %s\n", oneLine(r.Body))
	}
	if r.Fault != nil {
		r.Fault.write(w)
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// parseClark reads {namespace}local (or a bare local name).
func parseClark(s string) (xml.Name, error) {
	var n xml.Name
	if strings.HasPrefix(s, "{") {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return n, fmt.Errorf("missing '}' in {namespace}local")
		}
		n.Space, s = s[1:end], s[end+1:]
	}
	if s == "" || strings.ContainsAny(s, "{}: \t\r\n") {
		return n, fmt.Errorf("not a local name: %q", s)
	}
	n.Local = s
	return n, nil
}
