package soapenc

import (
	"bytes"
	"encoding/xml"
)

// The header blocks of the envelope (Decoder.Headers): the ids an
// envelope's references may point to are unique across the whole envelope,
// so elements in header blocks may be referred to from the body, and an id
// carried in a header block and again in the body (or in two blocks) is
// DuplicateID.

// readHeaders reads the header blocks that carry an id into the tree, as
// roots that are never the main element, before the body. A block without
// "id" in its text has no element that could be referred to or clash: it
// is not read. In a block, what the body could not be refused for is kept
// on the element it spoils (spoil) and is an error only when a value
// decoded from the body reaches it; limits and duplicate ids are errors at
// once.
func (b *builder) readHeaders() error {
	if len(b.d.Headers) == 0 {
		return nil
	}
	defer func() { b.header, b.raw = false, false }()
	for i := range b.d.Headers {
		x := b.d.Headers[i].XML
		if !bytes.Contains(x, []byte("id")) {
			continue
		}
		b.header, b.raw, b.rawNames = true, true, b.rawNames[:0]
		d := xml.NewDecoder(bytes.NewReader(x))
		if err := b.readTokens(d.RawToken); err != nil {
			return err
		}
	}
	return nil
}

// spoil records err on the header block element e: decoding e (or what it
// holds) returns it.
func (b *builder) spoil(e *Element, err error) {
	x := e.ext()
	if x.bad != nil {
		return
	}
	if se, ok := err.(*Error); ok {
		x.bad = se
		return
	}
	x.bad = &Error{Subcode: SubcodeBadValue, Msg: err.Error(), Err: err}
}

// spoiled returns the error decoding the value element v is, if any: what
// spoiled it in its header block, or its reference that no id answers.
func spoiled(v *Element) error {
	x := v.x
	switch {
	case x == nil:
		return nil
	case x.bad != nil:
		return &Error{Subcode: x.bad.Subcode, Msg: x.bad.Msg, Err: x.bad.Err}
	case x.ref != "" && x.target == nil:
		return errorf(SubcodeMissingID, "reference to id %s, which no element has", quote(x.ref))
	}
	return nil
}
