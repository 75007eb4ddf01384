package rpc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// msgPlan is how one direction of an operation is written and read: the
// element the Body holds and the accessors, each with the namespace it is
// written in.
type msgPlan struct {
	// element is the Body's element: the wrapper (wrapped and rpc), or the
	// one body parameter's element (bare); zero for a bare message without
	// a body parameter.
	element xml.Name
	bare    bool
	// params are the body accessors (bare: the one whose element the Body
	// holds), headers the header parts; space in each is resolved.
	params, headers []param
	// exact reads names and forms as written, in order (WithQualified):
	// no case folding, no binding by position.
	exact bool
	// named checks the Body element's name on a Client (a response
	// element given by WithResponseElement); otherwise any name is read.
	named bool
}

// plan makes the message plan of one direction: ps the body parameters,
// hs the header parts, element the wrapper (wrapped and rpc; bare: the
// element that WithRequestElement or WithResponseElement gives, else zero).
func (w *wire) plan(ns string, element xml.Name, ps, hs []param) (*msgPlan, error) {
	mp := &msgPlan{element: element, bare: w.style.IsBare(), exact: w.qualified}
	for _, p := range ps {
		p.tagSpace = p.Space
		// rpc part accessors are unqualified (WS-I Basic Profile R2735), but
		// gSOAP qualifies them when the schema says qualified: they are
		// read in either form.
		p.checkNS = p.Space != "" || w.qualified && !w.style.IsRPC()
		switch {
		case mp.bare:
			if p.Space == "" {
				p.Space = ns
			}
			p.checkNS = true
		case p.Space == "" && w.qualified && w.style == DocumentLiteral:
			p.Space = element.Space // the wrapper's local elements
		}
		mp.params = append(mp.params, p)
	}
	if mp.bare {
		switch len(mp.params) {
		case 0:
		case 1:
			if mp.element.Local == "" {
				mp.element = xml.Name{Space: mp.params[0].Space, Local: mp.params[0].Name}
			}
		default:
			return nil, fmt.Errorf("rpc: document/literal bare carries one body parameter, not %d (WS-I Basic Profile R2201): make the others headers", len(mp.params))
		}
	}
	for _, h := range hs {
		if h.Space == "" {
			h.Space = ns
		}
		h.checkNS = true
		mp.headers = append(mp.headers, h)
	}
	return mp, nil
}

// encoder returns the Encoder of the messages of a service in ns.
func (w *wire) encoder(v core.Version, ns string) soapenc.Encoder {
	tns := w.typeNamespace(ns)
	enc := soapenc.Encoder{
		Version:       soapenc.Version(v),
		MultiRefs:     w.multiRefs,
		TypeNamespace: tns,
		EncodingStyle: true,
		Literal:       w.style != RPCEncoded,
		WrapLists:     w.style == RPCLiteral,
	}
	if w.qualified {
		enc.FieldNamespace = tns
	}
	return enc
}

// paramValue returns what a parameter writes: nil (xsi:nil) for a nil
// nillable pointer.
func paramValue(p *param, sv reflect.Value) (v any, skip bool) {
	fv := sv.FieldByIndex(p.index)
	if fv.Kind() == reflect.Pointer && fv.IsNil() {
		if p.Nillable {
			return nil, false
		}
		if p.Optional {
			return nil, true
		}
	}
	return fv.Interface(), false
}

// encodeBody writes the Body's content: the wrapper element with one
// accessor per param, taken from the struct sv, or (bare) the one body
// parameter's element. rpc/encoded uses the SOAP encoding; the literal
// styles write the same values without its markup (soapenc's Literal form):
// a slice parameter is repeated elements in document/literal and an element
// of items in rpc/literal, as the WSDL says.
//
// result, for a SOAP 1.2 rpc/encoded response with a return value and
// WithRPCResult, names the return accessor: an rpc:result accessor holding
// its name comes first (SOAP 1.2 Part 2 §4.2.2).
func encodeBody(b *bytes.Buffer, w *wire, v core.Version, ns string, mp *msgPlan, sv reflect.Value, result string) error {
	enc := w.encoder(v, ns)
	if mp.bare {
		if len(mp.params) == 0 {
			return nil
		}
		val, skip := paramValue(&mp.params[0], sv)
		if skip {
			return nil
		}
		return enc.Encode(b, mp.element, val)
	}
	parts := make([]soapenc.Part, 0, len(mp.params)+1)
	if result != "" && v == core.V12 && w.style == RPCEncoded {
		parts = append(parts, soapenc.Part{Space: core.NamespaceRPC, Name: "result", Value: xml.Name{Local: result}})
	}
	for i := range mp.params {
		p := &mp.params[i]
		val, skip := paramValue(p, sv)
		if skip {
			continue
		}
		parts = append(parts, soapenc.Part{Name: p.Name, Space: p.Space, Value: val})
	}
	return enc.EncodeParts(b, mp.element, parts...)
}

// bodyOf returns the Body holding what encodeBody wrote.
func bodyOf(mp *msgPlan, raw []byte) core.Body {
	if len(raw) == 0 {
		return core.RawBody(nil)
	}
	return core.StreamBody(mp.element, func(w io.Writer) error {
		_, err := w.Write(raw)
		return err
	})
}

// decoder returns a Decoder of r for a service in ns: strict (a required
// field missing, an xsi:nil where no nil fits, a surplus element are
// refused), checking forms with WithQualified.
func (w *wire) decoder(r xml.TokenReader, ns string) *soapenc.Decoder {
	d := soapenc.NewDecoder(r)
	d.Version = 0 // read both 1.1 href/id and 1.2 ref/id: clients mix them up
	d.Strict = true
	if w.qualified {
		d.CheckForms, d.FieldNamespace = true, w.typeNamespace(ns)
	}
	return d
}

// readBody reads the Body's main element of m (the wrapper, or the bare
// parameter) as a SOAP-encoding tree; literal values read as well, led by
// the Go types. An empty Body is io.EOF.
func readBody(m *core.Message, w *wire, ns string) (*soapenc.Element, error) {
	// soapenc refuses an encodingStyle it does not know on any element
	// (SubcodeDataEncodingUnknown); core.Body hands it tokens without copies.
	v := m.Version()
	d := w.decoder(m.Body(), ns)
	d.Headers = headersOf(m) // references may point into them, ids are unique across them
	el, err := d.ReadBody()
	if errors.Is(err, io.EOF) {
		return nil, io.EOF
	}
	if err != nil {
		return nil, argsFault(v, err)
	}
	return el, nil
}

// decodeBody reads the Body into the body parameters of sv. el is the
// Body's main element (nil for an empty Body); skip leaves out accessors
// that are not parameters (rpc:result).
func decodeBody(v core.Version, el *soapenc.Element, mp *msgPlan, sv reflect.Value, skip func(*soapenc.Element) bool) error {
	if mp.bare {
		switch {
		case len(mp.params) == 0 && el != nil:
			return badArgs(v, "unexpected element %s: the Body holds nothing", nameOf(el.Name))
		case len(mp.params) == 0:
			return nil
		case el == nil:
			if mp.params[0].Optional {
				return nil
			}
			return badArgs(v, "missing element %s: the Body is empty", nameOf(mp.element))
		case el.Name != mp.element:
			return badArgs(v, "the Body holds %s, not %s", nameOf(el.Name), nameOf(mp.element))
		}
		return decodeOne(v, mp.params[0], []*soapenc.Element{el}, sv)
	}
	if el == nil {
		return badArgs(v, "missing element %s: the Body is empty", nameOf(mp.element))
	}
	return decodeParams(v, el, mp, sv, skip)
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

// nameOf writes an element name for a message: local, or {ns}local.
func nameOf(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// decodeParams binds the wrapper's children to the params of mp, fields of
// the struct sv (addressable): by name, or (not exact) by position when
// the names do not match but the count does.
func decodeParams(v core.Version, el *soapenc.Element, mp *msgPlan, sv reflect.Value, skip func(*soapenc.Element) bool) error {
	var kids []*soapenc.Element
	for _, c := range el.Children() {
		if skip != nil && skip(c) {
			continue
		}
		kids = append(kids, c)
	}
	ps := mp.params
	if mp.exact {
		return decodeExact(v, el, kids, ps, sv)
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
		if err := checkSpace(v, p, cs[0]); err != nil {
			return err
		}
		if err := decodeOne(v, p, cs, sv); err != nil {
			return err
		}
	}
	return nil
}

// decodeExact binds the wrapper's children to ps by their exact names and
// namespaces, in the parameters' order.
func decodeExact(v core.Version, el *soapenc.Element, kids []*soapenc.Element, ps []param, sv reflect.Value) error {
	groups := make([][]*soapenc.Element, len(ps))
	at := 0
	for _, c := range kids {
		j := -1
		for i := range ps {
			if ps[i].Name == c.Name.Local {
				j = i
				break
			}
		}
		switch {
		case j < 0:
			return badArgs(v, "unexpected element %s in %s", nameOf(c.Name), el.Name.Local)
		case j < at:
			return badArgs(v, "argument %s out of order in %s", ps[j].Name, el.Name.Local)
		}
		if err := checkSpace(v, ps[j], c); err != nil {
			return err
		}
		groups[j] = append(groups[j], c)
		at = j
	}
	for i, p := range ps {
		if len(groups[i]) == 0 {
			if !p.Optional {
				return badArgs(v, "missing argument %s", nameOf(xml.Name{Space: p.Space, Local: p.Name}))
			}
			continue
		}
		if err := decodeOne(v, p, groups[i], sv); err != nil {
			return err
		}
	}
	return nil
}

// checkSpace checks the namespace of a parameter's element.
func checkSpace(v core.Version, p param, c *soapenc.Element) error {
	if !p.checkNS || c.Name.Space == p.Space {
		return nil
	}
	if p.Space == "" {
		return badArgs(v, "argument %s is in the namespace %s, but must be in none (unqualified)", p.Name, c.Name.Space)
	}
	if c.Name.Space == "" {
		return badArgs(v, "argument %s is in no namespace, but must be in %s (qualified)", p.Name, p.Space)
	}
	return badArgs(v, "argument %s is in the namespace %s, but must be in %s", p.Name, c.Name.Space, p.Space)
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
