package core

import (
	"io"
	"sync"
	"unicode/utf8"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// xmlWriter is the hand-written XML writer every envelope goes through: it
// escapes once, buffers, and never depends on encoding/xml's prefix choices.
type xmlWriter struct {
	w       io.Writer
	buf     []byte
	n       int64
	err     error
	pending bool // a start tag is open: ">" or "/>" not written yet
	pooled  *[]byte
}

// writeBufs recycles the buffers of writers that flush to an io.Writer:
// allocating and zeroing 4 KiB per envelope was a large share of the cost of
// writing a small message.
var writeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// newXMLWriter returns a buffered writer to w; call release when done.
func newXMLWriter(w io.Writer) *xmlWriter {
	bp := writeBufs.Get().(*[]byte)
	return &xmlWriter{w: w, buf: (*bp)[:0], pooled: bp}
}

// release returns the writer's buffer to the pool (after the final flush);
// the writer must not be used again.
func (x *xmlWriter) release() {
	if x.pooled == nil {
		return
	}
	if cap(x.buf) <= 64<<10 {
		*x.pooled = x.buf[:0]
		writeBufs.Put(x.pooled)
	}
	x.pooled, x.buf, x.w = nil, nil, nil
}

// newMemWriter returns a writer that keeps everything in buf (never
// flushes): for header blocks and fault details read into memory.
func newMemWriter(capacity int) *xmlWriter {
	return &xmlWriter{buf: make([]byte, 0, capacity)}
}

func (x *xmlWriter) flushIf() {
	if len(x.buf) >= 4096 && x.w != nil {
		x.flush()
	}
}

func (x *xmlWriter) flush() error {
	if x.w == nil {
		return x.err
	}
	if x.err == nil && len(x.buf) > 0 {
		var n int
		n, x.err = x.w.Write(x.buf)
		x.n += int64(n)
	}
	x.buf = x.buf[:0]
	return x.err
}

// Write lets a streaming body func write raw XML through the writer.
func (x *xmlWriter) Write(p []byte) (int, error) {
	x.closeStart()
	if x.err != nil {
		return 0, x.err
	}
	if len(x.buf)+len(p) > 4096 && x.w != nil {
		if x.flush() != nil {
			return 0, x.err
		}
		if len(p) >= 4096 {
			n, err := x.w.Write(p)
			x.n += int64(n)
			x.err = err
			return n, err
		}
	}
	x.buf = append(x.buf, p...)
	return len(p), nil
}

func (x *xmlWriter) closeStart() {
	if x.pending {
		x.buf = append(x.buf, '>')
		x.pending = false
	}
}

func (x *xmlWriter) raw(s string) {
	x.closeStart()
	x.buf = append(x.buf, s...)
	x.flushIf()
}

// open writes "<name" and leaves the tag open for attributes.
func (x *xmlWriter) open(prefix, local string) {
	x.closeStart()
	x.buf = append(x.buf, '<')
	if prefix != "" {
		x.buf = append(x.buf, prefix...)
		x.buf = append(x.buf, ':')
	}
	x.buf = append(x.buf, local...)
	x.pending = true
}

// attr writes ` prefix:local="value"` into the open tag.
func (x *xmlWriter) attr(prefix, local, value string) {
	x.buf = append(x.buf, ' ')
	if prefix != "" {
		x.buf = append(x.buf, prefix...)
		x.buf = append(x.buf, ':')
	}
	x.buf = append(x.buf, local...)
	x.buf = append(x.buf, '=', '"')
	x.buf = appendEscaped(x.buf, value, true)
	x.buf = append(x.buf, '"')
}

func (x *xmlWriter) decl(prefix, uri string) {
	if prefix == "" {
		x.attr("", "xmlns", uri)
		return
	}
	x.attr("xmlns", prefix, uri)
}

// close ends the element: "/>" when nothing was written since open.
func (x *xmlWriter) close(prefix, local string) {
	if x.pending {
		x.buf = append(x.buf, '/', '>')
		x.pending = false
		x.flushIf()
		return
	}
	x.buf = append(x.buf, '<', '/')
	if prefix != "" {
		x.buf = append(x.buf, prefix...)
		x.buf = append(x.buf, ':')
	}
	x.buf = append(x.buf, local...)
	x.buf = append(x.buf, '>')
	x.flushIf()
}

func (x *xmlWriter) text(s string) {
	x.closeStart()
	x.buf = appendEscaped(x.buf, s, false)
	x.flushIf()
}

func (x *xmlWriter) textBytes(b []byte) {
	x.closeStart()
	x.buf = appendEscaped(x.buf, b, false)
	x.flushIf()
}

func (x *xmlWriter) comment(b []byte) {
	x.closeStart()
	x.buf = append(x.buf, "<!--"...)
	x.buf = append(x.buf, b...)
	x.buf = append(x.buf, "-->"...)
	x.flushIf()
}

// element writes <prefix:local xmlns:prefix="space">text</prefix:local>.
func (x *xmlWriter) element(prefix, local, space, text string) {
	x.open(prefix, local)
	if space != "" {
		x.decl(prefix, space)
	}
	if text != "" {
		x.text(text)
	}
	x.close(prefix, local)
}

// token writes a token read by the tokenizer. scope, when not nil, is the
// full set of bindings to declare on a start tag (namespace completion for
// the root of a copied fragment); otherwise the token's own declarations are
// written.
func (x *xmlWriter) token(t *xmltok.Token, scope []xmltok.NS) {
	switch t.Kind {
	case xmltok.StartElement:
		x.open(t.Name.Prefix, t.Name.Local)
		decls := t.NS
		if scope != nil {
			decls = scope
		}
		for _, d := range decls {
			x.decl(d.Prefix, d.URI)
		}
		for _, a := range t.Attr {
			x.attr(a.Name.Prefix, a.Name.Local, a.Value)
		}
	case xmltok.EndElement:
		x.close(t.Name.Prefix, t.Name.Local)
	case xmltok.CharData:
		x.textBytes(t.Text)
	case xmltok.Comment:
		x.comment(t.Text)
	}
}

// appendEscaped escapes text or an attribute value. Characters XML 1.0 cannot
// carry (most C0 controls, invalid UTF-8) become U+FFFD, so the output is
// always well-formed.
func appendEscaped[S string | []byte](dst []byte, s S, attr bool) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '&' && c != '<' && c != '>' && c != '"' {
			i++
			continue
		}
		var esc string
		width := 1
		switch {
		case c == '&':
			esc = "&amp;"
		case c == '<':
			esc = "&lt;"
		case c == '>':
			esc = "&gt;"
		case c == '"':
			if !attr {
				i++
				continue
			}
			esc = "&quot;"
		case c == '\r':
			esc = "&#xD;"
		case c == '\n' || c == '\t':
			if !attr {
				i++
				continue
			}
			if c == '\n' {
				esc = "&#xA;"
			} else {
				esc = "&#x9;"
			}
		case c < 0x20:
			esc = "\uFFFD"
		default:
			var r rune
			switch v := any(s).(type) {
			case string:
				r, width = utf8.DecodeRuneInString(v[i:])
			case []byte:
				r, width = utf8.DecodeRune(v[i:])
			}
			if r == utf8.RuneError && width == 1 || r == 0xFFFE || r == 0xFFFF {
				esc = "\uFFFD"
			} else {
				i += width
				continue
			}
		}
		dst = append(dst, s[last:i]...)
		dst = append(dst, esc...)
		i += width
		last = i
	}
	return append(dst, s[last:]...)
}
