package xsd

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Decoder reads XML element by element for code that knows the schema
// itself: the codecs soapwire gen generates. It reads a TokenReader (a
// core.Body, BytesReader) as the codec does: the start tags of an element's
// children one by one (Peek, Take), then its end (Value for a simple value,
// End for element content, Mixed, Empty), with the xsi attributes read
// (Start.Type, Start.Nil) and the local names of the open elements kept, so
// that its errors name the place as the codec's do ("echoStruct/person/age:
// …"). Its errors are *ValueError (a Sender fault to errors.As) or the
// reader's own (malformed XML).
type Decoder struct {
	r TokenReader
	// path holds the local names of the elements taken and not ended,
	// joined by "/", as errors name the place (the names are not strings
	// of their own: taking an element allocates nothing)
	path    []byte
	depth   int // elements started (their start tag read), not ended
	peeked  *Start
	ended   bool // the current element's end tag was read ahead
	text    []byte
	marks   []takenMark // per element taken and not ended
	encoded core.Version
	start   Start // the storage of the start tag read ahead
	taken   int   // elements taken
	// tokenized: r is core's tokenizer (a core.Body, BytesReader), which
	// refuses characters XML cannot carry: values read are not checked
	// for them again
	tokenized bool
}

// takenMark is where an element taken and not ended starts in the
// Decoder's path and text.
type takenMark struct{ path, text int }

// Start is a start tag read ahead: valid until the Decoder reads on (Take
// keeps it valid while the attributes are read). Type and Nil are its
// xsi:type (resolved) and xsi:nil.
type Start struct {
	t    *core.Token
	Type xml.Name
	Nil  bool
	// HasType says that xsi:type was written.
	HasType bool
}

// Is reports whether the element is {space}local, without allocating.
func (s *Start) Is(space, local string) bool {
	return string(s.t.Name.Local) == local && string(s.t.Name.Space) == space
}

// Name returns the element's name.
func (s *Start) Name() xml.Name {
	return xml.Name{Space: string(s.t.Name.Space), Local: string(s.t.Name.Local)}
}

// Space returns the element's namespace.
func (s *Start) Space() string { return string(s.t.Name.Space) }

// Local returns the element's local name.
func (s *Start) Local() string { return string(s.t.Name.Local) }

// Attrs returns the start tag's attributes (namespace declarations
// excluded; xsi's included: skip them with IsXSI).
func (s *Start) Attrs() []core.TokenAttr { return s.t.Attr }

// IsXSI reports whether an attribute is in the XML Schema instance
// namespace (or its drafts'), which Type and Nil hold.
func IsXSI(a *core.TokenAttr) bool {
	switch string(a.Name.Space) {
	case NamespaceXSI, namespaceXSI1999, namespaceXSI2000:
		return true
	}
	return false
}

// NewDecoder returns a Decoder of r's elements.
func NewDecoder(r TokenReader) *Decoder {
	// room for a few levels: a small message's reading does not grow them
	d := &Decoder{r: r, path: make([]byte, 0, 32), marks: make([]takenMark, 0, 4)}
	switch r.(type) {
	case core.Body, *bytesReader:
		d.tokenized = true
	}
	return d
}

// Reset makes r a Decoder of tr, as NewDecoder does, keeping the storage
// it has grown (its stacks and text buffer): a Decoder kept from one
// message to the next (a trick: docs/benchmarks.md, "Generated code
// (issue 21)").
func (r *Decoder) Reset(tr TokenReader) {
	path, marks, text := r.path[:0], r.marks[:0], r.text[:0]
	if cap(text) > keptText {
		text = nil
	}
	*r = Decoder{r: tr, path: path, marks: marks, text: text}
	switch tr.(type) {
	case core.Body, *bytesReader:
		r.tokenized = true
	}
}

// keptText is the largest text buffer Reset keeps.
const keptText = 64 << 10

// SetEncoded makes the Decoder read the SOAP encoding of version v: the
// encoding's attributes are not refused, and Type accepts any xsi:type.
// Resolve references first (EncodedReader).
func (r *Decoder) SetEncoded(v core.Version) { r.encoded = v }

// Encoded returns the SOAP version whose encoding the Decoder reads.
func (r *Decoder) Encoded() core.Version { return r.encoded }

// Errorf returns a *ValueError at the element read last.
func (r *Decoder) Errorf(format string, args ...any) error {
	return &ValueError{Path: string(r.path), Msg: fmt.Sprintf(format, args...)}
}

// wrap returns a *ValueError at the element read last with err's text.
func (r *Decoder) wrap(err error) error {
	return &ValueError{Path: string(r.path), Msg: err.Error(), Err: err}
}

// pathIn returns the path of the child local of the element read last.
func (r *Decoder) pathIn(local string) string {
	if len(r.path) == 0 {
		return local
	}
	return string(r.path) + "/" + local
}

// pathNames returns the path as its local names.
func (r *Decoder) pathNames() []string {
	if len(r.path) == 0 {
		return nil
	}
	return strings.Split(string(r.path), "/")
}

// resolve resolves a prefix in the scope of the last token read.
func (r *Decoder) resolve(prefix string) (string, bool) {
	uri, ok := r.r.Lookup([]byte(prefix))
	return string(uri), ok
}

// Element reads the next element of the reader, which must be
// {space}local: white space and comments before it are skipped. It is
// taken: read its attributes, then its content.
func (r *Decoder) Element(space, local string) (*Start, error) {
	st, err := r.Peek()
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errorAt(nil, "the element %s is missing", qn(xml.Name{Space: space, Local: local}))
	}
	if !st.Is(space, local) {
		return nil, errorAt(nil, "expected the element %s, found %s", qn(xml.Name{Space: space, Local: local}), qn(st.Name()))
	}
	return r.Take(), nil
}

// Peek returns the start tag of the current element's next child without
// taking it; nil at the element's end (or, at the top, at the end of the
// input).
func (r *Decoder) Peek() (*Start, error) {
	if r.peeked != nil || r.ended {
		return r.peeked, nil
	}
	for {
		t, err := r.r.Next()
		if err == io.EOF {
			if r.depth == 0 {
				return nil, nil
			}
			return nil, r.Errorf("the XML ends inside the element")
		}
		if err != nil {
			return nil, err
		}
		switch t.Kind {
		case core.StartElement:
			r.depth++
			if r.depth > maxValueDepth {
				return nil, r.Errorf("elements nest deeper than %d", maxValueDepth)
			}
			st := &r.start
			*st = Start{t: t}
			if err := r.readXSI(st); err != nil {
				return nil, err
			}
			r.peeked = st
			return st, nil
		case core.EndElement:
			r.depth--
			r.ended = true
			return nil, nil
		case core.CharData:
			if r.depth > 0 {
				if len(r.text)+len(t.Text) > maxTextBytes {
					return nil, r.Errorf("a text over %d bytes", maxTextBytes)
				}
				r.text = append(r.text, t.Text...)
			}
		}
	}
}

// readXSI reads a start tag's xsi:type and xsi:nil.
func (r *Decoder) readXSI(st *Start) error {
	for i := range st.t.Attr {
		a := &st.t.Attr[i]
		if !IsXSI(a) {
			continue
		}
		switch string(a.Name.Local) {
		case "type":
			n, err := parseQName(strings.TrimSpace(string(a.Value)), r.resolve)
			if err != nil {
				return &ValueError{Path: r.pathIn(string(st.t.Name.Local)), Msg: fmt.Sprintf("xsi:type %q: %v", a.Value, err)}
			}
			st.Type, st.HasType = n, true
		case "nil", "null":
			switch strings.TrimSpace(string(a.Value)) {
			case "true", "1":
				st.Nil = true
			case "false", "0":
			default:
				return &ValueError{Path: r.pathIn(string(st.t.Name.Local)), Msg: fmt.Sprintf("xsi:nil %q: want true or false", a.Value)}
			}
		}
	}
	return nil
}

// Take takes the child Peek returned: it is the current element until its
// end is read (Value, End, Mixed, Empty or Raw).
func (r *Decoder) Take() *Start {
	st := r.peeked
	r.peeked = nil
	r.taken++
	r.marks = append(r.marks, takenMark{path: len(r.path), text: len(r.text)})
	if len(r.path) > 0 {
		r.path = append(r.path, '/')
	}
	r.path = append(r.path, st.t.Name.Local...)
	return st
}

// Detach returns a copy of st without its attributes (its name, Type and
// Nil kept), which stays valid while the Decoder reads on: to read the
// element's children before handing it on.
func (r *Decoder) Detach(st *Start) *Start {
	t := &core.Token{Kind: core.StartElement}
	t.Name.Space = append([]byte(nil), st.t.Name.Space...)
	t.Name.Local = append([]byte(nil), st.t.Name.Local...)
	return &Start{t: t, Type: st.Type, Nil: st.Nil, HasType: st.HasType}
}

// Skip reads the current element's next child when it is {space}local,
// with its content, and drops it (SOAP 1.2's rpc:result before an rpc
// reply's accessors).
func (r *Decoder) Skip(space, local string) error {
	st, err := r.Peek()
	if err != nil || st == nil || !st.Is(space, local) {
		return err
	}
	st = r.Take()
	_, err = r.Raw(st)
	return err
}

// Taken returns the number of elements taken so far: a content model
// that took none in a round has ended.
func (r *Decoder) Taken() int { return r.taken }

// ErrorIn returns a *ValueError at the child local of the element read
// last (a value that was read whole but does not fit its Go type).
func (r *Decoder) ErrorIn(local string, err error) error {
	return &ValueError{Path: r.pathIn(local), Msg: err.Error(), Err: err}
}

// finish ends the current element: its text is dropped, its name popped.
func (r *Decoder) finish() {
	n := len(r.marks) - 1
	r.text = r.text[:r.marks[n].text]
	r.path = r.path[:r.marks[n].path]
	r.marks = r.marks[:n]
	r.ended = false
}

// textOf returns the current element's text once its end was read.
func (r *Decoder) textOf() []byte { return r.text[r.marks[len(r.marks)-1].text:] }

// Value reads a simple value to the current element's end and checks it
// against t: a child element, or a value the type does not allow, is an
// error. It returns the normalized value (QNames as {namespace}local).
func (r *Decoder) Value(t *Simple) (string, error) {
	return r.value(t, nil, false)
}

// ValueDefault is Value for an element with a default (fixed false) or a
// fixed value (fixed true): an empty element has it, and with fixed, any
// other value is an error.
func (r *Decoder) ValueDefault(t *Simple, def string, fixed bool) (string, error) {
	return r.value(t, &def, fixed)
}

func (r *Decoder) value(t *Simple, def *string, fixed bool) (string, error) {
	if child, err := r.Peek(); err != nil {
		return "", err
	} else if child != nil {
		return "", r.Errorf("the element %s is not allowed inside a simple value", qn(child.Name()))
	}
	text := string(r.textOf())
	if text == "" && def != nil {
		text = *def
	}
	norm, err := t.check(text, r.resolve, !r.tokenized)
	if err != nil {
		return "", r.wrap(err)
	}
	if fixed && def != nil && norm != t.normalize(*def) {
		return "", r.Errorf("the value is fixed to %q", *def)
	}
	norm = t.clarkQNames(norm, r.resolve)
	r.finish()
	return norm, nil
}

// Type checks the xsi:type of the element just taken against its declared
// type {space}local (zero for an anonymous type): none, or the declared one
// itself, is right; reading the SOAP encoding, any is.
func (r *Decoder) Type(st *Start, space, local string) error {
	if !st.HasType || r.encoded != 0 || st.Type.Space == space && st.Type.Local == local && local != "" {
		return nil
	}
	if local == "" {
		return r.Errorf("xsi:type %s does not derive from the element's type (anonymous)", qn(st.Type))
	}
	return r.Errorf("xsi:type %s does not derive from the element's type %s", qn(st.Type), qn(xml.Name{Space: space, Local: local}))
}

// NotNillable is the error for xsi:nil on an element that is not nillable.
func (r *Decoder) NotNillable() error {
	return r.Errorf("xsi:nil on an element that is not nillable")
}

// End reads the end of the current element of element content: a child
// left is an error (expected lists the children the type has, for the
// message), and so is text that is not white space.
func (r *Decoder) End(expected string) error {
	child, err := r.Peek()
	if err != nil {
		return err
	}
	if child != nil {
		return r.NotAllowed(child, expected)
	}
	if len(bytes.TrimSpace(r.textOf())) != 0 {
		return r.Errorf("text is not allowed in a value of element content")
	}
	r.finish()
	return nil
}

// Mixed reads the end of the current element of mixed content and returns
// its text.
func (r *Decoder) Mixed(expected string) (string, error) {
	child, err := r.Peek()
	if err != nil {
		return "", err
	}
	if child != nil {
		return "", r.NotAllowed(child, expected)
	}
	s := string(r.textOf())
	r.finish()
	return s, nil
}

// Empty reads the end of an element that has no content (a nil element,
// one of an empty type): a child or text is an error.
func (r *Decoder) Empty() error {
	child, err := r.Peek()
	if err != nil {
		return err
	}
	if child != nil {
		return r.Errorf("the element has no child elements (found %s)", qn(child.Name()))
	}
	if len(bytes.TrimSpace(r.textOf())) != 0 {
		return r.Errorf("the element has no text")
	}
	r.finish()
	return nil
}

// NotAllowed is the error for a child the content model has no room for
// where it is; expected lists the children the type has.
func (r *Decoder) NotAllowed(child *Start, expected string) error {
	if expected == "" {
		expected = "the type has no child elements"
	} else {
		expected = "expected: " + expected
	}
	return r.Errorf("the element %s is not allowed here (%s)", qn(child.Name()), expected)
}

// Missing is the error for a required element {space}local that is not
// there: the next child (Peek's) or the element's end is named.
func (r *Decoder) Missing(space, local string) error {
	found := "nothing follows"
	if st := r.peeked; st != nil {
		found = "found " + qn(st.Name())
		if st.Local() == local && string(st.t.Name.Space) != space {
			found += ": the schema wants it in " + nsLabel(space)
		}
	}
	return r.Errorf("the required element %s is missing (%s)", qn(xml.Name{Space: space, Local: local}), found)
}

// TooFew is the error for an element that occurs n times where the schema
// wants at least min.
func (r *Decoder) TooFew(space, local string, n, min int) error {
	return r.Errorf("the element %s occurs %d times, the schema wants at least %d", qn(xml.Name{Space: space, Local: local}), n, min)
}

// OneOf is the error for a choice (or a group) of which nothing is there.
func (r *Decoder) OneOf(names string) error {
	found := "nothing follows"
	if st := r.peeked; st != nil {
		found = "found " + qn(st.Name())
	}
	return r.Errorf("one of %s is required (%s)", names, found)
}

// Rest refuses anything in the input after what was read (white space and
// comments aside): what a message's body may not hold after its parts.
func (r *Decoder) Rest() error {
	st, err := r.Peek()
	if err != nil {
		return err
	}
	if st != nil {
		return &ValueError{Msg: fmt.Sprintf("the element %s follows what the message holds", st.Local())}
	}
	if len(bytes.TrimSpace(r.text)) != 0 {
		return &ValueError{Msg: "text follows what the message holds"}
	}
	return nil
}
