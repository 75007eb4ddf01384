package xsd

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// Codec writes and reads XML in the form a schema says, checking as it
// goes. Values are Go values (structs with xml tags, pointers, slices,
// the types of the built-in simple types) or generic *Value trees;
// see the package documentation for the mapping. A Codec is safe for use
// by several goroutines at once.
type Codec struct {
	set      *Set
	lenient  bool
	encoded  core.Version // the SOAP encoding's version; 0 for literal
	simple   *simpleChecker
	firsts   sync.Map // *Particle → *firstSet
	elements sync.Map // *Particle → map[string][]*Element: the element declarations of a content model, by local name
	plans    sync.Map // reflect.Type → *structPlan
}

// CodecOption configures NewCodec.
type CodecOption interface{ applyCodec(*Codec) }

type codecOptionFunc func(*Codec)

func (f codecOptionFunc) applyCodec(c *Codec) { f(c) }

// Lenient makes reading forgiving where the sender is: an element is
// matched by its local name whatever its namespace (qualified or not),
// children in any order, a missing element or attribute is left absent,
// and elements and attributes the schema does not have are skipped. A
// value that does not parse is still an error. Off by default: a contract
// read strictly never turns a message it does not understand into zero
// values.
func Lenient() CodecOption { return codecOptionFunc(func(c *Codec) { c.lenient = true }) }

// Encoded makes the codec write and read the SOAP encoding of version v
// (rpc/encoded): every element carries its xsi:type, arrays are SOAP
// encoded arrays (soapenc:arrayType, items named item), the element Encode
// writes carries the envelope's encodingStyle attribute, and reading
// follows multi-reference values (href/id, enc:ref/enc:id).
func Encoded(v core.Version) CodecOption {
	return codecOptionFunc(func(c *Codec) { c.encoded = v })
}

// NewCodec returns a codec for the schemas of set.
func NewCodec(set *Set, opts ...CodecOption) *Codec {
	c := &Codec{set: set, simple: &simpleChecker{lex: newLexicon()}}
	for _, o := range opts {
		o.applyCodec(c)
	}
	return c
}

// Set returns the codec's schemas.
func (c *Codec) Set() *Set { return c.set }

// TokenReader is what the codec reads: core.Body's token stream (Next,
// tokens without copies) with the namespace scope at the last token
// (Lookup). A core.Body is one; so is the reader DecodeBytes makes.
type TokenReader interface {
	Next() (*core.Token, error)
	Lookup(prefix []byte) (uri []byte, ok bool)
}

// ValueError is a value that does not fit the schema, or a Go value that
// cannot hold what was read: Path names where (local names from the
// element decoded or encoded, "echoStruct/person/age"), Msg what is wrong.
//
// Read from a peer, it is the peer's fault: errors.As finds a *core.Fault
// in it (a Sender fault whose reason is the message), so a server handler
// that returns it answers a Sender fault (core.FaultOf). A client reports
// it as an error.
type ValueError struct {
	Path string
	Msg  string
	Err  error // the underlying error, if any
}

func (e *ValueError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func (e *ValueError) Unwrap() error { return e.Err }

// Fault returns the Sender fault that answers the value: its reason is
// the error's text.
func (e *ValueError) Fault() *core.Fault {
	return &core.Fault{Code: core.CodeSender, Reason: e.Error(), Cause: e}
}

// As lets errors.As find a *core.Fault (the Sender fault, see Fault) in
// an error chain that holds a ValueError.
func (e *ValueError) As(target any) bool {
	if f, ok := target.(**core.Fault); ok {
		*f = e.Fault()
		return true
	}
	return false
}

// Encode writes v as the element el (a global element, or a local one of
// a content model), in the form the schema says, and checks it as it
// goes: a required element or attribute missing, one the schema does not
// have, too many occurrences, a value outside its type, xsi:nil on an
// element that is not nillable are *ValueError errors, and nothing is
// written after them (what was written before stays written: encode into
// a buffer to keep a partial element off the wire).
//
// v is a Go value (see the package documentation), a *Value or a
// map[string]any of local names (nested maps, []any for repeated
// elements, strings, numbers and booleans for simple values, nil for
// xsi:nil).
func (c *Codec) Encode(w io.Writer, el *Element, v any) error {
	val, err := c.ValueOf(el, v)
	if err != nil {
		return err
	}
	x := newWriter(w)
	e := &encoder{c: c, x: x}
	if c.encoded != 0 {
		// the envelope's encodingStyle attribute, naming the encoding
		e.top = []*Value{{Name: xml.Name{Space: c.encoded.Namespace(), Local: "encodingStyle"}, Text: encodingURI(c.encoded)}}
	}
	if err := e.element(el, val, false); err != nil {
		return err
	}
	return x.flush()
}

// encodingURI is the SOAP encoding's encodingStyle URI in version v.
func encodingURI(v core.Version) string {
	if v == core.V12 {
		return NamespaceSOAP12Enc
	}
	return NamespaceSOAPEnc
}

// Body returns a SOAP body holding v encoded as el (see Encode), written
// when the message is.
func (c *Codec) Body(el *Element, v any) core.Body {
	return core.StreamBody(el.Name, func(w io.Writer) error { return c.Encode(w, el, v) })
}

// Decode reads the next element of r as the element el (or one of its
// substitution group) into v, checking it against the schema as it reads:
// an element that is not allowed where it is (unknown, out of order, one
// too many), a required element or attribute missing, a value that does
// not parse or breaks a facet, xsi:nil on an element that is not
// nillable, an xsi:type that does not derive from the declared type are
// *ValueError errors naming the place. White space and comments before
// the element are skipped; nothing after it is read.
//
// v is a pointer to a Go value, a **Value (the tree), or nil to check
// only. A Go value that cannot hold what was read (a field the struct does
// not have, a number out of its range) is an error too, never a zero
// value.
func (c *Codec) Decode(r TokenReader, el *Element, v any) error {
	var val *Value
	var err error
	if c.encoded != 0 {
		val, err = c.decodeEncoded(r, el)
	} else {
		d := &decoder{c: c, r: r, top: true}
		val, err = d.top1(el)
	}
	if err != nil {
		return err
	}
	if v == nil {
		return nil
	}
	return c.Assign(val, v)
}

// DecodeBytes is Decode of an element held as bytes: namespace-complete
// XML such as a header block's or a fault detail's (several elements may
// follow one another; the first is read).
func (c *Codec) DecodeBytes(data []byte, el *Element, v any) error {
	r := BytesReader(data)
	return c.Decode(r, el, v)
}

// BytesReader returns a TokenReader over XML elements held as bytes:
// namespace-complete XML of one or more sibling elements (a fault detail's
// children, a header block), read with the core's strict tokenizer within
// the core's default limits; io.EOF after the last.
func BytesReader(data []byte) TokenReader {
	lim := core.DefaultLimits()
	doc := make([]byte, 0, len(data)+7)
	doc = append(doc, "<r>"...)
	doc = append(doc, data...)
	doc = append(doc, "</r>"...)
	tr := xmltok.NewReaderBytes(doc, xmltok.Limits{MaxBytes: lim.MaxBytes, MaxDepth: lim.MaxDepth + 1, MaxAttrs: lim.MaxAttrs,
		MaxNSDecls: lim.MaxNSDecls, MaxNameLen: lim.MaxNameLen, MaxTokenBytes: 1 << 20})
	return &bytesReader{r: tr}
}

// bytesReader hides the wrapper element BytesReader puts around the XML.
type bytesReader struct {
	r     *xmltok.Reader
	begun bool
	done  bool
}

func (b *bytesReader) Next() (*core.Token, error) {
	if b.done {
		return nil, io.EOF
	}
	t, err := b.r.Next()
	if err != nil {
		return nil, err
	}
	if !b.begun {
		b.begun = true
		return b.Next()
	}
	if t.Kind == xmltok.EndElement && b.r.Depth() == 0 {
		b.done = true
		return nil, io.EOF
	}
	return t, nil
}

func (b *bytesReader) Lookup(prefix []byte) ([]byte, bool) { return b.r.Lookup(prefix) }

// WrapperElement returns an element named name whose type is the sequence
// of params: the wrapper of an rpc message (its accessors), built for the
// codec as if a schema declared it. It is not global: its name is used as
// given.
func WrapperElement(name xml.Name, params []*Particle) *Element {
	p := &Particle{Min: 1, Max: 1, Group: &ModelGroup{Compositor: Sequence, Particles: params}}
	t := &ComplexType{Content: ElementContent, Particle: p, state: 2, effective: p}
	if isEmpty(p) {
		t.Content = EmptyContent
	}
	e := &Element{Name: name, Type: t, Qualified: name.Space != ""}
	t.Context = e
	return e
}

// errorf returns a *ValueError at path.
func errorAt(path []string, format string, args ...any) *ValueError {
	return &ValueError{Path: strings.Join(path, "/"), Msg: fmt.Sprintf(format, args...)}
}

// qn writes a name for messages: local, or {ns}local when it has a
// namespace.
func qn(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

// isValueError reports whether err is the codec's own (not the reader's).
func isValueError(err error) bool {
	var ve *ValueError
	return errors.As(err, &ve)
}
