package xsd

import (
	"encoding/xml"
	"io"
	"strconv"

	"github.com/soapwire/soapwire/core"
)

// knownPrefix returns the prefix the writer gives a namespace it knows;
// any other namespace gets ns0, ns1… in the order the document first uses
// them.
func knownPrefix(ns string) (string, bool) {
	switch ns {
	case NamespaceXSI:
		return "xsi", true
	case NamespaceXSD:
		return "xsd", true
	case NamespaceSOAPEnc:
		return "soapenc", true
	case NamespaceSOAP12Enc:
		return "enc", true
	case core.NamespaceV11:
		return "soapenv", true
	case core.NamespaceV12:
		return "env", true
	}
	return "", false
}

// writer writes XML with every namespace in a prefix: a qualified name
// gets its namespace's prefix, declared on the element where it is first
// needed in scope (declarations first in the start tag, in order of use,
// then the attributes); an unqualified one has none, and no default namespace
// is ever declared, so an unprefixed name is in no namespace. The
// prefixes are stable over a document (xsi, xsd, soapenc, enc for their
// namespaces, ns0, ns1… for the others in order of first use).
type writer struct {
	w        io.Writer // nil: everything is kept in buf (NewBytesEncoder)
	buf      []byte
	prefix   map[string]string // namespace → prefix, for the document
	declared []string          // namespaces declared, innermost last
	elems    []openElement     // the open elements, innermost last
	open     bool              // a start tag is being written (attributes may follow)
	decls    []byte            // the start tag's namespace declarations, written at its end
	pending  []byte            // the start tag's attributes, written after the declarations
	err      error
}

// tagName is an element's name as its tags write it: prefix:local, or
// local alone when prefix is "".
type tagName struct{ prefix, local string }

// openElement is an element whose start tag is written and whose end tag
// is not: its name as written, and len(declared) before it.
type openElement struct {
	name     tagName
	declared int
}

func newWriter(w io.Writer) *writer {
	x := makeWriter(w)
	return &x
}

// makeWriter returns a writer to w (nil: it keeps what it writes in buf
// and never flushes), as a value to hold in a structure of its own.
func makeWriter(w io.Writer) writer {
	// room for a few levels and a declaration: a small document's writing
	// does not grow them
	return writer{w: w, prefix: map[string]string{}, elems: make([]openElement, 0, 4), decls: make([]byte, 0, 64)}
}

// prefixOf returns ns's prefix, declaring it on the start tag being
// written if it is not in scope.
func (x *writer) prefixOf(ns string) string {
	if ns == NamespaceXML {
		return "xml"
	}
	p, ok := x.prefix[ns]
	if !ok {
		p, ok = knownPrefix(ns)
		if !ok {
			p = "ns" + strconv.Itoa(len(x.prefix))
			for x.taken(p) {
				p += "_"
			}
		}
		x.prefix[ns] = p
	}
	for _, d := range x.declared {
		if d == ns {
			return p
		}
	}
	x.declared = append(x.declared, ns)
	x.decls = append(x.decls, " xmlns:"...)
	x.decls = append(x.decls, p...)
	x.decls = append(x.decls, `="`...)
	x.decls = core.AppendEscapedAttr(x.decls, ns)
	x.decls = append(x.decls, '"')
	return p
}

// taken reports whether a prefix is given to a namespace already.
func (x *writer) taken(p string) bool {
	for _, q := range x.prefix {
		if q == p {
			return true
		}
	}
	return false
}

// qname returns n as a prefixed name for the start tag being written.
func (x *writer) qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return x.prefixOf(n.Space) + ":" + n.Local
}

// start begins a start tag; attributes may follow until the next content.
func (x *writer) start(n xml.Name) {
	x.finishStart()
	mark := len(x.declared)
	x.pending, x.decls = x.pending[:0], x.decls[:0]
	t := tagName{local: n.Local}
	if n.Space != "" {
		t.prefix = x.prefixOf(n.Space)
	}
	x.elems = append(x.elems, openElement{name: t, declared: mark})
	x.buf = append(x.buf, '<')
	x.buf = t.append(x.buf)
	x.open = true
}

// append appends the name as the tags write it.
func (t tagName) append(b []byte) []byte {
	if t.prefix != "" {
		b = append(b, t.prefix...)
		b = append(b, ':')
	}
	return append(b, t.local...)
}

// attr writes an attribute of the start tag being written.
func (x *writer) attr(n xml.Name, value string) {
	q := x.qname(n)
	x.pending = append(x.pending, ' ')
	x.pending = append(x.pending, q...)
	x.pending = append(x.pending, `="`...)
	x.pending = core.AppendEscapedAttr(x.pending, value)
	x.pending = append(x.pending, '"')
}

// finishStart ends the start tag being written.
func (x *writer) finishStart() {
	if !x.open {
		return
	}
	x.buf = append(x.buf, x.decls...)
	x.buf = append(x.buf, x.pending...)
	x.buf = append(x.buf, '>')
	x.pending, x.decls = x.pending[:0], x.decls[:0]
	x.open = false
}

// text writes character data.
func (x *writer) text(s string) {
	x.finishStart()
	x.buf = core.AppendEscaped(x.buf, s)
}

// end closes the element opened last: an empty one as <a/>.
func (x *writer) end() {
	n := len(x.elems) - 1
	if x.open {
		x.buf = append(x.buf, x.decls...)
		x.buf = append(x.buf, x.pending...)
		x.buf = append(x.buf, "/>"...)
		x.pending, x.decls = x.pending[:0], x.decls[:0]
		x.open = false
	} else {
		x.buf = append(x.buf, "</"...)
		x.buf = x.elems[n].name.append(x.buf)
		x.buf = append(x.buf, '>')
	}
	x.declared = x.declared[:x.elems[n].declared]
	x.elems = x.elems[:n]
	if len(x.buf) > 4096 && x.w != nil {
		x.flush()
	}
}

// path returns the local names of the open elements, outermost first
// (where an error is).
func (x *writer) path() []string {
	p := make([]string, len(x.elems))
	for i, e := range x.elems {
		p[i] = e.name.local
	}
	return p
}

// flush writes what is buffered (a writer without an io.Writer keeps it).
func (x *writer) flush() error {
	if x.w == nil {
		return nil
	}
	if x.err == nil && len(x.buf) > 0 {
		_, x.err = x.w.Write(x.buf)
	}
	x.buf = x.buf[:0]
	return x.err
}
