package xsd

import (
	"bytes"
	"encoding/xml"

	"github.com/soapwire/soapwire/core"
)

// Raw reads the rest of the element just taken as it is and returns it as
// RawXML (namespace-complete, in the codec's prefixes), as the codec keeps
// what a wildcard or an element of xsd:anyType holds.
func (r *Decoder) Raw(st *Start) (RawXML, error) {
	v := &Value{Name: st.Name(), Nil: st.Nil}
	if st.HasType {
		v.Type = st.Type
	}
	for i := range st.t.Attr {
		a := &st.t.Attr[i]
		if IsXSI(a) {
			continue
		}
		v.Attrs = append(v.Attrs, &Value{Name: xml.Name{Space: string(a.Name.Space), Local: string(a.Name.Local)}, Text: string(a.Value)})
	}
	if err := r.rawRest(v, 0); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	e := &encoder{c: &Codec{}, x: newWriter(&buf), path: r.pathNames()}
	if err := e.generic(v, 0); err != nil {
		return nil, err
	}
	if err := e.x.flush(); err != nil {
		return nil, err
	}
	return RawXML(buf.Bytes()), nil
}

// rawRest reads the content of the current element into v as it is, and
// its end.
func (r *Decoder) rawRest(v *Value, depth int) error {
	if depth > maxValueDepth {
		return r.Errorf("values nest deeper than %d", maxValueDepth)
	}
	for {
		child, err := r.Peek()
		if err != nil {
			return err
		}
		if child == nil {
			break
		}
		st := r.Take()
		c := &Value{Name: st.Name(), Nil: st.Nil}
		if st.HasType {
			c.Type = st.Type
		}
		for i := range st.t.Attr {
			a := &st.t.Attr[i]
			if IsXSI(a) {
				continue
			}
			c.Attrs = append(c.Attrs, &Value{Name: xml.Name{Space: string(a.Name.Space), Local: string(a.Name.Local)}, Text: string(a.Value)})
		}
		if err := r.rawRest(c, depth+1); err != nil {
			return err
		}
		v.Elems = append(v.Elems, c)
	}
	if text := r.textOf(); len(v.Elems) == 0 || len(bytes.TrimSpace(text)) != 0 {
		v.Text = string(text)
	}
	r.finish()
	return nil
}

// Attr checks an attribute's value against t and returns it normalized
// (QNames as {namespace}local); the error names the attribute.
func (r *Decoder) Attr(a *core.TokenAttr, t *Simple) (string, error) {
	v := string(a.Value)
	norm, err := t.check(v, r.resolve, !r.tokenized)
	if err != nil {
		return "", r.Errorf("attribute %s: %v", a.Name.Local, err)
	}
	return t.clarkQNames(norm, r.resolve), nil
}

// AttrFixed checks that an attribute with a fixed value has it.
func (r *Decoder) AttrFixed(a *core.TokenAttr, t *Simple, value, fixed string) error {
	if value != t.normalize(fixed) {
		return r.Errorf("attribute %s: the value is fixed to %q", a.Name.Local, fixed)
	}
	return nil
}

// OtherAttr judges an attribute that is none of the type's own: those of
// the XML Schema instance, SOAP envelope and xml namespaces are skipped
// (false), one an attribute wildcard allows (wild, nil if none) is kept
// (true), and any other is an error naming the attributes the type has
// (expected: "id, country"; "" when it has none). Reading the SOAP
// encoding, its own attributes are skipped too.
func (r *Decoder) OtherAttr(a *core.TokenAttr, wild *Wildcard, expected string) (bool, error) {
	space := string(a.Name.Space)
	switch {
	case IsXSI(a), space == core.NamespaceV11, space == core.NamespaceV12:
		return false, nil
	case r.encoded != 0 && (space == NamespaceSOAPEnc || space == NamespaceSOAP12Enc):
		return false, nil
	case wild != nil && wild.Allows(space):
		return true, nil
	case space == NamespaceXML:
		return false, nil
	case r.encoded != 0 && isEncodingAttr(xml.Name{Space: space, Local: string(a.Name.Local)}):
		return false, nil
	}
	if expected == "" {
		expected = "the type has no attributes"
	} else {
		expected = "expected: " + expected
	}
	return false, r.Errorf("the attribute %s is not allowed here (%s)", qn(xml.Name{Space: space, Local: string(a.Name.Local)}), expected)
}

// NoAttrs refuses attributes on an element of a simple type (xsi's, the
// SOAP envelope's and xml's aside).
func (r *Decoder) NoAttrs(st *Start) error {
	for i := range st.t.Attr {
		a := &st.t.Attr[i]
		switch string(a.Name.Space) {
		case core.NamespaceV11, core.NamespaceV12, NamespaceXML:
			continue
		}
		if IsXSI(a) || r.encoded != 0 && (string(a.Name.Space) == NamespaceSOAPEnc || string(a.Name.Space) == NamespaceSOAP12Enc ||
			isEncodingAttr(xml.Name{Space: string(a.Name.Space), Local: string(a.Name.Local)})) {
			continue
		}
		return r.Errorf("the attribute %s is not allowed on a value of a simple type", qn(xml.Name{Space: string(a.Name.Space), Local: string(a.Name.Local)}))
	}
	return nil
}

// MissingAttr is the error for a required attribute that is absent.
func (r *Decoder) MissingAttr(local string) error {
	return r.Errorf("the required attribute %s is missing", local)
}

// Unmarshaler is a value that reads its attributes and content from the
// element a Decoder has just taken: what soapwire gen's types are.
type Unmarshaler interface {
	DecodeXSD(d *Decoder, st *Start) error
}

// Child takes the current element's next child, which must be
// {space}local (a required element): anything else, or nothing, is an error
// naming it.
func (r *Decoder) Child(space, local string) (*Start, error) {
	st, err := r.Peek()
	if err != nil {
		return nil, err
	}
	if st == nil || !st.Is(space, local) {
		return nil, r.Missing(space, local)
	}
	return r.Take(), nil
}

// Optional takes the current element's next child when it is
// {space}local; nil when it is not.
func (r *Decoder) Optional(space, local string) (*Start, error) {
	st, err := r.Peek()
	if err != nil || st == nil || !st.Is(space, local) {
		return nil, err
	}
	return r.Take(), nil
}

// Text reads the element just taken (st), which is not nillable, as a
// value of the simple type t: xsi:nil, an xsi:type other than t's, an
// attribute, a child element, a value t does not allow are errors. It
// returns the value normalized (QNames as {namespace}local).
func (r *Decoder) Text(st *Start, t *Simple) (string, error) {
	if st.Nil {
		return "", r.NotNillable()
	}
	return r.simpleText(st, t, nil, false)
}

// TextNillable is Text for a nillable element: isNil reports xsi:nil.
func (r *Decoder) TextNillable(st *Start, t *Simple) (s string, isNil bool, err error) {
	if st.Nil {
		return "", true, r.Empty()
	}
	s, err = r.simpleText(st, t, nil, false)
	return s, false, err
}

// TextDefault is Text for an element with a default value (fixed false)
// or a fixed one (fixed true): an empty element holds it, and with fixed
// any other value is an error.
func (r *Decoder) TextDefault(st *Start, t *Simple, def string, fixed bool) (string, error) {
	if st.Nil {
		return "", r.NotNillable()
	}
	return r.simpleText(st, t, &def, fixed)
}

func (r *Decoder) simpleText(st *Start, t *Simple, def *string, fixed bool) (string, error) {
	n := t.t.Name
	if err := r.Type(st, n.Space, n.Local); err != nil {
		return "", err
	}
	if err := r.NoAttrs(st); err != nil {
		return "", err
	}
	return r.value(t, def, fixed)
}

// Struct reads the element just taken (st), which is not nillable, into
// v, its declared type being {space}local ("" for an anonymous type).
func (r *Decoder) Struct(st *Start, v Unmarshaler, space, local string) error {
	if st.Nil {
		return r.NotNillable()
	}
	if err := r.Type(st, space, local); err != nil {
		return err
	}
	return v.DecodeXSD(r, st)
}

// StructNillable is Struct for a nillable element: isNil reports xsi:nil
// (v is then left as it is).
func (r *Decoder) StructNillable(st *Start, v Unmarshaler, space, local string) (isNil bool, err error) {
	if err := r.Type(st, space, local); err != nil {
		return false, err
	}
	if st.Nil {
		return true, r.Empty()
	}
	return false, v.DecodeXSD(r, st)
}
