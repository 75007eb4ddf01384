package xsd

import (
	"encoding/xml"
	"sort"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// encoder writes a Value tree by the schema.
type encoder struct {
	c    *Codec
	x    *writer
	path []string
	top  []*Value // attributes for the first element written (the encoding's encodingStyle)
}

// The xsi attributes the codec writes.
const (
	xsiTypeLocal = "type"
	xsiNilLocal  = "nil"
)

func xsiName(local string) xml.Name { return xml.Name{Space: NamespaceXSI, Local: local} }

func (e *encoder) errorf(format string, args ...any) *ValueError {
	return errorAt(e.path, format, args...)
}

// element writes v as an element of declaration decl (or of the member of
// its substitution group that v names).
func (e *encoder) element(decl *Element, v *Value, _ bool) error {
	if decl.Abstract || v.Name.Local != "" && v.Name.Local != decl.Name.Local {
		if sub := e.substitute(decl, v.Name); sub != nil {
			decl = sub
		}
	}
	e.path = append(e.path, decl.Name.Local)
	defer func() { e.path = e.path[:len(e.path)-1] }()
	if len(e.path) > maxValueDepth {
		return e.errorf("values nest deeper than %d", maxValueDepth)
	}
	if decl.Abstract {
		return e.errorf("the element is abstract: write a member of its substitution group")
	}
	t := decl.Type
	if t == nil {
		t = e.c.set.AnyType()
	}
	var typeName xml.Name
	if v.Type != (xml.Name{}) {
		dt := e.c.set.Type(v.Type)
		if dt == nil {
			return e.errorf("the type %s is not defined", qn(v.Type))
		}
		if !derivesFrom(dt, t) {
			return e.errorf("the type %s does not derive from the element's type %s", qn(v.Type), typeLabel(t))
		}
		t, typeName = dt, dt.TypeName()
	}
	ct, _ := t.(*ComplexType)
	if ct != nil && ct.Abstract && typeName == (xml.Name{}) {
		return e.errorf("the type %s is abstract: give the value's Type (a type derived from it)", typeLabel(t))
	}
	if e.c.encoded != 0 && typeName == (xml.Name{}) && (ct == nil || ct.Array == nil) {
		typeName = encodedTypeName(t)
	}
	e.x.start(decl.Name)
	for _, a := range e.top {
		e.x.attr(a.Name, a.Text)
	}
	e.top = nil
	if typeName != (xml.Name{}) {
		e.x.attr(xsiName(xsiTypeLocal), e.x.qname(typeName))
	}
	if v.Nil {
		if !decl.Nillable {
			return e.errorf("the element is not nillable: it cannot be nil")
		}
		if len(v.Elems) > 0 || v.Text != "" {
			return e.errorf("a nil element has no content")
		}
		e.x.attr(xsiName(xsiNilLocal), "true")
		if ct != nil && !ct.IsAnyType() {
			if err := e.attrs(ct, v); err != nil {
				return err
			}
		}
		e.x.end()
		return nil
	}
	switch t := t.(type) {
	case *SimpleType:
		if len(v.Attrs) > 0 || len(v.Elems) > 0 {
			return e.errorf("a value of the simple type %s has no attributes or child elements", typeLabel(t))
		}
		if err := e.simple(t, v.Text, decl.Fixed); err != nil {
			return err
		}
	case *ComplexType:
		if err := e.complex(t, v); err != nil {
			return err
		}
	}
	e.x.end()
	return nil
}

// substitute returns the member of head's substitution group named n.
func (e *encoder) substitute(head *Element, n xml.Name) *Element {
	for _, m := range e.c.members(head) {
		if m.Name.Local == n.Local && (n.Space == "" || n.Space == m.Name.Space) {
			return m
		}
	}
	return nil
}

// simple writes a simple value (the start tag still open, for a QName's
// prefix).
func (e *encoder) simple(t *SimpleType, text string, fixed *string) error {
	norm, err := e.c.simple.check(t, text, nil)
	if err != nil {
		return e.errorf("%q is not a valid %s: %v", text, typeLabel(t), err)
	}
	if fixed != nil && norm != normalize(*fixed, whiteSpace(t)) {
		return e.errorf("the value is fixed to %q", *fixed)
	}
	e.x.text(e.qnames(t, norm))
	return nil
}

// qnames writes the QNames in a value ({ns}local) with prefixes, declaring
// them on the open start tag.
func (e *encoder) qnames(t *SimpleType, s string) string {
	k := t.Primitive()
	if t.Variety == List && t.Item != nil {
		k = t.Item.Primitive()
	}
	if k != KindQName && k != KindNOTATION {
		return s
	}
	items := strings.Fields(s)
	for i, it := range items {
		if n, err := parseQName(it, nil); err == nil {
			items[i] = e.x.qname(n)
		}
	}
	return strings.Join(items, " ")
}

// complex writes the attributes and content of a complex type's value.
func (e *encoder) complex(t *ComplexType, v *Value) error {
	if t.IsAnyType() {
		return e.genericContent(v, 0)
	}
	if err := e.attrs(t, v); err != nil {
		return err
	}
	if t.Array != nil && e.c.encoded != 0 {
		return e.array(t, v)
	}
	switch t.Content {
	case SimpleContent:
		if len(v.Elems) > 0 {
			return e.errorf("a value of simple content has no child elements")
		}
		st := t.SimpleType
		if st == nil {
			st = e.c.set.Builtin(KindAnySimpleType)
		}
		return e.simple(st, v.Text, nil)
	case EmptyContent:
		if len(v.Elems) > 0 || strings.TrimSpace(v.Text) != "" {
			return e.errorf("the type %s has no content (attributes only)", typeLabel(t))
		}
		return nil
	case MixedContent:
		if err := checkChars(v.Text); err != nil {
			return e.errorf("%v", err)
		}
		e.x.text(v.Text)
	default:
		if strings.TrimSpace(v.Text) != "" {
			return e.errorf("the type %s has element content: no text", typeLabel(t))
		}
	}
	return e.content(t.EffectiveParticle(), v.Elems)
}

// attrs writes a complex type's attributes from v.Attrs: each in the
// schema's order, then those a wildcard allows.
func (e *encoder) attrs(t *ComplexType, v *Value) error {
	used := make([]bool, len(v.Attrs))
	for _, u := range t.EffectiveAttributes() {
		a := u.Attribute
		i := findAttr(v.Attrs, a.Name, used)
		if i < 0 {
			if u.Use == Required && u.ValueFixed() == nil {
				return e.errorf("the required attribute %s is missing", a.Name.Local)
			}
			continue
		}
		used[i] = true
		st := a.Type
		if st == nil {
			st = e.c.set.Builtin(KindAnySimpleType)
		}
		text := v.Attrs[i].Text
		norm, err := e.c.simple.check(st, text, nil)
		if err != nil {
			return e.errorf("attribute %s: %q is not a valid %s: %v", a.Name.Local, text, typeLabel(st), err)
		}
		if f := u.ValueFixed(); f != nil && norm != normalize(*f, whiteSpace(st)) {
			return e.errorf("attribute %s: the value is fixed to %q", a.Name.Local, *f)
		}
		e.x.attr(a.Name, e.qnames(st, norm))
	}
	wild := t.EffectiveAnyAttribute()
	for i, a := range v.Attrs {
		if used[i] {
			continue
		}
		if a.Name.Space == NamespaceXSI {
			return e.errorf("attribute %s: xsi attributes are written from Value.Type and Value.Nil", a.Name.Local)
		}
		if wild == nil || !wild.Allows(a.Name.Space) {
			return e.errorf("the attribute %s is not allowed here (%s)", qn(a.Name), expectedAttrs(t))
		}
		if err := checkChars(a.Text); err != nil {
			return e.errorf("attribute %s: %v", a.Name.Local, err)
		}
		e.x.attr(a.Name, a.Text)
	}
	return nil
}

// findAttr returns the index of the attribute named n among attrs (a name
// without a namespace matches by local name), -1 if none.
func findAttr(attrs []*Value, n xml.Name, used []bool) int {
	for i, a := range attrs {
		if !used[i] && a.Name.Local == n.Local && (a.Name.Space == n.Space || a.Name.Space == "") {
			return i
		}
	}
	return -1
}

func expectedAttrs(t *ComplexType) string {
	var names []string
	for _, u := range t.EffectiveAttributes() {
		names = append(names, u.Attribute.Name.Local)
	}
	if len(names) == 0 {
		return "the type has no attributes"
	}
	return "expected: " + strings.Join(names, ", ")
}

// queue holds a value's child elements while the content model takes them.
type queue struct {
	items   []*Value
	taken   []bool
	left    int
	byLocal map[string][]int
	known   map[string][]*Element // the content model's elements by local name
}

func newQueue(items []*Value, known map[string][]*Element) *queue {
	q := &queue{items: items, taken: make([]bool, len(items)), left: len(items), byLocal: map[string][]int{}, known: known}
	for i, it := range items {
		q.byLocal[it.Name.Local] = append(q.byLocal[it.Name.Local], i)
	}
	return q
}

// find returns the index of the next item that decl (or a member of its
// substitution group) takes, -1 if none.
func (q *queue) find(c *Codec, decl *Element) (int, *Element) {
	for _, m := range c.members(decl) {
		for _, i := range q.byLocal[m.Name.Local] {
			if !q.taken[i] && (q.items[i].Name.Space == m.Name.Space || q.items[i].Name.Space == "") {
				return i, m
			}
		}
	}
	return -1, nil
}

// findAny returns the index of the next item no element of the content
// model takes that w allows, -1 if none.
func (q *queue) findAny(w *Wildcard) int {
	for i, it := range q.items {
		if q.taken[i] || !w.Allows(it.Name.Space) {
			continue
		}
		if els := q.known[it.Name.Local]; len(els) > 0 {
			claimed := false
			for _, el := range els {
				if it.Name.Space == "" || it.Name.Space == el.Name.Space {
					claimed = true
				}
			}
			if claimed {
				continue
			}
		}
		return i
	}
	return -1
}

func (q *queue) take(i int) *Value {
	q.taken[i] = true
	q.left--
	return q.items[i]
}

// content writes child elements as the content model p says, taking them
// from elems by name: in the schema's order whatever their order in elems.
func (e *encoder) content(p *Particle, elems []*Value) error {
	q := newQueue(elems, e.c.contentElements(p))
	if p != nil {
		if err := e.particle(p, q); err != nil {
			return err
		}
	}
	if q.left == 0 {
		return nil
	}
	for i, it := range q.items {
		if q.taken[i] {
			continue
		}
		if len(q.known[it.Name.Local]) > 0 {
			return e.errorf("the element %s occurs more often than the schema allows here", it.Name.Local)
		}
		return e.errorf("the element %s is not allowed here (%s)", qn(it.Name), expectedElems(q.known))
	}
	return nil
}

func expectedElems(known map[string][]*Element) string {
	if len(known) == 0 {
		return "the type has no child elements"
	}
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	return "expected: " + strings.Join(names, ", ")
}

// particle writes as many occurrences of p as the queue holds, within its
// bounds.
func (e *encoder) particle(p *Particle, q *queue) error {
	n := 0
	for (p.Max == Unbounded || n < p.Max) && e.available(p, q, 0) {
		before := q.left
		if err := e.term(p, q); err != nil {
			return err
		}
		n++
		if q.left == before {
			break
		}
	}
	if n < p.Min && !termEmptiable(p) {
		if p.Element != nil {
			return e.errorf("the required element %s is missing (%s)", p.Element.Name.Local, expectedElems(q.known))
		}
		return e.errorf("one of %s is required", strings.Join(e.c.first(p).expected(), ", "))
	}
	return nil
}

// available reports whether the queue holds something p's term takes.
func (e *encoder) available(p *Particle, q *queue, depth int) bool {
	if depth > maxChain {
		return false
	}
	switch {
	case p.Element != nil:
		i, _ := q.find(e.c, p.Element)
		return i >= 0
	case p.Any != nil:
		return q.findAny(p.Any) >= 0
	case p.Group != nil:
		for _, c := range p.Group.Particles {
			if c.Max != 0 && e.available(c, q, depth+1) {
				return true
			}
		}
	}
	return false
}

// term writes one occurrence of p's term.
func (e *encoder) term(p *Particle, q *queue) error {
	switch {
	case p.Element != nil:
		i, m := q.find(e.c, p.Element)
		return e.element(m, q.take(i), p.Repeated())
	case p.Any != nil:
		return e.wildcard(p.Any, q.take(q.findAny(p.Any)))
	case p.Group != nil:
		switch p.Group.Compositor {
		case Choice:
			for _, c := range p.Group.Particles {
				if c.Max != 0 && e.available(c, q, 0) {
					return e.particle(c, q)
				}
			}
		default:
			for _, c := range p.Group.Particles {
				if err := e.particle(c, q); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// termEmptiable reports whether one occurrence of p's term may hold
// nothing.
func termEmptiable(p *Particle) bool {
	if p.Group == nil {
		return false
	}
	return emptiable(&Particle{Min: 1, Max: 1, Group: p.Group})
}

// wildcard writes an element an xs:any takes: by its global declaration
// when the schemas have one (and the wildcard does not skip), else as it
// is.
func (e *encoder) wildcard(w *Wildcard, v *Value) error {
	if w.Process != "skip" && e.c.set != nil && v.Name.Space != "" {
		if g := e.c.set.Element(v.Name); g != nil && v.decl != nil {
			return e.element(g, v, false)
		}
	}
	return e.generic(v, 0)
}

// generic writes a value with no declaration as it is.
func (e *encoder) generic(v *Value, depth int) error {
	if depth > maxValueDepth {
		return e.errorf("values nest deeper than %d", maxValueDepth)
	}
	if v.Name.Local == "" {
		return e.errorf("an element without a name")
	}
	e.x.start(v.Name)
	if v.Type != (xml.Name{}) {
		e.x.attr(xsiName(xsiTypeLocal), e.x.qname(v.Type))
	}
	if v.Nil {
		e.x.attr(xsiName(xsiNilLocal), "true")
	}
	if err := e.genericContent(v, depth); err != nil {
		return err
	}
	e.x.end()
	return nil
}

// genericContent writes a value's attributes, text and children as they
// are.
func (e *encoder) genericContent(v *Value, depth int) error {
	for _, a := range v.Attrs {
		if a.Name.Space == NamespaceXSI {
			continue
		}
		if err := checkChars(a.Text); err != nil {
			return e.errorf("attribute %s: %v", a.Name.Local, err)
		}
		e.x.attr(a.Name, a.Text)
	}
	if err := checkChars(v.Text); err != nil {
		return e.errorf("%v", err)
	}
	if v.Text != "" {
		e.x.text(v.Text)
	}
	for _, c := range v.Elems {
		if err := e.generic(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// array writes a SOAP-encoded array's items (the encoded form).
func (e *encoder) array(t *ComplexType, v *Value) error {
	a := t.Array
	item := a.ItemType
	if item == nil {
		item = e.c.set.AnyType()
	}
	itemName := encodedTypeName(item)
	if itemName == (xml.Name{}) {
		itemName = a.ItemTypeName
	}
	n := strconv.Itoa(len(v.Elems))
	if a.Encoding == NamespaceSOAP12Enc || e.c.encoded == core.V12 {
		enc := NamespaceSOAP12Enc
		e.x.attr(xsiName(xsiTypeLocal), e.x.qname(xml.Name{Space: enc, Local: "Array"}))
		e.x.attr(xml.Name{Space: enc, Local: "itemType"}, e.x.qname(itemName))
		e.x.attr(xml.Name{Space: enc, Local: "arraySize"}, n)
	} else {
		enc := NamespaceSOAPEnc
		e.x.attr(xsiName(xsiTypeLocal), e.x.qname(xml.Name{Space: enc, Local: "Array"}))
		e.x.attr(xml.Name{Space: enc, Local: "arrayType"}, e.x.qname(itemName)+a.ItemTypePrefix()+"["+n+"]")
	}
	decl := a.ItemElement
	if decl == nil {
		decl = &Element{Name: xml.Name{Local: "item"}, Type: item, Nillable: true}
	}
	for _, it := range v.Elems {
		cp := *decl
		if it.Name.Local != "" {
			cp.Name = xml.Name{Local: it.Name.Local}
		}
		if err := e.element(&cp, it, true); err != nil {
			return err
		}
	}
	return nil
}

// encodedTypeName is the xsi:type the SOAP encoding writes for a value of
// t: its name, or for an anonymous simple type its built-in ancestor's.
func encodedTypeName(t Type) xml.Name {
	if n := t.TypeName(); n != (xml.Name{}) {
		return n
	}
	if st, ok := t.(*SimpleType); ok {
		for s, i := st, 0; s != nil && i < maxChain; s, i = s.Base, i+1 {
			if s.Name != (xml.Name{}) {
				return s.Name
			}
		}
	}
	return xml.Name{}
}

// typeLabel names a type for messages.
func typeLabel(t Type) string {
	if t == nil {
		return "anyType"
	}
	if n := t.TypeName(); n != (xml.Name{}) {
		if n.Space == NamespaceXSD {
			return "xsd:" + n.Local
		}
		return qn(n)
	}
	if st, ok := t.(*SimpleType); ok {
		if b := st.Builtin(); b != nil && b.Kind != KindAnySimpleType {
			return "restriction of xsd:" + b.Kind.String()
		}
		return st.Variety.String() + " type"
	}
	if ct, ok := t.(*ComplexType); ok {
		if e, ok := ct.Context.(*Element); ok {
			return "the type of " + e.Name.Local
		}
	}
	return "anonymous complex type"
}
