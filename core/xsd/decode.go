package xsd

import (
	"encoding/xml"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// decoder reads elements into Value trees by the schema, checking as it
// reads.
type decoder struct {
	c      *Codec
	r      TokenReader
	top    bool
	path   []string
	depth  int       // elements open
	peeked *startTag // a child's start tag read ahead
	ended  bool      // the current element's end tag was read ahead
	text   []byte    // the current element's character data so far
}

// startTag is a start tag copied out of the reader's buffer.
type startTag struct {
	name    xml.Name
	attrs   []tagAttr
	typ     xml.Name // xsi:type, resolved
	hasType bool
	isNil   bool
}

type tagAttr struct {
	name  xml.Name
	value string
}

// The XML Schema instance namespaces of the drafts some old toolkits
// still write (xsi:null in 1999's).
const (
	namespaceXSI1999 = "http://www.w3.org/1999/XMLSchema-instance"
	namespaceXSI2000 = "http://www.w3.org/2000/10/XMLSchema-instance"
)

func (d *decoder) errorf(format string, args ...any) *ValueError {
	return errorAt(d.path, format, args...)
}

// resolve resolves a prefix in the scope of the last token read.
func (d *decoder) resolve(prefix string) (string, bool) {
	uri, ok := d.r.Lookup([]byte(prefix))
	return string(uri), ok
}

// copyStart copies a start tag, reading its xsi attributes.
func (d *decoder) copyStart(t *core.Token) (*startTag, error) {
	st := &startTag{name: xml.Name{Space: string(t.Name.Space), Local: string(t.Name.Local)}}
	for _, a := range t.Attr {
		space := string(a.Name.Space)
		if space == NamespaceXSI || space == namespaceXSI1999 || space == namespaceXSI2000 {
			switch string(a.Name.Local) {
			case "type":
				n, err := parseQName(strings.TrimSpace(string(a.Value)), d.resolve)
				if err != nil {
					return nil, errorAt(append(d.path, st.name.Local), "xsi:type %q: %v", a.Value, err)
				}
				st.typ, st.hasType = n, true
			case "nil", "null":
				switch strings.TrimSpace(string(a.Value)) {
				case "true", "1":
					st.isNil = true
				case "false", "0":
				default:
					return nil, errorAt(append(d.path, st.name.Local), "xsi:nil %q: want true or false", a.Value)
				}
			}
			continue // schemaLocation and the others say nothing about the value
		}
		st.attrs = append(st.attrs, tagAttr{name: xml.Name{Space: space, Local: string(a.Name.Local)}, value: string(a.Value)})
	}
	return st, nil
}

// nextChild reads up to the next child's start tag (nil at the end of the
// current element), keeping the text met on the way.
func (d *decoder) nextChild() (*startTag, error) {
	for {
		t, err := d.r.Next()
		if err == io.EOF {
			if d.depth == 0 {
				return nil, nil
			}
			return nil, d.errorf("the XML ends inside the element")
		}
		if err != nil {
			return nil, err
		}
		switch t.Kind {
		case core.StartElement:
			d.depth++
			if d.depth > maxValueDepth {
				return nil, d.errorf("elements nest deeper than %d", maxValueDepth)
			}
			return d.copyStart(t)
		case core.EndElement:
			d.depth--
			d.ended = true
			return nil, nil
		case core.CharData:
			if d.depth > 0 {
				if len(d.text)+len(t.Text) > maxTextBytes {
					return nil, d.errorf("a text over %d bytes", maxTextBytes)
				}
				d.text = append(d.text, t.Text...)
			}
		}
	}
}

// maxTextBytes bounds one element's text (the reader's limits bound the
// whole message first).
const maxTextBytes = 64 << 20

// peek returns the next child's start tag without taking it; nil at the
// end of the current element.
func (d *decoder) peek() (*startTag, error) {
	if d.peeked != nil || d.ended {
		return d.peeked, nil
	}
	st, err := d.nextChild()
	d.peeked = st
	return st, err
}

func (d *decoder) take() *startTag {
	st := d.peeked
	d.peeked = nil
	return st
}

// top1 reads the next element as el.
func (d *decoder) top1(el *Element) (*Value, error) {
	st, err := d.peek()
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, errorAt(nil, "the element %s is missing", qn(el.Name))
	}
	var decl *Element
	for _, m := range d.c.members(el) {
		if m.Name == st.name || d.c.lenient && m.Name.Local == st.name.Local {
			decl = m
			break
		}
	}
	if decl == nil {
		if el.Abstract && el.Name == st.name {
			return nil, errorAt([]string{st.name.Local}, "the element is abstract: a member of its substitution group must stand for it")
		}
		return nil, errorAt(nil, "expected the element %s, found %s", qn(el.Name), qn(st.name))
	}
	d.take()
	return d.element(st, decl, nil)
}

// element reads the rest of an element whose start tag st was taken.
func (d *decoder) element(st *startTag, decl *Element, p *Particle) (*Value, error) {
	d.path = append(d.path, st.name.Local)
	savedText := d.text
	d.text = nil
	defer func() {
		d.path = d.path[:len(d.path)-1]
		d.text = savedText
	}()
	v := &Value{Name: st.name, decl: decl, repeated: p != nil && p.Repeated()}
	t := decl.Type
	if t == nil {
		t = d.c.set.AnyType()
	}
	if st.hasType {
		dt := d.c.set.Type(st.typ)
		switch {
		case dt == nil && d.c.encoded != 0 && (st.typ.Space == NamespaceSOAPEnc || st.typ.Space == NamespaceSOAP12Enc):
			// soapenc:Array and the encoding's own types, when its schema is not loaded
		case dt == nil:
			return nil, d.errorf("xsi:type names %s, which the schema does not define", qn(st.typ))
		case derivesFrom(dt, t):
			t = dt
			v.Type = st.typ
		case d.c.encoded != 0 && (dt == nil || derivesFrom(t, dt)):
			// the SOAP encoding names a base (soapenc:Array for an array
			// type): the declared type stands
		default:
			return nil, d.errorf("xsi:type %s does not derive from the element's type %s", qn(st.typ), typeLabel(t))
		}
	}
	v.typ = t
	ct, _ := t.(*ComplexType)
	if ct != nil && ct.Abstract {
		return nil, d.errorf("the type %s is abstract: xsi:type must name a type derived from it", typeLabel(t))
	}
	if st.isNil {
		if !decl.Nillable {
			return nil, d.errorf("xsi:nil on an element that is not nillable")
		}
		v.Nil = true
		if ct != nil && !ct.IsAnyType() {
			if err := d.attrs(ct, st, v); err != nil {
				return nil, err
			}
		}
		if err := d.empty("a nil element"); err != nil {
			return nil, err
		}
		return v, nil
	}
	var err error
	switch t := t.(type) {
	case *SimpleType:
		if err := d.noAttrs(st); err != nil {
			return nil, err
		}
		v.Text, err = d.simpleContent(t, decl.Default, decl.Fixed)
	case *ComplexType:
		err = d.complex(t, st, v)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// noAttrs refuses attributes on an element of a simple type.
func (d *decoder) noAttrs(st *startTag) error {
	if d.c.lenient {
		return nil
	}
	for _, a := range st.attrs {
		if a.name.Space != core.NamespaceV11 && a.name.Space != core.NamespaceV12 && a.name.Space != NamespaceXML {
			return d.errorf("the attribute %s is not allowed on a value of a simple type", qn(a.name))
		}
	}
	return nil
}

// simpleContent reads a simple value to the element's end and checks it.
func (d *decoder) simpleContent(t *SimpleType, def, fixed *string) (string, error) {
	if child, err := d.peek(); err != nil {
		return "", err
	} else if child != nil {
		return "", d.errorf("the element %s is not allowed inside a simple value", qn(child.name))
	}
	d.ended = false
	text := string(d.text)
	if text == "" && def != nil {
		text = *def
	}
	norm, err := d.c.simple.check(t, text, d.resolve)
	if err != nil {
		return "", &ValueError{Path: strings.Join(d.path, "/"), Msg: "\"" + clip(text) + "\" is not a valid " + typeLabel(t) + ": " + err.Error(), Err: err}
	}
	if fixed != nil && norm != normalize(*fixed, whiteSpace(t)) {
		return "", d.errorf("the value is fixed to %q", *fixed)
	}
	return d.clark(t, norm), nil
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if len(s) > 64 {
		return s[:61] + "..."
	}
	return s
}

// clark writes the QNames of a checked value as {namespace}local.
func (d *decoder) clark(t *SimpleType, s string) string {
	k := t.Primitive()
	if t.Variety == List && t.Item != nil {
		k = t.Item.Primitive()
	}
	if k != KindQName && k != KindNOTATION {
		return s
	}
	items := strings.Fields(s)
	for i, it := range items {
		if n, err := parseQName(it, d.resolve); err == nil && n.Space != "" {
			items[i] = "{" + n.Space + "}" + n.Local
		}
	}
	return strings.Join(items, " ")
}

// empty reads to the element's end, refusing content.
func (d *decoder) empty(what string) error {
	child, err := d.peek()
	if err != nil {
		return err
	}
	if child != nil {
		return d.errorf("%s has no child elements (found %s)", what, qn(child.name))
	}
	d.ended = false
	if strings.TrimSpace(string(d.text)) != "" {
		return d.errorf("%s has no text", what)
	}
	return nil
}

// complex reads a complex type's attributes and content.
func (d *decoder) complex(t *ComplexType, st *startTag, v *Value) error {
	if t.IsAnyType() {
		return d.genericRest(st, v)
	}
	if err := d.attrs(t, st, v); err != nil {
		return err
	}
	if t.Array != nil && d.c.encoded != 0 {
		return d.array(t, v)
	}
	switch t.Content {
	case SimpleContent:
		st := t.SimpleType
		if st == nil {
			st = d.c.set.Builtin(KindAnySimpleType)
		}
		text, err := d.simpleContent(st, nil, nil)
		v.Text = text
		return err
	case EmptyContent:
		return d.empty("a value of " + typeLabel(t))
	}
	p := t.EffectiveParticle()
	var err error
	if d.c.lenient {
		err = d.lenientContent(p, v)
	} else if p != nil {
		err = d.particle(p, v)
	}
	if err != nil {
		return err
	}
	child, err := d.peek()
	if err != nil {
		return err
	}
	if child != nil {
		return d.notAllowed(p, child)
	}
	d.ended = false
	if t.Content == MixedContent {
		v.Text = string(d.text)
	} else if strings.TrimSpace(string(d.text)) != "" {
		return d.errorf("text is not allowed in a value of %s (element content)", typeLabel(t))
	}
	return nil
}

// notAllowed is the error for a child the content model has no room for.
func (d *decoder) notAllowed(p *Particle, child *startTag) error {
	known := d.c.contentElements(p)
	for _, e := range known[child.name.Local] {
		if e.Name == child.name && e.Abstract {
			return d.errorf("the element %s is abstract: a member of its substitution group must stand for it", qn(child.name))
		}
		if e.Name == child.name {
			return d.errorf("the element %s is out of order or occurs more often than the schema allows", qn(child.name))
		}
	}
	if len(known[child.name.Local]) > 0 {
		return d.errorf("the element %s is in the wrong namespace: the schema wants it in %s", qn(child.name), nsLabel(known[child.name.Local][0].Name.Space))
	}
	return d.errorf("the element %s is not allowed here (%s)", qn(child.name), expectedElems(known))
}

// attrs reads a complex type's attributes.
func (d *decoder) attrs(t *ComplexType, st *startTag, v *Value) error {
	uses := t.EffectiveAttributes()
	seen := make([]bool, len(uses))
	for _, a := range st.attrs {
		if a.name.Space == core.NamespaceV11 || a.name.Space == core.NamespaceV12 {
			continue // SOAP's own (encodingStyle on a body child)
		}
		if d.c.encoded != 0 && (a.name.Space == NamespaceSOAPEnc || a.name.Space == NamespaceSOAP12Enc) {
			continue // the encoding's markup (arrayType…), written again from the schema
		}
		i := -1
		for j, u := range uses {
			if u.Attribute.Name == a.name || d.c.lenient && u.Attribute.Name.Local == a.name.Local {
				i = j
				break
			}
		}
		if i < 0 {
			if w := t.EffectiveAnyAttribute(); w != nil && w.Allows(a.name.Space) {
				v.Attrs = append(v.Attrs, &Value{Name: a.name, Text: a.value})
				continue
			}
			if d.c.lenient || a.name.Space == NamespaceXML || d.c.encoded != 0 && isEncodingAttr(a.name) {
				continue
			}
			return d.errorf("the attribute %s is not allowed here (%s)", qn(a.name), expectedAttrs(t))
		}
		seen[i] = true
		u := uses[i]
		at := u.Attribute.Type
		if at == nil {
			at = d.c.set.Builtin(KindAnySimpleType)
		}
		norm, err := d.c.simple.check(at, a.value, d.resolve)
		if err != nil {
			return &ValueError{Path: strings.Join(d.path, "/"), Msg: "attribute " + a.name.Local + ": \"" + clip(a.value) + "\" is not a valid " + typeLabel(at) + ": " + err.Error(), Err: err}
		}
		if f := u.ValueFixed(); f != nil && norm != normalize(*f, whiteSpace(at)) {
			return d.errorf("attribute %s: the value is fixed to %q", a.name.Local, *f)
		}
		v.Attrs = append(v.Attrs, &Value{Name: u.Attribute.Name, Text: d.clark(at, norm)})
	}
	if !d.c.lenient {
		for i, u := range uses {
			if !seen[i] && u.Use == Required {
				return d.errorf("the required attribute %s is missing", u.Attribute.Name.Local)
			}
		}
	}
	return nil
}

// particle reads as many occurrences of p as follow, within its bounds.
func (d *decoder) particle(p *Particle, v *Value) error {
	n := 0
	for p.Max == Unbounded || n < p.Max {
		st, err := d.peek()
		if err != nil {
			return err
		}
		if st == nil {
			break
		}
		if el, w := d.c.first(p).match(st.name, false); el == nil && w == nil {
			break
		}
		before := len(v.Elems)
		if err := d.term(p, v); err != nil {
			return err
		}
		n++
		if len(v.Elems) == before {
			break
		}
	}
	if n < p.Min && !termEmptiable(p) {
		if n == 0 && p.Group != nil && p.Group.Compositor != Choice {
			return d.term(p, v) // the error names the first element missing
		}
		found := "nothing follows"
		st, _ := d.peek()
		if st != nil {
			found = "found " + qn(st.name)
		}
		if p.Element != nil {
			if st != nil && st.name.Local == p.Element.Name.Local && st.name.Space != p.Element.Name.Space {
				found += ": the schema wants it in " + nsLabel(p.Element.Name.Space)
			}
			if n > 0 {
				return d.errorf("the element %s occurs %d times, the schema wants at least %d (%s)", qn(p.Element.Name), n, p.Min, found)
			}
			return d.errorf("the required element %s is missing (%s)", qn(p.Element.Name), found)
		}
		return d.errorf("one of %s is required (%s)", strings.Join(d.c.first(p).expected(), ", "), found)
	}
	return nil
}

// term reads one occurrence of p's term, which the next child starts.
func (d *decoder) term(p *Particle, v *Value) error {
	switch {
	case p.Element != nil, p.Any != nil:
		st := d.take()
		el, w := d.c.first(p).match(st.name, false)
		var child *Value
		var err error
		if el != nil {
			child, err = d.element(st, el, p)
		} else {
			child, err = d.wildcard(st, w)
		}
		if err != nil {
			return err
		}
		v.Elems = append(v.Elems, child)
	case p.Group != nil:
		switch p.Group.Compositor {
		case Sequence:
			for _, q := range p.Group.Particles {
				if err := d.particle(q, v); err != nil {
					return err
				}
			}
		case Choice:
			st, _ := d.peek()
			for _, q := range p.Group.Particles {
				if el, w := d.c.first(q).match(st.name, false); el != nil || w != nil {
					return d.particle(q, v)
				}
			}
		case All:
			seen := map[*Particle]bool{}
			for {
				st, err := d.peek()
				if err != nil {
					return err
				}
				if st == nil {
					break
				}
				var next *Particle
				for _, q := range p.Group.Particles {
					if el, w := d.c.first(q).match(st.name, false); !seen[q] && (el != nil || w != nil) {
						next = q
						break
					}
				}
				if next == nil {
					break
				}
				seen[next] = true
				if err := d.particle(next, v); err != nil {
					return err
				}
			}
			for _, q := range p.Group.Particles {
				if !seen[q] && q.Min > 0 && !termEmptiable(q) {
					if q.Element != nil {
						return d.errorf("the required element %s is missing", qn(q.Element.Name))
					}
					return d.errorf("one of %s is required", strings.Join(d.c.first(q).expected(), ", "))
				}
			}
		}
	}
	return nil
}

// nsLabel names a namespace for messages.
func nsLabel(ns string) string {
	if ns == "" {
		return "no namespace (unqualified)"
	}
	return "the namespace " + ns + " (qualified)"
}
