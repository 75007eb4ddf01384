package xmltok

import (
	"bytes"
	"unicode/utf8"
)

// bang reads what starts with "<!": a comment or a CDATA section; anything
// else (a document type declaration) is refused.
func (s *Reader) bang() (*Token, error) {
	const cdataStart = "<![CDATA["
	for {
		b := s.buf[s.pos:s.end]
		if len(b) < 4 {
			if err := s.moreFor("a comment or CDATA section"); err != nil {
				return nil, err
			}
			continue
		}
		switch b[2] {
		case '-':
			if b[3] != '-' {
				return nil, s.failAt(2, nil, "invalid sequence <!- not part of <!--")
			}
			return s.comment()
		case '[':
			n := min(len(b), len(cdataStart))
			if string(b[:n]) != cdataStart[:n] {
				return nil, s.failAt(2, nil, "invalid <![ sequence (only <![CDATA[ is allowed)")
			}
			if n < len(cdataStart) {
				if err := s.moreFor("a CDATA section"); err != nil {
					return nil, err
				}
				continue
			}
			if len(s.stack) == 0 {
				return nil, s.failAt(0, nil, "a CDATA section outside the root element")
			}
			s.pos += len(cdataStart)
			s.inCDATA = true
			return nil, nil
		}
		return nil, s.failAt(0, nil, "document type declarations and other <!...> directives are not allowed")
	}
}

// comment reads a comment at pos: it must be whole in the buffer.
func (s *Reader) comment() (*Token, error) {
	for {
		b := s.buf[s.pos:s.end]
		j := bytes.Index(b[4:], []byte("--"))
		if j < 0 || 4+j+2 >= len(b) {
			if err := s.moreFor("a comment"); err != nil {
				return nil, err
			}
			continue
		}
		j += 4
		if b[j+2] != '>' {
			return nil, s.failAt(j, nil, `"--" not allowed in a comment`)
		}
		if s.maxTok > 0 && j+3 > s.maxTok {
			return nil, s.failAt(0, ErrLimit, "a comment is longer than %d bytes", s.maxTok)
		}
		body := b[4:j]
		for k := 0; k < len(body); {
			c := body[k]
			switch {
			case c >= 0x20 && c < utf8.RuneSelf || c == '\t' || c == '\n' || c == '\r':
				k++
				continue
			case c < 0x20:
				return nil, s.failAt(4+k, nil, "illegal character code %U in a comment", rune(c))
			}
			r, n := utf8.DecodeRune(body[k:])
			if r == utf8.RuneError && n == 1 {
				return nil, s.failAt(4+k, nil, "invalid UTF-8 in a comment")
			}
			if !isChar(r) {
				return nil, s.failAt(4+k, nil, "illegal character code %U in a comment", r)
			}
			k += n
		}
		s.setRaw(s.pos, s.pos+j+3)
		s.pos += j + 3
		return s.textToken(Comment, body), nil
	}
}

// procInst handles "<?": the XML declaration at the very start is read and
// checked; any other processing instruction is refused.
func (s *Reader) procInst() error {
	for {
		b := s.buf[s.pos:s.end]
		i := 2
		for i < len(b) && i < 2+65 && (b[i] >= utf8.RuneSelf || class[b[i]]&cName != 0 || b[i] == ':') {
			i++
		}
		if i == len(b) && i < 2+65 {
			if err := s.moreFor("a processing instruction"); err != nil {
				return err
			}
			continue
		}
		target := b[2:i]
		if string(target) != "xml" {
			if !utf8.Valid(target) || len(target) > 64 {
				return s.failAt(0, nil, "processing instruction not allowed")
			}
			return s.failAt(0, nil, "processing instruction <?%s?> not allowed", target)
		}
		if s.Offset() != 0 {
			return s.failAt(0, nil, "XML declaration not at the start of the document")
		}
		j := bytes.Index(b, []byte("?>"))
		if j < 0 {
			if err := s.moreFor("the XML declaration"); err != nil {
				return err
			}
			continue
		}
		if s.maxTok > 0 && j+2 > s.maxTok {
			return s.failAt(0, ErrLimit, "the XML declaration is longer than %d bytes", s.maxTok)
		}
		if err := s.xmlDecl(b[5:j]); err != nil {
			return err
		}
		s.pos += j + 2
		return nil
	}
}

// xmlDecl checks the XML declaration's content (after "<?xml", before
// "?>"): version 1.0, then optionally an encoding the input really is in and
// standalone (XML 1.0 §2.8).
func (s *Reader) xmlDecl(d []byte) error {
	bad := func(why string) error {
		return s.failAt(0, nil, "malformed XML declaration: %s", why)
	}
	i := 0
	next := func() (name, value []byte, ok bool) {
		sp := i
		for i < len(d) && class[d[i]]&cSpace != 0 {
			i++
		}
		if i == sp || i == len(d) {
			return nil, nil, false
		}
		n := i
		for i < len(d) && 'a' <= d[i] && d[i] <= 'z' {
			i++
		}
		name = d[n:i]
		for i < len(d) && class[d[i]]&cSpace != 0 {
			i++
		}
		if i == len(d) || d[i] != '=' {
			return name, nil, false
		}
		i++
		for i < len(d) && class[d[i]]&cSpace != 0 {
			i++
		}
		if i == len(d) || d[i] != '"' && d[i] != '\'' {
			return name, nil, false
		}
		q := d[i]
		e := bytes.IndexByte(d[i+1:], q)
		if e < 0 {
			return name, nil, false
		}
		value = d[i+1 : i+1+e]
		i += e + 2
		return name, value, true
	}
	name, value, ok := next()
	if !ok || string(name) != "version" {
		return bad("the version must come first")
	}
	if string(value) != "1.0" {
		return s.failAt(0, nil, "unsupported version %q in the XML declaration (1.0 is)", value)
	}
	rest := i
	name, value, ok = next()
	if ok && string(name) == "encoding" {
		if !encName(value) {
			return bad("invalid encoding name")
		}
		if !s.checkEncoding(string(value)) {
			return s.failAt(0, nil, "unsupported encoding %q (UTF-8 and UTF-16 with a byte order mark are)", value)
		}
		rest = i
		name, value, ok = next()
	}
	if ok && string(name) == "standalone" {
		if string(value) != "yes" && string(value) != "no" {
			return bad(`standalone must be "yes" or "no"`)
		}
		rest = i
		name, _, ok = next()
	}
	if ok || name != nil {
		return bad("unexpected " + string(name))
	}
	for _, c := range d[rest:] {
		if class[c]&cSpace == 0 {
			return bad("unexpected content")
		}
	}
	return nil
}

// encName reports whether b is an EncName: [A-Za-z] ([A-Za-z0-9._] | '-')*.
func encName(b []byte) bool {
	if len(b) == 0 || !('a' <= b[0] && b[0] <= 'z' || 'A' <= b[0] && b[0] <= 'Z') {
		return false
	}
	for _, c := range b[1:] {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
