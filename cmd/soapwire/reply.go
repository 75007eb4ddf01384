package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/core/soapenc"
)

// maxReplyNodes bounds the elements of a reply call prints.
const maxReplyNodes = 100_000

// printReply prints the values of an RPC reply: the children of the
// response element, one "name = value" line each, or as JSON.
func printReply(w io.Writer, reply *core.Message, asJSON bool) error {
	d := soapenc.NewDecoder(reply.Body())
	d.MaxNodes = maxReplyNodes
	d.Headers = reply.Envelope.Headers // a value may refer to one, ids are unique across them
	el, err := d.ReadBody()
	if errors.Is(err, io.EOF) {
		if asJSON {
			return writeJSON(w, map[string]any{})
		}
		return nil // an empty body
	}
	var se *soapenc.Error
	if errors.As(err, &se) && se.Subcode == soapenc.SubcodeLimit {
		return fmt.Errorf("reading the reply: %w (use --xml)", err)
	}
	if err != nil {
		return fmt.Errorf("reading the reply: %w", err)
	}
	var values []*soapenc.Element
	for _, c := range el.Children() {
		if c.Name.Space == core.NamespaceRPC && c.Name.Local == "result" {
			continue // SOAP 1.2 rpc:result names the return value, it does not hold it
		}
		values = append(values, c)
	}
	budget := maxReplyNodes
	if asJSON {
		v, err := jsonOf(values, 0, &budget)
		if err != nil {
			return err
		}
		return writeJSON(w, v)
	}
	return printElements(w, "", values, 0, &budget)
}

// errTooManyValues: a reply whose values (references followed) are too many
// to print; shared references can make a small reply stand for a huge tree.
var errTooManyValues = fmt.Errorf("reading the reply: more than %d values (use --xml)", maxReplyNodes)

// errTooDeep: a reply whose values (references followed, which may form
// cycles) nest deeper than maxReplyDepth.
var errTooDeep = fmt.Errorf("reading the reply: values nested deeper than %d (use --xml)", maxReplyDepth)

// maxReplyDepth bounds how deep printing follows nested values (and
// references, which may form cycles).
const maxReplyDepth = 64

// printElements prints each element as prefix.name = value, with an index
// for names that repeat.
func printElements(w io.Writer, prefix string, els []*soapenc.Element, depth int, budget *int) error {
	if depth > maxReplyDepth {
		return errTooDeep
	}
	if *budget -= len(els); *budget < 0 {
		return errTooManyValues
	}
	count := map[string]int{}
	for _, e := range els {
		count[e.Name.Local]++
	}
	index := map[string]int{}
	for _, e := range els {
		name := prefix + e.Name.Local
		if count[e.Name.Local] > 1 {
			name = fmt.Sprintf("%s[%d]", name, index[e.Name.Local])
			index[e.Name.Local]++
		}
		children := e.Children()
		switch {
		case e.IsNil():
			fmt.Fprintf(w, "%s = (nil)\n", oneLine(name))
		case len(children) == 0:
			fmt.Fprintf(w, "%s = %s\n", oneLine(name), quoteIfNeeded(e.Text()))
		default:
			if err := printElements(w, name+".", children, depth+1, budget); err != nil {
				return err
			}
		}
	}
	return nil
}

// quoteIfNeeded returns s as it is, or Go-quoted when it holds line breaks
// or other control characters, or spaces at either end, so each value stays
// on its line and can be read back.
func quoteIfNeeded(s string) string {
	if s != strings.TrimSpace(s) || strings.HasPrefix(s, `"`) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return strconv.Quote(s)
		}
	}
	return s
}

// jsonOf turns elements into JSON values: a leaf is its text (null when
// nil), a structure an object, repeated names an array. Like
// printElements it fails with errTooManyValues or errTooDeep.
func jsonOf(els []*soapenc.Element, depth int, budget *int) (any, error) {
	obj := map[string]any{}
	if *budget -= len(els); *budget < 0 {
		return nil, errTooManyValues
	}
	for _, e := range els {
		v, err := jsonValue(e, depth+1, budget)
		if err != nil {
			return nil, err
		}
		if prev, ok := obj[e.Name.Local]; ok {
			if list, ok := prev.(jsonList); ok {
				obj[e.Name.Local] = append(list, v)
			} else {
				obj[e.Name.Local] = jsonList{prev, v}
			}
			continue
		}
		obj[e.Name.Local] = v
	}
	return obj, nil
}

type jsonList = []any

func jsonValue(e *soapenc.Element, depth int, budget *int) (any, error) {
	if e.IsNil() {
		return nil, nil
	}
	children := e.Children()
	if len(children) == 0 {
		return e.Text(), nil
	}
	if depth > maxReplyDepth {
		return nil, errTooDeep
	}
	return jsonOf(children, depth, budget)
}
