package xmltok

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Reader reads a document token by token. It is strict: anything that is not
// well-formed, namespace-well-formed XML 1.0 without a DTD or processing
// instructions is an error, and so is anything over the limits.
type Reader struct {
	d      *xml.Decoder
	src    *sizeLimit
	br     *bufio.Reader // from readBufs; returned at the end of the input
	lim    Limits
	stack  []frame
	ns     []NS // bindings in scope, innermost last
	tok    Token
	attr   []Attr
	decl   []NS
	tokens int  // tokens seen, for the XML declaration check
	pop    int  // bindings to drop at the next call: an end tag's scope lasts until then
	root   bool // the root element was seen
	err    error

	// first backing arrays of stack and ns: most envelopes fit, sparing the
	// allocations of growing them
	stack0 [8]frame
	ns0    [8]NS
}

type frame struct {
	prefix, local string
	nns           int // bindings pushed by this element
}

// readBufs recycles the input buffers: allocating and zeroing 4 KiB per
// envelope was a large share of the cost of reading a small message.
var readBufs = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// NewReader returns a Reader over r.
func NewReader(r io.Reader, lim Limits) *Reader {
	src := &sizeLimit{r: r, max: lim.MaxBytes}
	br := readBufs.Get().(*bufio.Reader)
	br.Reset(src)
	in, utf16in := decodeBOM(br)
	d := xml.NewDecoder(in)
	d.Strict = true
	d.CharsetReader = charsetReader(utf16in)
	t := &Reader{d: d, src: src, br: br, lim: lim}
	t.stack, t.ns = t.stack0[:0], t.ns0[:0]
	return t
}

// release returns the input buffer to the pool once the decoder has reported
// the end of the input or an error: r.err is set then, so the decoder (which
// still points at the buffer) is never called again.
func (r *Reader) release() {
	if r.br != nil && r.err != nil {
		r.br.Reset(nil)
		readBufs.Put(r.br)
		r.br = nil
	}
}

// Depth is the number of open elements.
func (r *Reader) Depth() int { return len(r.stack) }

// Offset is the number of input bytes the tokenizer has consumed.
func (r *Reader) Offset() int64 { return r.d.InputOffset() }

// Lookup resolves a prefix in the current scope ("" is the default namespace).
// After an end tag, the scope is still the closed element's until Next is
// called again, so a QName in an element's text can be resolved at its end.
func (r *Reader) Lookup(prefix string) (string, bool) {
	if prefix == "xml" {
		return XMLNamespace, true
	}
	for i := len(r.ns) - 1; i >= 0; i-- {
		if r.ns[i].Prefix == prefix {
			return r.ns[i].URI, r.ns[i].URI != "" || prefix == ""
		}
	}
	return "", prefix == ""
}

// InScope appends to dst every binding in effect at the current position: one
// per prefix (the innermost), outermost first. The xml prefix is implicit and
// never listed.
func (r *Reader) InScope(dst []NS) []NS {
	start := len(dst)
outer:
	for i := len(r.ns) - 1; i >= 0; i-- {
		for _, d := range dst[start:] {
			if d.Prefix == r.ns[i].Prefix {
				continue outer
			}
		}
		dst = append(dst, r.ns[i])
	}
	// reverse to outermost-first for stable output
	for i, j := start, len(dst)-1; i < j; i, j = i+1, j-1 {
		dst[i], dst[j] = dst[j], dst[i]
	}
	return dst
}

func (r *Reader) fail(err error, format string, args ...any) error {
	r.err = &SyntaxError{Offset: r.Offset(), Msg: fmt.Sprintf(format, args...), Err: err}
	return r.err
}

// Next returns the next token. It returns io.EOF after the root element has
// closed and only whitespace, comments and the end of input followed.
func (r *Reader) Next() (*Token, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.pop > 0 {
		r.ns = r.ns[:len(r.ns)-r.pop]
		r.pop = 0
	}
	for {
		t, err := r.d.RawToken()
		if err != nil {
			err = r.readErr(err)
			r.release()
			return nil, err
		}
		r.tokens++
		switch t := t.(type) {
		case xml.StartElement:
			return r.start(t)
		case xml.EndElement:
			return r.end(t)
		case xml.CharData:
			if len(r.stack) == 0 {
				if !isSpace(t) {
					return nil, r.fail(nil, "text outside the root element")
				}
				continue
			}
			r.tok = Token{Kind: CharData, Text: t}
			return &r.tok, nil
		case xml.Comment:
			r.tok = Token{Kind: Comment, Text: t}
			return &r.tok, nil
		case xml.ProcInst:
			if t.Target == "xml" && r.tokens == 1 {
				continue
			}
			if strings.EqualFold(t.Target, "xml") {
				return nil, r.fail(nil, "XML declaration not at the start of the document")
			}
			return nil, r.fail(nil, "processing instruction <?%s?> not allowed", t.Target)
		case xml.Directive:
			return nil, r.fail(nil, "document type declarations and other <!...> directives are not allowed")
		}
	}
}

func (r *Reader) readErr(err error) error {
	switch {
	case err == io.EOF:
		if len(r.stack) > 0 {
			top := r.stack[len(r.stack)-1]
			return r.fail(io.ErrUnexpectedEOF, "unexpected end of input inside <%s>", qname(top.prefix, top.local))
		}
		if !r.root {
			return r.fail(io.ErrUnexpectedEOF, "no root element")
		}
		r.err = io.EOF
		return io.EOF
	case errors.Is(err, ErrTooLarge):
		return r.fail(ErrTooLarge, "input exceeds %d bytes", r.lim.MaxBytes)
	}
	msg := err.Error()
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		msg = se.Msg
	}
	return r.fail(err, "%s", msg)
}

func (r *Reader) start(t xml.StartElement) (*Token, error) {
	if len(r.stack) == 0 && r.root {
		return nil, r.fail(nil, "content after the root element")
	}
	if r.lim.MaxDepth > 0 && len(r.stack) >= r.lim.MaxDepth {
		return nil, r.fail(ErrLimit, "elements nested deeper than %d", r.lim.MaxDepth)
	}
	if err := r.checkName(t.Name); err != nil {
		return nil, err
	}
	r.root = true
	r.attr, r.decl = r.attr[:0], r.decl[:0]
	nattr := 0
	for _, a := range t.Attr {
		if err := r.checkName(a.Name); err != nil {
			return nil, err
		}
		switch {
		case a.Name.Space == "xmlns":
			if err := checkDecl(a.Name.Local, a.Value); err != nil {
				return nil, r.fail(nil, "%s", err)
			}
			r.decl = append(r.decl, NS{Prefix: a.Name.Local, URI: a.Value})
		case a.Name.Space == "" && a.Name.Local == "xmlns":
			if a.Value == XMLNamespace || a.Value == "http://www.w3.org/2000/xmlns/" {
				return nil, r.fail(nil, "the default namespace cannot be %s", a.Value)
			}
			r.decl = append(r.decl, NS{URI: a.Value})
		default:
			nattr++
		}
	}
	if r.lim.MaxAttrs > 0 && nattr > r.lim.MaxAttrs {
		return nil, r.fail(ErrLimit, "more than %d attributes on <%s>", r.lim.MaxAttrs, qname(t.Name.Space, t.Name.Local))
	}
	if r.lim.MaxNSDecls > 0 && len(r.decl) > r.lim.MaxNSDecls {
		return nil, r.fail(ErrLimit, "more than %d namespace declarations on <%s>", r.lim.MaxNSDecls, qname(t.Name.Space, t.Name.Local))
	}
	for i, d := range r.decl {
		for _, e := range r.decl[:i] {
			if e.Prefix == d.Prefix {
				return nil, r.fail(nil, "duplicate namespace declaration %q on <%s>", d.Prefix, qname(t.Name.Space, t.Name.Local))
			}
		}
	}
	r.ns = append(r.ns, r.decl...)
	r.stack = append(r.stack, frame{prefix: t.Name.Space, local: t.Name.Local, nns: len(r.decl)})

	name, err := r.resolve(t.Name.Space, t.Name.Local, true)
	if err != nil {
		return nil, err
	}
	for _, a := range t.Attr {
		if a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns") {
			continue
		}
		an, err := r.resolve(a.Name.Space, a.Name.Local, false)
		if err != nil {
			return nil, err
		}
		for _, b := range r.attr {
			if (b.Name.Prefix == an.Prefix && b.Name.Local == an.Local) || (b.Name.Space == an.Space && b.Name.Local == an.Local) {
				return nil, r.fail(nil, "duplicate attribute %s on <%s>", qname(an.Prefix, an.Local), qname(t.Name.Space, t.Name.Local))
			}
		}
		r.attr = append(r.attr, Attr{Name: an, Value: a.Value})
	}
	r.tok = Token{Kind: StartElement, Name: name, Attr: r.attr, NS: r.decl}
	return &r.tok, nil
}

func (r *Reader) end(t xml.EndElement) (*Token, error) {
	if len(r.stack) == 0 {
		return nil, r.fail(nil, "unexpected end tag </%s>", qname(t.Name.Space, t.Name.Local))
	}
	top := r.stack[len(r.stack)-1]
	if top.prefix != t.Name.Space || top.local != t.Name.Local {
		return nil, r.fail(nil, "element <%s> closed by </%s>", qname(top.prefix, top.local), qname(t.Name.Space, t.Name.Local))
	}
	name, err := r.resolve(t.Name.Space, t.Name.Local, true)
	if err != nil {
		return nil, err
	}
	r.pop = top.nns // Lookup still sees the element's bindings until the next call
	r.stack = r.stack[:len(r.stack)-1]
	r.tok = Token{Kind: EndElement, Name: name}
	return &r.tok, nil
}

func (r *Reader) resolve(prefix, local string, element bool) (Name, error) {
	switch {
	case prefix == "xmlns":
		return Name{}, r.fail(nil, "the prefix xmlns is reserved")
	case prefix == "" && !element:
		return Name{Local: local}, nil
	}
	uri, ok := r.Lookup(prefix)
	if !ok {
		return Name{}, r.fail(nil, "unbound namespace prefix %q in %s", prefix, qname(prefix, local))
	}
	return Name{Space: uri, Prefix: prefix, Local: local}, nil
}

func (r *Reader) checkName(n xml.Name) error {
	if r.lim.MaxNameLen > 0 && (len(n.Local) > r.lim.MaxNameLen || len(n.Space) > r.lim.MaxNameLen) {
		return r.fail(ErrLimit, "a name is longer than %d bytes", r.lim.MaxNameLen)
	}
	if strings.Contains(n.Local, ":") {
		return r.fail(nil, "name %q has more than one colon", n.Space+":"+n.Local)
	}
	if n.Local == "" {
		return r.fail(nil, "empty local name after prefix %q", n.Space)
	}
	return nil
}

func checkDecl(prefix, uri string) error {
	switch {
	case prefix == "xmlns":
		return fmt.Errorf("the prefix xmlns cannot be declared")
	case prefix == "xml" && uri != XMLNamespace:
		return fmt.Errorf("the prefix xml cannot be bound to %q", uri)
	case prefix != "xml" && uri == XMLNamespace:
		return fmt.Errorf("the XML namespace cannot be bound to the prefix %q", prefix)
	case uri == "http://www.w3.org/2000/xmlns/":
		return fmt.Errorf("the xmlns namespace cannot be declared")
	case uri == "":
		return fmt.Errorf("the prefix %q cannot be undeclared (XML Namespaces 1.0)", prefix)
	}
	return nil
}

func qname(prefix, local string) string {
	if prefix == "" {
		return local
	}
	return prefix + ":" + local
}

func isSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// IsSpace reports whether b holds only XML whitespace.
func IsSpace(b []byte) bool { return isSpace(b) }
