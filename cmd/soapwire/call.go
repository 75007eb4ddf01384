package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
	"github.com/soapwire/soapwire/document"
)

const callSynopsis = `Usage: soapwire call [flags] URL OPERATION [name=value…]
       soapwire call [flags] URL?wsdl OPERATION [name=value…]
       soapwire call --wsdl FILE|URL [flags] [URL] OPERATION [name=value…]

Calls OPERATION of a SOAP service and prints the reply's values, one
"name = value" line each (nested values as a.b, repeated ones as a[0],
attributes as a.name), or the fault (code, subcodes, reason, detail) with
exit code 1.

With a contract (the default): the service's WSDL is read from --wsdl, or
from URL itself when it is a ?wsdl URL, or from URL?wsdl, and the call is
made exactly as the contract says: the port's SOAP version (--version or
--port choose another port), the operation's SOAPAction, the request
written by the schema (qualified elements, order, attributes, xsi:type,
nil) for document/literal wrapped and bare, rpc/literal and rpc/encoded
operations. The request goes to URL, or to the port's address when URL is
the WSDL's or is left out. The arguments are checked against the operation
before anything is sent (an unknown, missing or mistyped name is an error
listing the expected ones), and the reply against its output: a reply that
does not match it exits 1 saying why. A fault the operation declares is
printed with its detail read by the contract.

Arguments: name=value for the operation's parameters (wrapped and rpc
operations) or message parts (bare ones); a structure's fields by dotted
paths (person.name=Ada, person.address.city=London), a repeated element's
items by index from 0 (person.tags.0=x person.tags.1=y), an attribute by
its name (person.id=7); name:nil= sends xsi:nil. --args FILE gives them as
a JSON object of the same shape ({"person": {"name": "Ada", "tags": ["x"]}})
or as the XML of the input (the wrapper element, or the part element of a
bare operation). name:type=value checks the value as that XML Schema type
first (the contract's type decides what is sent).

Without a contract (code-first): --ns NAMESPACE (always needed for nats:
without --wsdl) says the operation's namespace; --style (document,
default; rpc; encoded) and --action (default NAMESPACE#OPERATION, as
core/rpc clients send) say the rest, and arguments are written unqualified
in order: key=value, or key:type=value to give an XML Schema type (string,
int, long, short, byte, unsignedInt, unsignedLong, unsignedShort,
unsignedByte, boolean, float, double, decimal, integer, dateTime,
base64Binary, hexBinary; key:nil= for nil), which matters on the wire in
the encoded style (xsi:type).

URL is http://… or https://… (HTTP), or nats:subject (a NATS request, to the
server --nats names).

Exit codes: 0 the call did what was asked; 1 a fault, a reply that does not
match the contract, a transport error; 2 a usage error (nothing was sent).

Examples:
  soapwire call http://127.0.0.1:8080/calc add a=2 b=40
  soapwire call 'http://partner.example/soap/Calc?wsdl' echoStruct person.name=Ada person.age=36 person.tags.0=x
  soapwire call --wsdl calc.wsdl --version 1.2 --show-request add a=2 b=40
  soapwire call --args person.json http://127.0.0.1:8080/calc echoStruct
  soapwire call --version 1.2 --ns urn:example:calc --style encoded http://127.0.0.1:8080/calc add a:int=2 b:int=40
  soapwire call --nats nats://127.0.0.1:4222 --ns urn:example:calc nats:calc add a=2 b=40
`

// callFlags are call's flags.
type callFlags struct {
	ns, style, version, action, wsdl, port, args, catalog string
	xml, json, verbose, showRequest, fetch, lenient       bool
	timeout                                               time.Duration
	natsURL                                               string
	http                                                  httpSettings
}

func runCall(ctx context.Context, c *cli, args []string) int {
	var f callFlags
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.StringVar(&f.ns, "ns", "", "call without a contract: the operation's `NAMESPACE` (required for nats: without --wsdl)")
	fs.StringVar(&f.style, "style", "", "without a contract: document, rpc or encoded (default document)")
	fs.StringVar(&f.version, "version", "", "the SOAP version: 1.1 or 1.2 (default: the contract's first SOAP port, else 1.1)")
	fs.StringVar(&f.action, "action", "", "the SOAPAction (default: the contract's, else NAMESPACE#OPERATION)")
	fs.StringVar(&f.wsdl, "wsdl", "", "read the contract from this `FILE|URL` (default: URL?wsdl)")
	fs.StringVar(&f.port, "port", "", "the contract's port to call: `[SERVICE/]PORT` (default: the first SOAP port of the version)")
	fs.StringVar(&f.args, "args", "", "the arguments from a `FILE`: a JSON object, or the XML of the input")
	fs.StringVar(&f.catalog, "catalog", "", "a catalog `FILE` (JSON) of local copies of documents the contract imports by URL")
	fs.BoolVar(&f.fetch, "fetch", false, "fetch documents the contract imports from any host (not only the WSDL's)")
	fs.BoolVar(&f.showRequest, "show-request", false, "print the request envelope sent, indented, before the reply")
	fs.BoolVar(&f.lenient, "lenient", false, "read the reply leniently: elements by local name in any order, unknown ones skipped")
	fs.BoolVar(&f.xml, "xml", false, "print the reply envelope as indented XML instead of its values")
	fs.BoolVar(&f.json, "json", false, "print the reply's values (or the fault) as JSON")
	fs.BoolVar(&f.verbose, "v", false, "log what the bindings do on stderr")
	fs.DurationVar(&f.timeout, "timeout", time.Minute, "give up after this long (0: never)")
	fs.StringVar(&f.natsURL, "nats", envOr(envNATS, defaultNATS), "nats:: the NATS server URL ($"+envNATS+")")
	fs.StringVar(&f.http.user, "http-user", envOr(envHTTPUser, ""), "http(s)://: the Basic auth user, password in $"+envHTTPPassword+" ($"+envHTTPUser+")")
	pos, code, done := c.parseFlags(fs, callSynopsis, args)
	if done {
		return code
	}
	target := ""
	if f.wsdl != "" && len(pos) > 0 && !looksLikeURL(pos[0]) {
		pos = append([]string{""}, pos...) // no URL: the port's address
	}
	if len(pos) < 2 {
		return c.usageError("call", errors.New("want URL OPERATION [name=value…]"))
	}
	target, op := pos[0], pos[1]
	if !isXMLName(op) {
		return c.usageError("call", fmt.Errorf("operation %q is not an XML name", op))
	}
	var version core.Version
	if f.version != "" {
		v, err := parseVersion(f.version)
		if err != nil {
			return c.usageError("call", err)
		}
		version = v
	}
	if f.http.user != "" {
		f.http.password = envOr(envHTTPPassword, "")
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	if f.style != "" {
		if _, err := parseStyle(f.style); err != nil {
			return c.usageError("call", err)
		}
	}
	if f.ns == "" {
		return c.callContract(ctx, &f, target, op, version, pos[2:])
	}
	return c.callCodeFirst(ctx, &f, target, op, version, pos[2:])
}

// looksLikeURL reports whether a positional argument is a URL (the
// endpoint) rather than the operation.
func looksLikeURL(s string) bool {
	return strings.Contains(s, "://") || strings.HasPrefix(s, soapnats.Scheme+":")
}

// callCodeFirst calls without a contract: --ns, --style and --action say
// how, the arguments are written in order, unqualified.
func (c *cli) callCodeFirst(ctx context.Context, f *callFlags, target, op string, version core.Version, rawArgs []string) int {
	if version == 0 {
		version = core.V11
	}
	if f.args != "" || f.wsdl != "" || f.port != "" {
		return c.usageError("call", errors.New("--args, --wsdl and --port need a contract: leave out --ns"))
	}
	style := "document"
	if f.style != "" {
		var err error
		if style, err = parseStyle(f.style); err != nil {
			return c.usageError("call", err)
		}
	}
	cargs, err := parseArgs(rawArgs)
	if err != nil {
		return c.usageError("call", err)
	}
	for i := range cargs {
		if err := typeArg(&cargs[i], ""); err != nil {
			return c.usageError("call", err)
		}
	}
	if _, err := checkTarget(target); err != nil {
		return c.usageError("call", err)
	}
	info := &opInfo{namespace: f.ns, style: style, action: f.ns + "#" + op}
	if f.action != "" {
		info.action = f.action
	}
	log := newLogger(c.stderr, f.verbose)
	rt, closeRT, err := callTransport(target, f, log)
	if err != nil {
		return c.fail("call", err)
	}
	defer closeRT()
	req, err := buildCall(version, info, op, cargs)
	if err != nil {
		return c.fail("call", err)
	}
	if f.showRequest {
		if err := c.showRequest(req); err != nil {
			return c.fail("call", err)
		}
	}
	reply, err := rt.RoundTrip(ctx, req)
	if err != nil {
		var fault *core.Fault
		if errors.As(err, &fault) && fault.Remote {
			return c.printFault(fault, f.json)
		}
		return c.fail("call", err)
	}
	if reply == nil {
		fmt.Fprintln(c.stdout, "accepted: the service sent no reply (one-way)")
		return exitOK
	}
	if f.xml {
		if err := printXML(c.stdout, reply); err != nil {
			return c.fail("call", err)
		}
		return exitOK
	}
	if err := printReply(c.stdout, reply, f.json); err != nil {
		return c.fail("call", err)
	}
	return exitOK
}

// opInfo is how a code-first call is written.
type opInfo struct {
	namespace string // the request element's namespace
	style     string // "document", "rpc" or "encoded" (see parseStyle)
	action    string // the SOAPAction
}

// parseArgs reads key[:type]=value arguments, refusing one given twice.
func parseArgs(raw []string) ([]arg, error) {
	var out []arg
	seen := map[string]bool{}
	for _, s := range raw {
		a, err := parseArg(s)
		if err != nil {
			return nil, err
		}
		if seen[a.name] {
			return nil, fmt.Errorf("argument %s given twice", a.name)
		}
		seen[a.name] = true
		out = append(out, a)
	}
	return out, nil
}

// checkTarget checks the endpoint's scheme; isHTTP tells HTTP from NATS.
func checkTarget(target string) (isHTTP bool, err error) {
	scheme, err := document.Scheme(target)
	if err != nil {
		return false, fmt.Errorf("URL %q: %w", target, err)
	}
	isHTTP = scheme == "http" || scheme == "https"
	if !isHTTP && scheme != soapnats.Scheme {
		return false, fmt.Errorf("URL %q: want http://, https:// or nats:", target)
	}
	return isHTTP, nil
}

// printFault prints a fault reply and returns exitFailure.
func (c *cli) printFault(fault *core.Fault, asJSON bool) int {
	r := reportFault(fault)
	if asJSON {
		_ = writeJSON(c.stdout, map[string]any{"fault": r})
	} else {
		r.write(c.stdout)
	}
	fmt.Fprintf(c.stderr, "soapwire call: the service answered with a %s fault: %s\n", fault.Code, oneLine(fault.Reason))
	return exitFailure
}

// parseStyle reads --style.
func parseStyle(s string) (string, error) {
	switch s {
	case "document", "document/literal", "doc":
		return "document", nil
	case "rpc", "rpc/literal":
		return "rpc", nil
	case "encoded", "rpc/encoded":
		return "encoded", nil
	}
	return "", fmt.Errorf("--style %q: want document, rpc or encoded", s)
}

// buildCall writes the request: the operation element in the service
// namespace with one unqualified accessor per argument, as core/rpc writes
// it in the style.
func buildCall(v core.Version, info *opInfo, op string, args []arg) (*core.Message, error) {
	if v == 0 {
		v = core.V11
	}
	parts := make([]soapenc.Part, len(args))
	for i, a := range args {
		parts[i] = soapenc.Part{Name: a.name, Value: a.value}
	}
	enc := soapenc.Encoder{
		Version:       soapenc.Version(v),
		TypeNamespace: info.namespace,
		EncodingStyle: true,
		Literal:       info.style != "encoded",
		WrapLists:     info.style == "rpc",
	}
	name := xml.Name{Space: info.namespace, Local: op}
	var b bytes.Buffer
	if err := enc.EncodeParts(&b, name, parts...); err != nil {
		return nil, fmt.Errorf("writing the request: %w", err)
	}
	m := core.NewMessage(v, core.RawBody(b.Bytes()))
	m.Action = info.action
	return m, nil
}

// callTransport returns the RoundTripper for target.
func callTransport(target string, f *callFlags, log *slog.Logger) (core.RoundTripper, func(), error) {
	isHTTP, err := checkTarget(target)
	if err != nil {
		return nil, nil, err
	}
	if isHTTP {
		var opts []soaphttp.TransportOption
		if f.http.user != "" {
			opts = append(opts, soaphttp.WithCredentials(f.http.user, f.http.password))
		}
		t := soaphttp.NewTransport(target, opts...)
		return t, t.CloseIdleConnections, nil
	}
	a, err := soapnats.ParseAddress(target)
	if err != nil || a.Pattern() || a.Stream != "" {
		if err == nil {
			err = errors.New("a request goes to one subject, without a wildcard or a stream")
		}
		return nil, nil, fmt.Errorf("URL %q: %w", target, err)
	}
	nc, err := connectNATS(f.natsURL)
	if err != nil {
		return nil, nil, err
	}
	return soapnats.NewTransport(nc, target, soapnats.WithLogger(log)), nc.Close, nil
}
