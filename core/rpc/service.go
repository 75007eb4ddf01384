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
)

// Service is a set of RPC operations in one namespace. It is a core.Handler:
// mount it in a core.Mux or as a core.Node's Handler. Register operations
// before serving; a Service is then safe for concurrent use.
type Service struct {
	namespace string
	name      string
	cfg       serviceConfig
	ops       map[string]*operation
	order     []*operation
}

var _ core.Handler = (*Service)(nil)

type operation struct {
	name   string
	action string
	doc    string
	sig    *signature
	call   func(ctx context.Context, req any) (any, error)
}

// OpOption configures one operation (Register).
type OpOption interface{ applyOp(*operation) }

type opOptionFunc func(*operation)

func (f opOptionFunc) applyOp(o *operation) { f(o) }

// WithAction sets the operation's SOAPAction, overriding the service's
// pattern (see WithSOAPAction).
func WithAction(action string) OpOption {
	return opOptionFunc(func(o *operation) { o.action = action })
}

// WithDoc sets the operation's documentation, written into the WSDL.
func WithDoc(doc string) OpOption { return opOptionFunc(func(o *operation) { o.doc = doc }) }

// NewService returns an empty service named name (the WSDL service name)
// whose operations live in namespace.
func NewService(namespace, name string, opts ...ServiceOption) *Service {
	return &Service{namespace: namespace, name: name, cfg: newServiceConfig(opts), ops: map[string]*operation{}}
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
// `soap:"name"` tag, else an `xml:"name"` tag, else the field name; tag
// options in, out, inout set the mode and omitempty makes a parameter
// optional. Register panics when the types do not form a valid signature or
// the name is taken: both are programmer errors found at setup.
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
		name:   name,
		action: s.cfg.actionFor(s.namespace, name),
		sig:    sig,
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
	s.ops[name] = op
	s.order = append(s.order, op)
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
	v := m.Version()
	body := m.Body()
	name := body.Name()
	op := s.ops[name.Local]
	if op == nil || (name.Space != s.namespace && name.Space != "") {
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
	el, err := readWrapper(m)
	if err != nil {
		return refused(err)
	}
	req := reflect.New(op.sig.req)
	if err := decodeParams(v, el, op.sig.in, req.Elem(), nil); err != nil {
		return refused(err)
	}
	resp, err := op.call(ctx, req.Interface())
	if err != nil {
		var f *core.Fault
		if errors.As(err, &f) {
			s.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "rpc: operation returned a fault", slog.String("service", s.name),
				slog.String("operation", op.name), slog.String("fault", f.Error()))
		} else { // its text stays here: the peer gets a generic Receiver fault
			s.cfg.logger.LogAttrs(ctx, slog.LevelError, "rpc: operation failed", slog.String("service", s.name),
				slog.String("operation", op.name), slog.Any("err", err))
		}
		return nil, err
	}
	rv := reflect.ValueOf(resp).Elem()
	var b bytes.Buffer
	wrapper := xml.Name{Space: s.namespace, Local: op.name + "Response"}
	result := ""
	if op.sig.hasReturn && s.cfg.rpcResult {
		result = op.sig.out[0].Name
	}
	if err := encodeWrapper(&b, &s.cfg.wire, v, wrapper, op.sig.out, rv, result); err != nil {
		s.cfg.logger.LogAttrs(ctx, slog.LevelError, "rpc: response cannot be written", slog.String("service", s.name),
			slog.String("operation", op.name), slog.Any("err", err))
		return nil, fmt.Errorf("rpc: %s: write the response: %w", op.name, err)
	}
	raw := b.Bytes()
	reply := m.Reply(core.StreamBody(wrapper, func(w io.Writer) error {
		_, err := w.Write(raw)
		return err
	}))
	reply.Action = op.action
	if reply.Action != "" {
		reply.Action += "Response"
	}
	return reply, nil
}
