package core

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// ErrTooLarge is in the chain of the fault ReadEnvelope returns when the
// envelope is larger than Limits.MaxBytes (a binding answers 413 or the like).
var ErrTooLarge = xmltok.ErrTooLarge

// ErrNotEnvelope is in the chain of the fault ReadEnvelope returns when the
// input is not a SOAP envelope at all: empty, not XML, or XML whose root
// element is not named Envelope (a binding may answer it without a SOAP
// fault, as HTTP's 400). An Envelope in a namespace other than SOAP 1.1's
// or 1.2's is a VersionMismatch fault instead, and an input that exceeds a
// limit before its root element carries ErrTooLarge or ErrLimit.
var ErrNotEnvelope = errors.New("not a SOAP Envelope")

// notEnvelope is the cause of a fault for input that is not an envelope:
// its text is the cause's (the fault's reason already says it), and it is
// ErrNotEnvelope to errors.Is.
type notEnvelope struct{ err error }

func (e *notEnvelope) Error() string {
	if e.err == nil {
		return ErrNotEnvelope.Error()
	}
	return e.err.Error()
}
func (e *notEnvelope) Unwrap() error        { return e.err }
func (e *notEnvelope) Is(target error) bool { return target == ErrNotEnvelope }

// notAnEnvelope marks err, found before the root element, with
// ErrNotEnvelope, unless it is an exceeded limit.
func notAnEnvelope(err error) error {
	var f *Fault
	if !errors.As(err, &f) || errors.Is(err, ErrTooLarge) || errors.Is(err, ErrLimit) {
		return err
	}
	f.Cause = &notEnvelope{f.Cause}
	return f
}

// ErrLimit is in the chain of the fault for any other exceeded limit (depth,
// attributes, namespace declarations, name length, header bytes).
var ErrLimit = xmltok.ErrLimit

// ReadEnvelope reads an envelope's header blocks and the start of its body
// from r; the rest of the body is read when consumed (see Body). Errors are
// *Fault: Sender (1.1 Client) for a malformed or non-conforming envelope,
// VersionMismatch for an envelope in an unknown namespace.
func ReadEnvelope(r io.Reader, lim Limits) (*Envelope, error) {
	st, err := readEnvelope(r, lim)
	if err != nil {
		return nil, err
	}
	return &st.env, nil
}

// readState is what reading one message needs, in one allocation: the
// message, its envelope and the body's stream. It is allocated once the
// Envelope's first child is known: an envelope with a Header gets a
// readStateH, with room for the first header blocks, one without (the
// common case on bindings that carry addressing outside the envelope) a
// smaller readState alone. The parser lives with the tokenizer (see
// newParser).
type readState struct {
	p   *parser // while the tokenizer is held
	msg Message
	env Envelope
	src bodySource
	in  inbound
}

// readStateH is a readState with room for the first header blocks.
type readStateH struct {
	readState
	blocks [2]HeaderBlock
}

// readEnvelope reads an envelope from r into a readState of its own.
func readEnvelope(r io.Reader, lim Limits) (*readState, error) {
	return readWith(streamParser(r, lim))
}

// streamParser and bytesParser return a parser for an envelope read from r
// or held in data. They are not inlined, so that the Limits they resolve
// take no room on the stack of the reading, the deepest a message's
// handling goes.
//
//go:noinline
func streamParser(r io.Reader, lim Limits) *parser {
	lim = lim.resolved()
	return newParser(xmltok.NewReader(r, lim.tokenizer()), lim)
}

//go:noinline
func bytesParser(data []byte, lim Limits) *parser {
	lim = lim.resolved()
	return newParser(xmltok.NewReaderBytes(data, lim.tokenizer()), lim)
}

// readWith reads an envelope with p, a parser from newParser.
func readWith(p *parser) (*readState, error) {
	st, err := p.envelope()
	if err != nil {
		switch {
		case st == nil: // p was never handed to a readState: still ours
			p.release()
		case st.p != nil:
			st.p.release()
		}
		return nil, err
	}
	return st, nil
}

// newParser returns the parser kept with the tokenizer r (its Aux), set to
// read one envelope (into a readState: see attach): it is recycled with r,
// so nothing may use it once it has released r.
func newParser(r *xmltok.Reader, lim Limits) *parser {
	p, _ := r.Aux.(*parser)
	if p == nil {
		p = new(parser)
		r.Aux = p
	}
	p.st, p.r, p.lim, p.v, p.faultStart = nil, r, lim, 0, 0
	if p.nu != nil {
		p.nu = nil
	}
	p.nbuf, p.nlen = p.nbuf[:0], p.nlen[:0]
	return p
}

// attach makes st the readState p reads into, and p st's parser.
func (p *parser) attach(st *readState) {
	p.st, st.p = st, p
}

type parser struct {
	st         *readState
	r          *xmltok.Reader // nil once the envelope is read to its end (or refused)
	lim        Limits
	v          Version
	faultStart int64
	nu         []xml.Name // 1.2 NotUnderstood blocks, for a fault body
	// the header blocks' XML, one after the other, behind the declarations
	// in scope on the Header: a scratch buffer kept with the parser, copied
	// into one exactly sized arena at the Header's end
	blocks xmlWriter
	anc    []ancDecl // the declarations in scope on the Header
	anc0   [4]ancDecl
	// the names of the header blocks not named yet, space then local, one
	// after the other, and their lengths: they are made strings all at once
	// with the body's (see names)
	nbuf []byte
	nlen []int
	// the strings names made last (see intern)
	interned [4]string
	internAt uint8
	// the declarations ancestors rendered last (see sameAncestors), and
	// where their rendering ends in blocks.buf
	ancKey []byte
	ancEnd int
	// Body.Decode's plans, by type (decodeplan.go), and its buffer for
	// elements' text, kept from one envelope to the next
	plans map[reflect.Type]*dplan
	dtext []byte
}

// release hands the tokenizer, and with it the parser, back once the
// envelope has been read to its end or refused: nothing reads either again.
// Only the owner calls it (the readState's p, the body's in.p, both cleared
// here, or the parser's own code before it returns).
func (p *parser) release() {
	r, st := p.r, p.st
	if r == nil {
		return
	}
	if st != nil {
		st.p = nil
		if st.in.p == p {
			st.in.r, st.in.p = nil, nil
		}
	}
	p.r, p.st = nil, nil
	r.Release()
}

func (p *parser) sender(format string, args ...any) *Fault {
	return &Fault{Code: CodeSender, Version: p.v, Reason: fmt.Sprintf(format, args...)}
}

// wrap turns a tokenizer error into a Sender fault.
func (p *parser) wrap(err error) error {
	var f *Fault
	if errors.As(err, &f) {
		return f
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	reason := "malformed envelope: " + err.Error()
	if errors.Is(err, ErrTooLarge) {
		reason = fmt.Sprintf("the envelope is larger than %d bytes", p.lim.MaxBytes)
	}
	return &Fault{Code: CodeSender, Version: p.v, Reason: reason, Cause: err}
}

func (p *parser) next() (*xmltok.Token, error) {
	t, err := p.r.Next()
	if err != nil {
		return nil, p.wrap(err)
	}
	return t, nil
}

func (p *parser) checkSize(what string, start int64) error {
	if p.lim.MaxHeaderBytes > 0 && p.r.Offset()-start > p.lim.MaxHeaderBytes {
		return &Fault{Code: CodeSender, Version: p.v, Reason: fmt.Sprintf("%s is larger than %d bytes", what, p.lim.MaxHeaderBytes), Cause: ErrLimit}
	}
	return nil
}

// structural returns the next element token at the current level, skipping
// whitespace and comments; text is refused with "text directly in <where>".
func (p *parser) structural(where string) (*xmltok.Token, error) {
	for {
		t, err := p.next()
		if err != nil {
			return nil, err
		}
		switch t.Kind {
		case xmltok.CharData:
			if !xmltok.IsSpace(t.Text) {
				return nil, p.sender("text directly in the %s", where)
			}
		case xmltok.Comment:
		default:
			return t, nil
		}
	}
}

// envelope reads the envelope into a readState it allocates once it has
// seen the Envelope's first child, and returns it. Beside an error it
// returns the readState when there is one by then (the parser is its then:
// see readEnvelope).
func (p *parser) envelope() (*readState, error) {
	t, err := p.structural("document")
	if err != nil {
		return nil, notAnEnvelope(err)
	}
	if string(t.Name.Local) != "Envelope" {
		return nil, p.notEnvelope(t)
	}
	if p.v = versionOf(t.Name.Space); p.v == 0 {
		return nil, versionMismatch(t.Name.Space)
	}
	ns := p.v.Namespace()
	enc, encSet := encodingStyleOf(t, ns)
	t, err = p.structural("Envelope")
	if err != nil {
		return nil, err
	}
	var st *readState
	if t.Kind == xmltok.StartElement && t.Name.Is(ns, "Header") {
		if st, t, err = p.headerState(); err != nil {
			return st, err
		}
	} else {
		st = new(readState)
		p.attach(st)
	}
	env := &st.env
	env.Version = p.v
	if t.Kind == xmltok.EndElement || !t.Name.Is(ns, "Body") {
		return st, p.notBody(t)
	}
	if e, ok := encodingStyleOf(t, ns); ok { // the Body's own wins
		enc, encSet = e, true
	}
	// p may be released (and reused) once body returns: only env from here
	v := p.v
	if env.Body, err = p.body(); err != nil {
		return st, err
	}
	if encSet {
		env.Body.src.enc = enc
	}
	if v == V12 && env.Body.Fault() != nil {
		dropFaultHeaders(env)
	}
	return st, nil
}

// The refusals of envelope, and its less common paths, are functions of
// their own so that envelope's stack frame, on the stack of every message
// read, stays small.

//go:noinline
func (p *parser) notEnvelope(t *xmltok.Token) error {
	f := p.sender("the root element is %s, not a SOAP Envelope", nameString(t.Name))
	f.Cause = ErrNotEnvelope
	return f
}

//go:noinline
func versionMismatch(space []byte) error {
	return &Fault{Code: CodeVersionMismatch, Reason: fmt.Sprintf("the envelope namespace %q is not SOAP 1.1 or 1.2", space)}
}

// notBody refuses t, read where the Body was expected.
//
//go:noinline
func (p *parser) notBody(t *xmltok.Token) error {
	switch {
	case t.Kind == xmltok.EndElement:
		return p.sender("the Envelope has no Body")
	case t.Name.Is(p.v.Namespace(), "Header"):
		return p.sender("a second Header")
	}
	return p.sender("%s where the Header or the Body was expected (the Header must be the first child of the Envelope, the Body next)", nameString(t.Name))
}

// headerState reads the Header, whose start tag was just read, into a new
// readState with room for its first blocks, and returns it with the token
// after the Header.
//
//go:noinline
func (p *parser) headerState() (*readState, *xmltok.Token, error) {
	h := new(readStateH)
	st := &h.readState
	p.attach(st)
	var err error
	if st.env.Headers, err = p.header(h.blocks[:0]); err != nil {
		return st, nil, err
	}
	t, err := p.structural("Envelope")
	return st, t, err
}

// dropFaultHeaders removes the NotUnderstood and Upgrade blocks of a 1.2
// envelope whose body is a Fault: they are part of the fault, and writing
// the Fault writes them again.
//
//go:noinline
func dropFaultHeaders(env *Envelope) {
	kept := env.Headers[:0]
	for _, b := range env.Headers {
		if b.Name.Space != NamespaceV12 || (b.Name.Local != "NotUnderstood" && b.Name.Local != "Upgrade") {
			kept = append(kept, b)
		}
	}
	env.Headers = kept
}

// header reads the Header's blocks, into room while they fit.
func (p *parser) header(room []HeaderBlock) ([]HeaderBlock, error) {
	start := p.r.Offset()
	blocks := room
	from := p.ancestors()
	for {
		t, err := p.structural("Header")
		if err != nil {
			return nil, err
		}
		if err := p.checkSize("the Header", start); err != nil {
			return nil, err
		}
		if t.Kind == xmltok.EndElement {
			keepBlocks(blocks, p.blocks.buf[from:])
			if cap(p.blocks.buf) > maxPooledBuf {
				p.blocks.buf, p.ancKey = nil, p.ancKey[:0] // grown by an unusual Header: let it go
			}
			return blocks, nil
		}
		blocks = append(blocks, HeaderBlock{})
		if err := p.block(t, start, &blocks[len(blocks)-1]); err != nil {
			return nil, err
		}
	}
}

// keepBlocks moves the blocks' XML out of the scratch buffer (where it lies
// in order, one block after the other, from its start) into an arena of
// their own.
func keepBlocks(blocks []HeaderBlock, scratch []byte) {
	if len(blocks) == 0 {
		return
	}
	arena := append([]byte(nil), scratch...)
	off := 0
	for i := range blocks {
		n := len(blocks[i].XML)
		blocks[i].XML = arena[off : off+n : off+n]
		off += n
	}
}

// block reads one header block whose start tag is t into b. b.XML is left
// pointing into the scratch buffer (see keepBlocks).
func (p *parser) block(t *xmltok.Token, start int64, b *HeaderBlock) error {
	if len(t.Name.Space) == 0 {
		return p.sender("header block <%s> is not namespace-qualified", t.Name.Local)
	}
	if err := b.soapAttrs(p.v, t.Attr); err != nil {
		b.Name = xmlName(t.Name)
		return b.soapAttrs(p.v, t.Attr) // again, for the name in the fault
	}
	if n, ok := knownName(t.Name); ok {
		b.Name = n
	} else {
		// named later (names): b.Name stays zero until then
		p.nbuf = append(append(p.nbuf, t.Name.Space...), t.Name.Local...)
		p.nlen = append(p.nlen, len(t.Name.Space), len(t.Name.Local))
	}
	// 1.2 fault headers are folded into the Fault when the body is one.
	if p.v == V12 && t.Name.Is(NamespaceV12, "NotUnderstood") {
		q := string(attrValue(t, "", "qname"))
		if n, err := p.qname(q); err == nil {
			p.nu = append(p.nu, n)
		}
	}
	x := &p.blocks
	at := len(x.buf)
	// the start tag, namespace-complete: the declarations in scope on the
	// Header (rendered once) that the block does not make again, then its
	// own and its attributes, as read when the tokenizer has them as they
	// were (Raw)
	n := len(t.Name.Local)
	if len(t.Name.Prefix) > 0 {
		n += len(t.Name.Prefix) + 1
	}
	raw := p.r.Raw()
	if raw != nil {
		x.buf = append(x.buf, raw[:1+n]...)
	} else {
		wOpen(x, t.Name.Prefix, t.Name.Local)
	}
outer:
	for _, a := range p.anc {
		for _, d := range t.NS {
			if string(d.Prefix) == string(x.buf[a.prefix:a.prefixEnd]) {
				continue outer
			}
		}
		x.buf = append(x.buf, x.buf[a.start:a.end]...)
	}
	if raw != nil {
		x.buf = append(x.buf, raw[1+n:]...)
	} else {
		for _, d := range t.NS {
			wDecl(x, d.Prefix, d.URI)
		}
		for _, a := range t.Attr {
			wAttr(x, a.Name.Prefix, a.Name.Local, a.Value)
		}
	}
	depth := p.r.Depth()
	for depth <= p.r.Depth() {
		t, err := p.next()
		if err != nil {
			return err
		}
		if err := p.checkSize("the Header", start); err != nil {
			return err
		}
		x.rawToken(t, p.r.Raw())
	}
	if m := p.lim.MaxHeaderBytes; m > 0 && int64(len(x.buf)) > maxCompletion*m {
		// each block declares every namespace in scope: bound what that adds
		return &Fault{Code: CodeSender, Version: p.v, Cause: ErrLimit,
			Reason: fmt.Sprintf("the Header's blocks are larger than %d bytes once the namespaces in scope are declared on each", maxCompletion*m)}
	}
	b.XML = x.buf[at:len(x.buf):len(x.buf)]
	return nil
}

// ancDecl is a namespace declaration in scope on the Header, rendered in
// p.blocks.buf: the declaration at [start, end), its prefix at [prefix,
// prefixEnd).
type ancDecl struct{ start, end, prefix, prefixEnd int }

// ancestors renders the namespace declarations in scope on the Header (the
// current position) once, at the start of the scratch buffer, for every
// block's start tag to copy. It returns where the blocks start. When the
// declarations are those of the parser's last envelope (the same service
// called again), the rendering still at the start of the scratch buffer is
// kept.
func (p *parser) ancestors() int {
	x := &p.blocks
	if p.sameAncestors() {
		*x = xmlWriter{buf: x.buf[:p.ancEnd]}
		return p.ancEnd
	}
	*x = xmlWriter{buf: x.buf[:0]}
	if x.buf == nil {
		x.buf = make([]byte, 0, 1024)
	}
	p.anc = p.anc0[:0]
	for _, d := range p.r.Scope() {
		a := ancDecl{start: len(x.buf), prefix: len(x.buf) + len(" xmlns:")}
		wDecl(x, d.Prefix, d.URI)
		a.end, a.prefixEnd = len(x.buf), a.prefix+len(d.Prefix)
		if len(d.Prefix) == 0 {
			a.prefix, a.prefixEnd = 0, 0
		}
		p.anc = append(p.anc, a)
	}
	p.ancKey = p.ancKey[:0]
	for _, d := range p.r.Bindings() {
		p.ancKey = append(append(append(append(p.ancKey, d.Prefix...), 0), d.URI...), 0)
	}
	p.ancEnd = len(x.buf)
	return p.ancEnd
}

// sameAncestors reports whether the declarations in effect are those
// ancKey holds (prefix, NUL, URI, NUL for each: neither holds a NUL).
func (p *parser) sameAncestors() bool {
	k := p.ancKey
	if len(k) == 0 || cap(p.blocks.buf) < p.ancEnd {
		return false
	}
	for _, d := range p.r.Bindings() {
		n := len(d.Prefix) + len(d.URI) + 2
		if len(k) < n || string(k[:len(d.Prefix)]) != string(d.Prefix) || k[len(d.Prefix)] != 0 ||
			string(k[len(d.Prefix)+1:n-1]) != string(d.URI) || k[n-1] != 0 {
			return false
		}
		k = k[n:]
	}
	return len(k) == 0
}

// maxCompletion bounds the header blocks' XML, once namespace-complete, to
// this many times MaxHeaderBytes.
const maxCompletion = 8

// xmlName copies a token's name into an xml.Name, in one allocation, none
// for the WS-Addressing headers.
func xmlName(n xmltok.Name) xml.Name {
	if k, ok := knownName(n); ok {
		return k
	}
	s := string(n.Space) + string(n.Local)
	return xml.Name{Space: s[:len(n.Space)], Local: s[len(n.Space):]}
}

// knownName returns the name of a WS-Addressing header as constants.
func knownName(n xmltok.Name) (xml.Name, bool) {
	if string(n.Space) == NamespaceAddressing {
		switch string(n.Local) {
		case "To", "Action", "MessageID", "RelatesTo", "ReplyTo", "FaultTo":
			return xml.Name{Space: NamespaceAddressing, Local: known(n.Local)}, true
		}
	}
	return xml.Name{}, false
}

// names names the header blocks read without a name (block), and the
// body's first child n when not nil, from one string.
func (p *parser) names(blocks []HeaderBlock, n *xmltok.Name) xml.Name {
	var body xml.Name
	at := len(p.nbuf)
	if n != nil {
		if k, ok := knownName(*n); ok {
			body, n = k, nil
		} else {
			p.nbuf = append(append(p.nbuf, n.Space...), n.Local...)
		}
	}
	if len(p.nbuf) == 0 {
		return body
	}
	all := p.intern(p.nbuf)
	if n != nil {
		body = xml.Name{Space: all[at : at+len(n.Space)], Local: all[at+len(n.Space):]}
	}
	off, j := 0, 0
	for i := range blocks {
		if j == len(p.nlen) {
			break
		}
		b := &blocks[i]
		if b.Name.Local != "" {
			continue
		}
		sl, ll := p.nlen[j], p.nlen[j+1]
		b.Name = xml.Name{Space: all[off : off+sl], Local: all[off+sl : off+sl+ll]}
		off, j = off+sl+ll, j+2
	}
	return body
}

// intern returns b as a string: one of the last few it made when equal to
// b (a service's messages name the same operations and header blocks over
// and over), else a new one, kept in place of the oldest. Names longer
// than internMax are not kept.
func (p *parser) intern(b []byte) string {
	for _, s := range p.interned {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	if len(s) <= internMax {
		p.interned[p.internAt%uint8(len(p.interned))] = s
		p.internAt++
	}
	return s
}

// internMax is the longest string intern keeps.
const internMax = 256

// encodingStyleOf returns the value of the encodingStyle attribute of the
// envelope's namespace ns on the start tag t, if it has one (a copy, or the
// constant of a well-known style).
func encodingStyleOf(t *xmltok.Token, ns string) (string, bool) {
	for _, a := range t.Attr {
		if string(a.Name.Local) == "encodingStyle" && string(a.Name.Space) == ns {
			return known(a.Value), true
		}
	}
	return "", false
}

// known returns the constant equal to b among the names and URIs the core
// meets often, or a copy of b.
func known(b []byte) string {
	switch string(b) {
	case "To":
		return "To"
	case "Action":
		return "Action"
	case "MessageID":
		return "MessageID"
	case "RelatesTo":
		return "RelatesTo"
	case "ReplyTo":
		return "ReplyTo"
	case "FaultTo":
		return "FaultTo"
	case RoleNext:
		return RoleNext
	case RoleNextV11:
		return RoleNextV11
	case RoleNone:
		return RoleNone
	case RoleUltimateReceiver:
		return RoleUltimateReceiver
	case EncodingStyleV11:
		return EncodingStyleV11
	case EncodingStyleV12:
		return EncodingStyleV12
	}
	return string(b)
}

func (p *parser) body() (Body, error) {
	t, err := p.structural("Body")
	if err != nil {
		return Body{}, err
	}
	if t.Kind == xmltok.EndElement {
		return p.emptyBody()
	}
	name := p.names(p.st.env.Headers, &t.Name)
	if t.Name.Is(p.v.Namespace(), "Fault") {
		return p.faultBody(name)
	}
	// p.st is new (see envelope): only the fields that are not zero are set
	in, src := &p.st.in, &p.st.src
	in.r, in.p, in.v, in.depth, in.first = p.r, p, p.v, p.r.Depth()-1, t
	src.in, src.name, src.named = in, name, true
	return Body{src}, nil
}

// emptyBody ends an envelope whose Body has no child.
//
// It and faultBody are functions of their own so that body's stack frame,
// on the stack of every message read, stays small.
//
//go:noinline
func (p *parser) emptyBody() (Body, error) {
	src := &p.st.src
	p.names(p.st.env.Headers, nil)
	p.st.in = inbound{done: true, empty: true}
	*src = bodySource{in: &p.st.in, named: true}
	return Body{src}, p.afterBody()
}

// faultBody reads a Fault, the Body's child named name, and the end of the
// envelope.
//
//go:noinline
func (p *parser) faultBody(name xml.Name) (Body, error) {
	ns := p.v.Namespace()
	p.faultStart = p.r.Offset()
	f, err := p.readFault()
	if err != nil {
		return Body{}, err
	}
	f.NotUnderstood = p.nu
	t, err := p.structural("Body")
	if err != nil {
		return Body{}, err
	}
	if t.Kind == xmltok.StartElement {
		if t.Name.Is(ns, "Fault") {
			return Body{}, p.sender("two Faults in the Body")
		}
		return Body{}, p.sender("a Fault must be the only child of the Body")
	}
	src := &p.st.src
	*src = bodySource{fault: f, name: name, named: true}
	return Body{src}, p.afterBody()
}

// afterBody checks what follows the Body: only the end of the Envelope and
// of the input (WS-I BP R1011: no element after the Body).
func (p *parser) afterBody() error {
	defer p.release()
	t, err := p.structural("Envelope")
	if err != nil {
		return err
	}
	if t.Kind == xmltok.StartElement {
		return p.afterBodyElement(t)
	}
	for {
		t, err := p.r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return p.wrap(err)
		}
		if t.Kind != xmltok.Comment {
			return p.sender("content after the Envelope")
		}
	}
}

// afterBodyElement refuses t, an element after the Body. (Not inlined, so
// that its messages take no room on afterBody's stack frame, at the deepest
// point of copying a request's body into its reply.)
//
//go:noinline
func (p *parser) afterBodyElement(t *xmltok.Token) error {
	if t.Name.Is(p.v.Namespace(), "Body") {
		return p.sender("two Bodies")
	}
	return p.sender("element %s after the Body (WS-I BP R1011)", nameString(t.Name))
}

// text reads the character content of the current element; elements in it
// are an error.
func (p *parser) text() (string, error) {
	var b strings.Builder
	for {
		t, err := p.next()
		if err != nil {
			return "", err
		}
		switch t.Kind {
		case xmltok.CharData:
			b.Write(t.Text)
		case xmltok.StartElement:
			return "", p.sender("unexpected element %s in a text-only fault element", t.Name.Local)
		case xmltok.EndElement:
			return trimSpace(b.String()), nil
		}
		if err := p.checkSize("the Fault", p.faultStart); err != nil {
			return "", err
		}
	}
}

// content copies the content of the current element as namespace-complete
// XML.
func (p *parser) content() ([]byte, error) {
	x := newMemWriter(128)
	depth := p.r.Depth()
	for {
		t, err := p.next()
		if err != nil {
			return nil, err
		}
		if err := p.checkSize("the Fault", p.faultStart); err != nil {
			return nil, err
		}
		d := p.r.Depth()
		if t.Kind == xmltok.EndElement && d < depth {
			return x.buf, nil
		}
		if t.Kind == xmltok.StartElement && d == depth+1 {
			x.token(t, p.r.Scope())
		} else {
			x.token(t, nil)
		}
	}
}

// skip skips the rest of the current element.
func (p *parser) skip() error {
	depth := p.r.Depth()
	for depth <= p.r.Depth() {
		if _, err := p.next(); err != nil {
			return err
		}
		if err := p.checkSize("the Fault", p.faultStart); err != nil {
			return err
		}
	}
	return nil
}

// nameString renders a token's name as {space}local.
func nameString(n xmltok.Name) string {
	if len(n.Space) == 0 {
		return string(n.Local)
	}
	return "{" + string(n.Space) + "}" + string(n.Local)
}

// qname resolves a prefixed name in the current scope.
func (p *parser) qname(s string) (xml.Name, error) {
	s = trimSpace(s)
	prefix, local, ok := strings.Cut(s, ":")
	if !ok {
		prefix, local = "", s
	}
	if local == "" || strings.Contains(local, ":") {
		return xml.Name{}, p.sender("%q is not a QName", s)
	}
	uri, bound := p.r.Lookup([]byte(prefix))
	if !bound {
		return xml.Name{}, p.sender("unbound prefix %q in the QName %q", prefix, s)
	}
	return xml.Name{Space: string(uri), Local: local}, nil
}

// versionOf is VersionOf for a token's namespace.
func versionOf(ns []byte) Version {
	switch string(ns) {
	case NamespaceV11:
		return V11
	case NamespaceV12:
		return V12
	}
	return 0
}
