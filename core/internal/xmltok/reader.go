package xmltok

import (
	"bytes"
	"fmt"
	"io"
)

// Reader reads a document token by token (see the package documentation).
type Reader struct {
	src    io.Reader // the input: cnt, or a UTF-16 transcoder over it
	cnt    counter
	buf    []byte
	pos    int   // the next unread byte in buf
	end    int   // the end of the buffered input
	base   int64 // input offset of buf[0] (after a byte order mark)
	rerr   error // the input's end (io.EOF) or failure, once seen
	lim    Limits
	maxTok int
	utf16  bool // the input is UTF-16, transcoded as it is read

	tok      Token
	elemName qname  // the name of the start tag scanStart found
	xmlURI   []byte // XMLNamespace, for Lookup (never written)
	names    []byte // qualified names of the open elements
	nsbuf    []byte // prefixes and URIs of the bindings in scope
	stack    []elem
	ns       []NS // bindings in scope, innermost last
	attrs    []Attr
	raw      []rawAttr
	scope    []NS         // Scope's result
	pooled   bool         // from readBufs (NewReader), to go back there (Release)
	in       bytes.Reader // the input of NewReaderBytes
	// Aux is the caller's own state kept with the Reader: it survives
	// Release and comes back with the Reader from a later NewReader (the
	// core keeps its envelope parser here). The Reader never touches it.
	Aux any
	// duplicate lookups for a start tag with many attributes
	dups     map[string]struct{}
	expanded map[string]int
	// the scope of the element the last token closed, dropped at the next
	// call: the lengths of names, ns and nsbuf to cut back to
	cutNames, cutNS, cutNSBuf int
	hasCut                    bool
	pendEnd                   bool // the start tag returned last was empty: its end comes next
	// the last token's input bytes, buf[rawFrom:rawTo], when they are what
	// the token holds (see Raw)
	rawFrom, rawTo int
	rawOK          bool
	inCDATA        bool // inside a CDATA section returned in pieces
	begun          bool // the byte order mark has been looked for
	root           bool // the root element has started
	err            error
}

// elem is an open element.
type elem struct {
	name  int // offset of its qualified name in names
	nlen  int // length of the qualified name
	plen  int // length of the prefix, 0 for none
	bind  int // the binding in ns of its namespace; noBind, xmlBind
	ns    int // len(ns) before its declarations
	nsbuf int // len(nsbuf) before its declarations
}

// elem.bind for no namespace and for the xml prefix's.
const (
	noBind  = -1
	xmlBind = -2
)

// NewReader returns a Reader reading r within lim. Call Release when done
// with it (optional: a Reader not released is garbage collected).
func NewReader(r io.Reader, lim Limits) *Reader {
	s := readBufs.Get().(*Reader)
	s.reset(r, lim)
	s.pooled = true
	return s
}

// NewReaderBytes is NewReader reading b, through a reader of b the Reader
// holds (none to allocate). b is not modified, but must not change while
// the Reader reads it.
func NewReaderBytes(b []byte, lim Limits) *Reader {
	s := readBufs.Get().(*Reader)
	s.in.Reset(b)
	s.reset(&s.in, lim)
	s.pooled = true
	return s
}

// reset makes s read r within lim, keeping its buffers. It writes only the
// fields that change (a pointer written while the garbage collector marks
// costs a write barrier, and this runs twice per document).
func (s *Reader) reset(r io.Reader, lim Limits) {
	if s.xmlURI == nil {
		s.xmlURI = []byte(XMLNamespace)
	}
	s.cnt = counter{r: r, max: lim.MaxBytes}
	if s.src != &s.cnt {
		s.src = &s.cnt
	}
	s.pos, s.end, s.base = 0, 0, 0
	if s.rerr != nil {
		s.rerr = nil
	}
	if s.err != nil {
		s.err = nil
	}
	s.lim = lim
	s.maxTok = max(lim.MaxTokenBytes, 0)
	s.utf16 = false
	s.names, s.nsbuf, s.stack, s.ns = s.names[:0], s.nsbuf[:0], s.stack[:0], s.ns[:0]
	s.attrs, s.raw, s.scope = s.attrs[:0], s.raw[:0], s.scope[:0]
	if s.dups != nil || s.expanded != nil {
		s.dups, s.expanded = nil, nil
	}
	s.cutNames, s.cutNS, s.cutNSBuf = 0, 0, 0
	s.hasCut, s.pendEnd, s.inCDATA, s.begun, s.root = false, false, false, false, false
	s.elemName = qname{}
}

// Release hands the Reader and its buffers back for another NewReader: s,
// and every token, name and slice it returned, must not be used after it.
func (s *Reader) Release() {
	if !s.pooled {
		return
	}
	s.pooled = false
	if len(s.buf) < defaultBufSize || len(s.buf) > maxPooled || cap(s.names) > maxPooled || cap(s.nsbuf) > maxPooled ||
		cap(s.stack) > 1024 || cap(s.ns) > 1024 || cap(s.attrs) > 1024 || cap(s.raw) > 1024 || cap(s.scope) > 1024 {
		return // grown by an unusual document: let it go
	}
	s.reset(nil, Limits{}) // drop the input and the error
	s.in.Reset(nil)        // nor keep NewReaderBytes's input
	if t := &s.tok; t.Name.Space != nil || t.Name.Prefix != nil || t.Name.Local != nil || t.Attr != nil || t.NS != nil || t.Text != nil {
		*t = Token{}
	}
	readBufs.Put(s)
}

// Depth is the number of open elements. After an end tag it no longer counts
// the element that closed.
func (s *Reader) Depth() int { return len(s.stack) }

// Offset is the number of input bytes consumed so far (after a byte order
// mark, and counted in UTF-8 for UTF-16 input): after a token, the offset of
// its end.
func (s *Reader) Offset() int64 { return s.base + int64(s.pos) }

// Lookup resolves a prefix in the current scope (an empty prefix is the
// default namespace, bound to no namespace unless declared). After an end
// tag the scope is still the closed element's until Next is called again, so
// a QName in an element's text can be resolved at its end. The URI returned
// must not be modified.
func (s *Reader) Lookup(prefix []byte) ([]byte, bool) {
	i, ok := s.lookup(prefix)
	return s.uri(i), ok
}

// lookup returns the binding of prefix: an index in ns, noBind or xmlBind.
func (s *Reader) lookup(prefix []byte) (int, bool) {
	if string(prefix) == "xml" {
		return xmlBind, true
	}
	for i := len(s.ns) - 1; i >= 0; i-- {
		if bytes.Equal(s.ns[i].Prefix, prefix) {
			if len(s.ns[i].URI) == 0 {
				return noBind, len(prefix) == 0
			}
			return i, true
		}
	}
	return noBind, len(prefix) == 0
}

// uri is the namespace URI of a binding lookup returned.
func (s *Reader) uri(i int) []byte {
	switch i {
	case noBind:
		return nil
	case xmlBind:
		return s.xmlURI
	}
	return s.ns[i].URI
}

// Scope returns every binding in effect at the current position, as
// InScope does, in a slice of the Reader's own, valid until the next call to
// Next or Scope.
func (s *Reader) Scope() []NS {
	s.scope = s.InScope(s.scope[:0])
	return s.scope
}

// Bindings returns the namespace declarations in effect at the current
// position, outermost first, those redeclared further in included (Scope
// gives one per prefix): a slice of the Reader's own, valid until the next
// call to Next. Two positions with the same Bindings have the same scope.
func (s *Reader) Bindings() []NS { return s.ns[:len(s.ns):len(s.ns)] }

// InScope appends to dst every binding in effect at the current position:
// one per prefix (the innermost), outermost first. The xml prefix is
// implicit and never listed; neither is a default namespace undeclared
// (xmlns="") with no declaration outside it.
func (s *Reader) InScope(dst []NS) []NS {
	n := len(s.ns)
outer:
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if bytes.Equal(s.ns[j].Prefix, s.ns[i].Prefix) {
				continue outer // redeclared further in
			}
		}
		dst = append(dst, s.ns[i])
	}
	return dst
}

// failAt records a sticky error found at buf[pos+rel].
func (s *Reader) failAt(rel int, err error, format string, args ...any) error {
	s.err = &SyntaxError{Offset: s.base + int64(s.pos+rel), Msg: fmt.Sprintf(format, args...), Err: err}
	return s.err
}

func (s *Reader) topName() string {
	if len(s.stack) == 0 {
		return ""
	}
	e := s.stack[len(s.stack)-1]
	return string(s.names[e.name : e.name+e.nlen])
}

// Next returns the next token. It returns io.EOF once the root element has
// closed and only white space and comments followed it to the end of the
// input.
func (s *Reader) Next() (*Token, error) {
	if s.err != nil {
		return nil, s.err
	}
	s.rawOK = false
	if s.hasCut {
		s.hasCut = false
		s.names = s.names[:s.cutNames]
		s.ns, s.nsbuf = s.ns[:s.cutNS], s.nsbuf[:s.cutNSBuf]
	}
	if s.pendEnd {
		s.pendEnd = false
		s.setRaw(s.pos, s.pos) // the empty-element tag was the start's
		return s.closeTop(), nil
	}
	if !s.begun {
		if err := s.begin(); err != nil {
			return nil, err
		}
	}
	for {
		if s.pos >= s.end {
			if !s.more(1) {
				return s.atEnd()
			}
			continue
		}
		if s.inCDATA {
			t, err := s.cdata()
			if t != nil || err != nil {
				return t, err
			}
			continue
		}
		if s.buf[s.pos] != '<' {
			if len(s.stack) == 0 {
				if err := s.outside(); err != nil {
					return nil, err
				}
				continue
			}
			return s.text()
		}
		if s.end-s.pos < 2 {
			if err := s.moreFor("a tag"); err != nil {
				return nil, err
			}
			continue
		}
		var t *Token
		var err error
		switch s.buf[s.pos+1] {
		case '/':
			t, err = s.endTag()
		case '!':
			t, err = s.bang()
		case '?':
			err = s.procInst()
		default:
			t, err = s.startTag()
		}
		if t != nil || err != nil {
			return t, err
		}
	}
}

// Raw returns the input bytes of the token Next returned last when they are
// exactly what the token holds, so that writing them is writing the token:
// a start tag with no reference decoded and no white space normalized in its
// attribute values (its own namespace declarations and the "/>" of an
// empty-element tag included), an end tag (empty for an empty-element tag),
// a comment, text outside CDATA sections with no reference and no line end
// normalized (only a lone CR, turned into LF in place, which is the same
// text). Otherwise it returns nil. The bytes are well-formed XML as checked;
// they are valid until the next call to Next and must not be modified.
// Text holding a '>' is well-formed where it stands but not after any text:
// written after text that ends in "]]" (a CDATA section's) it makes "]]>",
// so a writer escapes it instead (as the core's does).
func (s *Reader) Raw() []byte {
	if !s.rawOK {
		return nil
	}
	return s.buf[s.rawFrom:s.rawTo:s.rawTo]
}

func (s *Reader) setRaw(from, to int) {
	s.rawFrom, s.rawTo, s.rawOK = from, to, true
}

// atEnd handles the end of the input (or a read error) between tokens.
func (s *Reader) atEnd() (*Token, error) {
	switch {
	case s.rerr != io.EOF:
		return nil, s.readFailure("the document")
	case len(s.stack) > 0:
		return nil, s.failAt(0, io.ErrUnexpectedEOF, "unexpected end of input inside <%s>", s.topName())
	case s.inCDATA:
		return nil, s.failAt(0, io.ErrUnexpectedEOF, "unexpected end of input in a CDATA section")
	case !s.root:
		return nil, s.failAt(0, io.ErrUnexpectedEOF, "no root element")
	}
	s.err = io.EOF
	return nil, io.EOF
}

// outside skips white space outside the root element.
func (s *Reader) outside() error {
	for i := s.pos; i < s.end; i++ {
		switch c := s.buf[i]; c {
		case ' ', '\t', '\n', '\r':
		case '<':
			s.pos = i
			return nil
		default:
			s.pos = i
			return s.failAt(0, nil, "text outside the root element")
		}
	}
	s.pos = s.end
	return nil
}

// closeTop pops the innermost element and returns its end tag; its
// namespace scope lasts until the next call.
func (s *Reader) closeTop() *Token {
	e := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	s.cutNames, s.cutNS, s.cutNSBuf, s.hasCut = e.name, e.ns, e.nsbuf, true
	qn := s.names[e.name : e.name+e.nlen]
	t := &s.tok
	t.Kind = EndElement
	t.Name.Space = s.uri(e.bind)
	if e.plen > 0 {
		t.Name.Prefix, t.Name.Local = qn[:e.plen], qn[e.plen+1:]
	} else {
		t.Name.Prefix, t.Name.Local = nil, qn
	}
	t.Attr, t.NS, t.Text = nil, nil, nil
	return t
}

// textToken returns a CharData or Comment token, clearing only what the last
// token set.
func (s *Reader) textToken(k Kind, text []byte) *Token {
	t := &s.tok
	t.Kind, t.Text = k, text
	if t.Name.Local != nil || t.Attr != nil || t.NS != nil {
		t.Name, t.Attr, t.NS = Name{}, nil, nil
	}
	return t
}
