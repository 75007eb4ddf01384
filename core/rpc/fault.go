package rpc

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"reflect"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
)

// DetailFault is an error a function returns to answer a fault whose
// detail is a Go value: a Service writes Detail as the fault's detail
// element. On a Service bound to a contract, the element is the
// operation's declared fault (wsdl:fault) the value fits, written by the
// contract's schema (a declared fault whose element or name is the Go
// type's name is tried first); on a code-first Service, an element named
// as the Go type (or its XMLName field) in the service namespace, written
// as the service writes its values. A value that fits no declared fault is
// the Service's own error: a Receiver fault that hides it, and a log line.
type DetailFault struct {
	Code     core.Code // default Sender
	Subcodes []xml.Name
	Reason   string
	Detail   any
}

func (f *DetailFault) Error() string {
	return fmt.Sprintf("rpc: fault %s: %s (detail %T)", f.code(), f.Reason, f.Detail)
}

func (f *DetailFault) code() core.Code {
	if f.Code == 0 {
		return core.CodeSender
	}
	return f.Code
}

// failed logs what a function returned and turns it into the error the
// Service answers: a *DetailFault becomes its *core.Fault (sig: the bound
// operation, or nil).
func (s *Service) failed(ctx context.Context, v core.Version, op *operation, err error, sig *wsdl.Signature) error {
	var df *DetailFault
	if errors.As(err, &df) {
		f, ferr := s.detailFault(v, df, sig)
		if ferr != nil {
			s.cfg.logger.LogAttrs(ctx, slog.LevelError, "rpc: the fault's detail cannot be written", slog.String("service", s.name),
				slog.String("operation", op.name), slog.Any("err", ferr))
			return fmt.Errorf("rpc: %s: the fault's detail: %w", op.name, ferr)
		}
		err = f
	}
	var f *core.Fault
	if errors.As(err, &f) {
		s.cfg.logger.LogAttrs(ctx, slog.LevelInfo, "rpc: operation returned a fault", slog.String("service", s.name),
			slog.String("operation", op.name), slog.String("fault", f.Error()))
	} else { // its text stays here: the peer gets a generic Receiver fault
		s.cfg.logger.LogAttrs(ctx, slog.LevelError, "rpc: operation failed", slog.String("service", s.name),
			slog.String("operation", op.name), slog.Any("err", err))
	}
	return err
}

// detailFault writes df's detail: by the declared faults of sig when
// bound, else as the Service writes values.
func (s *Service) detailFault(v core.Version, df *DetailFault, sig *wsdl.Signature) (*core.Fault, error) {
	f := &core.Fault{Code: df.code(), Subcodes: df.Subcodes, Reason: df.Reason, Version: v}
	if df.Detail == nil {
		return f, nil
	}
	rv := reflect.ValueOf(df.Detail)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	goName := rv.Type().Name()
	var b bytes.Buffer
	if sig == nil {
		name := xml.Name{Space: s.namespace, Local: goName}
		if xn := rv.FieldByName("XMLName"); rv.Kind() == reflect.Struct && xn.IsValid() && xn.Type() == reflect.TypeFor[xml.Name]() {
			if n := xn.Interface().(xml.Name); n.Local != "" {
				name = n
			}
		}
		enc := s.cfg.encoder(v, s.namespace)
		enc.EncodingStyle = false
		if err := enc.Encode(&b, name, df.Detail); err != nil {
			return nil, err
		}
		f.Detail = b.Bytes()
		return f, nil
	}
	// the declared faults, those named as the Go type first
	faults := append([]*wsdl.FaultSignature(nil), sig.Faults...)
	for i, fs := range faults {
		if fs.Element != nil && (fs.Element.Name.Local == goName || fs.Name == goName) {
			faults[0], faults[i] = faults[i], faults[0]
			break
		}
	}
	var errs []error
	for _, fs := range faults {
		if fs.Element == nil {
			continue
		}
		b.Reset()
		err := s.bound.codec(fs.Use, v).Encode(&b, fs.Element, df.Detail)
		if err == nil {
			f.Detail = append([]byte(nil), b.Bytes()...)
			return f, nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", fs.Name, err))
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("the operation %s declares no fault with a detail element", sig.Name)
	}
	return nil, fmt.Errorf("the detail %T fits no declared fault of %s: %w", df.Detail, sig.Name, errors.Join(errs...))
}
