package xsd

import "strings"

// This file holds the decoder's forgiving and generic reading: lenient
// content, skipping, wildcards and elements without a declaration.

// lenientContent reads children by local name, in any order, skipping
// those the content model does not have.
func (d *decoder) lenientContent(p *Particle, v *Value) error {
	known := d.c.contentElements(p)
	wild := hasWildcard(p, 0)
	for {
		st, err := d.peek()
		if err != nil {
			return err
		}
		if st == nil {
			return nil
		}
		d.take()
		els := known[st.name.Local]
		if len(els) == 0 {
			if wild {
				child, err := d.generic(st)
				if err != nil {
					return err
				}
				v.Elems = append(v.Elems, child)
				continue
			}
			if err := d.skip(); err != nil {
				return err
			}
			continue
		}
		decl := els[0]
		for _, e := range els {
			if e.Name == st.name {
				decl = e
			}
		}
		child, err := d.element(st, decl, &Particle{Min: 0, Max: Unbounded})
		if err != nil {
			return err
		}
		child.repeated = false
		v.Elems = append(v.Elems, child)
	}
}

// skip reads an element whose start tag was taken to its end.
func (d *decoder) skip() error {
	saved := d.text
	defer func() { d.text = saved }()
	for {
		st, err := d.peek()
		if err != nil {
			return err
		}
		if st == nil {
			d.ended = false
			return nil
		}
		d.take()
		if err := d.skip(); err != nil {
			return err
		}
	}
}

// wildcard reads an element an xs:any matched: by its global declaration
// when the schemas have one and the wildcard does not skip, else as it is.
func (d *decoder) wildcard(st *startTag, w *Wildcard) (*Value, error) {
	if w != nil && w.Process != "skip" && d.c.set != nil {
		if g := d.c.set.Element(st.name); g != nil {
			return d.element(st, g, nil)
		}
	}
	return d.generic(st)
}

// generic reads an element with no declaration as it is.
func (d *decoder) generic(st *startTag) (*Value, error) {
	d.path = append(d.path, st.name.Local)
	savedText := d.text
	d.text = nil
	defer func() {
		d.path = d.path[:len(d.path)-1]
		d.text = savedText
	}()
	v := &Value{Name: st.name, Nil: st.isNil}
	if st.hasType {
		v.Type = st.typ
	}
	if err := d.genericRest(st, v); err != nil {
		return nil, err
	}
	return v, nil
}

// genericRest reads an element's attributes and content as they are.
func (d *decoder) genericRest(st *startTag, v *Value) error {
	for _, a := range st.attrs {
		v.Attrs = append(v.Attrs, &Value{Name: a.name, Text: a.value})
	}
	for {
		child, err := d.peek()
		if err != nil {
			return err
		}
		if child == nil {
			break
		}
		d.take()
		c, err := d.generic(child)
		if err != nil {
			return err
		}
		v.Elems = append(v.Elems, c)
	}
	d.ended = false
	if len(v.Elems) == 0 || strings.TrimSpace(string(d.text)) != "" {
		v.Text = string(d.text)
	}
	return nil
}
