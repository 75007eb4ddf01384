package xsd

import (
	"bytes"

	"github.com/soapwire/soapwire/core"
)

// EncodedReader reads every element left in r (the main element of an
// rpc/encoded message and the independent ones after it), puts each
// referenced value in place of its reference (href/id, enc:ref/enc:id), and
// returns a TokenReader of the main element, as the codec reads the SOAP
// encoding.
func EncodedReader(r TokenReader) (TokenReader, error) {
	c := &Codec{encoded: core.V11}
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
		return BytesReader(nil), nil
	}
	var buf bytes.Buffer
	e := &encoder{c: c, x: newWriter(&buf)}
	if err := e.generic(resolved, 0); err != nil {
		return nil, err
	}
	if err := e.x.flush(); err != nil {
		return nil, err
	}
	return BytesReader(buf.Bytes()), nil
}

// resolveTops indexes the ids of the elements read and returns the main one
// (the first not marked root="0") with its references resolved; nil when
// there is none.
func resolveTops(tops []*Value) (*Value, error) {
	ids := map[string]*Value{}
	var index func(v *Value, depth int) error
	index = func(v *Value, depth int) error {
		if depth > maxValueDepth {
			return errorAt(nil, "values nest deeper than %d", maxValueDepth)
		}
		if id := encodedAttr(v, "id"); id != "" {
			if _, dup := ids[id]; dup {
				return errorAt([]string{v.Name.Local}, "the id %q is carried twice", id)
			}
			ids[id] = v
		}
		for _, ch := range v.Elems {
			if err := index(ch, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	var main *Value
	for _, t := range tops {
		if err := index(t, 0); err != nil {
			return nil, err
		}
		if main == nil && encodedAttr(t, "root") != "0" {
			main = t
		}
	}
	if main == nil {
		return nil, nil
	}
	budget := maxEncodedNodes
	return resolveRefs(main, ids, 0, &budget, nil)
}
