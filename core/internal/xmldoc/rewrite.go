package xmldoc

import (
	"bytes"
)

// rewrite copies the document from b[p] on (b[:p] is the prolog, already
// blanked) with the internal subset applied: general entity references
// expanded (in text and attribute values), attribute defaults added to the
// start tags that lack them, and processing instructions dropped. Comments
// and CDATA sections are copied as they are. What is malformed is copied for
// the tokenizer to report. The result is bounded by lim.MaxBytes.
func rewrite(b []byte, p int, d *dtd, lim Limits) ([]byte, error) {
	if d == nil {
		d = &dtd{}
	}
	w := &rewriter{src: b, d: d, max: lim.MaxBytes}
	w.out = make([]byte, 0, len(b)+len(b)/16)
	w.out = append(w.out, b[:p]...)
	for p < len(b) {
		i := bytes.IndexAny(b[p:], "<&")
		if i < 0 {
			w.out = append(w.out, b[p:]...)
			break
		}
		w.out = append(w.out, b[p:p+i]...)
		p += i
		var err error
		if b[p] == '&' {
			p, err = w.reference(p, false)
		} else {
			p, err = w.markup(p)
		}
		if err != nil {
			return nil, err
		}
		if w.max > 0 && int64(len(w.out)) > w.max {
			return nil, limitAt(b, p, ErrTooLarge, "the document with its entities expanded is larger than %d bytes", w.max)
		}
	}
	return w.out, nil
}

type rewriter struct {
	src []byte
	out []byte
	d   *dtd
	max int64
}

// through copies from b[p] up to and including the first end after it, or
// the rest of the input.
func (w *rewriter) through(p int, end string) int {
	e := bytes.Index(w.src[p:], []byte(end))
	if e < 0 {
		w.out = append(w.out, w.src[p:]...)
		return len(w.src)
	}
	q := p + e + len(end)
	w.out = append(w.out, w.src[p:q]...)
	return q
}

// reference copies or expands the reference at src[p] ('&'); inAttr
// escapes the quotes of an expansion.
func (w *rewriter) reference(p int, inAttr bool) (int, error) {
	e := bytes.IndexByte(w.src[p:], ';')
	if e < 0 || e > 256 {
		w.out = append(w.out, '&') // malformed: the tokenizer says so
		return p + 1, nil
	}
	name := string(w.src[p+1 : p+e])
	if name == "" || name[0] == '#' || predefined(name) {
		w.out = append(w.out, w.src[p:p+e+1]...)
		return p + e + 1, nil
	}
	v, ok := w.d.entities[name]
	if !ok {
		return 0, errAt(w.src, p, "the entity &%s; is not declared (an external DTD is not read)", name)
	}
	if inAttr {
		v = escapeQuotes(v)
	}
	w.out = append(w.out, v...)
	return p + e + 1, nil
}

// markup handles what starts at src[p] ('<').
func (w *rewriter) markup(p int) (int, error) {
	rest := w.src[p:]
	switch {
	case bytes.HasPrefix(rest, []byte("<!--")):
		return w.through(p, "-->"), nil
	case bytes.HasPrefix(rest, []byte("<![CDATA[")):
		return w.through(p, "]]>"), nil
	case bytes.HasPrefix(rest, []byte("<?")):
		e := bytes.Index(rest, []byte("?>"))
		if e < 0 {
			w.out = append(w.out, rest...)
			return len(w.src), nil
		}
		return p + e + 2, nil // dropped: it would split the text around it
	case bytes.HasPrefix(rest, []byte("</")), bytes.HasPrefix(rest, []byte("<!")):
		return w.through(p, ">"), nil
	}
	return w.startTag(p)
}

// startTag copies a start tag, expanding references in its attribute values
// and adding the defaults it lacks.
func (w *rewriter) startTag(p int) (int, error) {
	b := w.src
	q := p + 1
	for q < len(b) && !isSpace(b[q]) && b[q] != '>' && b[q] != '/' && b[q] != '<' {
		q++
	}
	name := string(b[p+1 : q])
	w.out = append(w.out, b[p:q]...)
	var seen []string
	for {
		s := skipSpace(b, q)
		w.out = append(w.out, b[q:s]...)
		q = s
		if q >= len(b) {
			return q, nil
		}
		if b[q] == '>' || b[q] == '/' {
			break
		}
		n := q
		for n < len(b) && !isSpace(b[n]) && b[n] != '=' && b[n] != '>' && b[n] != '/' {
			n++
		}
		seen = append(seen, string(b[q:n]))
		eq := skipSpace(b, n)
		if eq >= len(b) || b[eq] != '=' || n == q {
			w.out = append(w.out, b[q:eq]...) // malformed: the tokenizer says so
			return eq, nil
		}
		v := skipSpace(b, eq+1)
		w.out = append(w.out, b[q:v]...)
		if v >= len(b) || b[v] != '"' && b[v] != '\'' {
			return v, nil
		}
		quote := b[v]
		w.out = append(w.out, quote)
		k := v + 1
		for k < len(b) && b[k] != quote {
			if b[k] == '&' {
				var err error
				if k, err = w.reference(k, true); err != nil {
					return 0, err
				}
				continue
			}
			if b[k] == '<' {
				return k, nil // malformed
			}
			w.out = append(w.out, b[k])
			k++
		}
		if k >= len(b) {
			return k, nil
		}
		w.out = append(w.out, quote)
		q = k + 1
	}
	for _, def := range w.d.defaults[name] {
		found := false
		for _, s := range seen {
			found = found || s == def.name
		}
		if !found {
			w.out = append(w.out, ' ')
			w.out = append(w.out, def.name...)
			w.out = append(w.out, '=', '"')
			w.out = append(w.out, def.value...)
			w.out = append(w.out, '"')
		}
	}
	return q, nil
}
