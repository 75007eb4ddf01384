package core

import (
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/soapwire/soapwire/core/internal/xmlesc"
	"github.com/soapwire/soapwire/core/internal/xmltok"
	"github.com/soapwire/soapwire/core/internal/xmlvalue"
)

// xmlWriter is the hand-written XML writer every envelope goes through: it
// escapes once, never depends on encoding/xml's prefix choices, and appends
// straight into the destination's own buffer when it has one
// (AvailableBuffer: a bytes.Buffer, a bufio.Writer), else into its own,
// handed over every flushAt bytes. Writers (with their own buffers) are
// recycled: one is never handed to code outside the core (a StreamBody's
// func gets a streamWriter, cut off when it returns).
type xmlWriter struct {
	w       io.Writer
	direct  availableBuffer // w, when it lends its buffer
	buf     []byte
	own     []byte // the writer's own buffer, when it has one (pooled writers)
	n       int64  // bytes handed to w
	err     error
	pending bool // a start tag is open: ">" or "/>" not written yet
	lent    bool // buf is the destination's free space
	pooled  bool // from writeBufs, to go back there (release)
	// ValueBody's plans (xmlvalue), kept with a recycled writer
	eplans *xmlvalue.Cache
	// where a stream body of the envelope's Body started (see Body.WriteTo)
	body bodyStart
	// msg is the message whose envelope is written (nil for a body or a
	// block written on its own): its Packaging says how a copied
	// xop:Include is written; xout collects the parts they name
	msg  *Message
	xout *xopOut
}

// bodyStart is where the children of an envelope's Body start, when a
// stream body writes them: at (x.written()), in an envelope of version v
// whose prefix is bound on the Envelope.
type bodyStart struct {
	at     int64
	v      Version
	prefix string
}

// plans returns the writer's plan cache, nil for a writer that is not
// recycled.
func (x *xmlWriter) plans() *xmlvalue.Cache {
	if !x.pooled {
		return nil
	}
	if x.eplans == nil {
		x.eplans = new(xmlvalue.Cache)
	}
	return x.eplans
}

// availableBuffer is a writer that lends its free space: append to
// AvailableBuffer's result, then Write it (bytes.Buffer, bufio.Writer).
type availableBuffer interface {
	io.Writer
	AvailableBuffer() []byte
}

// flushAt is how many bytes the writer gathers before handing them over.
const flushAt = 4096

// maxPooledBuf is the largest buffer a recycled writer keeps.
const maxPooledBuf = 64 << 10

// writeBufs recycles writers with their buffers: allocating a writer and
// zeroing 4 KiB per envelope was a large share of the cost of writing a
// small message.
var writeBufs = sync.Pool{New: func() any { return &xmlWriter{own: make([]byte, 0, flushAt)} }}

// newXMLWriter returns a buffered writer to w; call release when done.
func newXMLWriter(w io.Writer) *xmlWriter {
	x := writeBufs.Get().(*xmlWriter)
	x.w, x.pooled = w, true
	if d, ok := w.(availableBuffer); ok {
		x.direct = d
		if x.lend() {
			return x
		}
	}
	x.buf = x.own[:0]
	return x
}

// lend points buf at the destination's free space, growing or flushing the
// destination when it has too little. When it cannot, the writer uses its
// own buffer from then on.
func (x *xmlWriter) lend() bool {
	b := x.direct.AvailableBuffer()
	if cap(b) < flushAt {
		switch d := x.direct.(type) {
		case interface{ Grow(int) }:
			d.Grow(flushAt)
		case interface{ Flush() error }:
			if err := d.Flush(); err != nil && x.err == nil {
				x.err = err
			}
		}
		b = x.direct.AvailableBuffer()
	}
	if cap(b) < flushAt/2 {
		x.direct = nil
		return false
	}
	x.buf, x.lent = b, true
	return true
}

// release recycles the writer with its own buffer (after the final flush);
// the writer must not be used again.
func (x *xmlWriter) release() {
	if !x.pooled {
		return
	}
	own := x.own
	if !x.lent && cap(x.buf) > cap(own) {
		own = x.buf // grown by a long text: keep the larger
	}
	if cap(own) > maxPooledBuf {
		*x = xmlWriter{}
		return
	}
	*x = xmlWriter{own: own[:0], eplans: x.eplans}
	writeBufs.Put(x)
}

// newMemWriter returns a writer that keeps everything in buf (never
// flushes): for header blocks and fault details read into memory.
func newMemWriter(capacity int) *xmlWriter {
	return &xmlWriter{buf: make([]byte, 0, capacity)}
}

// written is the number of bytes written so far, buffered ones included.
func (x *xmlWriter) written() int64 { return x.n + int64(len(x.buf)) }

func (x *xmlWriter) flushIf() {
	if len(x.buf) >= flushAt && x.w != nil {
		x.flush()
	}
}

// flush hands the buffered bytes to w.
func (x *xmlWriter) flush() error {
	if x.w == nil {
		return x.err
	}
	if x.err == nil && len(x.buf) > 0 {
		var n int
		n, x.err = x.w.Write(x.buf)
		x.n += int64(n)
	}
	x.reset()
	return x.err
}

// reset gives the writer an empty buffer once its bytes were handed over:
// the destination's free space has moved.
func (x *xmlWriter) reset() {
	switch {
	case x.direct != nil && x.lend():
	case x.lent:
		x.buf, x.lent = x.own[:0], false
	default:
		x.buf = x.buf[:0]
	}
}

// streamWriter is what a StreamBody's func writes to: the envelope's writer
// while the func runs, nothing once it has returned (the writer is
// recycled).
type streamWriter struct{ x *xmlWriter }

// errStreamDone is the error of a write to a StreamBody's writer after its
// func returned.
var errStreamDone = errors.New("core: write to a StreamBody's writer after its func returned")

func (s *streamWriter) Write(p []byte) (int, error) {
	if s.x == nil {
		return 0, errStreamDone
	}
	return s.x.Write(p)
}

// Write lets a streaming body func write raw XML through the writer.
func (x *xmlWriter) Write(p []byte) (int, error) {
	x.closeStart()
	if x.err != nil {
		return 0, x.err
	}
	if len(x.buf)+len(p) > flushAt && x.w != nil {
		if x.flush() != nil {
			return 0, x.err
		}
		if len(p) >= flushAt {
			n, err := x.w.Write(p)
			x.n += int64(n)
			x.err = err
			x.reset()
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
func (x *xmlWriter) open(prefix, local string) { wOpen(x, prefix, local) }

// attr writes ` prefix:local="value"` into the open tag.
func (x *xmlWriter) attr(prefix, local, value string) { wAttr(x, prefix, local, value) }

// decl writes a namespace declaration into the open tag.
func (x *xmlWriter) decl(prefix, uri string) { wDecl(x, prefix, uri) }

// declPlain writes a namespace declaration whose prefix and URI need no
// escaping (the core's own constants).
func (x *xmlWriter) declPlain(prefix, uri string) {
	if len(prefix) > 0 {
		x.buf = append(append(append(x.buf, " xmlns:"...), prefix...), `="`...)
	} else {
		x.buf = append(x.buf, ` xmlns="`...)
	}
	x.buf = append(append(x.buf, uri...), '"')
}

// close ends the element: "/>" when nothing was written since open.
func (x *xmlWriter) close(prefix, local string) { wClose(x, prefix, local) }

func (x *xmlWriter) text(s string) {
	x.closeStart()
	x.buf = appendEscaped(x.buf, s, false)
	x.flushIf()
}

// The writer's primitives, for names and values held as strings or as
// slices of the tokenizer's buffer alike.

func wOpen[S string | []byte](x *xmlWriter, prefix, local S) {
	x.closeStart()
	x.buf = append(x.buf, '<')
	if len(prefix) > 0 {
		x.buf = append(x.buf, prefix...)
		x.buf = append(x.buf, ':')
	}
	x.buf = append(x.buf, local...)
	x.pending = true
}

func wAttr[S string | []byte](x *xmlWriter, prefix, local, value S) {
	x.buf = append(x.buf, ' ')
	if len(prefix) > 0 {
		x.buf = append(x.buf, prefix...)
		x.buf = append(x.buf, ':')
	}
	x.buf = append(x.buf, local...)
	x.buf = append(x.buf, '=', '"')
	x.buf = appendEscaped(x.buf, value, true)
	x.buf = append(x.buf, '"')
}

func wDecl[S string | []byte](x *xmlWriter, prefix, uri S) {
	x.buf = append(x.buf, " xmlns"...)
	if len(prefix) > 0 {
		x.buf = append(x.buf, ':')
		x.buf = append(x.buf, prefix...)
	}
	x.buf = append(x.buf, '=', '"')
	x.buf = appendEscaped(x.buf, uri, true)
	x.buf = append(x.buf, '"')
}

func wClose[S string | []byte](x *xmlWriter, prefix, local S) {
	if x.pending {
		x.buf = append(x.buf, '/', '>')
		x.pending = false
		x.flushIf()
		return
	}
	x.buf = append(x.buf, '<', '/')
	if len(prefix) > 0 {
		x.buf = append(x.buf, prefix...)
		x.buf = append(x.buf, ':')
	}
	x.buf = append(x.buf, local...)
	x.buf = append(x.buf, '>')
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
		wOpen(x, t.Name.Prefix, t.Name.Local)
		decls := t.NS
		if scope != nil {
			decls = scope
		}
		for _, d := range decls {
			wDecl(x, d.Prefix, d.URI)
		}
		for _, a := range t.Attr {
			wAttr(x, a.Name.Prefix, a.Name.Local, a.Value)
		}
	case xmltok.EndElement:
		wClose(x, t.Name.Prefix, t.Name.Local)
	case xmltok.CharData:
		x.closeStart()
		x.buf = appendEscaped(x.buf, t.Text, false)
		x.flushIf()
	case xmltok.Comment:
		x.closeStart()
		x.buf = append(x.buf, "<!--"...)
		x.buf = append(x.buf, t.Text...)
		x.buf = append(x.buf, "-->"...)
		x.flushIf()
	}
}

// rawToken writes a token read by the tokenizer from raw, its input bytes
// (xmltok.Reader.Raw), when it has them: they are well-formed XML that says
// what the token says, so they are copied as they are instead of being
// written out and escaped again. raw is nil when the token was decoded:
// it is written out then (see token). Text holding '>' is written out too:
// the escaper writes it &gt;, and text must come out the same however the
// tokenizer split it (a text token next to a decoded one reads back as one
// token), so that writing what was written gives the same bytes.
func (x *xmlWriter) rawToken(t *xmltok.Token, raw []byte) {
	switch {
	case raw == nil, t.Kind == xmltok.CharData && bytes.IndexByte(raw, '>') >= 0:
		x.token(t, nil)
	case len(raw) == 0:
		// the end of an empty-element tag: its "/>" was written with the
		// start tag, unless that was written out (and is still open)
		if x.pending {
			wClose(x, t.Name.Prefix, t.Name.Local)
		}
	default:
		x.closeStart()
		x.buf = append(x.buf, raw...)
		x.flushIf()
	}
}

// startComplete writes the start tag t (raw: its input bytes, or nil) with
// the bindings of scope that it does not declare itself (by prefix)
// declared on it too: namespace completion for the root of a copied
// fragment. env, when not nil, is a binding of the envelope written
// around it: not declared again.
func (x *xmlWriter) startComplete(t *xmltok.Token, raw []byte, scope []xmltok.NS, env *xmltok.NS) {
	n := len(t.Name.Local)
	if len(t.Name.Prefix) > 0 {
		n += len(t.Name.Prefix) + 1
	}
	if raw != nil {
		x.closeStart()
		x.buf = append(x.buf, raw[:1+n]...)
	} else {
		wOpen(x, t.Name.Prefix, t.Name.Local)
	}
outer:
	for _, d := range scope {
		for _, o := range t.NS {
			if string(o.Prefix) == string(d.Prefix) {
				continue outer
			}
		}
		if env == nil || !bytes.Equal(d.Prefix, env.Prefix) || !bytes.Equal(d.URI, env.URI) {
			wDecl(x, d.Prefix, d.URI)
		}
	}
	if raw != nil {
		x.buf = append(x.buf, raw[1+n:]...)
		x.flushIf()
		return
	}
	for _, d := range t.NS {
		wDecl(x, d.Prefix, d.URI)
	}
	for _, a := range t.Attr {
		wAttr(x, a.Name.Prefix, a.Name.Local, a.Value)
	}
}

// appendEscaped escapes text or an attribute value, as the writer writes
// them (xmlesc's Text and Attr).
func appendEscaped[S string | []byte](dst []byte, s S, attr bool) []byte {
	if attr {
		return xmlesc.Append(dst, s, xmlesc.Attr)
	}
	return xmlesc.Append(dst, s, xmlesc.Text)
}
