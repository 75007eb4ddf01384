package rpc

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
)

// Service is a set of RPC operations in one namespace. It is a core.Handler:
// mount it in a core.Mux or as a core.Node's Handler. Register operations
// before serving; a Service is then safe for concurrent use.
type Service struct {
	namespace string
	name      string
	cfg       serviceConfig
	ops       map[string]*operation
	routes    map[xml.Name]*operation // by the request's Body element
	order     []*operation
	bound     *bound                                 // WithContract
	boundOps  map[core.Version]map[xml.Name]*boundOp // by version and the request's Body element
}

// boundOp is an operation of a bound Service in one SOAP version.
type boundOp struct {
	op      *operation
	sig     *wsdl.Signature
	in, out boundMsg
}

var _ core.Handler = (*Service)(nil)

type operation struct {
	name    string
	action  string
	doc     string
	names   opNames
	sig     *signature
	in, out *msgPlan
	call    func(ctx context.Context, req any) (any, error)
}

// opNames are what OperationOptions set.
type opNames struct {
	action            string
	actionSet         bool
	request, response xml.Name
}

// OpOption configures one operation (Register).
type OpOption interface{ applyOp(*operation) }

// CallOption configures one call (Call).
type CallOption interface{ applyCall(*opNames) }

// OperationOption configures one operation on either side: Register and
// Call.
type OperationOption interface {
	OpOption
	CallOption
}

type opOptionFunc func(*operation)

func (f opOptionFunc) applyOp(o *operation) { f(o) }

// namesOption sets what an operation's messages are named.
type namesOption func(*opNames)

func (f namesOption) applyOp(o *operation) { f(&o.names) }
func (f namesOption) applyCall(n *opNames) { f(n) }

// WithAction sets the operation's SOAPAction, overriding the service's
// pattern (see WithSOAPAction).
func WithAction(action string) OperationOption {
	return namesOption(func(n *opNames) { n.action, n.actionSet = action, true })
}

// WithRequestElement names the element the request's Body holds: the
// wrapper (document/literal and rpc; by default the operation name in the
// service namespace) or, in document/literal bare, the body parameter's
// element (by default its field's name). A Service routes on it.
func WithRequestElement(name xml.Name) OperationOption {
	return namesOption(func(n *opNames) { n.request = name })
}

// WithResponseElement names the element the response's Body holds: the
// wrapper (by default the operation name + "Response" in the service
// namespace) or, in document/literal bare, the body parameter's element.
// A Client given it refuses a reply whose element has another name; without
// it, a Client reads a wrapper of any name (the name is a convention, SOAP
// 1.1 §7.1).
func WithResponseElement(name xml.Name) OperationOption {
	return namesOption(func(n *opNames) { n.response = name })
}

// WithDoc sets the operation's documentation, written into the WSDL.
func WithDoc(doc string) OpOption { return opOptionFunc(func(o *operation) { o.doc = doc }) }

// NewService returns an empty service named name (the WSDL service name)
// whose operations live in namespace.
func NewService(namespace, name string, opts ...ServiceOption) *Service {
	s := &Service{namespace: namespace, name: name, cfg: newServiceConfig(opts), ops: map[string]*operation{},
		routes: map[xml.Name]*operation{}}
	if ref := s.cfg.contract; ref != nil {
		b, err := bind(ref, 0, true)
		if err != nil {
			panic(err.Error())
		}
		s.bound, s.boundOps = b, map[core.Version]map[xml.Name]*boundOp{}
		for _, v := range b.versions {
			s.boundOps[v] = map[xml.Name]*boundOp{}
		}
	}
	return s
}

// Namespace returns the service namespace.
func (s *Service) Namespace() string { return s.namespace }

// Name returns the service name.
func (s *Service) Name() string { return s.name }

// Style returns the service's style.
func (s *Service) Style() Style { return s.cfg.style }

// Register adds the operation name to s, served by fn. Req's fields are the
// in and inout parameters in order, Resp's fields the out and inout ones; the
// first out field of Resp is the return value. Names come from a
// `soap:"name"` tag, else an `xml:"name"` or `xml:"urn:x name"` tag, else the
// field name; tag options in, out, inout set the mode, omitempty makes a
// parameter optional (as pointers and slices are), nillable makes a pointer
// required and nillable, header makes the field a header part. Register
// panics when the types do not form a valid signature, the name is taken or
// another operation reads the same request element: programmer errors found
// at setup.
//
// fn's error is the fault: a *core.Fault goes out as it is, any other error
// as a Receiver fault that does not reveal its text. A nil *Resp with a nil
// error answers with a zero Resp.
func Register[Req, Resp any](s *Service, name string, fn func(context.Context, *Req) (*Resp, error), opts ...OpOption) {
	sig, err := newSignature(reflect.TypeFor[Req](), reflect.TypeFor[Resp]())
	if err != nil {
		panic(fmt.Sprintf("rpc: register %s: %v", name, err))
	}
	if name == "" {
		panic("rpc: register: empty operation name")
	}
	if _, dup := s.ops[name]; dup {
		panic("rpc: register: duplicate operation " + name)
	}
	op := &operation{
		name: name,
		sig:  sig,
		call: func(ctx context.Context, req any) (any, error) {
			resp, err := fn(ctx, req.(*Req))
			if err != nil {
				return nil, err
			}
			if resp == nil {
				resp = new(Resp)
			}
			return resp, nil
		},
	}
	for _, o := range opts {
		o.applyOp(op)
	}
	if s.bound != nil {
		if err := s.registerBound(op); err != nil {
			panic(fmt.Sprintf("rpc: register %s: %v", name, err))
		}
		s.ops[name] = op
		s.order = append(s.order, op)
		return
	}
	op.action = s.cfg.actionFor(s.namespace, name)
	if op.names.actionSet {
		op.action = op.names.action
	}
	if op.in, op.out, err = s.cfg.plans(s.namespace, name, &op.names, sig); err != nil {
		panic(fmt.Sprintf("rpc: register %s: %v", name, err))
	}
	if op.in.element.Local == "" {
		panic(fmt.Sprintf("rpc: register %s: a %s request needs one body parameter, whose element routes it", name, s.cfg.style))
	}
	if other := s.routes[op.in.element]; other != nil {
		panic(fmt.Sprintf("rpc: register %s: its request element %s is %s's", name, nameOf(op.in.element), other.name))
	}
	s.ops[name] = op
	s.routes[op.in.element] = op
	s.order = append(s.order, op)
}

// plans makes the request and response plans of the operation name in
// namespace ns.
func (w *wire) plans(ns, name string, n *opNames, sig *signature) (in, out *msgPlan, err error) {
	req, resp := n.request, n.response
	if !w.style.IsBare() {
		if req.Local == "" {
			req = xml.Name{Space: ns, Local: name}
		}
		if resp.Local == "" {
			resp = xml.Name{Space: ns, Local: name + "Response"}
		}
	}
	if in, err = w.plan(ns, req, sig.in, sig.inH); err != nil {
		return nil, nil, fmt.Errorf("the request: %w", err)
	}
	if out, err = w.plan(ns, resp, sig.out, sig.outH); err != nil {
		return nil, nil, fmt.Errorf("the response: %w", err)
	}
	out.named = n.response.Local != "" || w.style.IsBare()
	return in, out, nil
}

// Operations lists the operation names in registration order.
func (s *Service) Operations() []string {
	names := make([]string, len(s.order))
	for i, op := range s.order {
		names[i] = op.name
	}
	return names
}

// ServeSOAP dispatches the request to the operation its body names and
// answers in the request's SOAP version.
func (s *Service) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	if s.bound != nil {
		return s.serveBound(ctx, m)
	}
	v := m.Version()
	body := m.Body()
	name := body.Name()
	op := s.routes[name]
	if op == nil && name.Space == "" && !s.cfg.qualified && !s.cfg.style.IsBare() {
		op = s.routes[xml.Name{Space: s.namespace, Local: name.Local}] // an operation element in no namespace
	}
	if op == nil {
		f := &core.Fault{
			Code:     core.CodeSender,
			Subcodes: []xml.Name{subProcedureNotPresent},
			Reason:   fmt.Sprintf("no operation {%s}%s", name.Space, name.Local),
			Version:  v,
		}
		s.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "rpc: no such operation", slog.String("service", s.name),
			slog.String("element", "{"+name.Space+"}"+name.Local))
		return nil, f
	}
	refused := func(err error) (*core.Message, error) {
		s.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "rpc: request refused", slog.String("service", s.name),
			slog.String("operation", op.name), slog.Any("err", err))
		return nil, err
	}
	el, err := readBody(m, &s.cfg.wire, s.namespace)
	if err != nil && !errors.Is(err, io.EOF) {
		return refused(err)
	}
	req := reflect.New(op.sig.req)
	if err := decodeBody(v, el, op.in, req.Elem(), nil); err != nil {
		return refused(err)
	}
	if err := decodeHeaders(v, headersOf(m), &s.cfg.wire, s.namespace, op.in, req.Elem()); err != nil {
		return refused(err)
	}
	resp, err := op.call(ctx, req.Interface())
	if err != nil {
		return nil, s.failed(ctx, v, op, err, nil)
	}
	rv := reflect.ValueOf(resp).Elem()
	var b bytes.Buffer
	result := ""
	if op.sig.hasReturn && s.cfg.rpcResult {
		result = op.sig.out[0].Name
	}
	err = encodeBody(&b, &s.cfg.wire, v, s.namespace, op.out, rv, result)
	var headers []core.HeaderBlock
	if err == nil {
		headers, err = encodeHeaders(&s.cfg.wire, v, s.namespace, op.out, rv)
	}
	if err != nil {
		s.cfg.logger.LogAttrs(ctx, slog.LevelError, "rpc: response cannot be written", slog.String("service", s.name),
			slog.String("operation", op.name), slog.Any("err", err))
		return nil, fmt.Errorf("rpc: %s: write the response: %w", op.name, err)
	}
	reply := m.Reply(bodyOf(op.out, b.Bytes()))
	reply.Envelope.Headers = append(reply.Envelope.Headers, headers...)
	reply.Action = op.action
	if reply.Action != "" {
		reply.Action += "Response"
	}
	return reply, nil
}

// headersOf returns m's header blocks.
func headersOf(m *core.Message) []core.HeaderBlock {
	if m == nil || m.Envelope == nil {
		return nil
	}
	return m.Envelope.Headers
}
