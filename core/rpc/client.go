package rpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
	"github.com/soapwire/soapwire/core/wsdl"
)

// Client calls the operations of a service in one namespace over any
// core.RoundTripper. It is safe for concurrent use.
type Client struct {
	rt        core.RoundTripper
	namespace string
	cfg       clientConfig
	sigs      sync.Map // [2]reflect.Type → *signature
	msgPlans  sync.Map // planKey → *[2]*msgPlan
	bound     *bound
	wc        *wsdl.Client
	plans     sync.Map // boundKey → *boundCall
}

// NewClient returns a client of the service in namespace, calling through
// rt. With WithContract it panics when the contract has no such port (see
// WithContract).
func NewClient(rt core.RoundTripper, namespace string, opts ...ClientOption) *Client {
	c := &Client{rt: rt, namespace: namespace, cfg: newClientConfig(opts)}
	if ref := c.cfg.contract; ref != nil {
		var v core.Version
		if c.cfg.versionSet {
			v = c.cfg.version
		}
		b, err := bind(ref, v, false)
		if err != nil {
			panic(err.Error())
		}
		ep := b.byVersion[b.versions[0]]
		wc, err := wsdl.NewClient(ref.c, rt, wsdl.WithEndpoint(ep))
		if err != nil {
			panic("rpc: WithContract: " + err.Error())
		}
		c.bound, c.wc = b, wc
	}
	return c
}

// Call calls op with the in and inout parameters of req (a struct or a
// pointer to one, laid out as for Register) and returns the out and inout
// parameters in a new Resp. A fault reply is returned as the *core.Fault; a
// reply that lacks a required parameter (or has one it does not expect, or
// one that does not parse) is an error naming it, never a zero value.
func Call[Resp any](ctx context.Context, c *Client, op string, req any, opts ...CallOption) (*Resp, error) {
	resp := new(Resp)
	if err := c.Call(ctx, op, req, resp, opts...); err != nil {
		return nil, err
	}
	return resp, nil
}

// Call is the non-generic form of the function Call: resp points to the
// response struct.
func (c *Client) Call(ctx context.Context, op string, req, resp any, opts ...CallOption) error {
	rv := reflect.ValueOf(req)
	for rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return fmt.Errorf("rpc: call %s: nil request", op)
		}
		rv = rv.Elem()
	}
	out := reflect.ValueOf(resp)
	if out.Kind() != reflect.Pointer || out.IsNil() {
		return fmt.Errorf("rpc: call %s: resp must be a non-nil pointer to a struct", op)
	}
	var names opNames
	for _, o := range opts {
		o.applyCall(&names)
	}
	if c.bound != nil {
		return c.callBound(ctx, op, rv, out.Elem(), &names)
	}
	sig, err := c.signature(rv.Type(), out.Elem().Type())
	if err != nil {
		return fmt.Errorf("rpc: call %s: %w", op, err)
	}
	in, outPlan, err := c.messagePlans(op, &names, sig)
	if err != nil {
		return fmt.Errorf("rpc: call %s: %w", op, err)
	}
	v := c.cfg.version
	var b bytes.Buffer
	if err := encodeBody(&b, &c.cfg.wire, v, c.namespace, in, rv, ""); err != nil {
		return fmt.Errorf("rpc: call %s: %w", op, err)
	}
	headers, err := encodeHeaders(&c.cfg.wire, v, c.namespace, in, rv)
	if err != nil {
		return fmt.Errorf("rpc: call %s: %w", op, err)
	}
	m := core.NewMessage(v, bodyOf(in, b.Bytes()))
	m.Envelope.Headers = headers
	m.Action = c.cfg.actionFor(c.namespace, op)
	if names.actionSet {
		m.Action = names.action
	}
	reply, err := c.rt.RoundTrip(ctx, m)
	if err != nil {
		return err
	}
	if reply == nil {
		return fmt.Errorf("rpc: call %s: no reply", op)
	}
	if err := core.CheckReplyVersion(v, reply); err != nil {
		return fmt.Errorf("rpc: call %s: %w", op, err)
	}
	if f := reply.Fault(); f != nil {
		return f
	}
	rv2 := reply.Version()
	el, err := readBody(reply, &c.cfg.wire, c.namespace)
	if errors.Is(err, io.EOF) {
		if !outPlan.bare {
			return fmt.Errorf("rpc: call %s: empty reply body", op)
		}
		el, err = nil, nil
	}
	if err != nil {
		return fmt.Errorf("rpc: call %s: reading the reply: %w", op, err)
	}
	// The response element's name is a convention (op+"Response"), not a
	// rule (SOAP 1.1 §7.1): any name is read unless WithResponseElement
	// (or the bare style) gives it.
	if el != nil && outPlan.named && !outPlan.bare && el.Name != outPlan.element {
		return fmt.Errorf("rpc: call %s: the reply holds %s, not %s", op, nameOf(el.Name), nameOf(outPlan.element))
	}
	if err := decodeBody(rv2, el, outPlan, out.Elem(), isRPCResult); err != nil {
		return fmt.Errorf("rpc: call %s: reading the reply: %w", op, err)
	}
	if err := decodeHeaders(rv2, headersOf(reply), &c.cfg.wire, c.namespace, outPlan, out.Elem()); err != nil {
		return fmt.Errorf("rpc: call %s: reading the reply: %w", op, err)
	}
	return nil
}

// isRPCResult skips the SOAP 1.2 rpc:result accessor, which names the
// return value rather than holding it.
func isRPCResult(e *soapenc.Element) bool {
	return e.Name.Space == core.NamespaceRPC && e.Name.Local == "result"
}

// planKey is an operation, its Go types and its call options.
type planKey struct {
	op    string
	sig   *signature
	names opNames
}

// messagePlans returns the message plans of a call, made once per operation,
// types and options.
func (c *Client) messagePlans(op string, names *opNames, sig *signature) (in, out *msgPlan, err error) {
	key := planKey{op, sig, *names}
	if p, ok := c.msgPlans.Load(key); ok {
		mp := p.(*[2]*msgPlan)
		return mp[0], mp[1], nil
	}
	if in, out, err = c.cfg.plans(c.namespace, op, names, sig); err != nil {
		return nil, nil, err
	}
	c.msgPlans.Store(key, &[2]*msgPlan{in, out})
	return in, out, nil
}

func (c *Client) signature(req, resp reflect.Type) (*signature, error) {
	key := [2]reflect.Type{req, resp}
	if s, ok := c.sigs.Load(key); ok {
		return s.(*signature), nil
	}
	s, err := newSignature(req, resp)
	if err != nil {
		return nil, err
	}
	c.sigs.Store(key, s)
	return s, nil
}

// boundKey is one operation with its Go types, on a bound Client.
type boundKey struct {
	op        string
	req, resp reflect.Type
}

// boundCall is how a bound Client maps the Go types of a call onto the
// operation's messages.
type boundCall struct {
	in, out boundMsg
	err     error
}

// callBound calls op by the contract, through core/wsdl's client.
func (c *Client) callBound(ctx context.Context, op string, rv, out reflect.Value, names *opNames) error {
	key := boundKey{op, rv.Type(), out.Type()}
	p, ok := c.plans.Load(key)
	if !ok {
		bc := &boundCall{}
		v := c.bound.versions[0]
		sig, err := c.bound.operation(v, op)
		if err == nil {
			bc.in, err = bindMessage(sig, sig.Input, rv.Type())
			if err != nil {
				err = fmt.Errorf("the input: %w", err)
			}
		}
		if err == nil && sig.Output != nil {
			bc.out, err = bindMessage(sig, sig.Output, out.Type())
			if err != nil {
				err = fmt.Errorf("the output: %w", err)
			}
		}
		bc.err = err
		p, _ = c.plans.LoadOrStore(key, bc)
	}
	bc := p.(*boundCall)
	if bc.err != nil {
		return fmt.Errorf("rpc: call %s: %w", op, bc.err)
	}
	var opts []wsdl.CallOption
	if names.actionSet {
		opts = append(opts, wsdl.WithAction(names.action))
	}
	for _, bh := range bc.in.headers {
		fv := rv.FieldByIndex(bh.index)
		if (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface) && fv.IsNil() && !bh.h.Required {
			continue
		}
		opts = append(opts, wsdl.WithHeader(bh.h.Part.Name, fv.Interface()))
	}
	for _, bh := range bc.out.headers {
		opts = append(opts, wsdl.WithReplyHeader(bh.h.Part.Name, out.FieldByIndex(bh.index).Addr().Interface()))
	}
	var in, dst any
	if bc.in.body != nil {
		in = bc.in.bodyValue(rv)
	}
	switch {
	case bc.out.body == nil:
	case bc.out.field != nil:
		dst = out.FieldByIndex(bc.out.field).Addr().Interface()
	default:
		dst = out.Addr().Interface()
	}
	return c.wc.Call(ctx, op, in, dst, opts...)
}
