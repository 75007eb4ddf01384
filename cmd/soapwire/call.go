package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
	"github.com/soapwire/soapwire/document"
)

const callSynopsis = `Usage: soapwire call [flags] URL OPERATION [key[:type]=value…]

Calls OPERATION of the SOAP RPC service at URL and prints the reply's values,
one "name = value" line each (nested values as a.b, repeated ones as a[0]),
or the fault (code, subcodes, reason, detail) with exit code 1.

URL is http://… or https://… (HTTP), or nats:subject (a NATS request, to the
server --nats names).

The service's namespace, style and SOAPAction come from its WSDL: for an
HTTP URL without --ns, call reads URL?wsdl (or --wsdl FILE|URL) and takes the
operation's namespace, style, action and parameter types from it. With --ns
(always needed for nats:) no WSDL is read, and --style (default document)
and --action (default NAMESPACE#OPERATION, as core/rpc clients send) say the
rest. Flags given win over the WSDL.

Arguments are the operation's parameters, in order: key=value. Their type
is the WSDL's, else xsd:string; key:type=value gives it: string, int, long,
short, byte, unsignedInt, unsignedLong, unsignedShort, unsignedByte, boolean
(bool), float, double, decimal, integer, dateTime, base64Binary (base64),
hexBinary (hex), and key:nil= for a nil value. The type matters on the wire in
the encoded style (xsi:type); in the literal ones it only checks the value.

Styles: document (document/literal wrapped), rpc (rpc/literal), encoded
(rpc/encoded, SOAP encoding with xsi:type).

Examples:
  soapwire call http://127.0.0.1:8080/calc add a=2 b=40
  soapwire call --version 1.2 --ns urn:example:calc --style encoded http://127.0.0.1:8080/calc add a:int=2 b:int=40
  soapwire call --nats nats://127.0.0.1:4222 --ns urn:example:calc nats:calc add a=2 b=40
  soapwire call --xml http://127.0.0.1:8080/calc echo text='hello, world'
`

// callFlags are call's flags.
type callFlags struct {
	ns, style, version, action, wsdl string
	xml, json, verbose               bool
	timeout                          time.Duration
	natsURL                          string
	http                             httpSettings
}

func runCall(ctx context.Context, c *cli, args []string) int {
	var f callFlags
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.StringVar(&f.ns, "ns", "", "the service namespace (default: the WSDL's; required for nats:)")
	fs.StringVar(&f.style, "style", "", "document, rpc or encoded (default: the WSDL's, else document)")
	fs.StringVar(&f.version, "version", "1.1", "the SOAP version of the request: 1.1 or 1.2")
	fs.StringVar(&f.action, "action", "", "the SOAPAction (default: the WSDL's, else NAMESPACE#OPERATION)")
	fs.StringVar(&f.wsdl, "wsdl", "", "read the WSDL from this file or URL instead of URL?wsdl")
	fs.BoolVar(&f.xml, "xml", false, "print the reply envelope as XML instead of its values")
	fs.BoolVar(&f.json, "json", false, "print the reply's values (or the fault) as JSON")
	fs.BoolVar(&f.verbose, "v", false, "log what the bindings do on stderr")
	fs.DurationVar(&f.timeout, "timeout", time.Minute, "give up after this long (0: never)")
	fs.StringVar(&f.natsURL, "nats", envOr(envNATS, defaultNATS), "nats:: the NATS server URL ($"+envNATS+")")
	fs.StringVar(&f.http.user, "http-user", envOr(envHTTPUser, ""), "http(s)://: the Basic auth user, password in $"+envHTTPPassword+" ($"+envHTTPUser+")")
	pos, code, done := c.parseFlags(fs, callSynopsis, args)
	if done {
		return code
	}
	if len(pos) < 2 {
		return c.usageError("call", errors.New("want URL OPERATION [key=value…]"))
	}
	target, op := pos[0], pos[1]
	if !isXMLName(op) {
		return c.usageError("call", fmt.Errorf("operation %q is not an XML name", op))
	}
	version, err := parseVersion(f.version)
	if err != nil {
		return c.usageError("call", err)
	}
	style := ""
	if f.style != "" {
		if style, err = parseStyle(f.style); err != nil {
			return c.usageError("call", err)
		}
	}
	var cargs []arg
	seen := map[string]bool{}
	for _, s := range pos[2:] {
		a, err := parseArg(s)
		if err != nil {
			return c.usageError("call", err)
		}
		if seen[a.name] {
			return c.usageError("call", fmt.Errorf("argument %s given twice", a.name))
		}
		seen[a.name] = true
		cargs = append(cargs, a)
	}
	scheme, err := document.Scheme(target)
	if err != nil {
		return c.usageError("call", fmt.Errorf("URL %q: %w", target, err))
	}
	isHTTP := scheme == "http" || scheme == "https"
	if !isHTTP && scheme != soapnats.Scheme {
		return c.usageError("call", fmt.Errorf("URL %q: want http://, https:// or nats:", target))
	}
	if f.http.user != "" {
		f.http.password = envOr(envHTTPPassword, "")
	}
	if f.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}

	// What the WSDL says, unless --ns says it all.
	info := &opInfo{namespace: f.ns, style: "document"}
	if f.ns == "" {
		if !isHTTP && f.wsdl == "" {
			return c.usageError("call", errors.New("--ns is required for a nats: URL (or --wsdl)"))
		}
		src := f.wsdl
		if src == "" {
			src = wsdlURL(target)
		}
		if info, err = fetchWSDL(ctx, src, op, version, f.http); err != nil {
			return c.fail("call", err)
		}
	}
	if style != "" {
		info.style = style
	}
	if f.action != "" {
		info.action = f.action
	} else if f.ns != "" {
		info.action = f.ns + "#" + op // core/rpc's default pattern, {ns}#{op}
	}
	if info.namespace == "" {
		return c.usageError("call", errors.New("no service namespace: give --ns"))
	}
	if err := orderArgs(cargs, info.params); err != nil {
		return c.usageError("call", err)
	}

	log := newLogger(c.stderr, f.verbose)
	rt, closeRT, err := callTransport(target, isHTTP, &f, log)
	if err != nil {
		return c.fail("call", err)
	}
	defer closeRT()
	req, err := buildCall(version, info, op, cargs)
	if err != nil {
		return c.fail("call", err)
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
		if _, err := reply.Write(c.stdout, core.WriteOptions{XMLDeclaration: true}); err != nil {
			return c.fail("call", err)
		}
		fmt.Fprintln(c.stdout)
		return exitOK
	}
	if err := printReply(c.stdout, reply, f.json); err != nil {
		return c.fail("call", err)
	}
	return exitOK
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

// wsdlURL is where an HTTP endpoint describes itself: URL?wsdl.
func wsdlURL(target string) string {
	u, err := url.Parse(target)
	if err != nil {
		return target + "?wsdl"
	}
	if u.RawQuery == "" {
		u.RawQuery = "wsdl"
	} else {
		u.RawQuery += "&wsdl"
	}
	u.Fragment = ""
	return u.String()
}

// fetchWSDL reads the WSDL at src (an http(s) URL or a file).
func fetchWSDL(ctx context.Context, src, op string, v core.Version, creds httpSettings) (*opInfo, error) {
	var r io.Reader
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
		if err != nil {
			return nil, fmt.Errorf("wsdl: %w", err)
		}
		if creds.user != "" {
			req.SetBasicAuth(creds.user, creds.password)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("wsdl: %w (give --ns to call without a WSDL)", err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("wsdl: GET %s: %s (give --ns to call without a WSDL)", redactURL(src), resp.Status)
		}
		r = resp.Body
	} else {
		f, err := os.Open(src)
		if err != nil {
			return nil, fmt.Errorf("wsdl: %w", err)
		}
		defer f.Close()
		r = f
	}
	info, err := readWSDL(r, op, v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", redactURL(src), err)
	}
	return info, nil
}

// orderArgs puts the arguments in the order of the WSDL's parameters
// (those it does not name last, as given) and gives each its type.
func orderArgs(args []arg, params []param) error {
	types := make(map[string]string, len(params))
	rank := make(map[string]int, len(params))
	for i, p := range params {
		types[p.name], rank[p.name] = p.typ, i
	}
	for i := range args {
		if err := typeArg(&args[i], types[args[i].name]); err != nil {
			return err
		}
	}
	if len(params) == 0 {
		return nil
	}
	ordered := make([]arg, 0, len(args))
	for _, p := range params {
		for _, a := range args {
			if a.name == p.name {
				ordered = append(ordered, a)
			}
		}
	}
	for _, a := range args {
		if _, ok := rank[a.name]; !ok {
			ordered = append(ordered, a)
		}
	}
	copy(args, ordered)
	return nil
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
func callTransport(target string, isHTTP bool, f *callFlags, log *slog.Logger) (core.RoundTripper, func(), error) {
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
