package soapenc

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// nsScope is one namespace binding; the bindings in scope of an element are
// its scope and the scopes it links to.
type nsScope struct {
	prefix, uri string
	up          *nsScope
	n           int // bindings in the chain
}

// maxScope bounds the namespace bindings in scope at once, so resolving a
// QName stays cheap.
const maxScope = 1000

// push returns the scope s with one more binding, taken from slab (which
// it refills 8 at a time).
func (s *nsScope) push(slab *[]nsScope, prefix, uri string) (*nsScope, error) {
	depth := 1
	if s != nil {
		depth = s.n + 1
	}
	if depth > maxScope {
		return nil, errorf(SubcodeLimit, "more than %d namespace declarations in scope", maxScope)
	}
	if len(*slab) == 0 {
		*slab = make([]nsScope, 8)
	}
	n := &(*slab)[0]
	*slab = (*slab)[1:]
	*n = nsScope{prefix: prefix, uri: uri, up: s, n: depth}
	return n, nil
}

func (s *nsScope) lookup(prefix string) (string, bool) {
	for ; s != nil; s = s.up {
		if s.prefix == prefix {
			return s.uri, true
		}
	}
	switch prefix {
	case "":
		return "", true
	case "xml":
		return nsXML, true
	}
	return "", false
}

// extra holds what few Elements have: rare attributes, the reference
// target, and (on top-level elements) the tree.
type extra struct {
	target    *Element // the referenced element, for an href/ref accessor
	tree      *tree    // top-level elements only
	id, ref   string   // 1.1 id / href without '#'; 1.2 enc:id / enc:ref
	arrayType string   // 1.1 soapenc:arrayType
	itemType  string   // 1.2 enc:itemType
	arraySize string   // 1.2 enc:arraySize
	offset    string   // 1.1 soapenc:offset
	position  string   // 1.1 soapenc:position
	root      string   // 1.1 soapenc:root
	bad       *Error   // in a header block: why the element cannot be decoded (see spoil)
	header    bool     // a header block's element (top-level elements only)
}

// Element is one element of a decoded body. An accessor that refers to
// another element (href/ref) stands for that element: its Type, Text,
// Children, IsNil and Decode are the referenced element's; only Name is its
// own. Elements are read-only; Decode keeps decoded shared values, so the
// Elements of one tree must not be decoded from several goroutines at once.
type Element struct {
	// Name is the element's namespace-resolved name.
	Name xml.Name

	parent *Element
	first  *Element
	next   *Element
	ns     *nsScope
	x      *extra
	text   string
	nkids  int32
	typ    uint32 // resolved xsi:type: an index into tree.types, 0 for none
	isNil  bool
	isArr  bool // marked as an array: array attributes or xsi:type enc:Array
	tkind  kind // the simple kind named by the xsi:type (or by a SOAP-ENC element name), else kInvalid
}

type tree struct {
	d     *Decoder
	scope *nsScope   // Decoder.Namespaces
	types []xml.Name // the distinct xsi:types; types[0] is none
	memo  map[memoKey]*memoEntry
}

// typeIndex interns an xsi:type name.
func (t *tree) typeIndex(n xml.Name) uint32 {
	for i := len(t.types) - 1; i > 0 && i >= len(t.types)-32; i-- {
		if t.types[i] == n {
			return uint32(i)
		}
	}
	t.types = append(t.types, n)
	return uint32(len(t.types) - 1)
}

// tree returns the tree e belongs to.
func (e *Element) tree() *tree {
	for e.parent != nil {
		e = e.parent
	}
	return e.x.tree
}

// parentScope is the scope in force after e ends.
func (e *Element) parentScope() *nsScope {
	if e.parent != nil {
		return e.parent.ns
	}
	return e.tree().scope
}

func (e *Element) ext() *extra {
	if e.x == nil {
		e.x = &extra{}
	}
	return e.x
}

// resolve turns a QName value into a namespace-resolved name using the
// namespaces in scope at e.
func (e *Element) resolve(qname string) (xml.Name, error) {
	qname = trimSpace(qname)
	prefix, local, ok := strings.Cut(qname, ":")
	if !ok {
		prefix, local = "", qname
	}
	if local == "" || strings.IndexByte(local, ':') >= 0 || ok && prefix == "" {
		return xml.Name{}, badValue(qname, "a valid QName")
	}
	uri, found := e.ns.lookup(prefix)
	if !found {
		return xml.Name{}, errorf(SubcodeBadValue, "QName %s uses the undeclared prefix %s", quote(qname), quote(prefix))
	}
	return xml.Name{Space: uri, Local: local}, nil
}

// path returns e's place in the tree, for error messages; the path of an
// element of a header block starts with /Header.
func (e *Element) path() string {
	var steps []string
	header := false
	for ; e != nil; e = e.parent {
		step := e.Name.Local
		if e.parent != nil {
			n, i := 0, 0
			for c := e.parent.first; c != nil; c = c.next {
				if c.Name == e.Name {
					n++
					if c == e {
						i = n
					}
				}
			}
			if n > 1 {
				step += "[" + strconv.Itoa(i) + "]"
			}
		} else {
			header = e.x != nil && e.x.header
		}
		steps = append(steps, step)
	}
	var b strings.Builder
	if header {
		b.WriteString("/Header")
	}
	for i := len(steps) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(steps[i])
	}
	return b.String()
}

func withElemPath(err error, e *Element) error {
	if x, ok := err.(*Error); ok && x.Path == "" {
		x.Path = e.path()
	}
	return err
}

// value returns the element e stands for: its reference target, or itself.
func (e *Element) value() *Element {
	if e.x != nil && e.x.target != nil {
		return e.x.target
	}
	return e
}

// Type returns the resolved xsi:type of the value (the zero Name if none).
func (e *Element) Type() xml.Name {
	v := e.value()
	return v.tree().types[v.typ]
}

// IsNil reports whether the value is xsi:nil (or the 1999 xsi:null).
func (e *Element) IsNil() bool { return e.value().isNil }

// Text returns the character data of a value that has no child elements.
func (e *Element) Text() string { return e.value().text }

// Children returns the child elements of the value in document order.
func (e *Element) Children() []*Element {
	v := e.value()
	out := make([]*Element, 0, v.nkids)
	for c := v.first; c != nil; c = c.next {
		out = append(out, c)
	}
	return out
}

// String describes e for debugging.
func (e *Element) String() string { return fmt.Sprintf("soapenc.Element(%s)", e.path()) }
