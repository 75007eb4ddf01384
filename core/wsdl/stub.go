package wsdl

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/xsd"
)

// Stub is the client side of the code soapwire gen generates: a generated
// client (one per port) holds a Stub and describes each operation to it
// (StubOperation); the Stub builds the request envelope, sends it over a
// core.RoundTripper (or a core.Sender for a one-way operation), and reads
// the reply with the generated codecs, turning a declared fault into its
// typed error. Generated code does the writing and reading of values; the
// Stub does the envelope.
type Stub struct {
	rt      core.RoundTripper
	sender  core.Sender
	version core.Version
	address string
	// packaging is how requests are sent (WithPackaging; a generated
	// client passes core.MTOM first when the port's policy requires it)
	packaging core.Packaging
}

// StubOption configures NewStub (a generated client's constructor).
type StubOption interface{ applyStub(*stubConfig) }

type stubConfig struct {
	address   string
	set       bool
	version   core.Version
	sender    core.Sender
	packaging core.Packaging
}

type stubOptionFunc func(*stubConfig)

func (f stubOptionFunc) applyStub(c *stubConfig) { f(c) }

// WithAddress sets the address a generated client reports (Address) and
// sends one-way messages to over a Sender, instead of the port's in the
// contract. The RoundTripper goes where it was made for.
func WithAddress(address string) StubOption {
	return stubOptionFunc(func(c *stubConfig) { c.address, c.set = address, true })
}

// WithSender makes a generated client send its one-way operations through
// s (to the client's address: the message's To), instead of through the
// RoundTripper (which must then accept them, answering nothing).
func WithSender(s core.Sender) StubOption {
	return stubOptionFunc(func(c *stubConfig) { c.sender = s })
}

// VersionOption is WithVersion's: it configures NewClient and NewStub.
type VersionOption interface {
	ClientOption
	StubOption
}

type versionOption core.Version

func (v versionOption) applyClient(c *clientConfig) { c.version = core.Version(v) }
func (v versionOption) applyStub(c *stubConfig)     { c.version = core.Version(v) }

// NewStub returns the Stub of a port of SOAP version v at address (the
// contract's; WithAddress and WithVersion override them), sending through
// rt.
func NewStub(rt core.RoundTripper, v core.Version, address string, opts ...StubOption) *Stub {
	cfg := stubConfig{address: address, version: v}
	for _, o := range opts {
		o.applyStub(&cfg)
	}
	return &Stub{rt: rt, sender: cfg.sender, version: cfg.version, address: cfg.address, packaging: cfg.packaging}
}

// Address returns the port's address (where the RoundTripper should go).
func (s *Stub) Address() string { return s.address }

// Version returns the SOAP version of the envelopes the Stub sends.
func (s *Stub) Version() core.Version { return s.version }

// StubOperation is one operation of a port, as generated code describes it.
type StubOperation struct {
	Name    string
	Action  string
	RPC     bool // rpc style (a SOAP 1.2 reply may start with rpc:result)
	Encoded bool // use="encoded": the SOAP encoding, references resolved on reading
	OneWay  bool
	Faults  []StubFault
}

// StubFault is a fault an operation declares: Read reads its detail
// element (st is its start tag, taken) and returns the typed error that
// carries it and f, or the error reading it.
type StubFault struct {
	Name    string   // the fault's name in the operation
	Message string   // its message's local name
	Element xml.Name // the detail's element
	Read    func(d *xsd.Decoder, st *xsd.Start, f *core.Fault) (typed error, err error)
}

// StubHeader is a soap:header part: Write writes it (a request's; nil when
// the caller gave none), Read reads it (a reply's).
type StubHeader struct {
	Element  xml.Name
	Required bool
	Write    func(e *xsd.Encoder) error
	Read     func(d *xsd.Decoder, st *xsd.Start) error
}

// Call sends op: write writes the request's body element(s), headers the
// header blocks; read reads the reply's body (nil for a one-way operation)
// and replyHeaders its header blocks. A fault the operation declares is
// returned as the error its StubFault.Read makes; any other fault as the
// *core.Fault; a reply that does not fit is a *ReplyError; values that do
// not fit the contract are an error before anything is sent. Of the
// CallOptions WithAction and WithPackaging apply (header parts are
// arguments).
func (s *Stub) Call(ctx context.Context, op *StubOperation, write func(*xsd.Encoder) error, headers []StubHeader,
	read func(*xsd.Decoder) error, replyHeaders []StubHeader, opts ...CallOption) error {
	return s.call(ctx, op, write, headers, nil, read, replyHeaders, nil, opts)
}

// call is Call and CallParts.
func (s *Stub) call(ctx context.Context, op *StubOperation, write func(*xsd.Encoder) error, headers []StubHeader, parts []StubPart,
	read func(*xsd.Decoder) error, replyHeaders []StubHeader, replyParts []StubPart, opts []CallOption) error {
	var cfg callConfig
	for _, o := range opts {
		o.applyCall(&cfg)
	}
	if cfg.headers != nil || cfg.replyHeaders != nil {
		return fmt.Errorf("wsdl: %s: a generated client takes header parts as arguments, not WithHeader or WithReplyHeader", op.Name)
	}
	m, err := s.request(op, write, headers, requestPackaging(&cfg, s.packaging))
	if err != nil {
		return err
	}
	if err := attachParts(m, op.Name, parts, "request"); err != nil {
		return err
	}
	m.Action = op.Action
	if cfg.actionSet {
		m.Action = cfg.action
	}
	if op.OneWay && s.sender != nil {
		m.To = s.address
		return s.sender.Send(ctx, m)
	}
	if s.rt == nil {
		return errors.New("wsdl: the client has no RoundTripper")
	}
	reply, err := s.rt.RoundTrip(ctx, m)
	var fault *core.Fault
	switch {
	case err != nil:
		if !errors.As(err, &fault) || !fault.Remote {
			return err
		}
	case reply == nil:
		if op.OneWay {
			return nil
		}
		return &ReplyError{Op: op.Name, Err: errors.New("no reply came (the operation has an output)")}
	default:
		if err := core.CheckReplyVersion(m.Version(), reply); err != nil {
			return err
		}
		fault = reply.Fault()
	}
	if fault != nil {
		return s.fault(op, fault)
	}
	if op.OneWay {
		if err := reply.Body().Discard(); err != nil {
			return err
		}
		if !reply.Body().IsEmpty() {
			return &ReplyError{Op: op.Name, Err: errors.New("a one-way operation got a reply with a body")}
		}
		return nil
	}
	if err := readBody(reply.Body(), op.Encoded, s.version, read); err != nil {
		var ve *xsd.ValueError
		if errors.As(err, &ve) {
			return &ReplyError{Op: op.Name, Err: ve}
		}
		return err
	}
	for _, h := range replyHeaders {
		if err := readHeader(reply, h); err != nil {
			return &ReplyError{Op: op.Name, Err: err}
		}
	}
	for i := range replyParts {
		a, err := partOf(reply, replyParts[i].Name, i)
		if err != nil {
			return &ReplyError{Op: op.Name, Err: err}
		}
		replyParts[i].Attachment = a
	}
	return nil
}

// request builds the request envelope.
func (s *Stub) request(op *StubOperation, write func(*xsd.Encoder) error, headers []StubHeader, p core.Packaging) (*core.Message, error) {
	e := xsd.NewBytesEncoder(nil)
	if op.Encoded {
		e.SetEncoded(s.version)
	}
	e.SetPackaging(p)
	if err := write(e); err != nil {
		return nil, fmt.Errorf("wsdl: %s: the input does not fit the contract: %w", op.Name, err)
	}
	if err := e.Flush(); err != nil {
		return nil, err
	}
	m := core.NewMessage(s.version, core.RawBody(e.Bytes()))
	attach(m, p, e.Attachments())
	for _, h := range headers {
		if h.Write == nil {
			if h.Required {
				return nil, fmt.Errorf("wsdl: %s: the required header %s is missing", op.Name, h.Element.Local)
			}
			continue
		}
		hb, err := writeHeader(h, op.Encoded, s.version)
		if err != nil {
			return nil, fmt.Errorf("wsdl: %s: header %s: %w", op.Name, h.Element.Local, err)
		}
		m.Envelope.Headers = append(m.Envelope.Headers, hb)
	}
	return m, nil
}

// writeHeader writes a header part as a header block.
func writeHeader(h StubHeader, encoded bool, v core.Version) (core.HeaderBlock, error) {
	e := xsd.NewBytesEncoder(nil)
	if encoded {
		e.SetEncoded(v)
	}
	if err := h.Write(e); err != nil {
		return core.HeaderBlock{}, err
	}
	if err := e.Flush(); err != nil {
		return core.HeaderBlock{}, err
	}
	return core.ParseHeaderBlock(e.Bytes())
}

// readHeader reads a header part from m's header blocks.
func readHeader(m *core.Message, h StubHeader) error {
	for _, hb := range m.Envelope.Headers {
		if hb.Name != h.Element {
			continue
		}
		d := xsd.NewDecoder(xsd.BytesReader(hb.XML))
		st, err := d.Element(h.Element.Space, h.Element.Local)
		if err != nil {
			return fmt.Errorf("header %s: %w", h.Element.Local, err)
		}
		if err := h.Read(d, st); err != nil {
			return fmt.Errorf("header %s: %w", h.Element.Local, err)
		}
		return nil
	}
	if h.Required {
		return fmt.Errorf("the required header %s is missing", h.Element.Local)
	}
	return nil
}

// readBody reads a message body with read, then refuses anything after
// what it read.
func readBody(body core.Body, encoded bool, v core.Version, read func(*xsd.Decoder) error) error {
	return readBodyWith(nil, body, encoded, v, read)
}

// readBodyWith is readBody with the Decoder d (reset to read the body),
// nil for a new one.
func readBodyWith(d *xsd.Decoder, body core.Body, encoded bool, v core.Version, read func(*xsd.Decoder) error) error {
	var tr xsd.TokenReader = body
	if encoded {
		r, err := xsd.EncodedReader(body)
		if err != nil {
			return err
		}
		tr = r
	}
	if d == nil {
		d = xsd.NewDecoder(tr)
	} else {
		d.Reset(tr)
	}
	if encoded {
		d.SetEncoded(v)
	}
	if err := read(d); err != nil {
		return err
	}
	if err := d.Rest(); err != nil {
		return err
	}
	if encoded {
		return body.Discard()
	}
	return nil
}

// fault returns the typed error of a declared fault whose detail the
// fault carries, else the fault.
func (s *Stub) fault(op *StubOperation, f *core.Fault) error {
	if len(f.Detail) == 0 || len(op.Faults) == 0 {
		return f
	}
	first, err := firstElement(f.Detail)
	if err != nil {
		return f
	}
	for _, sf := range op.Faults {
		detail, ok := detailOf(f.Detail, first, sf, op.RPC || op.Encoded)
		if !ok {
			continue
		}
		var tr xsd.TokenReader = xsd.BytesReader(detail)
		if op.Encoded {
			r, err := xsd.EncodedReader(tr)
			if err != nil {
				return &ReplyError{Op: op.Name, Err: fmt.Errorf("the detail of the fault %s: %w", sf.Name, err)}
			}
			tr = r
		}
		d := xsd.NewDecoder(tr)
		if op.Encoded {
			d.SetEncoded(s.version)
		}
		st, err := d.Peek()
		if err == nil && st == nil {
			err = errors.New("no element")
		}
		if err != nil {
			return &ReplyError{Op: op.Name, Err: fmt.Errorf("the detail of the fault %s: %w", sf.Name, err)}
		}
		typed, err := sf.Read(d, d.Take(), f)
		if err != nil {
			return &ReplyError{Op: op.Name, Err: fmt.Errorf("the detail of the fault %s: %w", sf.Name, err)}
		}
		return typed
	}
	return f
}

// detailOf returns the XML of a declared fault's detail element in a
// fault's detail: the element itself; in rpc style, an accessor of its
// local name in any namespace, or gSOAP's form, the accessor inside an
// element named as the fault or its message.
func detailOf(detail []byte, first xml.Name, sf StubFault, rpc bool) ([]byte, bool) {
	switch {
	case first == sf.Element:
		return detail, true
	case !rpc:
		return nil, false
	case first.Local == sf.Element.Local:
		return detail, true
	case first.Local == sf.Name || first.Local == sf.Message:
		inner, err := innerXML(detail)
		if err != nil {
			return nil, false
		}
		return inner, true
	}
	return nil, false
}

// innerXML returns the children of the first element of some XML, each
// namespace-complete.
func innerXML(data []byte) ([]byte, error) {
	d := xsd.NewDecoder(xsd.BytesReader(data))
	if _, err := d.Peek(); err != nil {
		return nil, err
	}
	d.Take()
	st, err := d.Peek()
	if err != nil || st == nil {
		return nil, errors.New("no element inside")
	}
	d.Take()
	raw, err := d.Raw(st)
	if err != nil {
		return nil, err
	}
	return raw, nil
}
