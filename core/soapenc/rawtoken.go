package soapenc

import "encoding/xml"

// A fresh *xml.Decoder is read with RawToken instead of Token: the builder
// keeps its own scope of namespace declarations anyway (to resolve QName
// values), so it resolves element and attribute prefixes itself and skips
// encoding/xml's second namespace table, and it checks that end tags match
// their start tags, which RawToken does not. The tokens it builds from are
// the ones Token would return, except that an undeclared prefix and an
// attribute written twice are errors rather than let through.

// resolveRaw replaces the prefixes of t's element and attribute names by
// namespace URIs, using the declarations on t and the scope in force.
func (b *builder) resolveRaw(t *xml.StartElement) error {
	b.rawNames = append(b.rawNames, t.Name)
	if err := uniqueAttrs(t.Attr); err != nil {
		return err
	}
	lookup := func(prefix string, attr bool) (string, bool) {
		if attr && prefix == "" {
			return "", true // unprefixed attributes are in no namespace
		}
		for _, a := range t.Attr {
			if prefix == "" && a.Name.Space == "" && a.Name.Local == "xmlns" ||
				prefix != "" && a.Name.Space == "xmlns" && a.Name.Local == prefix {
				return a.Value, true
			}
		}
		return b.scope.lookup(prefix)
	}
	uri, ok := lookup(t.Name.Space, false)
	if !ok {
		return errorf(SubcodeBadValue, "element %s:%s uses an undeclared prefix", t.Name.Space, t.Name.Local)
	}
	t.Name.Space = uri
	for i := range t.Attr {
		a := &t.Attr[i]
		if a.Name.Space == "xmlns" || a.Name.Space == "" {
			continue // declarations (as Token returns them) and unprefixed attributes
		}
		uri, ok := lookup(a.Name.Space, true)
		if !ok {
			return errorf(SubcodeBadValue, "attribute %s:%s uses an undeclared prefix", a.Name.Space, a.Name.Local)
		}
		a.Name.Space = uri
	}
	return nil
}

// endRaw checks that an end tag closes the element open.
func (b *builder) endRaw(t xml.EndElement) error {
	n := len(b.rawNames) - 1
	if n < 0 || b.rawNames[n] != t.Name {
		return errorf(SubcodeBadValue, "end tag </%s> does not match the open element", t.Name.Local)
	}
	b.rawNames = b.rawNames[:n]
	return nil
}

// uniqueAttrs refuses an attribute written twice on one element (which
// encoding/xml lets through, and a declaration written twice would be
// ambiguous).
func uniqueAttrs(attrs []xml.Attr) error {
	dup := func(n xml.Name) error {
		return errorf(SubcodeBadValue, "attribute %s appears twice on an element", n.Local)
	}
	if len(attrs) <= 16 {
		for i := range attrs {
			for j := i + 1; j < len(attrs); j++ {
				if attrs[i].Name == attrs[j].Name {
					return dup(attrs[i].Name)
				}
			}
		}
		return nil
	}
	seen := make(map[xml.Name]struct{}, len(attrs))
	for _, a := range attrs {
		if _, ok := seen[a.Name]; ok {
			return dup(a.Name)
		}
		seen[a.Name] = struct{}{}
	}
	return nil
}
