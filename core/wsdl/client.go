package wsdl

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/internal/suggest"
	"github.com/soapwire/soapwire/core/xsd"
)

// Client calls the operations of one SOAP port of a contract, as zeep does:
// by operation name, with arguments given as Go values or generic trees
// (see core/xsd's codec), written and read in the exact form the contract
// says, over any core.RoundTripper (HTTP, NATS, mail). The port's SOAP
// version and each operation's SOAPAction are used; the port's address is
// where the RoundTripper must go (Address), which the client does not
// decide: a RoundTripper is made for one address.
type Client struct {
	contract *Contract
	ep       *Endpoint
	rt       core.RoundTripper
	literal  *xsd.Codec
	encoded  *xsd.Codec
	// packaging is how requests are sent: WithPackaging's, else the
	// port's policy's (Endpoint.MTOM)
	packaging core.Packaging
}

// ClientOption configures NewClient and Contract.FindEndpoint.
type ClientOption interface{ applyClient(*clientConfig) }

type clientConfig struct {
	service, port string
	version       core.Version
	endpoint      *Endpoint
	lenient       bool
	packaging     core.Packaging
	packagingSet  bool
}

type clientOptionFunc func(*clientConfig)

func (f clientOptionFunc) applyClient(c *clientConfig) { f(c) }

// WithPort chooses the port by its service's and its own local names
// (service "" for any service).
func WithPort(service, port string) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.service, c.port = service, port })
}

// WithVersion chooses the first SOAP port of SOAP version v (NewClient,
// FindEndpoint), or sends envelopes of version v instead of the port's (a
// generated client: NewStub).
func WithVersion(v core.Version) VersionOption { return versionOption(v) }

// WithEndpoint uses an endpoint already chosen (one of the contract's
// Endpoints).
func WithEndpoint(e *Endpoint) ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.endpoint = e })
}

// WithLenientReplies reads replies with a lenient codec (xsd.Lenient):
// elements matched by local name in any order, what the contract does not
// have skipped, missing values left absent. Values that do not parse are
// still errors. Off by default.
func WithLenientReplies() ClientOption {
	return clientOptionFunc(func(c *clientConfig) { c.lenient = true })
}

// FindEndpoint returns the endpoint the options choose: WithEndpoint's,
// the port WithPort names, the first SOAP port of WithVersion's version,
// else the first SOAP port (a SOAP binding no port uses when there is
// none). The error lists the ports there are.
func (c *Contract) FindEndpoint(opts ...ClientOption) (*Endpoint, error) {
	var cfg clientConfig
	for _, o := range opts {
		o.applyClient(&cfg)
	}
	return c.findEndpoint(&cfg)
}

func (c *Contract) findEndpoint(cfg *clientConfig) (*Endpoint, error) {
	if cfg.endpoint != nil {
		return cfg.endpoint, nil
	}
	eps := c.Endpoints()
	for _, e := range eps {
		if cfg.port != "" && (e.Port == nil || e.Port.Name != cfg.port || cfg.service != "" && e.Service.Name.Local != cfg.service) {
			continue
		}
		if cfg.version != 0 && e.Version != cfg.version {
			continue
		}
		return e, nil
	}
	var ports []string
	for _, e := range eps {
		switch {
		case e.Port != nil:
			ports = append(ports, fmt.Sprintf("%s/%s (SOAP %s)", e.Service.Name.Local, e.Port.Name, e.Version))
		default:
			ports = append(ports, fmt.Sprintf("binding %s (SOAP %s, no port)", e.Binding.Name.Local, e.Version))
		}
	}
	want := "SOAP port"
	switch {
	case cfg.port != "":
		want = "port " + cfg.port
		if cfg.service != "" {
			want = "port " + cfg.service + "/" + cfg.port
		}
		if cfg.version != 0 {
			want += " of SOAP " + cfg.version.String()
		}
	case cfg.version != 0:
		want = "SOAP " + cfg.version.String() + " port"
	}
	if len(ports) == 0 {
		return nil, errors.New("wsdl: the contract has no SOAP port")
	}
	return nil, fmt.Errorf("wsdl: no %s in the contract; it has %s", want, strings.Join(ports, ", "))
}

// NewClient returns a client of the contract's endpoint the options choose
// (see FindEndpoint), sending through rt.
func NewClient(c *Contract, rt core.RoundTripper, opts ...ClientOption) (*Client, error) {
	var cfg clientConfig
	for _, o := range opts {
		o.applyClient(&cfg)
	}
	ep, err := c.findEndpoint(&cfg)
	if err != nil {
		return nil, err
	}
	var copts []xsd.CodecOption
	if cfg.lenient {
		copts = append(copts, xsd.Lenient())
	}
	cl := &Client{contract: c, ep: ep, rt: rt, literal: xsd.NewCodec(c.Schemas, copts...), packaging: policyPackaging(ep)}
	if cfg.packagingSet {
		cl.packaging = cfg.packaging
	}
	cl.encoded = xsd.NewCodec(c.Schemas, append(copts, xsd.Encoded(ep.Version))...)
	return cl, nil
}

// Endpoint returns the client's endpoint.
func (cl *Client) Endpoint() *Endpoint { return cl.ep }

// Address returns the port's address: where the RoundTripper should send.
func (cl *Client) Address() string { return cl.ep.Address }

// Operation returns the signature of the operation named name; the error
// lists the port's operations, with the likeliest if name is a typo.
func (cl *Client) Operation(name string) (*Signature, error) {
	for _, s := range cl.ep.Operations {
		if s.Name == name {
			return s, nil
		}
	}
	names := make([]string, len(cl.ep.Operations))
	for i, s := range cl.ep.Operations {
		names[i] = s.Name
	}
	sort.Strings(names)
	msg := fmt.Sprintf("wsdl: the port has no operation %q (it has %s)", name, strings.Join(names, ", "))
	if s := suggest.Closest(name, names); s != "" {
		msg += "; did you mean " + s + "?"
	}
	return nil, errors.New(msg)
}

// CallOption configures one Call or Request.
type CallOption interface{ applyCall(*callConfig) }

type callConfig struct {
	action       string
	actionSet    bool
	headers      map[string]any
	replyHeaders map[string]any
	packaging    core.Packaging
	packagingSet bool
}

type callOptionFunc func(*callConfig)

func (f callOptionFunc) applyCall(c *callConfig) { f(c) }

// WithAction sends action as the SOAPAction instead of the contract's.
func WithAction(action string) CallOption {
	return callOptionFunc(func(c *callConfig) { c.action, c.actionSet = action, true })
}

// WithHeader gives the value of the input's soap:header part named part
// (a Go value, a map or a *xsd.Value, as the body's arguments).
func WithHeader(part string, v any) CallOption {
	return callOptionFunc(func(c *callConfig) {
		if c.headers == nil {
			c.headers = map[string]any{}
		}
		c.headers[part] = v
	})
}

// WithReplyHeader decodes the output's soap:header part named part into
// out (a pointer, or a **xsd.Value) when the reply carries it.
func WithReplyHeader(part string, out any) CallOption {
	return callOptionFunc(func(c *callConfig) {
		if c.replyHeaders == nil {
			c.replyHeaders = map[string]any{}
		}
		c.replyHeaders[part] = out
	})
}

// ReplyError is a reply that does not match the operation's output (or its
// fault's detail): Err says what and where (often an *xsd.ValueError).
type ReplyError struct {
	Op  string
	Err error
}

func (e *ReplyError) Error() string {
	return "wsdl: the reply to " + e.Op + " does not match the contract: " + e.Err.Error()
}

// FaultError is a fault the operation declares, with its detail decoded:
// Name is the fault's name in the contract, Detail its detail element as a
// tree (DecodeDetail reads it into a Go value). Fault is the fault as
// received; errors.As finds it too.
type FaultError struct {
	Op     string
	Name   string
	Fault  *core.Fault
	Detail *xsd.Value
	sig    *FaultSignature
	codec  *xsd.Codec
}

func (e *FaultError) Error() string {
	return fmt.Sprintf("wsdl: %s failed with its declared fault %s: %s", e.Op, e.Name, e.Fault.Reason)
}

func (e *FaultError) Unwrap() error { return e.Fault }

// DecodeDetail stores the fault's detail into the Go value v points to.
func (e *FaultError) DecodeDetail(v any) error { return e.codec.Assign(e.Detail, v) }

// Call calls the operation op with the input in and decodes the reply's
// values into out (a pointer, a **xsd.Value, or nil to check the reply
// only).
//
// The input and output are the message's values: for a wrapped
// document/literal or an rpc operation, a struct or map with one field per
// parameter (the wrapper's children, the rpc accessors), or the wrapper's
// *xsd.Value; for a bare operation with one part, the part element's
// value; with several parts, a struct or map with one field per part
// element. A declared fault is a *FaultError with its detail decoded; any
// other fault is the *core.Fault; a reply that does not match the
// output's signature is a *ReplyError saying why; a reply in the other SOAP
// version than the port's, answer or fault, is a VersionMismatch
// *core.Fault this side found (core.CheckReplyVersion: not every
// RoundTripper checks).
func (cl *Client) Call(ctx context.Context, op string, in, out any, opts ...CallOption) error {
	sig, err := cl.Operation(op)
	if err != nil {
		return err
	}
	req, err := cl.request(sig, in, opts)
	if err != nil {
		return err
	}
	if cl.rt == nil {
		return errors.New("wsdl: the client has no RoundTripper")
	}
	reply, err := cl.rt.RoundTrip(ctx, req)
	return cl.reply(sig, reply, err, out, opts)
}

// Request builds the request message of op with input in without sending
// it (Call's first half): what a caller sends itself, or shows.
func (cl *Client) Request(op string, in any, opts ...CallOption) (*core.Message, error) {
	sig, err := cl.Operation(op)
	if err != nil {
		return nil, err
	}
	return cl.request(sig, in, opts)
}

// Reply reads the reply to op (Call's second half): reply and err are what
// the RoundTripper returned.
func (cl *Client) Reply(op string, reply *core.Message, err error, out any, opts ...CallOption) error {
	sig, opErr := cl.Operation(op)
	if opErr != nil {
		return opErr
	}
	return cl.reply(sig, reply, err, out, opts)
}

func (cl *Client) codecOf(u Use) *xsd.Codec {
	if u == Encoded {
		return cl.encoded
	}
	return cl.literal
}

// request builds the request of sig.
func (cl *Client) request(sig *Signature, in any, opts []CallOption) (*core.Message, error) {
	var cfg callConfig
	for _, o := range opts {
		o.applyCall(&cfg)
	}
	if len(sig.Input.Attachments) > 0 {
		return nil, fmt.Errorf("wsdl: %s carries MIME attachments (%s), which the client does not send", sig.Name, sig.Input.Attachments[0].Name)
	}
	body, err := cl.encodeBody(sig, sig.Input, in)
	if err != nil {
		return nil, fmt.Errorf("wsdl: %s: the input does not fit the contract: %w", sig.Name, err)
	}
	m := core.NewMessage(cl.ep.Version, core.RawBody(body))
	// the reflective codec writes binary values inline: under MTOM the
	// envelope is the root of an XOP package without parts
	m.Packaging = requestPackaging(&cfg, cl.packaging)
	m.Action = sig.Action
	if cfg.actionSet {
		m.Action = cfg.action
	}
	for _, h := range sig.Input.Headers {
		v, ok := cfg.headers[h.Part.Name]
		if !ok {
			if h.Required {
				return nil, fmt.Errorf("wsdl: %s: the required header %s is missing (give it WithHeader)", sig.Name, h.Part.Name)
			}
			continue
		}
		var buf bytes.Buffer
		if err := cl.codecOf(h.Use).Encode(&buf, h.Element, v); err != nil {
			return nil, fmt.Errorf("wsdl: %s: header %s: %w", sig.Name, h.Part.Name, err)
		}
		hb, err := core.ParseHeaderBlock(buf.Bytes())
		if err != nil {
			return nil, fmt.Errorf("wsdl: %s: header %s: %w", sig.Name, h.Part.Name, err)
		}
		m.Envelope.Headers = append(m.Envelope.Headers, hb)
	}
	for part := range cfg.headers {
		if !hasHeader(sig.Input.Headers, part) {
			return nil, fmt.Errorf("wsdl: %s: the input has no header part %s", sig.Name, part)
		}
	}
	return m, nil
}

func hasHeader(hs []*HeaderSignature, part string) bool {
	for _, h := range hs {
		if h.Part.Name == part {
			return true
		}
	}
	return false
}

// encodeBody writes a message's body children.
func (cl *Client) encodeBody(sig *Signature, ms *MessageSignature, in any) ([]byte, error) {
	c := cl.codecOf(ms.Use)
	var buf bytes.Buffer
	switch {
	case sig.Style == RPC:
		if err := c.Encode(&buf, xsd.WrapperElement(ms.Element, ms.Params), in); err != nil {
			return nil, err
		}
	case ms.Wrapped:
		if err := c.Encode(&buf, ms.Parts[0].Element, in); err != nil {
			return nil, err
		}
	case len(ms.Params) == 1:
		if err := c.Encode(&buf, ms.Params[0].Element, in); err != nil {
			return nil, err
		}
	case len(ms.Params) > 1:
		tree, err := c.ValueOf(xsd.WrapperElement(xml.Name{Local: sig.Name}, ms.Params), in)
		if err != nil {
			return nil, err
		}
		for _, p := range ms.Params {
			v := tree.Elem(p.Element.Name.Local)
			if v == nil {
				return nil, fmt.Errorf("the part element %s is missing", p.Element.Name.Local)
			}
			if err := c.Encode(&buf, p.Element, v); err != nil {
				return nil, err
			}
		}
	default:
		if in != nil {
			return nil, errors.New("the message has no body parts, and a value was given")
		}
	}
	return buf.Bytes(), nil
}

// reply reads the reply of sig.
func (cl *Client) reply(sig *Signature, reply *core.Message, rtErr error, out any, opts []CallOption) error {
	var cfg callConfig
	for _, o := range opts {
		o.applyCall(&cfg)
	}
	var fault *core.Fault
	switch {
	case rtErr != nil:
		if !errors.As(rtErr, &fault) || !fault.Remote {
			return rtErr
		}
	case reply == nil:
		if sig.OneWay {
			return nil
		}
		return &ReplyError{Op: sig.Name, Err: errors.New("no reply came (the operation has an output)")}
	default:
		// a reply in the other version answers no request of ours (the
		// RoundTripper may not have checked)
		if err := core.CheckReplyVersion(cl.ep.Version, reply); err != nil {
			return err
		}
		fault = reply.Fault()
	}
	if fault != nil {
		return cl.fault(sig, fault)
	}
	if sig.OneWay || sig.Output == nil {
		if err := reply.Body().Discard(); err != nil {
			return err
		}
		if !reply.Body().IsEmpty() {
			return &ReplyError{Op: sig.Name, Err: errors.New("a one-way operation got a reply with a body")}
		}
		return nil
	}
	if err := cl.decodeBody(sig, reply, out); err != nil {
		var ve *xsd.ValueError
		if errors.As(err, &ve) {
			return &ReplyError{Op: sig.Name, Err: ve}
		}
		return err
	}
	for part, dst := range cfg.replyHeaders {
		if err := cl.replyHeader(sig, reply, part, dst); err != nil {
			return err
		}
	}
	return nil
}

// decodeBody reads the reply's body by the output's signature.
func (cl *Client) decodeBody(sig *Signature, reply *core.Message, out any) error {
	ms := sig.Output
	c := cl.codecOf(ms.Use)
	body := reply.Body()
	var tree *xsd.Value
	switch {
	case sig.Style == RPC:
		params := ms.Params
		if cl.ep.Version == core.V12 {
			params = append([]*xsd.Particle{rpcResult(cl.contract.Schemas)}, params...)
		}
		if err := c.Decode(body, xsd.WrapperElement(ms.Element, params), &tree); err != nil {
			return err
		}
		kept := tree.Elems[:0]
		for _, e := range tree.Elems {
			if e.Name != (xml.Name{Space: core.NamespaceRPC, Local: "result"}) {
				kept = append(kept, e)
			}
		}
		tree.Elems = kept
	case ms.Wrapped:
		if err := c.Decode(body, ms.Parts[0].Element, &tree); err != nil {
			return err
		}
	case len(ms.Params) == 1:
		if err := c.Decode(body, ms.Params[0].Element, &tree); err != nil {
			return err
		}
	default:
		tree = &xsd.Value{Name: xml.Name{Local: sig.Name + "Response"}}
		for _, p := range ms.Params {
			var v *xsd.Value
			if err := c.Decode(body, p.Element, &v); err != nil {
				return err
			}
			tree.Elems = append(tree.Elems, v)
		}
	}
	if err := rest(body); err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	return c.Assign(tree, out)
}

// rest refuses anything in the body after what the output holds.
func rest(body core.Body) error {
	for {
		t, err := body.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t.Kind {
		case core.StartElement:
			return &xsd.ValueError{Msg: fmt.Sprintf("the element %s follows what the output holds", string(t.Name.Local))}
		case core.CharData:
			if strings.TrimSpace(string(t.Text)) != "" {
				return &xsd.ValueError{Msg: "text follows what the output holds"}
			}
		}
	}
}

// rpcResult is SOAP 1.2's rpc:result accessor, which an rpc reply may
// start with (it names the return value).
func rpcResult(set *xsd.Set) *xsd.Particle {
	return &xsd.Particle{Min: 0, Max: 1, Element: &xsd.Element{
		Name: xml.Name{Space: core.NamespaceRPC, Local: "result"}, Qualified: true, Type: set.Builtin(xsd.KindQName)}}
}

// fault turns a received fault into a *FaultError when the operation
// declares it (its detail's element is one of the declared faults'), and
// returns it as it is otherwise.
func (cl *Client) fault(sig *Signature, f *core.Fault) error {
	if len(f.Detail) == 0 {
		return f
	}
	first, err := firstElement(f.Detail)
	if err != nil {
		return f
	}
	for _, fs := range sig.Faults {
		if fs.Element == nil {
			continue
		}
		el := fs.Element
		switch {
		case first == el.Name:
		case fs.Use == Encoded || sig.Style == RPC:
			// an rpc fault's detail holds the part's accessor, or an
			// element named as the fault (or its message) around it, as
			// gSOAP writes; accessors are unqualified
			switch {
			case first.Local == el.Name.Local:
				cp := *el
				cp.Name = first
				el = &cp
			case first.Local == fs.Name || fs.Message != nil && first.Local == fs.Message.Name.Local:
				acc := *el
				acc.Name = xml.Name{Local: el.Name.Local}
				el = xsd.WrapperElement(first, []*xsd.Particle{{Min: 1, Max: 1, Element: &acc}})
			default:
				continue
			}
		default:
			continue
		}
		var tree *xsd.Value
		if err := cl.codecOf(fs.Use).DecodeBytes(f.Detail, el, &tree); err != nil {
			return &ReplyError{Op: sig.Name, Err: fmt.Errorf("the detail of the fault %s: %w", fs.Name, err)}
		}
		return &FaultError{Op: sig.Name, Name: fs.Name, Fault: f, Detail: tree, sig: fs, codec: cl.codecOf(fs.Use)}
	}
	return f
}

// firstElement returns the name of the first element of some XML.
func firstElement(data []byte) (xml.Name, error) {
	r := xsd.BytesReader(data)
	for {
		t, err := r.Next()
		if err != nil {
			return xml.Name{}, err
		}
		if t.Kind == core.StartElement {
			return xml.Name{Space: string(t.Name.Space), Local: string(t.Name.Local)}, nil
		}
	}
}

// replyHeader decodes a header part of the reply into dst.
func (cl *Client) replyHeader(sig *Signature, reply *core.Message, part string, dst any) error {
	for _, h := range sig.Output.Headers {
		if h.Part.Name != part {
			continue
		}
		for _, hb := range reply.Envelope.Headers {
			if hb.Name == h.Element.Name {
				if err := cl.codecOf(h.Use).DecodeBytes(hb.XML, h.Element, dst); err != nil {
					return &ReplyError{Op: sig.Name, Err: fmt.Errorf("header %s: %w", part, err)}
				}
				return nil
			}
		}
		if h.Required {
			return &ReplyError{Op: sig.Name, Err: fmt.Errorf("the required header %s is missing", part)}
		}
		return nil
	}
	return fmt.Errorf("wsdl: %s: the output has no header part %s", sig.Name, part)
}
