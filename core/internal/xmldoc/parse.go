package xmldoc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// Limits bound what Parse accepts. A zero field takes its default.
type Limits struct {
	MaxBytes      int64 // bytes of the document, before and after entities are expanded (default 32 MiB)
	MaxDepth      int   // element nesting (default 256)
	MaxAttrs      int   // attributes per element (default 256)
	MaxNameLen    int   // bytes in a prefix or local name (default 1024)
	MaxTokenBytes int   // bytes in one tag or comment (default 1 MiB)
	MaxEntities   int   // general entities declared in the internal subset (default 64)
}

func (l Limits) maxEntities() int {
	if l.MaxEntities > 0 {
		return l.MaxEntities
	}
	return 64
}

func (l Limits) withDefaults() Limits {
	def := func(v, d int) int {
		if v > 0 {
			return v
		}
		return d
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 32 << 20
	}
	l.MaxDepth = def(l.MaxDepth, 256)
	l.MaxAttrs = def(l.MaxAttrs, 256)
	l.MaxNameLen = def(l.MaxNameLen, 1024)
	l.MaxTokenBytes = def(l.MaxTokenBytes, 1<<20)
	l.MaxEntities = def(l.MaxEntities, 64)
	return l
}

// ErrLimit and ErrTooLarge are in the chain of the errors for a document
// over its Limits.
var (
	ErrLimit    = xmltok.ErrLimit
	ErrTooLarge = xmltok.ErrTooLarge
)

// Error is a document that could not be read, at a line.
type Error struct {
	Line int
	Msg  string
	Err  error // ErrLimit, ErrTooLarge or nil
}

func (e *Error) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }
func (e *Error) Unwrap() error { return e.Err }

// Parse reads a whole document within lim and returns its root element.
// Errors are *Error.
func Parse(data []byte, lim Limits) (*Node, error) {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.MaxBytes {
		return nil, &Error{Line: 1, Msg: fmt.Sprintf("the document is larger than %d bytes", lim.MaxBytes), Err: ErrTooLarge}
	}
	src, err := prepare(data, lim)
	if err != nil {
		var pe *posError
		if errors.As(err, &pe) {
			return nil, &Error{Line: pe.line, Msg: pe.msg, Err: pe.err}
		}
		return nil, &Error{Line: 1, Msg: err.Error()}
	}
	p := &parser{src: src, names: map[string]string{}, line: 1}
	return p.run(lim)
}

type parser struct {
	src     []byte
	names   map[string]string // interned names and namespace URIs
	line    int               // the line at byte lineOff
	lineOff int64
	docs    int // open documentation elements: their white space is kept
}

func (p *parser) intern(b []byte) string {
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	p.names[s] = s
	return s
}

// lineOf is the line of byte offset off; offsets come in increasing order.
func (p *parser) lineOf(off int64) int {
	if off > int64(len(p.src)) {
		off = int64(len(p.src))
	}
	if off > p.lineOff {
		p.line += bytes.Count(p.src[p.lineOff:off], []byte{'\n'})
		p.lineOff = off
	}
	return p.line
}

// skipSpace returns the offset of the first byte at or after off that is not
// white space or the XML declaration (the tokenizer skips them before the
// root element).
func (p *parser) skipSpace(off int64) int64 {
	if off == 0 && hasDecl(p.src) {
		if e := bytes.Index(p.src, []byte("?>")); e > 0 {
			off = int64(e) + 2
		}
	}
	for off < int64(len(p.src)) && isSpace(p.src[off]) {
		off++
	}
	return off
}

func (p *parser) run(lim Limits) (*Node, error) {
	r := xmltok.NewReaderBytes(p.src, xmltok.Limits{
		MaxBytes:      lim.MaxBytes,
		MaxDepth:      lim.MaxDepth,
		MaxAttrs:      lim.MaxAttrs,
		MaxNSDecls:    lim.MaxAttrs,
		MaxNameLen:    lim.MaxNameLen,
		MaxTokenBytes: lim.MaxTokenBytes,
	})
	defer r.Release()
	var root, cur *Node
	var text []byte
	flush := func() {
		if cur == nil || len(text) == 0 {
			text = text[:0]
			return
		}
		if p.docs > 0 || !xmltok.IsSpace(text) {
			cur.Children = append(cur.Children, &Node{Parent: cur, Text: string(text)})
		}
		text = text[:0]
	}
	for {
		start := r.Offset()
		t, err := r.Next()
		if err == io.EOF {
			return root, nil
		}
		if err != nil {
			var se *xmltok.SyntaxError
			if errors.As(err, &se) {
				return nil, &Error{Line: p.lineOf(se.Offset), Msg: se.Msg, Err: se.Err}
			}
			return nil, &Error{Line: p.lineOf(r.Offset()), Msg: err.Error()}
		}
		switch t.Kind {
		case xmltok.StartElement:
			flush()
			n := &Node{
				Name:   xml.Name{Space: p.intern(t.Name.Space), Local: p.intern(t.Name.Local)},
				Parent: cur,
				Line:   p.lineOf(p.skipSpace(start)),
			}
			if len(t.Attr) > 0 {
				n.Attrs = make([]Attr, len(t.Attr))
				for i, a := range t.Attr {
					n.Attrs[i] = Attr{Name: xml.Name{Space: p.intern(a.Name.Space), Local: p.intern(a.Name.Local)}, Value: string(a.Value)}
				}
			}
			if len(t.NS) > 0 {
				n.NS = make([]NS, len(t.NS))
				for i, d := range t.NS {
					n.NS[i] = NS{Prefix: p.intern(d.Prefix), URI: p.intern(d.URI)}
				}
			}
			if cur == nil {
				root = n
			} else {
				cur.Children = append(cur.Children, n)
			}
			cur = n
			if n.Name.Local == "documentation" {
				p.docs++
			}
		case xmltok.EndElement:
			flush()
			if cur.Name.Local == "documentation" {
				p.docs--
			}
			cur = cur.Parent
		case xmltok.CharData:
			text = append(text, t.Text...)
		}
	}
}
