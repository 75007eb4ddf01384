package xmldoc

import (
	"bytes"
	"strings"
)

// dtd is what the internal subset of a document type declaration says that
// changes the document: general entities (plain text) and attribute
// defaults. Element and notation declarations change nothing for a
// non-validating reader and are skipped.
type dtd struct {
	entities map[string]string
	defaults map[string][]attrDefault // by the element's qualified name, as written
}

type attrDefault struct {
	name, value string // the value as it goes between double quotes (references kept)
}

// DTD bounds, beside Limits.MaxEntities.
const (
	maxEntityValue = 64 << 10 // bytes in one entity's value
	maxSubset      = 1 << 20  // bytes in the internal subset
)

// dtdScanner reads a document type declaration starting at b[p].
type dtdScanner struct {
	b   []byte
	p   int
	lim Limits
	d   *dtd
}

func (s *dtdScanner) fail(format string, args ...any) error {
	return errAt(s.b, s.p, "document type declaration: "+format, args...)
}

func (s *dtdScanner) space() bool {
	q := skipSpace(s.b, s.p)
	moved := q > s.p
	s.p = q
	return moved
}

func (s *dtdScanner) name() string {
	q := s.p
	for q < len(s.b) && !isSpace(s.b[q]) && !bytes.ContainsRune([]byte(`<>[]()|,'"%&=/?`), rune(s.b[q])) {
		q++
	}
	n := string(s.b[s.p:q])
	s.p = q
	return n
}

func (s *dtdScanner) quoted() (string, bool) {
	if s.p >= len(s.b) || s.b[s.p] != '"' && s.b[s.p] != '\'' {
		return "", false
	}
	e := bytes.IndexByte(s.b[s.p+1:], s.b[s.p])
	if e < 0 {
		return "", false
	}
	v := string(s.b[s.p+1 : s.p+1+e])
	s.p += e + 2
	return v, true
}

func (s *dtdScanner) lit(l string) bool {
	if bytes.HasPrefix(s.b[s.p:], []byte(l)) {
		s.p += len(l)
		return true
	}
	return false
}

// parseDoctype reads the declaration at b[p] ("<!DOCTYPE") and returns what
// its internal subset declares and the declaration's length.
func parseDoctype(b []byte, p int, lim Limits) (*dtd, int, error) {
	s := &dtdScanner{b: b, p: p + len("<!DOCTYPE"), lim: lim, d: &dtd{}}
	if !s.space() || s.name() == "" {
		return nil, 0, s.fail("no root element name")
	}
	s.space()
	if s.lit("SYSTEM") || s.lit("PUBLIC") {
		public := bytes.HasPrefix(b[s.p-6:], []byte("PUBLIC"))
		s.space()
		if _, ok := s.quoted(); !ok {
			return nil, 0, s.fail("a malformed external identifier")
		}
		if public {
			s.space()
			if _, ok := s.quoted(); !ok {
				return nil, 0, s.fail("a malformed external identifier")
			}
		}
		s.space()
	}
	if s.lit("[") {
		start := s.p
		if err := s.subset(); err != nil {
			return nil, 0, err
		}
		if s.p-start > maxSubset {
			return nil, 0, limitAt(b, start, ErrLimit, "the internal subset is larger than %d bytes", maxSubset)
		}
		s.space()
	}
	if !s.lit(">") {
		return nil, 0, s.fail("expected '>'")
	}
	return s.d, s.p - p, nil
}

// subset reads the internal subset up to and including its ']'.
func (s *dtdScanner) subset() error {
	for {
		s.space()
		switch {
		case s.p >= len(s.b):
			return s.fail("the internal subset is not closed")
		case s.lit("]"):
			return nil
		case s.lit("<!--"):
			e := bytes.Index(s.b[s.p:], []byte("-->"))
			if e < 0 {
				return s.fail("a comment is not closed")
			}
			s.p += e + 3
		case s.lit("<?"):
			e := bytes.Index(s.b[s.p:], []byte("?>"))
			if e < 0 {
				return s.fail("a processing instruction is not closed")
			}
			s.p += e + 2
		case s.b[s.p] == '%':
			return s.fail("parameter entity references are not supported")
		case s.lit("<!ENTITY"):
			if err := s.entity(); err != nil {
				return err
			}
		case s.lit("<!ATTLIST"):
			if err := s.attlist(); err != nil {
				return err
			}
		case s.lit("<!ELEMENT"), s.lit("<!NOTATION"):
			if err := s.skipDecl(); err != nil {
				return err
			}
		default:
			return s.fail("unexpected content in the internal subset")
		}
	}
}

// skipDecl skips to the end of a declaration, over quoted strings.
func (s *dtdScanner) skipDecl() error {
	for s.p < len(s.b) {
		switch s.b[s.p] {
		case '>':
			s.p++
			return nil
		case '"', '\'':
			if _, ok := s.quoted(); !ok {
				return s.fail("a literal is not closed")
			}
		case '<':
			return s.fail("a declaration is not closed")
		default:
			s.p++
		}
	}
	return s.fail("a declaration is not closed")
}

// entity reads an entity declaration (after "<!ENTITY").
func (s *dtdScanner) entity() error {
	if !s.space() {
		return s.fail("malformed entity declaration")
	}
	param := s.lit("%")
	if param && !s.space() {
		return s.fail("malformed entity declaration")
	}
	name := s.name()
	if name == "" || !s.space() {
		return s.fail("malformed entity declaration")
	}
	if s.lit("SYSTEM") || s.lit("PUBLIC") {
		if param {
			// Never referenced: parameter entity references are refused.
			return s.skipDecl()
		}
		return s.fail("the external entity %q is refused (only internal entities are read)", name)
	}
	value, ok := s.quoted()
	if !ok {
		return s.fail("malformed entity declaration %q", name)
	}
	s.space()
	if !s.lit(">") {
		return s.fail("malformed entity declaration %q", name)
	}
	if param {
		return nil
	}
	if strings.ContainsAny(value, "<&%") {
		return s.fail("the entity %q holds markup or references (only plain text is supported)", name)
	}
	if len(value) > maxEntityValue {
		return limitAt(s.b, s.p, ErrLimit, "the entity %q is longer than %d bytes", name, maxEntityValue)
	}
	if s.d.entities == nil {
		s.d.entities = map[string]string{}
	}
	if _, dup := s.d.entities[name]; dup {
		return nil // the first declaration binds
	}
	if max := s.lim.maxEntities(); len(s.d.entities) >= max {
		return limitAt(s.b, s.p, ErrLimit, "more than %d entities", max)
	}
	s.d.entities[name] = value
	return nil
}

// attlist reads an attribute-list declaration (after "<!ATTLIST") and keeps
// its default values.
func (s *dtdScanner) attlist() error {
	if !s.space() {
		return s.fail("malformed attribute-list declaration")
	}
	elem := s.name()
	if elem == "" {
		return s.fail("malformed attribute-list declaration")
	}
	for {
		s.space()
		if s.lit(">") {
			return nil
		}
		attr := s.name()
		if attr == "" || !s.space() {
			return s.fail("malformed attribute-list declaration of %q", elem)
		}
		switch {
		case s.lit("NOTATION"):
			s.space()
			if !s.group() {
				return s.fail("malformed attribute type of %q", attr)
			}
		case s.p < len(s.b) && s.b[s.p] == '(':
			if !s.group() {
				return s.fail("malformed attribute type of %q", attr)
			}
		default:
			if t := s.name(); t == "" {
				return s.fail("malformed attribute type of %q", attr)
			}
		}
		if !s.space() {
			return s.fail("malformed attribute-list declaration of %q", elem)
		}
		if s.lit("#REQUIRED") || s.lit("#IMPLIED") {
			continue
		}
		if s.lit("#FIXED") && !s.space() {
			return s.fail("malformed #FIXED default of %q", attr)
		}
		v, ok := s.quoted()
		if !ok || strings.Contains(v, "<") {
			return s.fail("malformed default value of %q", attr)
		}
		v, err := s.expandValue(v)
		if err != nil {
			return err
		}
		if s.d.defaults == nil {
			s.d.defaults = map[string][]attrDefault{}
		}
		known := false
		for _, d := range s.d.defaults[elem] {
			known = known || d.name == attr
		}
		if !known { // the first declaration binds
			s.d.defaults[elem] = append(s.d.defaults[elem], attrDefault{name: attr, value: v})
		}
	}
}

// group skips an enumerated type "( a | b )".
func (s *dtdScanner) group() bool {
	if !s.lit("(") {
		return false
	}
	e := bytes.IndexByte(s.b[s.p:], ')')
	if e < 0 {
		return false
	}
	s.p += e + 1
	return true
}

// expandValue expands the entities declared so far in a default value and
// escapes its quotes, for writing it between double quotes.
func (s *dtdScanner) expandValue(v string) (string, error) {
	var b strings.Builder
	for {
		i := strings.IndexAny(v, `&"`)
		if i < 0 {
			b.WriteString(v)
			return b.String(), nil
		}
		b.WriteString(v[:i])
		if v[i] == '"' {
			b.WriteString("&#34;")
			v = v[i+1:]
			continue
		}
		e := strings.IndexByte(v[i:], ';')
		if e < 0 {
			return "", s.fail("a malformed reference in a default value")
		}
		ref := v[i+1 : i+e]
		v = v[i+e+1:]
		if strings.HasPrefix(ref, "#") || predefined(ref) {
			b.WriteString("&" + ref + ";")
			continue
		}
		val, ok := s.d.entities[ref]
		if !ok {
			return "", s.fail("the entity %q is not declared", ref)
		}
		b.WriteString(escapeQuotes(val))
	}
}

func predefined(name string) bool {
	switch name {
	case "lt", "gt", "amp", "apos", "quot":
		return true
	}
	return false
}

func escapeQuotes(v string) string {
	if !strings.ContainsAny(v, `"'`) {
		return v
	}
	return strings.NewReplacer(`"`, "&#34;", `'`, "&#39;").Replace(v)
}
