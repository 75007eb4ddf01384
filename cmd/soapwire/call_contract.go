package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// maxArgsBytes bounds an --args file.
const maxArgsBytes = 16 << 20

// callContract calls op as the service's contract says.
func (c *cli) callContract(ctx context.Context, f *callFlags, target, op string, version core.Version, rawArgs []string) int {
	if f.style != "" {
		return c.usageError("call", errors.New("--style is for calls without a contract (with --ns): the contract says the style"))
	}
	src := f.wsdl
	fromTarget := false
	if src == "" {
		switch {
		case isWSDLURL(target):
			src, target = target, "" // the WSDL's URL: call the port's address
		case strings.HasPrefix(target, "nats:"):
			return c.usageError("call", errors.New("--ns or --wsdl is required for a nats: URL"))
		default:
			isHTTP, err := checkTarget(target)
			if err != nil {
				return c.usageError("call", err)
			}
			if !isHTTP {
				return c.usageError("call", errors.New("--ns or --wsdl is required for a nats: URL"))
			}
			src, fromTarget = wsdlURL(target), true
		}
	}
	if target != "" {
		if _, err := checkTarget(target); err != nil {
			return c.usageError("call", err)
		}
	}
	ct, err := c.loadCallContract(ctx, src, f)
	if err != nil {
		if fromTarget {
			err = fmt.Errorf("%w (give --wsdl FILE|URL, or --ns NAMESPACE to call without a contract)", err)
		}
		return c.fail("call", err)
	}
	var opts []wsdl.ClientOption
	if version != 0 {
		opts = append(opts, wsdl.WithVersion(version))
	}
	if f.port != "" {
		service, port, ok := strings.Cut(f.port, "/")
		if !ok {
			service, port = "", f.port
		}
		opts = append(opts, wsdl.WithPort(service, port))
	}
	ep, err := ct.FindEndpoint(opts...)
	if err != nil {
		return c.usageError("call", errors.New(strings.TrimPrefix(err.Error(), "wsdl: ")))
	}
	if target == "" {
		if ep.Address == "" {
			return c.usageError("call", errors.New("the contract's port has no address: give the URL to call"))
		}
		target = ep.Address
		if _, err := checkTarget(target); err != nil {
			return c.usageError("call", fmt.Errorf("the port's address: %w", err))
		}
	}
	log := newLogger(c.stderr, f.verbose)
	rt, closeRT, err := callTransport(target, f, log)
	if err != nil {
		return c.fail("call", err)
	}
	defer closeRT()
	copts := []wsdl.ClientOption{wsdl.WithEndpoint(ep)}
	if f.lenient {
		copts = append(copts, wsdl.WithLenientReplies())
	}
	client, err := wsdl.NewClient(ct, rt, copts...)
	if err != nil {
		return c.fail("call", err)
	}
	sig, err := client.Operation(op)
	if err != nil {
		return c.usageError("call", errors.New(strings.TrimPrefix(err.Error(), "wsdl: ")))
	}
	in, err := c.callInput(ct, sig, f.args, rawArgs)
	if err != nil {
		return c.usageError("call", err)
	}
	var callOpts []wsdl.CallOption
	if f.action != "" {
		callOpts = append(callOpts, wsdl.WithAction(f.action))
	}
	req, err := client.Request(op, in, callOpts...)
	if err != nil {
		return c.usageError("call", errors.New(strings.TrimPrefix(err.Error(), "wsdl: ")))
	}
	if f.showRequest {
		if err := c.showRequest(req); err != nil {
			return c.fail("call", err)
		}
	}
	reply, rtErr := rt.RoundTrip(ctx, req)
	if f.xml && reply != nil {
		// print the reply as it came, then judge it
		var buf bytes.Buffer
		if _, err := reply.Write(&buf, core.WriteOptions{}); err != nil {
			return c.fail("call", err)
		}
		if err := indentXML(c.stdout, buf.Bytes()); err != nil {
			return c.fail("call", err)
		}
		if reply, err = core.ReadMessageBytes(buf.Bytes(), core.Unlimited()); err != nil {
			return c.fail("call", err)
		}
	}
	var tree *xsd.Value
	err = client.Reply(op, reply, rtErr, &tree, callOpts...)
	var fe *wsdl.FaultError
	var fault *core.Fault
	var re *wsdl.ReplyError
	switch {
	case errors.As(err, &fe):
		return c.printDeclaredFault(fe, f.json)
	case errors.As(err, &re):
		return c.fail("call", errors.New(strings.TrimPrefix(re.Error(), "wsdl: ")))
	case errors.As(err, &fault) && fault.Remote:
		return c.printFault(fault, f.json)
	case err != nil:
		return c.fail("call", err)
	}
	if reply == nil {
		fmt.Fprintln(c.stdout, "accepted: the service sent no reply (one-way)")
		return exitOK
	}
	if f.xml {
		return exitOK
	}
	if err := printValues(c.stdout, messageValues(sig, tree), f.json); err != nil {
		return c.fail("call", err)
	}
	return exitOK
}

// isWSDLURL reports whether a URL is a service's description rather than
// the service: a query naming wsdl (?wsdl, ?WSDL, ?singleWsdl, ?wsdl=x)
// or a path ending in .wsdl.
func isWSDLURL(s string) bool {
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return false
	}
	for k := range u.Query() {
		if strings.EqualFold(k, "wsdl") || strings.EqualFold(k, "singleWsdl") {
			return true
		}
	}
	return strings.HasSuffix(strings.ToLower(u.Path), ".wsdl")
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

// loadCallContract reads the contract at src (a file or an http(s) URL).
func (c *cli) loadCallContract(ctx context.Context, src string, f *callFlags) (*wsdl.Contract, error) {
	var opts []xsd.Option
	if f.catalog != "" {
		abs, err := filepath.Abs(f.catalog)
		if err != nil {
			return nil, err
		}
		cat, err := xsd.ReadCatalog(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
		if err != nil {
			return nil, err
		}
		opts = append(opts, xsd.WithCatalog(cat))
	}
	ct, err := wsdl.Load(ctx, contractLoader(src, f.fetch, f.http), src, opts...)
	if err != nil {
		var xe *xsd.Error
		if errors.As(err, &xe) {
			lines := make([]string, len(xe.Problems))
			for i, p := range xe.Problems {
				lines[i] = "  " + p.String()
			}
			return nil, fmt.Errorf("the contract %s cannot be read (%d problems; soapwire wsdl prints it):\n%s", redactURL(src), len(xe.Problems), strings.Join(lines, "\n"))
		}
		return nil, fmt.Errorf("reading the contract: %s", strings.TrimPrefix(err.Error(), "wsdl: "))
	}
	return ct, nil
}

// callInput builds the operation's input from --args or the name=value
// arguments, checking the names it gives at the top against the
// operation's parameters (or a bare operation's parts).
func (c *cli) callInput(ct *wsdl.Contract, sig *wsdl.Signature, argsFile string, raw []string) (any, error) {
	var in map[string]any
	switch {
	case argsFile != "" && len(raw) > 0:
		return nil, errors.New("give the arguments with --args or as name=value, not both")
	case argsFile != "":
		data, err := readLimited(argsFile, maxArgsBytes)
		if err != nil {
			return nil, err
		}
		trimmed := bytes.TrimSpace(data)
		if len(trimmed) > 0 && trimmed[0] == '<' {
			return xmlInput(ct, sig, trimmed)
		}
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		dec.UseNumber()
		if err := dec.Decode(&in); err != nil {
			return nil, fmt.Errorf("--args %s: not a JSON object or XML: %v", argsFile, err)
		}
	default:
		args, err := parseArgs(raw)
		if err != nil {
			return nil, err
		}
		paths := map[string]any{}
		for _, a := range args {
			switch {
			case a.typ == "nil":
				if a.raw != "" {
					return nil, fmt.Errorf("argument %s: a nil argument takes no value (%s:nil=)", a.name, a.name)
				}
				paths[a.name] = nil
			case a.typ != "":
				if _, err := convert(a.typ, a.raw); err != nil {
					return nil, fmt.Errorf("argument %s: %q is not an xsd:%s: %w", a.name, a.raw, a.typ, err)
				}
				paths[a.name] = a.raw
			default:
				paths[a.name] = a.raw
			}
		}
		if in, err = xsd.Unflatten(paths); err != nil {
			return nil, fmt.Errorf("arguments: %w", err)
		}
	}
	if err := checkInput(ct, sig, in); err != nil {
		return nil, err
	}
	ms := sig.Input
	if sig.Style == wsdl.Document && !ms.Wrapped && len(ms.Params) == 1 {
		return in[ms.Params[0].Element.Name.Local], nil // a bare part: the element's value
	}
	return in, nil
}

// checkInput checks the input against the operation's parameters (or a
// bare operation's parts) before anything is sent: an unknown name (with
// the likeliest one), a required one missing (with those it takes), a
// value that does not fit, at any depth.
func checkInput(ct *wsdl.Contract, sig *wsdl.Signature, in any) error {
	codec := xsd.NewCodec(ct.Schemas)
	if sig.Input.Use == wsdl.Encoded {
		codec = xsd.NewCodec(ct.Schemas, xsd.Encoded(sig.Version))
	}
	return codec.Encode(io.Discard, xsd.WrapperElement(xml.Name{Local: sig.Name}, sig.Input.Params), in)
}

// xmlInput reads the XML of an --args file as the operation's input: its
// wrapper element (wrapped, rpc) or its part element (bare, one part).
func xmlInput(ct *wsdl.Contract, sig *wsdl.Signature, data []byte) (any, error) {
	ms := sig.Input
	var el *xsd.Element
	codec := xsd.NewCodec(ct.Schemas)
	switch {
	case sig.Style == wsdl.RPC:
		el = xsd.WrapperElement(ms.Element, ms.Params)
		if ms.Use == wsdl.Encoded {
			codec = xsd.NewCodec(ct.Schemas, xsd.Encoded(sig.Version))
		}
	case ms.Wrapped:
		el = ms.Parts[0].Element
	case len(ms.Params) == 1:
		el = ms.Params[0].Element
	default:
		return nil, fmt.Errorf("%s has %d body parts: give its arguments as JSON or name=value", sig.Name, len(ms.Params))
	}
	var tree *xsd.Value
	if err := codec.DecodeBytes(data, el, &tree); err != nil {
		return nil, fmt.Errorf("--args: the XML is not %s's input: %w", sig.Name, err)
	}
	return tree, nil
}

// readLimited reads a file of at most limit bytes.
func readLimited(name string, limit int64) ([]byte, error) {
	fh, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d MiB", name, limit>>20)
	}
	return data, nil
}

// messageValues returns the values a reply's tree holds: the wrapper's
// children (wrapped, rpc), the part element (bare), or the part elements.
func messageValues(sig *wsdl.Signature, tree *xsd.Value) []*xsd.Value {
	if tree == nil {
		return nil
	}
	ms := sig.Output
	if sig.Style == wsdl.Document && !ms.Wrapped && len(ms.Params) == 1 {
		return []*xsd.Value{tree}
	}
	return tree.Elems
}

// printDeclaredFault prints a fault the operation declares, with its
// detail's values, and returns exitFailure.
func (c *cli) printDeclaredFault(fe *wsdl.FaultError, asJSON bool) int {
	r := reportFault(fe.Fault)
	if asJSON {
		_ = writeJSON(c.stdout, map[string]any{"fault": r, "declared": fe.Name, "detail": map[string]any{fe.Detail.Name.Local: fe.Detail.Interface()}})
	} else {
		r.write(c.stdout)
		fmt.Fprintf(c.stdout, "declared: %s\n", fe.Name)
		_ = printLines(c.stdout, "detail.", []*xsd.Value{fe.Detail})
	}
	fmt.Fprintf(c.stderr, "soapwire call: the service answered with its declared fault %s (%s): %s\n", fe.Name, fe.Fault.Code, oneLine(fe.Fault.Reason))
	return exitFailure
}
