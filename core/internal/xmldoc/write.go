package xmldoc

import (
	"bufio"
	"errors"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmlesc"
)

// Write writes the element root and its descendants as an XML document
// (UTF-8, with an XML declaration): each element with the namespace
// declarations it had, so that the QNames attribute values and text hold
// resolve as they did; names with a prefix bound to their namespace where
// they are (an element in no namespace where a default namespace is in
// scope undeclares it). Comments, processing instructions and the
// document type declaration are not in the tree and not written; entities
// were expanded when reading.
//
// value, when not nil, gives the value written for each attribute (it is
// called with the attribute's element and the attribute): a caller rewrites
// what it needs, such as a port's address.
func Write(w io.Writer, root *Node, value func(n *Node, a *Attr) string) error {
	if root == nil || root.IsText() {
		return errors.New("xmldoc: no element to write")
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	if err := writeNode(bw, root, value, 0); err != nil {
		return err
	}
	bw.WriteString("\n")
	return bw.Flush()
}

// maxWriteDepth bounds the nesting Write follows (the reader's own limits
// are far below it).
const maxWriteDepth = 10000

func writeNode(w *bufio.Writer, n *Node, value func(*Node, *Attr) string, depth int) error {
	if depth > maxWriteDepth {
		return errors.New("xmldoc: elements nest too deep to write")
	}
	name, extra, err := n.prefixed(n.Name.Space, n.Name.Local, false)
	if err != nil {
		return err
	}
	w.WriteString("<")
	w.WriteString(name)
	for _, d := range n.NS {
		w.WriteString(" xmlns")
		if d.Prefix != "" {
			w.WriteString(":")
			w.WriteString(d.Prefix)
		}
		w.WriteString(`="`)
		w.Write(xmlesc.Append(nil, d.URI, xmlesc.Attr))
		w.WriteString(`"`)
	}
	w.WriteString(extra)
	for i := range n.Attrs {
		a := &n.Attrs[i]
		an, _, err := n.prefixed(a.Name.Space, a.Name.Local, true)
		if err != nil {
			return err
		}
		v := a.Value
		if value != nil {
			v = value(n, a)
		}
		w.WriteString(" ")
		w.WriteString(an)
		w.WriteString(`="`)
		w.Write(xmlesc.Append(nil, v, xmlesc.Attr))
		w.WriteString(`"`)
	}
	if len(n.Children) == 0 {
		w.WriteString("/>")
		return nil
	}
	w.WriteString(">")
	for _, c := range n.Children {
		if c.IsText() {
			w.Write(xmlesc.Append(nil, c.Text, xmlesc.Text))
			continue
		}
		if err := writeNode(w, c, value, depth+1); err != nil {
			return err
		}
	}
	w.WriteString("</")
	w.WriteString(name)
	w.WriteString(">")
	return nil
}

// prefixed returns the name of {space}local as written on n: with a prefix
// bound to space in n's scope (none for the default namespace of an
// element), and extra declarations when no binding serves (xmlns="" for an
// element in no namespace under a default one).
func (n *Node) prefixed(space, local string, attr bool) (name, extra string, err error) {
	if space == XMLNamespace {
		return "xml:" + local, "", nil
	}
	if space == "" {
		if !attr {
			if def, _ := n.Lookup(""); def != "" {
				return local, ` xmlns=""`, nil
			}
		}
		return local, "", nil
	}
	seen := map[string]bool{}
	for e := n; e != nil; e = e.Parent {
		for i := len(e.NS) - 1; i >= 0; i-- {
			d := e.NS[i]
			if seen[d.Prefix] {
				continue // shadowed by an inner declaration
			}
			seen[d.Prefix] = true
			if d.URI != space || d.Prefix == "" && attr {
				continue
			}
			if d.Prefix == "" {
				return local, "", nil
			}
			return d.Prefix + ":" + local, "", nil
		}
	}
	return "", "", errors.New("xmldoc: no prefix is bound to " + space + " where " + local + " is")
}
