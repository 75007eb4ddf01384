package xmltok

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// errMore says a construct runs past the buffered input.
var errMore = errors.New("xmltok: more input needed")

// qname is a qualified name's position in the buffer, relative to pos.
type qname struct {
	start, colon, end int // colon < 0: no prefix
}

func (q qname) prefix(b []byte) []byte {
	if q.colon < 0 {
		return nil
	}
	return b[q.start:q.colon]
}

func (q qname) local(b []byte) []byte {
	if q.colon < 0 {
		return b[q.start:q.end]
	}
	return b[q.colon+1 : q.end]
}

// rawAttr is an attribute as found in a start tag, positions relative to pos.
type rawAttr struct {
	name     qname
	val, end int  // the value, quotes excluded
	decode   bool // it holds references or white space to normalize
	decl     bool // a namespace declaration
}

// scanQName scans the qualified name at b[i:].
func (s *Reader) scanQName(b []byte, i int) (qname, error) {
	q := qname{start: i, colon: -1}
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf {
			if class[c]&cName != 0 {
				i++
				continue
			}
			if c != ':' {
				break
			}
			if q.colon >= 0 {
				return q, s.failAt(i, nil, "name %q has more than one colon", b[q.start:i+1])
			}
			q.colon = i
			i++
			continue
		}
		if !utf8.FullRune(b[i:]) {
			return q, errMore
		}
		r, n := utf8.DecodeRune(b[i:])
		if !isNameRune(r) || r == utf8.RuneError {
			return q, s.failAt(i, nil, "invalid XML name %q", b[q.start:i+n])
		}
		i += n
	}
	if i == len(b) {
		return q, errMore
	}
	q.end = i
	switch {
	case q.end == q.start:
		return q, s.failAt(i, nil, "a name was expected, not %q", b[i])
	case q.colon == q.start:
		return q, s.failAt(i, nil, "empty prefix in the name %q", b[q.start:q.end])
	case q.colon == q.end-1:
		return q, s.failAt(i, nil, "empty local name after prefix %q", b[q.start:q.colon])
	}
	if !startsName(b[q.start:]) {
		return q, s.failAt(q.start, nil, "invalid XML name %q", b[q.start:q.end])
	}
	if q.colon >= 0 && !startsName(b[q.colon+1:]) {
		return q, s.failAt(q.start, nil, "the local name in %q is not an NCName (Namespaces in XML 1.0)", b[q.start:q.end])
	}
	if m := s.lim.MaxNameLen; m > 0 {
		if q.colon >= 0 && (q.colon-q.start > m || q.end-q.colon-1 > m) || q.colon < 0 && q.end-q.start > m {
			return q, s.failAt(q.start, ErrLimit, "a name is longer than %d bytes", m)
		}
	}
	return q, nil
}

// startsName reports whether b starts with a NameStartChar.
func startsName(b []byte) bool {
	if b[0] < utf8.RuneSelf {
		return class[b[0]]&cNameStart != 0
	}
	r, _ := utf8.DecodeRune(b)
	return isNameStart(r)
}

// startTag reads a start tag (or an empty-element tag) at pos.
func (s *Reader) startTag() (*Token, error) {
	if len(s.stack) == 0 && s.root {
		return nil, s.failAt(0, nil, "content after the root element")
	}
	if s.lim.MaxDepth > 0 && len(s.stack) >= s.lim.MaxDepth {
		return nil, s.failAt(0, ErrLimit, "elements nested deeper than %d", s.lim.MaxDepth)
	}
	for {
		n, empty, err := s.scanStart()
		if err == nil {
			if s.maxTok > 0 && n > s.maxTok {
				return nil, s.failAt(0, ErrLimit, "a start tag is longer than %d bytes", s.maxTok)
			}
			return s.finishStart(n, empty)
		}
		if err != errMore {
			return nil, err
		}
		if err := s.moreFor("a start tag"); err != nil {
			return nil, err
		}
	}
}

// scanStart finds the parts of the start tag at pos without changing the
// buffer, so that it can start again once more input is buffered.
func (s *Reader) scanStart() (n int, empty bool, err error) {
	b := s.buf[s.pos:s.end]
	name, err := s.scanQName(b, 1)
	if err != nil {
		return 0, false, err
	}
	s.raw = s.raw[:0]
	nattr, ndecl := 0, 0
	i := name.end
	for {
		sp := i
		for i < len(b) && class[b[i]]&cSpace != 0 {
			i++
		}
		if i == len(b) {
			return 0, false, errMore
		}
		switch c := b[i]; {
		case c == '>':
			s.elemName = name
			return i + 1, false, nil
		case c == '/':
			if i+1 == len(b) {
				return 0, false, errMore
			}
			if b[i+1] != '>' {
				return 0, false, s.failAt(i, nil, "expected /> in the start tag of <%s>", b[name.start:name.end])
			}
			s.elemName = name
			return i + 2, true, nil
		case c < utf8.RuneSelf && class[c]&cNameStart == 0 && c != ':':
			return 0, false, s.failAt(i, nil, "unexpected %q in the start tag of <%s>", c, b[name.start:name.end])
		case i == sp:
			return 0, false, s.failAt(i, nil, "attributes must be separated by white space in the start tag of <%s>", b[name.start:name.end])
		}
		a := rawAttr{}
		if a.name, err = s.scanQName(b, i); err != nil {
			return 0, false, err
		}
		i = a.name.end
		for i < len(b) && class[b[i]]&cSpace != 0 {
			i++
		}
		if i == len(b) {
			return 0, false, errMore
		}
		if b[i] != '=' {
			return 0, false, s.failAt(i, nil, "attribute %s without = in the start tag of <%s>", b[a.name.start:a.name.end], b[name.start:name.end])
		}
		i++
		for i < len(b) && class[b[i]]&cSpace != 0 {
			i++
		}
		if i == len(b) {
			return 0, false, errMore
		}
		q := b[i]
		if q != '"' && q != '\'' {
			return 0, false, s.failAt(i, nil, "unquoted value of attribute %s", b[a.name.start:a.name.end])
		}
		i++
		a.val = i
	value:
		for i < len(b) {
			c := b[i]
			if class[c]&cValue != 0 {
				i++
				continue
			}
			switch {
			case c == q:
				break value
			case c == '"' || c == '\'':
			case c == '<':
				return 0, false, s.failAt(i, nil, "unescaped < inside the value of attribute %s", b[a.name.start:a.name.end])
			case c == '&' || c == '\t' || c == '\n' || c == '\r':
				a.decode = true
			case c < 0x20:
				return 0, false, s.failAt(i, nil, "illegal character code %U", rune(c))
			default:
				if !utf8.FullRune(b[i:]) {
					return 0, false, errMore
				}
				r, size := utf8.DecodeRune(b[i:])
				if r == utf8.RuneError && size == 1 {
					return 0, false, s.failAt(i, nil, "invalid UTF-8")
				}
				if !isChar(r) {
					return 0, false, s.failAt(i, nil, "illegal character code %U", r)
				}
				i += size
				continue
			}
			i++
		}
		if i == len(b) {
			return 0, false, errMore
		}
		a.end = i
		i++
		if p := a.name.prefix(b); string(p) == "xmlns" || p == nil && string(a.name.local(b)) == "xmlns" {
			a.decl = true
			if ndecl++; s.lim.MaxNSDecls > 0 && ndecl > s.lim.MaxNSDecls {
				return 0, false, s.failAt(a.name.start, ErrLimit, "more than %d namespace declarations on <%s>", s.lim.MaxNSDecls, b[name.start:name.end])
			}
		} else if nattr++; s.lim.MaxAttrs > 0 && nattr > s.lim.MaxAttrs {
			return 0, false, s.failAt(a.name.start, ErrLimit, "more than %d attributes on <%s>", s.lim.MaxAttrs, b[name.start:name.end])
		}
		s.raw = append(s.raw, a)
	}
}

// finishStart turns the start tag scanned at pos (n bytes long) into a token:
// it decodes the attribute values, declares the namespaces, resolves the
// names and opens the element.
func (s *Reader) finishStart(n int, empty bool) (*Token, error) {
	b := s.buf[s.pos : s.pos+n]
	name := s.elemName
	e := elem{name: len(s.names), nlen: name.end - name.start, ns: len(s.ns), nsbuf: len(s.nsbuf)}
	if name.colon >= 0 {
		e.plen = name.colon - name.start
	}
	s.attrs = s.attrs[:0]
	if s.dups != nil || s.expanded != nil {
		s.dups, s.expanded = nil, nil
	}
	verbatim := true
	for i := range s.raw {
		a := &s.raw[i]
		if a.decode {
			verbatim = false
			w, err := s.decodeValue(b, a.val, a.end)
			if err != nil {
				return nil, err
			}
			a.end = w
		}
		if s.seen(b, i) {
			if a.decl {
				return nil, s.failAt(a.name.start, nil, "duplicate namespace declaration %s on <%s>", b[a.name.start:a.name.end], b[name.start:name.end])
			}
			return nil, s.failAt(a.name.start, nil, "duplicate attribute %s on <%s>", b[a.name.start:a.name.end], b[name.start:name.end])
		}
		if a.decl {
			if err := s.declare(b, a); err != nil {
				return nil, err
			}
		}
	}
	if string(name.prefix(b)) == "xmlns" {
		return nil, s.failAt(name.start, nil, "the prefix xmlns is reserved: <%s>", b[name.start:name.end])
	}
	bind, ok := s.lookup(name.prefix(b))
	if !ok {
		return nil, s.failAt(name.start, nil, "unbound namespace prefix %q in %s", name.prefix(b), b[name.start:name.end])
	}
	for i := range s.raw {
		a := &s.raw[i]
		if a.decl {
			continue
		}
		an := Name{Local: a.name.local(b)}
		if p := a.name.prefix(b); p != nil {
			uri, ok := s.Lookup(p)
			if !ok {
				return nil, s.failAt(a.name.start, nil, "unbound namespace prefix %q in %s", p, b[a.name.start:a.name.end])
			}
			an.Prefix, an.Space = p, uri
			if o := s.seenExpanded(an); o != nil {
				return nil, s.failAt(a.name.start, nil, "duplicate attribute %s on <%s> (the same namespace as %s:%s)", b[a.name.start:a.name.end], b[name.start:name.end], o.Name.Prefix, o.Name.Local)
			}
		}
		s.attrs = append(s.attrs, Attr{Name: an, Value: b[a.val:a.end]})
	}
	s.names = append(s.names, b[name.start:name.end]...)
	e.bind = bind
	s.stack = append(s.stack, e)
	s.root = true
	if verbatim {
		s.setRaw(s.pos, s.pos+n)
	}
	s.pos += n
	s.pendEnd = empty
	t := &s.tok
	t.Kind = StartElement
	t.Name = Name{Space: s.uri(bind), Prefix: name.prefix(b), Local: name.local(b)}
	t.Attr, t.NS, t.Text = s.attrs, s.ns[e.ns:], nil
	return t, nil
}

// manyAttrs is the attribute count beyond which duplicates are looked up in
// a map rather than by comparing every pair.
const manyAttrs = 16

// seen reports whether s.raw[i]'s qualified name is the same as an earlier
// attribute's.
func (s *Reader) seen(b []byte, i int) bool {
	a := s.raw[i]
	qn := b[a.name.start:a.name.end]
	if len(s.raw) <= manyAttrs {
		for _, p := range s.raw[:i] {
			if bytes.Equal(b[p.name.start:p.name.end], qn) {
				return true
			}
		}
		return false
	}
	if i == 0 {
		s.dups = make(map[string]struct{}, len(s.raw))
	}
	if _, ok := s.dups[string(qn)]; ok {
		return true
	}
	s.dups[string(qn)] = struct{}{}
	return false
}

// seenExpanded returns the attribute already in s.attrs with a's namespace
// and local name, or nil.
func (s *Reader) seenExpanded(a Name) *Attr {
	if len(s.raw) <= manyAttrs {
		for i := range s.attrs {
			if o := &s.attrs[i]; o.Name.Prefix != nil && bytes.Equal(o.Name.Local, a.Local) && bytes.Equal(o.Name.Space, a.Space) {
				return o
			}
		}
		return nil
	}
	key := string(a.Space) + " " + string(a.Local) // a space never occurs in a name
	if s.expanded == nil {
		s.expanded = make(map[string]int, len(s.raw))
	}
	if i, ok := s.expanded[key]; ok {
		return &s.attrs[i]
	}
	s.expanded[key] = len(s.attrs)
	return nil
}

// declare checks a namespace declaration and puts it in scope.
func (s *Reader) declare(b []byte, a *rawAttr) error {
	var prefix []byte
	if a.name.colon >= 0 {
		prefix = a.name.local(b)
	}
	uri := b[a.val:a.end]
	var msg string
	switch {
	case string(prefix) == "xmlns":
		msg = "the prefix xmlns cannot be declared"
	case string(prefix) == "xml" && string(uri) != XMLNamespace:
		msg = fmt.Sprintf("the prefix xml cannot be bound to %q", uri)
	case string(prefix) != "xml" && string(uri) == XMLNamespace:
		if prefix == nil {
			msg = "the default namespace cannot be " + XMLNamespace
		} else {
			msg = fmt.Sprintf("the XML namespace cannot be bound to the prefix %q", prefix)
		}
	case string(uri) == xmlnsNamespace:
		if prefix == nil {
			msg = "the default namespace cannot be " + xmlnsNamespace
		} else {
			msg = "the xmlns namespace cannot be declared"
		}
	case len(uri) == 0 && prefix != nil:
		msg = fmt.Sprintf("the prefix %q cannot be undeclared (Namespaces in XML 1.0)", prefix)
	}
	if msg != "" {
		return s.failAt(a.name.start, nil, "%s", msg)
	}
	at := len(s.nsbuf)
	s.nsbuf = append(s.nsbuf, prefix...)
	s.nsbuf = append(s.nsbuf, uri...)
	d := NS{URI: s.nsbuf[at+len(prefix) : len(s.nsbuf) : len(s.nsbuf)]}
	if prefix != nil {
		d.Prefix = s.nsbuf[at : at+len(prefix) : at+len(prefix)]
	}
	s.ns = append(s.ns, d)
	return nil
}

// endTag reads an end tag at pos.
func (s *Reader) endTag() (*Token, error) {
	for {
		b := s.buf[s.pos:s.end]
		i := 2
		// endTag's check again, for when more has been buffered. (endTag
		// keeps its own copy inline: a call per end tag costs the
		// tokenizer 2%.)
		if len(s.stack) > 0 {
			e := s.stack[len(s.stack)-1]
			want := s.names[e.name : e.name+e.nlen]
			if len(b) > 2+len(want) && bytes.Equal(b[2:2+len(want)], want) {
				if c := b[2+len(want)]; c == '>' {
					s.setRaw(s.pos, s.pos+3+len(want))
					s.pos += 3 + len(want)
					return s.closeTop(), nil
				}
			}
		}
		name, err := s.scanQName(b, i)
		if err == errMore {
			if err := s.moreFor("an end tag"); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		i = name.end
		for i < len(b) && class[b[i]]&cSpace != 0 {
			i++
		}
		if i == len(b) {
			if err := s.moreFor("an end tag"); err != nil {
				return nil, err
			}
			continue
		}
		if b[i] != '>' {
			return nil, s.failAt(i, nil, "unexpected %q in the end tag </%s>", b[i], b[name.start:name.end])
		}
		if s.maxTok > 0 && i+1 > s.maxTok {
			return nil, s.failAt(0, ErrLimit, "an end tag is longer than %d bytes", s.maxTok)
		}
		if len(s.stack) == 0 {
			return nil, s.failAt(0, nil, "unexpected end tag </%s>", b[name.start:name.end])
		}
		e := s.stack[len(s.stack)-1]
		if want := s.names[e.name : e.name+e.nlen]; !bytes.Equal(b[name.start:name.end], want) {
			return nil, s.failAt(0, nil, "element <%s> closed by </%s>", want, b[name.start:name.end])
		}
		s.setRaw(s.pos, s.pos+i+1)
		s.pos += i + 1
		return s.closeTop(), nil
	}
}
