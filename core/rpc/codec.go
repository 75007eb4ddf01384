package rpc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// encodeWrapper writes the operation (or response) element named wrapper
// with one accessor per param, taken from the struct sv. rpc/encoded uses
// the SOAP encoding; the literal styles write the same values without its
// markup (soapenc's Literal form): a slice parameter is repeated elements in
// document/literal and an element of items in rpc/literal, as the WSDL says.
//
// result, for a SOAP 1.2 rpc/encoded response with a return value and
// WithRPCResult, names the return accessor: an rpc:result accessor holding
// its name comes first (SOAP 1.2 Part 2 §4.2.2).
func encodeWrapper(b *bytes.Buffer, c *wire, v core.Version, wrapper xml.Name, ps []param, sv reflect.Value, result string) error {
	parts := make([]soapenc.Part, 0, len(ps)+1)
	if result != "" && v == core.V12 && c.style == RPCEncoded {
		parts = append(parts, soapenc.Part{Space: core.NamespaceRPC, Name: "result", Value: xml.Name{Local: result}})
	}
	for _, p := range ps {
		fv := sv.FieldByIndex(p.index)
		if p.Optional && fv.IsZero() && fv.Kind() == reflect.Pointer {
			continue
		}
		parts = append(parts, soapenc.Part{Name: p.Name, Value: fv.Interface()})
	}
	enc := soapenc.Encoder{
		Version:       soapenc.Version(v),
		MultiRefs:     c.multiRefs,
		TypeNamespace: wrapper.Space,
		EncodingStyle: true,
		Literal:       c.style != RPCEncoded,
		WrapLists:     c.style == RPCLiteral,
	}
	return enc.EncodeParts(b, wrapper, parts...)
}

// readWrapper reads the body's main element (the operation or response
// wrapper) of m as a SOAP-encoding tree; literal values read as well, led by
// the Go types.
func readWrapper(m *core.Message) (*soapenc.Element, error) {
	// soapenc refuses an encodingStyle it does not know on any element
	// (SubcodeDataEncodingUnknown); core.Body hands it tokens without copies.
	v := m.Version()
	d := soapenc.NewDecoder(m.Body())
	d.Version = 0                  // read both 1.1 href/id and 1.2 ref/id: clients mix them up
	d.Headers = m.Envelope.Headers // references may point into them, ids are unique across them
	el, err := d.ReadBody()
	if err != nil {
		return nil, argsFault(v, err)
	}
	return el, nil
}

var (
	subBadArguments        = xml.Name{Space: core.NamespaceRPC, Local: "BadArguments"}
	subProcedureNotPresent = xml.Name{Space: core.NamespaceRPC, Local: "ProcedureNotPresent"}
)

// badArgs is a Sender fault with the rpc:BadArguments subcode.
func badArgs(v core.Version, format string, args ...any) *core.Fault {
	return &core.Fault{
		Code:     core.CodeSender,
		Subcodes: []xml.Name{subBadArguments},
		Reason:   fmt.Sprintf(format, args...),
		Version:  v,
	}
}

// argsFault maps an error from reading arguments to a fault.
func argsFault(v core.Version, err error) error {
	var e *soapenc.Error
	if errors.As(err, &e) {
		switch e.Subcode {
		case soapenc.SubcodeMissingID, soapenc.SubcodeDuplicateID:
			return &core.Fault{
				Code:     core.CodeSender,
				Subcodes: []xml.Name{{Space: core.EncodingStyleV12, Local: e.Subcode}},
				Reason:   e.Error(),
				Version:  v,
				Cause:    err,
			}
		case soapenc.SubcodeDataEncodingUnknown:
			return &core.Fault{Code: core.CodeDataEncodingUnknown, Reason: e.Error(), Version: v, Cause: err}
		case soapenc.SubcodeUnsupported:
			return err // ours: a Receiver fault that hides the text
		}
		f := badArgs(v, "bad arguments: %s", e.Error())
		f.Cause = err
		return f
	}
	var f *core.Fault
	if errors.As(err, &f) {
		return f
	}
	bf := badArgs(v, "bad arguments")
	bf.Cause = err
	return bf
}

// decodeParams binds the wrapper's children to ps, fields of the struct sv
// (addressable): by name, or by position when the names do not match but
// the count does.
func decodeParams(v core.Version, el *soapenc.Element, ps []param, sv reflect.Value, skip func(*soapenc.Element) bool) error {
	var kids []*soapenc.Element
	for _, c := range el.Children() {
		if skip != nil && skip(c) {
			continue
		}
		kids = append(kids, c)
	}
	byName := make(map[string][]*soapenc.Element, len(kids))
	matched := true
	for _, c := range kids {
		p := paramNamed(ps, c.Name.Local)
		if p == nil {
			matched = false
			break
		}
		byName[p.Name] = append(byName[p.Name], c)
	}
	if !matched {
		if len(kids) != len(ps) {
			return badArgs(v, "%d arguments do not match the %d parameters of %s", len(kids), len(ps), el.Name.Local)
		}
		for i, p := range ps {
			if err := decodeOne(v, p, kids[i:i+1], sv); err != nil {
				return err
			}
		}
		return nil
	}
	for _, p := range ps {
		cs := byName[p.Name]
		if len(cs) == 0 {
			if !p.Optional {
				return badArgs(v, "missing argument %s", p.Name)
			}
			continue
		}
		if err := decodeOne(v, p, cs, sv); err != nil {
			return err
		}
	}
	return nil
}

func decodeOne(v core.Version, p param, cs []*soapenc.Element, sv reflect.Value) error {
	ptr := sv.FieldByIndex(p.index).Addr().Interface()
	var err error
	switch {
	case len(cs) == 1:
		err = cs[0].Decode(ptr)
	case isList(p.Type):
		err = soapenc.DecodeItems(cs, ptr)
	default:
		return badArgs(v, "argument %s given %d times", p.Name, len(cs))
	}
	if err != nil {
		return argsFault(v, err)
	}
	return nil
}

func isList(t reflect.Type) bool {
	k := t.Kind()
	return (k == reflect.Slice || k == reflect.Array) && t.Elem().Kind() != reflect.Uint8
}

func paramNamed(ps []param, local string) *param {
	for i := range ps {
		if ps[i].Name == local {
			return &ps[i]
		}
	}
	for i := range ps {
		if strings.EqualFold(ps[i].Name, local) {
			return &ps[i]
		}
	}
	return nil
}
