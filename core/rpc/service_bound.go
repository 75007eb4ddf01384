package rpc

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"log/slog"
	"reflect"

	"github.com/soapwire/soapwire/core"
)

// registerBound binds op to the contract's operation of its name in every
// version the Service serves, checking that its types fit.
func (s *Service) registerBound(op *operation) error {
	for _, v := range s.bound.versions {
		sig, err := s.bound.operation(v, op.name)
		if err != nil {
			return err
		}
		bo := &boundOp{op: op, sig: sig}
		if bo.in, err = bindMessage(sig, sig.Input, op.sig.req); err != nil {
			return fmt.Errorf("the input of %s (port %s): %w", op.name, portName(s.bound.byVersion[v]), err)
		}
		if sig.Output != nil {
			if bo.out, err = bindMessage(sig, sig.Output, op.sig.resp); err != nil {
				return fmt.Errorf("the output of %s (port %s): %w", op.name, portName(s.bound.byVersion[v]), err)
			}
		}
		key := sig.Input.Element
		if bo.in.body == nil {
			key = xml.Name{Local: "\x00" + sig.Action} // an empty Body: routed by its action
		}
		if other := s.boundOps[v][key]; other != nil {
			return fmt.Errorf("its request element %s is %s's", nameOf(key), other.op.name)
		}
		s.boundOps[v][key] = bo
		op.action = sig.Action
	}
	return nil
}

// serveBound serves a request by the contract.
func (s *Service) serveBound(ctx context.Context, m *core.Message) (*core.Message, error) {
	v := m.Version()
	ops := s.boundOps[v]
	if ops == nil {
		return nil, &core.Fault{Code: core.CodeVersionMismatch, Version: v, Supported: s.bound.versions,
			Reason: fmt.Sprintf("the contract has no SOAP %s port", v)}
	}
	name := m.Body().Name()
	bo := ops[name]
	if bo == nil && name.Local == "" {
		bo = ops[xml.Name{Local: "\x00" + m.Action}]
	}
	if bo == nil {
		s.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "rpc: no such operation", slog.String("service", s.name),
			slog.String("element", "{"+name.Space+"}"+name.Local))
		return nil, &core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{subProcedureNotPresent}, Version: v,
			Reason: fmt.Sprintf("no operation {%s}%s", name.Space, name.Local)}
	}
	op := bo.op
	req := reflect.New(op.sig.req)
	if err := s.bound.decode(v, m, &bo.in, req.Elem()); err != nil {
		s.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "rpc: request refused", slog.String("service", s.name),
			slog.String("operation", op.name), slog.Any("err", err))
		return nil, err
	}
	resp, err := op.call(ctx, req.Interface())
	if err != nil {
		return nil, s.failed(ctx, v, op, err, bo.sig)
	}
	if bo.sig.Output == nil { // one-way: accepted, no reply
		return nil, nil
	}
	raw, headers, err := s.bound.encode(v, &bo.out, reflect.ValueOf(resp).Elem())
	if err != nil {
		s.cfg.logger.LogAttrs(ctx, slog.LevelError, "rpc: response cannot be written", slog.String("service", s.name),
			slog.String("operation", op.name), slog.Any("err", err))
		return nil, fmt.Errorf("rpc: %s: the response does not fit the contract: %w", op.name, err)
	}
	var body core.Body = core.RawBody(nil)
	if len(raw) > 0 {
		body = core.StreamBody(bo.out.body.Name, func(w io.Writer) error {
			_, err := w.Write(raw)
			return err
		})
	}
	reply := m.Reply(body)
	reply.Envelope.Headers = append(reply.Envelope.Headers, headers...)
	reply.Action = op.action
	if reply.Action != "" {
		reply.Action += "Response"
	}
	return reply, nil
}
