package core

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmltok"
	"github.com/soapwire/soapwire/core/internal/xmlvalue"
)

// Body is the SOAP Body. An inbound body is a stream: its first child's name
// is known as soon as the envelope's header has been read, and the rest is
// read from the transport when the body is consumed, once, by Token, Decode,
// WriteTo or Discard. Buffer it (WriteTo a bytes.Buffer, then RawBody) to use
// it twice. Errors found while streaming (malformed XML, elements after the
// Body, content after the Envelope) are Sender faults.
//
// Outbound bodies come from RawBody, ValueBody, StreamBody or FaultBody; the
// zero Body is empty.
type Body struct {
	src *bodySource
}

type bodySource struct {
	name   xml.Name
	named  bool
	fault  *Fault
	in     *inbound
	raw    []byte
	value  any
	stream func(w io.Writer) error
	toks   *inbound // Token/Decode over an outbound body
	enc    string   // inbound: the encodingStyle declared on the Body or the Envelope
}

// RawBody is a body whose children are the given XML. Prefixes it uses must
// be declared in it.
func RawBody(children []byte) Body { return Body{&bodySource{raw: children}} }

// ValueBody is a body holding v marshalled by encoding/xml.
func ValueBody(v any) Body { return Body{&bodySource{value: v}} }

// StreamBody is a body written by fn as it goes: fn writes the children's XML
// to w. name is the first child's name, reported by Name for routing.
func StreamBody(name xml.Name, fn func(w io.Writer) error) Body {
	return Body{&bodySource{name: name, named: true, stream: fn}}
}

// FaultBody is a body holding f, written in the envelope's version.
func FaultBody(f *Fault) Body {
	return Body{&bodySource{fault: f, name: xml.Name{Space: "", Local: "Fault"}, named: true}}
}

// fault is the body's Fault or nil.
func (b Body) faultOf() *Fault {
	if b.src == nil {
		return nil
	}
	return b.src.fault
}

// Fault returns the fault the body holds, or nil.
func (b Body) Fault() *Fault { return b.faultOf() }

// Name returns the first child's name; the zero Name for an empty body. For
// a fault body it is the Fault element of the envelope's version (Space is
// "" until written or read).
func (b Body) Name() xml.Name {
	s := b.src
	if s == nil {
		return xml.Name{}
	}
	if !s.named {
		s.named = true
		raw, err := s.bytes()
		if err == nil {
			r := xmltok.NewReader(bytes.NewReader(raw), DefaultLimits().tokenizer())
			defer r.Release()
			for {
				t, err := r.Next()
				if err != nil {
					break
				}
				if t.Kind == xmltok.StartElement {
					s.name = xml.Name{Space: string(t.Name.Space), Local: string(t.Name.Local)}
					break
				}
			}
		}
	}
	return s.name
}

// EncodingStyle returns the encodingStyle attribute in scope at an inbound
// body's children: the one on the Body element, else the one on the
// Envelope, else "". It is the attribute as written, a list of URIs (SOAP
// 1.1 §4.1.1); "" also stands for an explicit empty value, which makes no
// claim. Children may declare their own (a SOAP-encoding decoder checks
// those). An outbound body returns "".
//
// SOAP 1.2 allows encodingStyle only on header blocks, the Body's children
// and their descendants: on a 1.2 Envelope or Body it is returned all the
// same, for the receiver to refuse (as rpc does, DataEncodingUnknown).
func (b Body) EncodingStyle() string {
	if b.src == nil {
		return ""
	}
	return b.src.enc
}

// IsEmpty reports whether the body has no content at all.
func (b Body) IsEmpty() bool {
	s := b.src
	return s == nil || (s.fault == nil && s.in == nil && s.raw == nil && s.value == nil && s.stream == nil) ||
		(s.in != nil && s.in.empty)
}

// bytes returns an outbound body's XML (a value is marshalled once).
func (s *bodySource) bytes() ([]byte, error) {
	switch {
	case s.raw != nil:
		return s.raw, nil
	case s.value != nil:
		raw, ok := xmlvalue.Append(nil, s.value, nil)
		if !ok {
			var err error
			if raw, err = xml.Marshal(s.value); err != nil {
				return nil, fmt.Errorf("core: body: %w", err)
			}
		}
		s.raw, s.value = raw, nil
		return raw, nil
	case s.stream != nil:
		var buf bytes.Buffer
		if err := s.stream(&buf); err != nil {
			return nil, err
		}
		s.raw, s.stream = buf.Bytes(), nil
		return s.raw, nil
	}
	return nil, nil
}

// tokens returns the token stream of the body's children.
func (b Body) tokens() (*inbound, error) {
	s := b.src
	if s == nil {
		return &inbound{done: true, empty: true}, nil
	}
	if s.in != nil {
		return s.in, nil
	}
	if s.toks == nil {
		raw, err := s.bytes()
		if err != nil {
			return nil, err
		}
		s.toks = newFragment(raw)
	}
	return s.toks, nil
}

// Token returns the next token of the body's children, namespace-resolved
// as (*xml.Decoder).Token returns them, and io.EOF after the last. The first
// start tag of each child carries xmlns attributes for every prefix in scope,
// so QName values (xsi:type="xsd:int") can be resolved. Body implements
// xml.TokenReader: xml.NewTokenDecoder(body) decodes it into Go values.
//
// Token copies every name and text into new strings; Next is the same
// stream without copies.
func (b Body) Token() (xml.Token, error) {
	in, err := b.tokens()
	if err != nil {
		return nil, err
	}
	t, child, err := in.next()
	if err != nil {
		return nil, err
	}
	return in.convert(t, in.scope(child)), nil
}

// Next returns the next token of the body's children, as Token does, but
// without copying: its names, attribute values and text are slices of the
// tokenizer's buffer, valid until the next call to Next or Token (copy what
// you keep). Entity and character references are decoded; a long text comes
// as several CharData tokens in a row. The first start tag of each child has
// in NS every namespace binding in scope there (namespace-complete); the
// others have the declarations made on them. It returns io.EOF after the
// last token, and a *Fault (Sender) when the body is malformed.
//
// Next and Token read the same stream: use one or the other.
func (b Body) Next() (*Token, error) {
	in, err := b.tokens()
	if err != nil {
		return nil, err
	}
	t, child, err := in.next()
	if err != nil {
		return nil, err
	}
	if child {
		t.NS = in.r.Scope()
	}
	return t, nil
}

// Lookup resolves a namespace prefix in the scope of the token Next (or
// Token) returned last: "" is the default namespace. After an EndElement
// the scope is still the closed element's, so a QName in an element's text
// can be resolved at its end. The URI is valid until the next call to Next.
func (b Body) Lookup(prefix []byte) (uri []byte, ok bool) {
	in, err := b.tokens()
	if err != nil || in.r == nil {
		return nil, len(prefix) == 0
	}
	return in.r.Lookup(prefix)
}

// WriteTo copies the body's children to w as namespace-complete XML.
//
// The xop:Include elements of a body read as MTOM are written as base64
// text to a writer of the caller's (there is no package to put a part in);
// copied into the envelope of a message being written (the message's own
// body, or a StreamBody's func writing it to the writer it was given), they
// are written as that message's Packaging asks: see Message.Write.
func (b Body) WriteTo(w io.Writer) (int64, error) {
	if sw, ok := w.(*streamWriter); ok && sw.x != nil {
		// a stream body writing into the envelope's own writer: no second buffer
		x := sw.x
		start := x.written()
		v, prefix := Version(0), ""
		if b.src != nil && b.src.in != nil && x.body.prefix != "" && start == x.body.at {
			// an inbound body copied before anything else into the
			// envelope's Body: its children are the Body's, where the
			// envelope's prefix is bound, so they do not declare it again
			// (as when the body itself is the reply's)
			v, prefix = x.body.v, x.body.prefix
		}
		err := b.write(x, v, prefix)
		return x.written() - start, err
	}
	x := newXMLWriter(w)
	defer x.release()
	err := b.write(x, 0, "")
	if ferr := x.flush(); err == nil {
		err = ferr
	}
	return x.n, err
}

// Err returns the error reading the Body met, if any: a malformed
// envelope, a bound crossed, the transport failing. It stays nil for an
// outbound body and for one read whole or not (yet) read. A handler that
// turns such an error into one of its own does not hide it from Serve,
// which answers the Body's fault (see Serve).
func (b Body) Err() error {
	if b.src == nil || b.src.in == nil {
		return nil
	}
	return b.src.in.err
}

// Discard reads the rest of an inbound body, checking it, and drops it:
// the tokenizer goes back to its pool (a body never read to its end keeps
// it until the message is garbage). It returns the error reading met, nil
// for an outbound body or one already read to its end.
func (b Body) Discard() error {
	if b.src == nil || b.src.in == nil {
		return nil
	}
	in := b.src.in
	if in.xop != nil {
		in.xop.discard = true // includes checked, their parts not read
	}
	for {
		_, _, err := in.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// write writes the body's children. v and prefix are the envelope's version
// and prefix (used by a fault body); v == 0 writes a fault in its own version.
func (b Body) write(x *xmlWriter, v Version, prefix string) error {
	s := b.src
	if s == nil {
		return nil
	}
	switch {
	case s.fault != nil:
		if v == 0 {
			v = s.fault.Version.orV11()
		}
		if prefix == "" {
			prefix = defaultEnvelopePrefix
			writeFault(x, s.fault, v, prefix, true)
		} else {
			writeFault(x, s.fault, v, prefix, false)
		}
		return x.err
	case s.in != nil:
		return s.in.copyTo(x, v, prefix)
	case s.value != nil:
		// written straight into the writer's buffer when the fast path
		// writes it (xmlvalue), else marshalled (bytes) below
		x.closeStart()
		if buf, ok := xmlvalue.Append(x.buf, s.value, x.plans()); ok {
			x.buf = buf
			x.flushIf()
			return x.err
		}
	case s.stream != nil:
		x.closeStart()
		if prefix != "" { // the envelope's Body
			x.body = bodyStart{at: x.written(), v: v, prefix: prefix}
		}
		sw := &streamWriter{x}
		err := s.stream(sw)
		sw.x = nil
		if err != nil {
			return err
		}
		return x.err
	}
	raw, err := s.bytes()
	if err != nil {
		return err
	}
	x.Write(raw)
	return x.err
}

// inbound is the token stream of a body's children.
type inbound struct {
	r     *xmltok.Reader
	depth int           // reader depth inside the Body element
	first *xmltok.Token // the first child's start tag, already read
	err   error         // sticky
	p     *parser       // the envelope's parser; nil for an outbound body's fragment
	msg   *Message      // the message read (nil for an outbound body's fragment)
	xop   *xopState     // an MTOM message's: includes resolved; nil: refused
	// a token read ahead (finishIfDone), returned by the next call
	peeked *xmltok.Token
	strs   *interner // Token's strings, once Token is used
	nchild int32     // children started
	v      Version
	done   bool // the Body (or fragment) has ended
	empty  bool // nothing in it
	// peeked is the start tag of a child
	peekedChild bool
}

// wrapErr turns a tokenizer error into the error the body reports.
func (in *inbound) wrapErr(err error) error {
	if in.p != nil {
		return in.p.wrap(err)
	}
	return fmt.Errorf("core: body: %w", err)
}

// finishIfDone reads ahead after a child has been read whole: white space,
// comments and the end of the Body are consumed (the stream then ends and
// the tokenizer is recycled at once, even if nobody reads on); a token that
// is anything else is kept for the next call.
func (in *inbound) finishIfDone() {
	for in.err == nil && !in.done && in.peeked == nil {
		t, child, err := in.next()
		if err != nil {
			return
		}
		if t.Kind == xmltok.Comment || t.Kind == xmltok.CharData && in.r.Depth() == in.depth && xmltok.IsSpace(t.Text) {
			continue
		}
		in.peeked, in.peekedChild = t, child
	}
}

// next returns the next token, and whether it is the start tag of a child
// of the Body (whose full scope in.scope gives, while the tokenizer stands
// there). Once it has returned io.EOF or an
// error, the tokenizer is released and never used again.
func (in *inbound) next() (*xmltok.Token, bool, error) {
	if in.err != nil {
		return nil, false, in.err
	}
	if in.done {
		return nil, false, io.EOF
	}
	if t := in.peeked; t != nil {
		child := in.peekedChild
		in.peeked, in.peekedChild = nil, false
		return t, child, nil
	}
	if x := in.xop; x != nil {
		x.synth = false
		if x.rd != nil {
			t, err := in.chunk()
			if err != nil {
				return nil, false, err
			}
			if t != nil {
				return t, false, nil
			}
		}
	}
	var t *xmltok.Token
	if in.first != nil {
		t, in.first = in.first, nil
	} else {
		var err error
		if t, err = in.r.Next(); err != nil {
			if err == io.EOF && in.p == nil { // a fragment ends at EOF
				return nil, false, in.end()
			}
			return nil, false, in.fail(in.wrapErr(err))
		}
	}
	d := in.r.Depth()
	if t.Kind == xmltok.StartElement && (in.p != nil || in.xop != nil) && isInclude(t) {
		return in.include(t, d)
	}
	child := false
	switch t.Kind {
	case xmltok.EndElement:
		if d < in.depth {
			if in.p != nil {
				if err := in.p.afterBody(); err != nil {
					return nil, false, in.fail(err)
				}
			}
			return nil, false, in.end()
		}
	case xmltok.StartElement:
		if d == in.depth+1 {
			in.nchild++
			if in.nchild > 1 && in.v != 0 && t.Name.Is(in.v.Namespace(), "Fault") {
				return nil, false, in.fail(&Fault{Code: CodeSender, Version: in.v, Reason: "a Fault must be the only child of the Body"})
			}
			child = true
		}
	case xmltok.CharData:
		if d == in.depth && !xmltok.IsSpace(t.Text) {
			return nil, false, in.fail(&Fault{Code: CodeSender, Version: in.v, Reason: "text directly in the Body"})
		}
	}
	if in.xop != nil {
		if err := in.track(t, d); err != nil {
			return nil, false, err
		}
	}
	return t, child, nil
}

// scope is the full scope of a child's start tag next returned, nil for
// another token.
func (in *inbound) scope(child bool) []xmltok.NS {
	if !child {
		return nil
	}
	return in.r.Scope()
}

// end marks the stream done and releases the tokenizer.
func (in *inbound) end() error {
	in.done = true
	in.release()
	return io.EOF
}

// fail makes err sticky and releases the tokenizer.
func (in *inbound) fail(err error) error {
	in.err = err
	in.release()
	return err
}

func (in *inbound) release() {
	if in.p != nil {
		in.p.release() // it clears in.r
		return
	}
	if in.r != nil {
		in.r.Release()
		in.r = nil
	}
}

// copyTo writes the rest of the body into x, in version v under the
// envelope prefix (a body written on its own: prefix ""). A child's start
// tag declares the namespaces in scope where it was read, except the
// envelope's binding of prefix, already in scope in the output: not
// declared again, so that writing what was read is a fixed point.
func (in *inbound) copyTo(x *xmlWriter, v Version, prefix string) error {
	var env *xmltok.NS // the envelope's binding, in scope where the body is written
	if prefix != "" {
		env = &xmltok.NS{Prefix: []byte(prefix), URI: []byte(v.Namespace())}
	}
	if in.xop != nil {
		in.xop.out = x // its includes written as x's message's packaging says
		defer func() { in.xop.out = nil }()
	}
	for {
		t, child, err := in.next()
		if err == io.EOF {
			return x.err
		}
		if err != nil {
			return err
		}
		if t.Kind == xmltok.CharData && in.r.Depth() == in.depth && xmltok.IsSpace(t.Text) {
			continue // whitespace between children is not content
		}
		if child {
			x.startComplete(t, in.raw(), in.r.Scope(), env)
		} else {
			x.rawToken(t, in.raw())
		}
		if x.err != nil {
			return x.err
		}
	}
}

// newFragment streams the top-level elements of raw XML (an outbound body).
func newFragment(raw []byte) *inbound { return newFragmentLim(raw, Limits{}.resolved()) }

// newFragmentLim streams raw's top-level elements within lim (resolved).
func newFragmentLim(raw []byte, lim Limits) *inbound {
	// Wrap in a synthetic root so several children and text are allowed.
	src := io.MultiReader(bytes.NewReader([]byte("<_>")), bytes.NewReader(raw), bytes.NewReader([]byte("</_>")))
	r := xmltok.NewReader(src, lim.tokenizer())
	in := &inbound{r: r, depth: 1}
	if _, err := r.Next(); err != nil {
		in.fail(in.wrapErr(err))
	}
	return in
}

// interner shares the strings of a body's repeated names and namespace
// URIs when Token hands them out: a small cache indexed by a hash of a few
// bytes, so that a hit costs a comparison and a miss one allocation.
type interner [32]string

func (n *interner) str(b []byte) string {
	l := len(b)
	if l == 0 {
		return ""
	}
	if l > 96 {
		return string(b)
	}
	h := (uint(l)*131 ^ uint(b[0])*7 ^ uint(b[l/2])*17 ^ uint(b[l-1])*31) % uint(len(n))
	if s := n[h]; s == string(b) {
		return s
	}
	s := string(b)
	n[h] = s
	return s
}

// declAttrs appends namespace declarations as encoding/xml's Decoder gives
// them: xmlns="…" for the default namespace, xmlns:prefix="…" otherwise.
func (n *interner) declAttrs(attrs []xml.Attr, decls []xmltok.NS) []xml.Attr {
	for _, d := range decls {
		if len(d.Prefix) == 0 {
			attrs = append(attrs, xml.Attr{Name: xml.Name{Local: "xmlns"}, Value: n.str(d.URI)})
		} else {
			attrs = append(attrs, xml.Attr{Name: xml.Name{Space: "xmlns", Local: n.str(d.Prefix)}, Value: n.str(d.URI)})
		}
	}
	return attrs
}

// convert turns a token into encoding/xml's form: names interned, text
// copied (the tokenizer's buffer moves on).
func (in *inbound) convert(t *xmltok.Token, scope []xmltok.NS) xml.Token {
	if in.strs == nil {
		in.strs = new(interner)
	}
	n := in.strs
	switch t.Kind {
	case xmltok.StartElement:
		decls := t.NS
		if scope != nil {
			decls = scope
		}
		attrs := n.declAttrs(make([]xml.Attr, 0, len(decls)+len(t.Attr)), decls)
		for _, a := range t.Attr {
			attrs = append(attrs, xml.Attr{Name: xml.Name{Space: n.str(a.Name.Space), Local: n.str(a.Name.Local)}, Value: string(a.Value)})
		}
		return xml.StartElement{Name: xml.Name{Space: n.str(t.Name.Space), Local: n.str(t.Name.Local)}, Attr: attrs}
	case xmltok.EndElement:
		return xml.EndElement{Name: xml.Name{Space: n.str(t.Name.Space), Local: n.str(t.Name.Local)}}
	case xmltok.CharData:
		return xml.CharData(bytes.Clone(t.Text))
	default:
		return xml.Comment(bytes.Clone(t.Text))
	}
}
