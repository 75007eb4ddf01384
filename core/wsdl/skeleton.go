package wsdl

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/xsd"
)

// Skeleton is the server side of the code soapwire gen generates: a
// core.Handler that routes a request to the operation its body's element
// (and, where that does not tell, its action) names, among the operations
// of the SOAP bindings of a port type, each described by generated code
// (SkeletonOperation). The generated code reads the request with its
// codecs (a value that does not fit the contract is a Sender fault naming
// it), calls the implementation and writes the reply; the Skeleton does the
// envelope, the faults (a declared fault's typed error becomes the fault
// with its detail) and serves the contract's WSDL (it is a Describer for
// bindings/http's "?wsdl").
type Skeleton struct {
	ops      map[core.Version][]*SkeletonOperation
	versions []core.Version
	doc      string
	logger   *slog.Logger
	// decoders and encoders kept from one request to the next (a trick:
	// docs/benchmarks.md, "Generated code (issue 21)")
	decoders sync.Pool // *xsd.Decoder
	encoders sync.Pool // *xsd.Encoder
}

// SkeletonOperation is one operation of one SOAP binding.
type SkeletonOperation struct {
	Version core.Version
	Name    string
	Action  string
	// Element is the element the request's body holds first (the wrapper,
	// or the first part's element); zero when the body is empty.
	Element xml.Name
	Encoded bool
	OneWay  bool
	// Serve reads the request from call, runs the operation and writes
	// its reply into call.
	Serve func(ctx context.Context, call *SkeletonCall) error

	replyAction string // Action + "Response" ("" without an Action)
}

// SkeletonOption configures NewSkeleton (a generated server's
// constructor).
type SkeletonOption interface{ applySkeleton(*Skeleton) }

type skeletonOptionFunc func(*Skeleton)

func (f skeletonOptionFunc) applySkeleton(s *Skeleton) { f(s) }

// WithLogger sets the logger of a generated server: a request refused, an
// operation that failed, a reply that does not fit the contract are logged
// (the default discards).
func WithLogger(l *slog.Logger) SkeletonOption {
	return skeletonOptionFunc(func(s *Skeleton) {
		if l != nil {
			s.logger = l
		}
	})
}

// AddressMarker stands for the served address in the WSDL document given
// to NewSkeleton: WSDL writes the address in its place.
const AddressMarker = "urn:soapwire:address"

// NewSkeleton returns the server of ops; document is the contract's WSDL
// document with AddressMarker as every port's address.
func NewSkeleton(document string, ops []*SkeletonOperation, opts ...SkeletonOption) *Skeleton {
	s := &Skeleton{ops: map[core.Version][]*SkeletonOperation{}, doc: document, logger: slog.New(slog.DiscardHandler)}
	for _, op := range ops {
		if op.Action != "" {
			op.replyAction = op.Action + "Response"
		}
		if s.ops[op.Version] == nil {
			s.versions = append(s.versions, op.Version)
		}
		s.ops[op.Version] = append(s.ops[op.Version], op)
	}
	for _, o := range opts {
		o.applySkeleton(s)
	}
	return s
}

// WSDL writes the contract's WSDL document with address as every port's
// address: bindings/http serves it for "GET ?wsdl". Documents it imports
// are not served.
func (s *Skeleton) WSDL(w io.Writer, address string) error {
	esc := core.AppendEscapedAttr(nil, address)
	_, err := io.WriteString(w, strings.ReplaceAll(s.doc, AddressMarker, string(esc)))
	return err
}

// ServeSOAP serves a request.
func (s *Skeleton) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	v := m.Version()
	ops := s.ops[v]
	if ops == nil {
		return nil, &core.Fault{Code: core.CodeVersionMismatch, Version: v, Supported: s.versions,
			Reason: fmt.Sprintf("the contract has no SOAP %s binding", v)}
	}
	op := route(ops, m.Body().Name(), m.Action)
	if op == nil {
		name := m.Body().Name()
		s.logger.LogAttrs(ctx, slog.LevelInfo, "wsdl: no such operation", slog.String("element", "{"+name.Space+"}"+name.Local),
			slog.String("action", m.Action))
		return nil, &core.Fault{Code: core.CodeSender, Subcodes: []xml.Name{{Space: core.NamespaceRPC, Local: "ProcedureNotPresent"}}, Version: v,
			Reason: fmt.Sprintf("no operation of the contract takes a body of {%s}%s", name.Space, name.Local)}
	}
	call := &SkeletonCall{s: s, m: m, op: op}
	if err := op.Serve(ctx, call); err != nil {
		return nil, s.failed(ctx, call, err)
	}
	if op.OneWay {
		return nil, nil
	}
	reply := m.Reply(core.RawBody(call.out))
	attach(reply, replyPackaging(m), call.atts)
	reply.Envelope.Headers = append(reply.Envelope.Headers, call.headers...)
	if len(call.parts) > 0 {
		reply.Attachments = append(reply.Attachments, call.parts...)
		reply.Packaging = core.SwA
	}
	reply.Action = op.replyAction
	return reply, nil
}

// route returns the operation a request is for: by its body's element,
// then by its action among those.
func route(ops []*SkeletonOperation, name xml.Name, action string) *SkeletonOperation {
	var found *SkeletonOperation
	n := 0
	for _, op := range ops {
		if op.Element == name {
			if n == 0 || op.Action == action {
				found = op
			}
			n++
		}
	}
	if found != nil {
		return found
	}
	if action != "" {
		for _, op := range ops {
			if op.Action == action && op.Element == (xml.Name{}) {
				return op
			}
		}
	}
	return nil
}

// failed logs an operation's error and returns what answers it.
func (s *Skeleton) failed(ctx context.Context, call *SkeletonCall, err error) error {
	var f *core.Fault
	switch {
	case call.refused:
		s.logger.LogAttrs(ctx, slog.LevelInfo, "wsdl: request refused", slog.String("operation", call.op.Name), slog.Any("err", err))
	case errors.As(err, &f) && f.Cause == nil:
		s.logger.LogAttrs(ctx, slog.LevelInfo, "wsdl: operation returned a fault", slog.String("operation", call.op.Name), slog.String("fault", f.Error()))
	default:
		s.logger.LogAttrs(ctx, slog.LevelError, "wsdl: operation failed", slog.String("operation", call.op.Name), slog.Any("err", err))
	}
	if errors.As(err, &f) {
		cp := *f
		cp.Version = call.m.Version()
		return &cp
	}
	return err
}

// SkeletonCall is one request being served: Read and Header read it,
// Write and WriteHeader write the reply.
type SkeletonCall struct {
	s       *Skeleton
	m       *core.Message
	op      *SkeletonOperation
	out     []byte
	atts    []*core.Attachment // the parts the reply's body names (MTOM)
	headers []core.HeaderBlock
	parts   []*core.Attachment // the reply's MIME parts (WritePart)
	refused bool
}

// Message returns the request.
func (c *SkeletonCall) Message() *core.Message { return c.m }

// Read reads the request's body with read, and refuses what follows it:
// an error is a Sender fault naming what does not fit (rpc:BadArguments).
func (c *SkeletonCall) Read(read func(d *xsd.Decoder) error) error {
	d, _ := c.s.decoders.Get().(*xsd.Decoder)
	if d == nil {
		d = xsd.NewDecoder(nil)
	}
	err := readBodyWith(d, c.m.Body(), c.op.Encoded, c.m.Version(), read)
	d.Reset(nil)
	c.s.decoders.Put(d)
	if err != nil {
		return c.refuse(err)
	}
	return nil
}

// refuse turns an error reading the request into the Sender fault that
// answers it.
func (c *SkeletonCall) refuse(err error) error {
	c.refused = true
	var f *core.Fault
	if errors.As(err, &f) {
		if f.Code == core.CodeSender && len(f.Subcodes) == 0 {
			cp := *f
			cp.Subcodes = []xml.Name{{Space: core.NamespaceRPC, Local: "BadArguments"}}
			cp.Cause = err
			return &cp
		}
		return f
	}
	return err
}

// Header reads the request's header block {space}local with read; found
// is false when there is none (an error when required).
func (c *SkeletonCall) Header(space, local string, required bool, read func(d *xsd.Decoder, st *xsd.Start) error) (found bool, err error) {
	h := StubHeader{Element: xml.Name{Space: space, Local: local}, Required: required, Read: func(d *xsd.Decoder, st *xsd.Start) error {
		found = true
		return read(d, st)
	}}
	if err := readHeader(c.m, h); err != nil {
		return false, c.refuse(&xsd.ValueError{Msg: err.Error(), Err: err})
	}
	return found, nil
}

// Write writes the reply's body with write (in the binding's encoding),
// in the request's packaging: an MTOM request is answered as MTOM, its
// core.Binary values as parts; any other as a plain envelope.
// An error is the server's: the value the operation returned does not fit
// the contract.
func (c *SkeletonCall) Write(write func(e *xsd.Encoder) error) error {
	e, _ := c.s.encoders.Get().(*xsd.Encoder)
	if e == nil {
		e = xsd.NewBytesEncoder(make([]byte, 0, replyBuffer))
	}
	defer func() {
		if cap(e.Bytes()) <= keptReply {
			e.ResetBytes(e.Bytes()[:0])
			c.s.encoders.Put(e)
		}
	}()
	if c.op.Encoded {
		e.SetEncoded(c.m.Version())
	}
	e.SetPackaging(replyPackaging(c.m))
	if err := write(e); err != nil {
		return fmt.Errorf("wsdl: %s: the reply does not fit the contract: %w", c.op.Name, err)
	}
	if err := e.Flush(); err != nil {
		return err
	}
	// the reply's bytes at their size, the Encoder's buffer kept
	c.out, c.atts = bytes.Clone(e.Bytes()), e.Attachments()
	return nil
}

// WriteHeader adds a header block to the reply, written by write.
func (c *SkeletonCall) WriteHeader(write func(e *xsd.Encoder) error) error {
	hb, err := writeHeader(StubHeader{Write: write}, c.op.Encoded, c.m.Version())
	if err != nil {
		return fmt.Errorf("wsdl: %s: a reply header does not fit the contract: %w", c.op.Name, err)
	}
	c.headers = append(c.headers, hb)
	return nil
}

// replyBuffer is the room a reply's body starts with: a small reply's
// writing does not grow it.
const replyBuffer = 2048

// keptReply is the largest reply buffer an Encoder is kept with.
const keptReply = 64 << 10

// DetailFault returns the fault of code (Sender when zero) and reason whose
// detail write writes: what a declared fault's typed error turns into.
// Reading the detail back is its element's codec's.
func DetailFault(code core.Code, reason string, write func(e *xsd.Encoder) error) *core.Fault {
	if code == 0 {
		code = core.CodeSender
	}
	f := &core.Fault{Code: code, Reason: reason}
	e := xsd.NewBytesEncoder(nil)
	if err := write(e); err != nil {
		return &core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: fmt.Errorf("wsdl: the fault's detail does not fit the contract: %w", err)}
	}
	if err := e.Flush(); err != nil {
		return &core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: err}
	}
	f.Detail = e.Bytes()
	return f
}
