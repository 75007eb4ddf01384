package xsd

import (
	"bytes"
	"encoding/xml"
	"strings"
)

// This file holds what reading the SOAP encoding (rpc/encoded) adds:
// multi-reference values (SOAP 1.1 href="#id" accessors and multiRef
// elements after the main one; SOAP 1.2 enc:ref and enc:id), resolved into
// one tree before it is checked, and arrays, whose items are named as the
// sender likes.

// maxEncodedNodes bounds the elements a message's references may expand
// to (shared values are copied at each place).
const maxEncodedNodes = 100_000

// decodeEncoded reads every remaining element of the reader (the main
// element and the independent ones after it), puts each referenced value
// in place of its reference, and decodes the main element as el.
func (c *Codec) decodeEncoded(r TokenReader, el *Element) (*Value, error) {
	d := &decoder{c: c, r: r, top: true}
	var tops []*Value
	for {
		st, err := d.peek()
		if err != nil {
			return nil, err
		}
		if st == nil {
			break
		}
		d.take()
		v, err := d.generic(st)
		if err != nil {
			return nil, err
		}
		tops = append(tops, v)
		d.ended = false
	}
	resolved, err := resolveTops(tops)
	if err != nil {
		return nil, err
	}
	if resolved == nil {
		return nil, errorAt(nil, "the element %s is missing", qn(el.Name))
	}
	var buf bytes.Buffer
	e := &encoder{c: c, x: newWriter(&buf)}
	if err := e.generic(resolved, 0); err != nil {
		return nil, err
	}
	if err := e.x.flush(); err != nil {
		return nil, err
	}
	d2 := &decoder{c: c, r: BytesReader(buf.Bytes()), top: true}
	return d2.top1(el)
}

// encodedAttr returns an attribute of the SOAP encoding: id, href, ref,
// root (in no namespace or the encoding's).
func encodedAttr(v *Value, local string) string {
	for _, a := range v.Attrs {
		if a.Name.Local == local && (a.Name.Space == "" || a.Name.Space == NamespaceSOAPEnc || a.Name.Space == NamespaceSOAP12Enc) {
			return a.Text
		}
	}
	return ""
}

// isEncodingAttr reports whether an attribute is the encoding's markup
// (references, roots, array positions), dropped once references are
// resolved.
func isEncodingAttr(n xml.Name) bool {
	switch n.Space {
	case "":
		return n.Local == "id" || n.Local == "href"
	case NamespaceSOAPEnc, NamespaceSOAP12Enc:
		return n.Local != "arrayType" && n.Local != "itemType" && n.Local != "arraySize"
	}
	return false
}

// resolveRefs returns a copy of v with every reference replaced by the
// value it refers to (under the accessor's name), within a node budget.
func resolveRefs(v *Value, ids map[string]*Value, depth int, budget *int, path []string) (*Value, error) {
	path = append(path, v.Name.Local)
	if depth > maxValueDepth {
		return nil, errorAt(path, "values nest deeper than %d (a cycle of references?)", maxValueDepth)
	}
	if *budget--; *budget < 0 {
		return nil, errorAt(path, "the references expand to more than %d elements", maxEncodedNodes)
	}
	src := v
	if ref := encodedAttr(v, "href"); ref != "" || encodedAttr(v, "ref") != "" {
		id := strings.TrimPrefix(ref, "#")
		if ref == "" {
			id = encodedAttr(v, "ref")
		} else if !strings.HasPrefix(ref, "#") {
			return nil, errorAt(path, "href %q does not refer to an element of the message", ref)
		}
		target := ids[id]
		if target == nil {
			return nil, errorAt(path, "href %q refers to no element", ref)
		}
		src = target
	}
	out := &Value{Name: v.Name, Type: src.Type, Nil: src.Nil || v.Nil, Text: src.Text}
	if v.Type != (xml.Name{}) && src == v {
		out.Type = v.Type
	}
	for _, a := range src.Attrs {
		if !isEncodingAttr(a.Name) {
			out.Attrs = append(out.Attrs, a)
		}
	}
	for _, ch := range src.Elems {
		r, err := resolveRefs(ch, ids, depth+1, budget, path)
		if err != nil {
			return nil, err
		}
		out.Elems = append(out.Elems, r)
	}
	return out, nil
}

// array reads the items of a SOAP-encoded array, whatever their names.
func (d *decoder) array(t *ComplexType, v *Value) error {
	a := t.Array
	decl := a.ItemElement
	if decl == nil {
		decl = &Element{Name: xml.Name{Local: "item"}, Type: a.ItemType, Nillable: true}
	}
	p := &Particle{Min: 0, Max: Unbounded, Element: decl}
	for {
		st, err := d.peek()
		if err != nil {
			return err
		}
		if st == nil {
			break
		}
		d.take()
		cp := *decl
		cp.Name = st.name
		child, err := d.element(st, &cp, p)
		if err != nil {
			return err
		}
		v.Elems = append(v.Elems, child)
	}
	d.ended = false
	if strings.TrimSpace(string(d.text)) != "" {
		return d.errorf("text is not allowed in an array")
	}
	return nil
}
