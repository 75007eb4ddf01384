package rpc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/wsdl"
	"github.com/soapwire/soapwire/core/xsd"
)

// This file binds a Service or a Client to a contract (WithContract): the
// messages are then written and read by core/xsd's codec, exactly as the
// contract's schemas say.

// contractRef is what WithContract gives.
type contractRef struct {
	c    *wsdl.Contract
	port string
}

// WithContract binds a Service or a Client to the port named port of
// contract c ("" for its first SOAP port): the operations, element names,
// forms, order and types are then the contract's, written and read by
// core/xsd's codec (which checks everything it reads), and the options
// that shape messages (WithStyle, WithQualified, WithTypeNamespace,
// WithSOAPAction, WithMultiRefs) do not apply. Go types map onto the
// schema as the codec maps them: xml tags name elements (`xml:"name"`,
// `xml:"ns name"`) and attributes (`xml:"name,attr"`), xsd.Nillable[T]
// tells nil from absent, and a field tagged header is a soap:header part.
//
// A bound Service serves the port's SOAP version and the other version's
// port of the same service and port type, if the contract has one: a
// request is read by the signature of the port of its version. Register
// refuses (panics) a function whose types do not fit the contract's
// operation, naming the mismatch. WSDL writes the contract's document with
// the address given. A bound Client takes its SOAP version from the port
// (WithVersion chooses the port when port is ""), and its first Call of an
// operation checks the types likewise, returning the mismatch as an error.
//
// NewService and NewClient panic when the contract has no such port: find
// it first with c.FindEndpoint to handle that as an error.
func WithContract(c *wsdl.Contract, port string) Option {
	return wireOption(func(w *wire) { w.contract = &contractRef{c: c, port: port} })
}

// bound is a contract a Service or Client is bound to.
type bound struct {
	contract  *wsdl.Contract
	byVersion map[core.Version]*wsdl.Endpoint
	versions  []core.Version
	literal   *xsd.Codec
	encoded   map[core.Version]*xsd.Codec
}

// bind resolves a contractRef: the port's endpoint and, for a Service
// (both), the other version's port of the same service and port type.
func bind(ref *contractRef, version core.Version, both bool) (*bound, error) {
	if ref.c == nil {
		return nil, errors.New("rpc: WithContract: no contract")
	}
	opts := []wsdl.ClientOption{wsdl.WithPort("", ref.port)}
	if ref.port == "" && version != 0 {
		opts = []wsdl.ClientOption{wsdl.WithVersion(version)}
	}
	first, err := ref.c.FindEndpoint(opts...)
	if err != nil {
		return nil, fmt.Errorf("rpc: WithContract: %w", err)
	}
	b := &bound{contract: ref.c, byVersion: map[core.Version]*wsdl.Endpoint{first.Version: first},
		versions: []core.Version{first.Version}, literal: xsd.NewCodec(ref.c.Schemas), encoded: map[core.Version]*xsd.Codec{}}
	if both {
		for _, e := range ref.c.Endpoints() {
			if e.Service == first.Service && e.Binding.PortType == first.Binding.PortType && b.byVersion[e.Version] == nil {
				b.byVersion[e.Version] = e
				b.versions = append(b.versions, e.Version)
			}
		}
	}
	for _, v := range b.versions {
		b.encoded[v] = xsd.NewCodec(ref.c.Schemas, xsd.Encoded(v))
	}
	return b, nil
}

// codec returns the codec of a message's use in version v.
func (b *bound) codec(u wsdl.Use, v core.Version) *xsd.Codec {
	if u == wsdl.Encoded {
		return b.encoded[v]
	}
	return b.literal
}

// operation returns the signature of op in the endpoint of version v.
func (b *bound) operation(v core.Version, op string) (*wsdl.Signature, error) {
	e := b.byVersion[v]
	for _, s := range e.Operations {
		if s.Name == op {
			return s, nil
		}
	}
	names := make([]string, len(e.Operations))
	for i, s := range e.Operations {
		names[i] = s.Name
	}
	sort.Strings(names)
	return nil, fmt.Errorf("the contract's port %s has no operation %s (it has %s)", portName(e), op, strings.Join(names, ", "))
}

func portName(e *wsdl.Endpoint) string {
	if e.Port != nil {
		return e.Port.Name
	}
	return e.Binding.Name.Local
}

// boundMsg is how one direction of a bound operation maps onto its Go
// struct.
type boundMsg struct {
	ms *wsdl.MessageSignature
	// body is the element the codec writes and reads in the Body: the
	// wrapper (an rpc one made by xsd.WrapperElement), or the one bare
	// part's; nil when the Body is empty.
	body *xsd.Element
	// field is the Go field the bare part is in; nil when the whole struct
	// is the wrapper's content.
	field   []int
	headers []boundHeader
	hidden  [][]int // the header fields, left out of the body's value
}

// boundHeader is a header part and its Go field.
type boundHeader struct {
	h     *wsdl.HeaderSignature
	index []int
	typ   reflect.Type
}

// bindMessage maps struct type t onto one direction of sig, checking that
// it fits.
func bindMessage(sig *wsdl.Signature, ms *wsdl.MessageSignature, t reflect.Type) (boundMsg, error) {
	bm := boundMsg{ms: ms}
	if t.Kind() != reflect.Struct {
		return bm, fmt.Errorf("%v is not a struct type", t)
	}
	fs := goFields(t)
	f := newFitter()
	matched := map[*goField]bool{}
	for _, h := range ms.Headers {
		var gf *goField
		for _, c := range fs {
			if c.header && (c.name == h.Element.Name.Local || c.name == h.Part.Name) && (c.space == "" || c.space == h.Element.Name.Space) {
				gf = c
				break
			}
		}
		if gf == nil {
			if h.Required {
				return bm, fmt.Errorf("the required header part %s has no Go field tagged header in %v", h.Part.Name, t)
			}
			continue
		}
		matched[gf] = true
		if err := f.element(h.Element.Name.Local, gf.typ, h.Element, 0, 1); err != nil {
			return bm, err
		}
		bm.headers = append(bm.headers, boundHeader{h: h, index: gf.index, typ: gf.typ})
		bm.hidden = append(bm.hidden, gf.index)
	}
	var body []*goField
	for _, c := range fs {
		switch {
		case c.header && !matched[c]:
			return bm, fmt.Errorf("the Go field %s of %v is tagged header, but the %s has no header part %s (%s)", c.goName, t, direction(ms == sig.Output), c.name, headerNames(ms))
		case !c.header:
			body = append(body, c)
		}
	}
	switch {
	case sig.Style == wsdl.RPC:
		bm.body = xsd.WrapperElement(ms.Element, ms.Params)
	case ms.Wrapped:
		bm.body = ms.Parts[0].Element
	case len(ms.Params) == 0:
		if len(body) > 0 {
			return bm, fmt.Errorf("the %s's Body is empty: the Go field %s of %v has no place", direction(ms == sig.Output), body[0].goName, t)
		}
		return bm, nil
	case len(ms.Params) > 1:
		return bm, fmt.Errorf("the %s has %d body parts: a bound Service or Client carries one", direction(ms == sig.Output), len(ms.Params))
	default:
		bm.body = ms.Params[0].Element
		if len(body) != 1 {
			return bm, fmt.Errorf("the %s is bare, its one part the element %s: %v must have one field (not a header) for it, not %d",
				direction(ms == sig.Output), bm.body.Name.Local, t, len(body))
		}
		bm.field = body[0].index
		return bm, f.element(bm.body.Name.Local, body[0].typ, bm.body, 1, 1)
	}
	ct, ok := bm.body.Type.(*xsd.ComplexType)
	if !ok {
		return bm, fmt.Errorf("the wrapper %s is not of a complex type", bm.body.Name.Local)
	}
	return bm, f.complex(bm.body.Name.Local, t, ct)
}

func direction(output bool) string {
	if output {
		return "output"
	}
	return "input"
}

func headerNames(ms *wsdl.MessageSignature) string {
	if len(ms.Headers) == 0 {
		return "it has none"
	}
	var names []string
	for _, h := range ms.Headers {
		names = append(names, h.Part.Name)
	}
	return "it has " + strings.Join(names, ", ")
}

// valueError turns what the codec refused into the fault of version v:
// rpc:BadArguments naming the place, or a Sender fault the reader gave.
func valueError(v core.Version, err error) error {
	var ve *xsd.ValueError
	if errors.As(err, &ve) {
		f := badArgs(v, "%s", ve.Error())
		f.Cause = err
		return f
	}
	var f *core.Fault
	if errors.As(err, &f) {
		return f
	}
	bf := badArgs(v, "bad arguments: %v", err)
	bf.Cause = err
	return bf
}

// decode reads a message's Body and headers into the struct sv
// (addressable) as bm says, checking them against the contract.
func (b *bound) decode(v core.Version, m *core.Message, bm *boundMsg, sv reflect.Value) error {
	c := b.codec(bm.ms.Use, v)
	body := m.Body()
	if bm.body != nil {
		target := sv.Addr().Interface()
		if bm.field != nil {
			target = sv.FieldByIndex(bm.field).Addr().Interface()
		}
		if err := c.Decode(body, bm.body, target); err != nil {
			if errors.Is(err, io.EOF) {
				return badArgs(v, "missing element %s: the Body is empty", nameOf(bm.body.Name))
			}
			return valueError(v, err)
		}
	}
	if err := rest(body); err != nil {
		return valueError(v, err)
	}
	for _, bh := range bm.headers {
		var found [][]byte
		for _, hb := range headersOf(m) {
			if hb.Name == bh.h.Element.Name {
				found = append(found, hb.XML)
			}
		}
		switch {
		case len(found) == 0 && bh.h.Required:
			return badArgs(v, "missing header %s", nameOf(bh.h.Element.Name))
		case len(found) == 0:
			continue
		case len(found) > 1:
			return badArgs(v, "header %s given %d times", nameOf(bh.h.Element.Name), len(found))
		}
		if err := b.codec(bh.h.Use, v).DecodeBytes(found[0], bh.h.Element, sv.FieldByIndex(bh.index).Addr().Interface()); err != nil {
			return valueError(v, err)
		}
	}
	return nil
}

// rest refuses anything in the body after what the message holds.
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
			return &xsd.ValueError{Msg: fmt.Sprintf("the element %s follows what the message holds", string(t.Name.Local))}
		case core.CharData:
			if strings.TrimSpace(string(t.Text)) != "" {
				return &xsd.ValueError{Msg: "text follows what the message holds"}
			}
		}
	}
}

// bodyValue returns what the codec writes as the Body of sv: the bare
// part's field, or the struct without its header fields.
func (bm *boundMsg) bodyValue(sv reflect.Value) any {
	if bm.field != nil {
		return sv.FieldByIndex(bm.field).Interface()
	}
	if len(bm.hidden) > 0 {
		cp := reflect.New(sv.Type()).Elem()
		cp.Set(sv)
		for _, idx := range bm.hidden {
			cp.FieldByIndex(idx).SetZero()
		}
		sv = cp
	}
	return sv.Interface()
}

// encode writes a message of sv (the struct) as bm says: the Body's
// content and the header blocks.
func (b *bound) encode(v core.Version, bm *boundMsg, sv reflect.Value) ([]byte, []core.HeaderBlock, error) {
	var buf bytes.Buffer
	if bm.body != nil {
		if err := b.codec(bm.ms.Use, v).Encode(&buf, bm.body, bm.bodyValue(sv)); err != nil {
			return nil, nil, err
		}
	}
	var headers []core.HeaderBlock
	for _, bh := range bm.headers {
		fv := sv.FieldByIndex(bh.index)
		if (fv.Kind() == reflect.Pointer || fv.Kind() == reflect.Interface) && fv.IsNil() && !bh.h.Required {
			continue
		}
		var hb bytes.Buffer
		if err := b.codec(bh.h.Use, v).Encode(&hb, bh.h.Element, fv.Interface()); err != nil {
			return nil, nil, fmt.Errorf("header %s: %w", bh.h.Part.Name, err)
		}
		block, err := core.ParseHeaderBlock(hb.Bytes())
		if err != nil {
			return nil, nil, fmt.Errorf("header %s: %w", bh.h.Part.Name, err)
		}
		headers = append(headers, block)
	}
	return buf.Bytes(), headers, nil
}
