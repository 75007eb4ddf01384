package xmldoc

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// Node is an element or, when Name.Local is empty, a text node.
type Node struct {
	Name     xml.Name
	Attrs    []Attr // attributes, namespace declarations excluded
	NS       []NS   // the namespace declarations made on this element
	Parent   *Node
	Children []*Node // elements and text nodes, in document order
	Text     string  // a text node's text
	Line     int     // the line of the element's start tag (1 for the first)
}

// Attr is an attribute: its expanded name and its normalized value.
type Attr struct {
	Name  xml.Name
	Value string
}

// NS is a namespace declaration; an empty Prefix declares the default
// namespace, an empty URI undeclares it.
type NS struct {
	Prefix, URI string
}

// IsText reports whether n is a text node.
func (n *Node) IsText() bool { return n.Name.Local == "" }

// Is reports whether n is the element {space}local.
func (n *Node) Is(space, local string) bool {
	return n.Name.Local == local && n.Name.Space == space
}

// Attr returns the value of the attribute local in no namespace.
func (n *Node) Attr(local string) (string, bool) {
	return n.AttrNS("", local)
}

// AttrNS returns the value of the attribute {space}local.
func (n *Node) AttrNS(space, local string) (string, bool) {
	for i := range n.Attrs {
		if a := &n.Attrs[i]; a.Name.Local == local && a.Name.Space == space {
			return a.Value, true
		}
	}
	return "", false
}

// Elements returns the element children, in order.
func (n *Node) Elements() []*Node {
	var out []*Node
	for _, c := range n.Children {
		if !c.IsText() {
			out = append(out, c)
		}
	}
	return out
}

// Lookup resolves a prefix in n's scope ("" is the default namespace; the
// xml prefix is always bound).
func (n *Node) Lookup(prefix string) (string, bool) {
	if prefix == "xml" {
		return XMLNamespace, true
	}
	for e := n; e != nil; e = e.Parent {
		for i := len(e.NS) - 1; i >= 0; i-- {
			if e.NS[i].Prefix == prefix {
				if e.NS[i].URI == "" {
					return "", prefix == ""
				}
				return e.NS[i].URI, true
			}
		}
	}
	return "", prefix == ""
}

// ResolveQName resolves a QName written in an attribute value or text of n:
// a prefixed name by its prefix, an unprefixed one in the default namespace
// (as XML Schema reads QName values). White space around it is ignored.
func (n *Node) ResolveQName(v string) (xml.Name, error) {
	v = strings.TrimSpace(v)
	prefix, local, ok := strings.Cut(v, ":")
	if !ok {
		prefix, local = "", v
	}
	if local == "" || strings.Contains(local, ":") || ok && prefix == "" || strings.ContainsAny(v, " \t\r\n") {
		return xml.Name{}, fmt.Errorf("%q is not a QName", v)
	}
	space, found := n.Lookup(prefix)
	if !found {
		return xml.Name{}, fmt.Errorf("the prefix %q of %q is not declared", prefix, v)
	}
	return xml.Name{Space: space, Local: local}, nil
}

// InScope returns the namespace bindings in effect at n, one per prefix,
// innermost winning.
func (n *Node) InScope() map[string]string {
	m := map[string]string{}
	for e := n; e != nil; e = e.Parent {
		for _, d := range e.NS {
			if _, ok := m[d.Prefix]; !ok {
				m[d.Prefix] = d.URI
			}
		}
	}
	return m
}

// InnerText returns the text of n and its descendants, in document order.
func (n *Node) InnerText() string {
	if n.IsText() {
		return n.Text
	}
	var b strings.Builder
	var walk func(*Node)
	walk = func(e *Node) {
		for _, c := range e.Children {
			if c.IsText() {
				b.WriteString(c.Text)
			} else {
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// XMLNamespace is the namespace bound to the prefix xml.
const XMLNamespace = "http://www.w3.org/XML/1998/namespace"
