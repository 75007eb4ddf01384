package soapenc

import (
	"encoding/xml"
	"errors"
	"io"
	"reflect"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Default limits of a Decoder.
const (
	DefaultMaxNodes     = 100_000
	DefaultMaxDepth     = 512
	DefaultMaxBytes     = 16 << 20
	DefaultMaxArraySize = 1 << 20
)

// Decoder reads a SOAP-encoded body into a tree of Elements. Set its fields
// before calling ReadBody; a zero limit takes its default, a negative one
// means no limit.
type Decoder struct {
	// Version selects the reference attributes: V11 reads href="#x" and id,
	// V12 reads enc:ref and enc:id, the zero Version reads both.
	Version Version
	// MaxNodes bounds the elements kept (default DefaultMaxNodes).
	MaxNodes int
	// MaxDepth bounds element nesting and the nesting of decoded values,
	// references followed (default DefaultMaxDepth).
	MaxDepth int
	// MaxBytes bounds the text and names kept (default DefaultMaxBytes).
	MaxBytes int
	// MaxArraySize bounds the item count an array may declare (default
	// DefaultMaxArraySize). Slices grow by the items actually present, never
	// by the declared size.
	MaxArraySize int
	// Namespaces are the prefix bindings in scope at the body (declared on
	// the Envelope and Body elements, which the token reader does not
	// yield), prefix → URI, "" for the default namespace. QName values such
	// as xsi:type="xsd:int" resolve through them unless the body redeclares
	// the prefix.
	Namespaces map[string]string
	// Types maps an xsi:type to the Go type that an any (interface) target
	// receives for it; the others get their natural type (see the package
	// documentation).
	Types map[xml.Name]reflect.Type
	// EncodingStyle is the encodingStyle in scope at the body, declared on
	// the Envelope or the Body element (which the token reader does not
	// yield). ReadBody refuses one it does not know, as it refuses one on
	// an element (SubcodeDataEncodingUnknown); "" claims nothing. NewDecoder
	// sets it from a core.Body (core.Body.EncodingStyle).
	EncodingStyle string
	// Headers are the header blocks of the envelope the body came in
	// (core.Envelope.Headers). A reference in the body may point to an
	// element in one of them that carries an id (SOAP 1.2 Part 2 §3.1.5:
	// ids identify values across the envelope; the W3C SOAP 1.2 test
	// collection's T57 and T76 refer to an id in a header block), and an id
	// carried twice anywhere in the envelope is SubcodeDuplicateID. Only the
	// blocks that carry an id are read, under the same limits as the body;
	// what is wrong in a block that has nothing to do with the SOAP encoding
	// (an href that is not "#id", an unknown encodingStyle, an xsi:type that
	// does not resolve) is an error only if the body's values reach it.
	Headers []core.HeaderBlock
	// Strict makes Decode refuse, rather than leave zero or skip, what the
	// Go type does not allow: a struct field the Encoder always writes
	// (Field.Required: not omitempty, not a pointer unless tagged nillable,
	// not a slice, Go array, map or interface) that is absent; xsi:nil on a
	// value that cannot be nil (a string, a number, a struct...); a child
	// element that is no field of its struct; a field name that matches
	// only when case is ignored. Each is SubcodeBadValue naming the element.
	Strict bool
	// CheckForms makes Decode check the namespace of the elements of struct
	// fields: FieldNamespace, "" meaning unqualified, unless a field's tag
	// names its own. Without it a field is matched by its local name in any
	// namespace, except that a tag's namespace ("urn:x name") is always
	// checked.
	CheckForms bool
	// FieldNamespace is the namespace CheckForms wants fields in: the
	// Encoder's FieldNamespace.
	FieldNamespace string

	r xml.TokenReader
}

// NewDecoder returns a Decoder reading r, which yields the namespace-resolved
// tokens of a body's children, as (*xml.Decoder).Token does, and io.EOF at
// the end of the body. When r is a core.Body, the encodingStyle declared on
// its Envelope or Body element is checked too (see EncodingStyle).
func NewDecoder(r xml.TokenReader) *Decoder {
	d := &Decoder{r: r}
	switch b := r.(type) {
	case core.Body:
		d.EncodingStyle = b.EncodingStyle()
	case *core.Body:
		d.EncodingStyle = b.EncodingStyle()
	}
	return d
}

// ReadBody reads every remaining token: the main element, then any
// independent elements (SOAP 1.1 multiRef values) that follow it. It resolves
// references in any order and returns the main element: the first top-level
// element that is not marked soapenc:root="0". At the end of input before any
// element it returns io.EOF.
func (d *Decoder) ReadBody() (*Element, error) {
	if d.r == nil {
		return nil, errors.New("soapenc: Decoder has no TokenReader (use NewDecoder)")
	}
	if !knownStyle(d.EncodingStyle) {
		return nil, &Error{Subcode: SubcodeDataEncodingUnknown, Msg: "unknown encodingStyle " + quote(d.EncodingStyle) + " on the Envelope or Body"}
	}
	b := builder{d: d, t: &tree{d: d, types: make([]xml.Name, 1, 8)}, maxNodes: limit(d.MaxNodes, DefaultMaxNodes),
		maxDepth: limit(d.MaxDepth, DefaultMaxDepth), maxBytes: limit(d.MaxBytes, DefaultMaxBytes)}
	for p, uri := range d.Namespaces {
		var err error
		if b.scope, err = b.scope.push(&b.scopes, p, uri); err != nil {
			return nil, err
		}
	}
	b.t.scope = b.scope
	if err := b.readHeaders(); err != nil {
		return nil, err
	}
	if err := b.read(); err != nil {
		return nil, err
	}
	if b.roots == nil {
		return nil, io.EOF
	}
	if err := b.resolve(); err != nil {
		return nil, err
	}
	for r := b.roots; r != nil; r = r.next {
		if r.x == nil || !isFalse(r.x.root) {
			return r, nil
		}
	}
	return b.roots, nil
}

func limit(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return int(^uint(0) >> 1)
	}
	return v
}

func isFalse(s string) bool { s = trimSpace(s); return s == "0" || s == "false" }

type builder struct {
	d                            *Decoder
	t                            *tree
	maxNodes, maxDepth, maxBytes int
	nodes, depth, bytes          int
	roots, lastRoot, cur         *Element
	scope                        *nsScope
	slab                         []Element
	text                         []byte
	lasts                        []*Element // by depth: the last child of the open element
	ids                          map[string]*Element
	refs                         []*Element // the body's references
	hrefs                        []*Element // the header blocks' references
	header                       bool       // reading a header block (see headers.go)
	raw                          bool       // reading RawTokens of a fresh *xml.Decoder
	rawNames                     []xml.Name // raw mode: the open elements' names as written
	strs                         interner   // Next mode: shared strings
	scopes                       []nsScope  // slab of namespace bindings
	lastType                     typeCache  // the xsi:type resolved last
}

// typeCache is an xsi:type value resolved in a scope.
type typeCache struct {
	text  string
	scope *nsScope
	typ   uint32
	tkind kind
	isArr bool
}

func (b *builder) newElement() *Element {
	if len(b.slab) == 0 { // 16, then 64 at a time
		b.slab = make([]Element, min(64, max(16, b.nodes)))
	}
	e := &b.slab[0]
	b.slab = b.slab[1:]
	return e
}

func (b *builder) read() error {
	if nr, ok := b.d.r.(nextReader); ok {
		return b.readNext(nr) // see nexttoken.go
	}
	next := b.d.r.Token
	if x, ok := b.d.r.(*xml.Decoder); ok && x.InputOffset() == 0 {
		b.raw, next = true, x.RawToken // see rawtoken.go
	}
	return b.readTokens(next)
}

// readTokens builds the tree from the tokens next yields, up to io.EOF.
func (b *builder) readTokens(next func() (xml.Token, error)) error {
	for {
		tok, err := next()
		if err == io.EOF {
			return b.eof()
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if b.raw {
				if err := b.resolveRaw(&t); err != nil {
					return err
				}
			}
			if err := b.start(t.Name, t.Attr); err != nil {
				return err
			}
		case xml.EndElement:
			if b.cur == nil {
				return errorf(SubcodeBadValue, "unexpected end element %s", t.Name.Local)
			}
			if b.raw {
				if err := b.endRaw(t); err != nil {
					return err
				}
			}
			b.end()
		case xml.CharData:
			if err := b.chars(t); err != nil {
				return err
			}
		}
	}
}

// eof checks that no element is left open at the end of the input.
func (b *builder) eof() error {
	if b.cur != nil {
		return io.ErrUnexpectedEOF
	}
	return nil
}

// end closes the element open.
func (b *builder) end() {
	if b.cur.first == nil && len(b.text) > 0 {
		b.cur.text = string(b.text)
	}
	b.text = b.text[:0]
	b.scope = b.cur.parentScope()
	b.cur = b.cur.parent
	b.depth--
}

// chars keeps the text of an element that has no child elements (yet).
func (b *builder) chars(t []byte) error {
	if e := b.cur; e != nil && e.first == nil {
		if b.bytes += len(t); b.bytes > b.maxBytes {
			return errorf(SubcodeLimit, "body text exceeds %d bytes", b.maxBytes)
		}
		b.text = append(b.text, t...) // the text of b.cur, kept until it ends
	}
	return nil
}

// start opens an element. Its name and attributes come apart, not as an
// xml.StartElement: escape analysis follows a struct as a whole, and the
// name goes into the tree, so the attributes' array would escape with it.
func (b *builder) start(name xml.Name, attrs []xml.Attr) error {
	if b.nodes++; b.nodes > b.maxNodes {
		return errorf(SubcodeLimit, "body has more than %d elements", b.maxNodes)
	}
	if b.depth++; b.depth > b.maxDepth {
		return errorf(SubcodeLimit, "body nests deeper than %d elements", b.maxDepth)
	}
	e := b.newElement()
	e.Name, e.parent = name, b.cur
	b.bytes += len(name.Local) + len(name.Space)
	for len(b.lasts) <= b.depth {
		b.lasts = append(b.lasts, nil)
	}
	if p := b.cur; p != nil {
		if p.first == nil {
			p.first = e
			b.text = b.text[:0] // a structure: its text between children is not kept
		} else {
			b.lasts[b.depth-1].next = e
		}
		b.lasts[b.depth-1] = e
		p.nkids++
	} else {
		e.ext().tree = b.t
		if b.header {
			e.x.header = true // a header block: never the main element
		} else if b.lastRoot == nil {
			b.roots = e
		} else {
			b.lastRoot.next = e
		}
		if !b.header {
			b.lastRoot = e
		}
	}
	b.lasts[b.depth] = nil
	b.cur = e
	var typ string
	v := b.d.Version
	for _, a := range attrs {
		b.bytes += len(a.Name.Local) + len(a.Value)
		var err error
		switch a.Name.Space {
		case "xmlns":
			if b.scope, err = b.scope.push(&b.scopes, a.Name.Local, a.Value); err != nil {
				return err
			}
		case "":
			switch a.Name.Local {
			case "xmlns":
				if b.scope, err = b.scope.push(&b.scopes, "", a.Value); err != nil {
					return err
				}
			case "href":
				if v != V12 {
					ref, ok := strings.CutPrefix(trimSpace(a.Value), "#")
					switch {
					case ok:
						e.ext().ref = ref
					case !b.header: // in a header block, an href of another kind (a link) is no reference
						return errorf(SubcodeBadValue, "href %s is not a same-document reference (\"#id\")", quote(a.Value))
					}
				}
			case "id":
				if v != V12 {
					e.ext().id = trimSpace(a.Value)
				}
			}
		case NamespaceXSI, nsXSI1999, nsXSI2000:
			switch a.Name.Local {
			case "type":
				typ = a.Value
			case "nil", "null":
				e.isNil = trimSpace(a.Value) == "true" || trimSpace(a.Value) == "1"
			}
		case NamespaceV11:
			switch a.Name.Local {
			case "arrayType":
				e.ext().arrayType = a.Value
			case "offset":
				e.ext().offset = a.Value
			case "position":
				e.ext().position = a.Value
			case "root":
				e.ext().root = a.Value
			}
		case NamespaceV12:
			switch a.Name.Local {
			case "itemType":
				e.ext().itemType = a.Value
			case "arraySize":
				e.ext().arraySize = a.Value
			case "id":
				if v != V11 {
					e.ext().id = trimSpace(a.Value)
				}
			case "ref":
				if v != V11 {
					// an IDREF; the "#id" form of the drafts (the SOAP 1.2
					// test collection's T57 still writes it) names the same
					// id, as no id can start with "#"
					e.ext().ref = strings.TrimPrefix(trimSpace(a.Value), "#")
				}
			}
		case nsEnvV11, nsEnvV12:
			if a.Name.Local == "encodingStyle" && !knownStyle(a.Value) {
				err := &Error{Subcode: SubcodeDataEncodingUnknown, Msg: "unknown encodingStyle " + quote(a.Value)}
				if !b.header {
					return err
				}
				b.spoil(e, err)
			}
		}
	}
	if b.bytes > b.maxBytes {
		return errorf(SubcodeLimit, "body text exceeds %d bytes", b.maxBytes)
	}
	e.ns = b.scope
	if typ != "" {
		if c := &b.lastType; typ == c.text && e.ns == c.scope { // the same xsi:type as the last element's
			e.typ, e.tkind, e.isArr = c.typ, c.tkind, c.isArr
		} else {
			n, err := e.resolve(typ)
			if err != nil && b.header {
				b.spoil(e, err)
				n = xml.Name{}
			} else if err != nil {
				return withElemPath(err, e)
			}
			e.typ = b.t.typeIndex(n)
			if isXSD(n.Space) || n.Space == NamespaceV11 {
				e.tkind = xsdKinds[n.Local]
			}
			e.isArr = n.Local == "Array" && isEnc(n.Space)
			*c = typeCache{text: typ, scope: e.ns, typ: e.typ, tkind: e.tkind, isArr: e.isArr}
		}
	} else if e.Name.Space == NamespaceV11 { // <SOAP-ENC:int>5</SOAP-ENC:int>
		e.tkind = xsdKinds[e.Name.Local]
	}
	if x := e.x; x != nil {
		e.isArr = e.isArr || x.arrayType != "" || x.itemType != "" || x.arraySize != ""
		if x.id != "" {
			if b.ids == nil {
				b.ids = map[string]*Element{}
			}
			if _, dup := b.ids[x.id]; dup {
				return withElemPath(errorf(SubcodeDuplicateID, "id %s appears twice", quote(x.id)), e)
			}
			b.ids[x.id] = e
		}
		if x.ref != "" {
			if x.id != "" && v == V12 {
				err := errorf(SubcodeBadValue, "element has both enc:id and enc:ref")
				if !b.header {
					return withElemPath(err, e)
				}
				b.spoil(e, err)
			}
			if b.header {
				b.hrefs = append(b.hrefs, e)
			} else {
				b.refs = append(b.refs, e)
			}
		}
	}
	if p := e.parent; b.header && p != nil && p.x != nil && p.x.bad != nil && e.ext().bad == nil {
		e.x.bad = p.x.bad // what spoils an element spoils what it holds
	}
	return nil
}

// knownStyle reports whether an encodingStyle value (a list of URIs) names
// a rule this package decodes: the SOAP 1.1 encoding (or a URI under it),
// the SOAP 1.2 encoding, or the SOAP 1.2 "none" URI.
func knownStyle(v string) bool {
	f := strings.Fields(v)
	if len(f) == 0 {
		return true
	}
	for _, u := range f { // a list: any rule this package knows will do
		if strings.HasPrefix(u, NamespaceV11) || u == NamespaceV12 || u == EncodingStyleNone {
			return true
		}
	}
	return false
}

// resolve links every reference to its element. A reference to a
// reference is followed to the end of the chain (each chain is walked once);
// a loop is an error. A reference in a header block to an id no element has
// is left unresolved: decoding it is SubcodeMissingID.
func (b *builder) resolve() error {
	for _, e := range b.refs {
		t := b.ids[e.x.ref]
		if t == nil {
			return withElemPath(errorf(SubcodeMissingID, "reference to id %s, which no element has", quote(e.x.ref)), e)
		}
		e.x.target = t
	}
	for _, e := range b.hrefs {
		e.x.target = b.ids[e.x.ref]
	}
	var chain []*Element
	all := len(b.refs) + len(b.hrefs)
	for _, refs := range [2][]*Element{b.refs, b.hrefs} {
		for _, e := range refs {
			t := e.x.target
			if t == nil {
				continue // a dangling reference in a header block
			}
			chain = chain[:0]
			for t.x != nil && t.x.target != nil {
				if len(chain) > all {
					return withElemPath(errorf(SubcodeBadValue, "references form a loop"), e)
				}
				chain = append(chain, t)
				t = t.x.target
			}
			e.x.target = t
			for _, c := range chain {
				c.x.target = t
			}
		}
	}
	return nil
}
