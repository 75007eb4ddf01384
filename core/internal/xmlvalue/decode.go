package xmlvalue

import (
	"bytes"
	"encoding/xml"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// Tokens is the stream a value is decoded from: the tokens of a SOAP body's
// children, as the core reads them.
type Tokens interface {
	// Next returns the next token, and whether it is the start tag of a
	// top-level element (a child of the Body), whose declarations are all
	// the bindings in scope there (Scope). io.EOF ends the stream.
	Next() (t *xmltok.Token, child bool, err error)
	// Scope returns every namespace binding in scope at the start tag of
	// the top-level element Next returned last.
	Scope() []xmltok.NS
}

// Decode decodes the next element of ts into v, as encoding/xml's
// Decoder.Decode decodes it from the same tokens (with the declarations in
// scope as attributes): the same value, the same error. ok is false, and
// nothing is read, when v is not a non-nil pointer to a type the fast path
// does: the caller then uses encoding/xml. text is a buffer for the text of
// the elements being read (it may be nil), handed back for the next call.
func Decode(ts Tokens, v any, c *Cache, text []byte) (ok bool, _ []byte, err error) {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return false, text, nil
	}
	p := c.decodePlan(rv.Type().Elem())
	if p == nil {
		return false, text, nil
	}
	d := decoder{in: ts, text: text[:0]}
	err = d.decode(rv.Elem(), p)
	return true, d.text[:0], err
}

// decoder reads one value with its plan: encoding/xml's unmarshal (its
// read.go) over the tokenizer's tokens.
type decoder struct {
	in   Tokens
	text []byte // the text of the elements being read, innermost last
}

// decode finds the next start tag, as Decoder.Decode does, and reads it.
func (d *decoder) decode(val reflect.Value, p *dplan) error {
	for {
		t, child, err := d.in.Next()
		if err != nil {
			return err
		}
		if t.Kind == xmltok.StartElement {
			return d.unmarshal(val, p, t, child)
		}
	}
}

// unmarshal reads the element whose start tag is start into val. child
// says start is a child of the Body (its declarations are all in scope).
// start is valid until the next token is read.
func (d *decoder) unmarshal(val reflect.Value, p *dplan, start *xmltok.Token, child bool) error {
	if p.kind == dPtr {
		if val.IsNil() {
			val.Set(reflect.New(val.Type().Elem()))
		}
		val, p = val.Elem(), p.elem
	}
	var text reflect.Value // where the text goes
	switch p.kind {
	case dSlice:
		n := val.Len()
		val.Grow(1)
		val.SetLen(n + 1)
		if err := d.unmarshal(val.Index(n), p.elem, start, child); err != nil {
			val.SetLen(n)
			return err
		}
		return nil
	case dText, dBytes:
		text = val
	case dName:
		val.Set(reflect.ValueOf(xml.Name{Space: string(start.Name.Space), Local: string(start.Name.Local)}))
	case dStruct:
		if err := d.start(val, p, start, child); err != nil {
			return err
		}
		if p.text >= 0 {
			text = val.Field(p.text)
		}
	}
	mark := len(d.text)
	defer func() { d.text = d.text[:mark] }()
	for {
		t, _, err := d.in.Next()
		if err != nil {
			return err
		}
		switch t.Kind {
		case xmltok.StartElement:
			f := p.field(t)
			if f == nil {
				if err := d.skip(); err != nil {
					return err
				}
				continue
			}
			if err := d.unmarshal(val.Field(f.index), f.plan, t, false); err != nil {
				return err
			}
		case xmltok.EndElement:
			return copyValue(text, d.text[mark:], true)
		case xmltok.CharData:
			if text.IsValid() {
				d.text = append(d.text, t.Text...)
			}
		}
	}
}

// field returns the element field a child element t goes into, nil when it
// has none (encoding/xml's unmarshalPath with no paths).
func (p *dplan) field(t *xmltok.Token) *dfield {
	if p.kind != dStruct {
		return nil
	}
	for i := range p.elems {
		f := &p.elems[i]
		if (f.xmlns == "" || f.xmlns == string(t.Name.Space)) && f.name == string(t.Name.Local) {
			return f
		}
	}
	return nil
}

// start checks the element's name against the struct's XMLName and reads
// its attributes, as encoding/xml does: the namespace declarations first
// (as Body.Token gives them: every binding in scope on a child of the Body,
// the element's own on the others), then the attributes.
func (d *decoder) start(val reflect.Value, p *dplan, start *xmltok.Token, child bool) error {
	if f := p.name; f != nil {
		if f.name != "" && f.name != string(start.Name.Local) {
			return xml.UnmarshalError("expected element type <" + f.name + "> but have <" + string(start.Name.Local) + ">")
		}
		if f.xmlns != "" && f.xmlns != string(start.Name.Space) {
			e := "expected element <" + f.name + "> in name space " + f.xmlns + " but have "
			if len(start.Name.Space) == 0 {
				e += "no name space"
			} else {
				e += string(start.Name.Space)
			}
			return xml.UnmarshalError(e)
		}
		if f.setName {
			val.Field(f.index).Set(reflect.ValueOf(xml.Name{Space: string(start.Name.Space), Local: string(start.Name.Local)}))
		}
	}
	if len(p.attrs) == 0 {
		return nil
	}
	decls := start.NS
	if child {
		decls = d.in.Scope()
	}
	for _, n := range decls {
		space, local := "xmlns", n.Prefix
		if len(n.Prefix) == 0 {
			space, local = "", []byte("xmlns")
		}
		if err := p.setAttrs(val, space, local, n.URI); err != nil {
			return err
		}
	}
	for _, a := range start.Attr {
		if err := p.setAttrs(val, string(a.Name.Space), a.Name.Local, a.Value); err != nil {
			return err
		}
	}
	return nil
}

// setAttrs sets every attribute field that an attribute {space}local
// matches.
func (p *dplan) setAttrs(val reflect.Value, space string, local, value []byte) error {
	for i := range p.attrs {
		f := &p.attrs[i]
		if f.name == string(local) && (f.xmlns == "" || f.xmlns == space) {
			if err := setAttr(val.Field(f.index), value); err != nil {
				return err
			}
		}
	}
	return nil
}

// setAttr is encoding/xml's unmarshalAttr for the types attrOK allows.
func setAttr(val reflect.Value, value []byte) error {
	if val.Kind() == reflect.Pointer {
		if val.IsNil() {
			val.Set(reflect.New(val.Type().Elem()))
		}
		val = val.Elem()
	}
	if val.Kind() == reflect.Slice && val.Type().Elem().Kind() != reflect.Uint8 {
		n := val.Len()
		val.Grow(1)
		val.SetLen(n + 1)
		if err := setAttr(val.Index(n), value); err != nil {
			val.SetLen(n)
			return err
		}
		return nil
	}
	return copyValue(val, value, true)
}

// skip reads to the end of the element whose start tag was read last.
func (d *decoder) skip() error {
	depth := 1
	for depth > 0 {
		t, _, err := d.in.Next()
		if err != nil {
			return err
		}
		switch t.Kind {
		case xmltok.StartElement:
			depth++
		case xmltok.EndElement:
			depth--
		}
	}
	return nil
}

// copyValue is encoding/xml's copyValue. src is copied when kept (clone:
// it is the decoder's buffer).
func copyValue(dst reflect.Value, src []byte, clone bool) error {
	dst0 := dst
	if dst.Kind() == reflect.Pointer {
		if dst.IsNil() {
			dst.Set(reflect.New(dst.Type().Elem()))
		}
		dst = dst.Elem()
	}
	switch dst.Kind() {
	case reflect.Invalid:
	default:
		return errors.New("cannot unmarshal into " + dst0.Type().String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if len(src) == 0 {
			dst.SetInt(0)
			return nil
		}
		i, err := strconv.ParseInt(strings.TrimSpace(string(src)), 10, dst.Type().Bits())
		if err != nil {
			return err
		}
		dst.SetInt(i)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if len(src) == 0 {
			dst.SetUint(0)
			return nil
		}
		u, err := strconv.ParseUint(strings.TrimSpace(string(src)), 10, dst.Type().Bits())
		if err != nil {
			return err
		}
		dst.SetUint(u)
	case reflect.Float32, reflect.Float64:
		if len(src) == 0 {
			dst.SetFloat(0)
			return nil
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(string(src)), dst.Type().Bits())
		if err != nil {
			return err
		}
		dst.SetFloat(f)
	case reflect.Bool:
		if len(src) == 0 {
			dst.SetBool(false)
			return nil
		}
		v, err := strconv.ParseBool(strings.TrimSpace(string(src)))
		if err != nil {
			return err
		}
		dst.SetBool(v)
	case reflect.String:
		dst.SetString(string(src))
	case reflect.Slice:
		if len(src) == 0 {
			src = []byte{} // non-nil: present
		} else if clone {
			src = bytes.Clone(src)
		}
		dst.SetBytes(src)
	}
	return nil
}
