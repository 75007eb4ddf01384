package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/xsd"
)

// printValues prints a reply's values read by the contract: "name = value"
// lines in the order they came (text), or one JSON object.
func printValues(w io.Writer, values []*xsd.Value, asJSON bool) error {
	if asJSON {
		obj := map[string]any{}
		for _, v := range values {
			x := v.Interface()
			if prev, ok := obj[v.Name.Local]; ok {
				if list, ok := prev.([]any); ok && isRepeatedName(values, v.Name.Local) {
					obj[v.Name.Local] = append(list, x)
					continue
				}
				obj[v.Name.Local] = []any{prev, x}
				continue
			}
			obj[v.Name.Local] = x
		}
		return writeJSON(w, obj)
	}
	return printLines(w, "", values)
}

// isRepeatedName reports whether name occurs more than once among values.
func isRepeatedName(values []*xsd.Value, name string) bool {
	n := 0
	for _, v := range values {
		if v.Name.Local == name {
			n++
		}
	}
	return n > 1
}

// printLines prints values as prefix.name = value lines: nested values as
// a.b, repeated ones (or those that may repeat) as a[0], attributes as
// a.name, nil as (nil), SOAP-encoded arrays' items as a[0].
func printLines(w io.Writer, prefix string, values []*xsd.Value) error {
	budget := maxReplyNodes
	return printValueList(w, prefix, values, false, 0, &budget)
}

func printValueList(w io.Writer, prefix string, values []*xsd.Value, array bool, depth int, budget *int) error {
	if depth > maxReplyDepth {
		return errTooDeep
	}
	if *budget -= len(values); *budget < 0 {
		return errTooManyValues
	}
	count := map[string]int{}
	for _, v := range values {
		count[v.Name.Local]++
	}
	index := map[string]int{}
	for i, v := range values {
		name := prefix + v.Name.Local
		switch {
		case array:
			name = fmt.Sprintf("%s[%d]", strings.TrimSuffix(prefix, "."), i)
		case count[v.Name.Local] > 1 || v.Repeated():
			name = fmt.Sprintf("%s[%d]", name, index[v.Name.Local])
			index[v.Name.Local]++
		}
		if err := printValue(w, name, v, depth, budget); err != nil {
			return err
		}
	}
	return nil
}

// printValue prints one value under name.
func printValue(w io.Writer, name string, v *xsd.Value, depth int, budget *int) error {
	if v.Nil {
		fmt.Fprintf(w, "%s = (nil)\n", oneLine(name))
		return nil
	}
	for _, a := range v.Attrs {
		fmt.Fprintf(w, "%s.%s = %s\n", oneLine(name), oneLine(a.Name.Local), quoteIfNeeded(a.Text))
	}
	arr := isArrayValue(v)
	if len(v.Elems) == 0 && !arr {
		if len(v.Attrs) == 0 || v.Text != "" {
			fmt.Fprintf(w, "%s = %s\n", oneLine(name), quoteIfNeeded(v.Text))
		}
		return nil
	}
	return printValueList(w, name+".", v.Elems, arr, depth+1, budget)
}

// isArrayValue reports whether v was read as a SOAP-encoded array.
func isArrayValue(v *xsd.Value) bool {
	ct, ok := v.SchemaType().(*xsd.ComplexType)
	return ok && ct.Array != nil
}

// showRequest prints the request envelope, indented.
func (c *cli) showRequest(req *core.Message) error {
	var buf bytes.Buffer
	if _, err := req.Write(&buf, core.WriteOptions{}); err != nil {
		return fmt.Errorf("writing the request: %w", err)
	}
	if req.Action != "" {
		fmt.Fprintf(c.stdout, "SOAPAction: %s\n", req.Action)
	}
	if err := indentXML(c.stdout, buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(c.stdout)
	return nil
}

// printXML prints a reply envelope, indented.
func printXML(w io.Writer, reply *core.Message) error {
	var buf bytes.Buffer
	if _, err := reply.Write(&buf, core.WriteOptions{}); err != nil {
		return err
	}
	return indentXML(w, buf.Bytes())
}

// indentXML writes an XML document with an XML declaration, one element a
// line, indented by two spaces; an element holding only text stays on one
// line, and prefixes stay as they are.
func indentXML(w io.Writer, data []byte) error {
	d := xml.NewDecoder(bytes.NewReader(data))
	var toks []xml.Token
	for {
		t, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("indenting: %w", err)
		}
		if pi, ok := t.(xml.ProcInst); ok && pi.Target == "xml" {
			continue
		}
		toks = append(toks, xml.CopyToken(t))
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n")
	depth := 0
	for i := 0; i < len(toks); i++ {
		switch t := toks[i].(type) {
		case xml.StartElement:
			b.WriteString(strings.Repeat("  ", depth))
			writeStart(&b, t)
			// <a>text</a> and <a></a> on one line
			j := i + 1
			var text []byte
			if j < len(toks) {
				if cd, ok := toks[j].(xml.CharData); ok {
					text = cd
					j++
				}
			}
			if j < len(toks) {
				if _, ok := toks[j].(xml.EndElement); ok {
					b.Write(core.AppendEscaped(nil, string(text)))
					writeEnd(&b, t.Name)
					b.WriteByte('\n')
					i = j
					continue
				}
			}
			b.WriteByte('\n')
			depth++
		case xml.EndElement:
			depth--
			b.WriteString(strings.Repeat("  ", depth))
			writeEnd(&b, t.Name)
			b.WriteByte('\n')
		case xml.CharData:
			if s := strings.TrimSpace(string(t)); s != "" {
				b.WriteString(strings.Repeat("  ", depth))
				b.Write(core.AppendEscaped(nil, s))
				b.WriteByte('\n')
			}
		case xml.Comment:
			b.WriteString(strings.Repeat("  ", depth) + "<!--" + string(t) + "-->\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func rawName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

func writeStart(b *bytes.Buffer, t xml.StartElement) {
	b.WriteString("<" + rawName(t.Name))
	for _, a := range t.Attr {
		b.WriteString(" " + rawName(a.Name) + `="`)
		b.Write(core.AppendEscapedAttr(nil, a.Value))
		b.WriteByte('"')
	}
	b.WriteByte('>')
}

func writeEnd(b *bytes.Buffer, n xml.Name) { b.WriteString("</" + rawName(n) + ">") }
