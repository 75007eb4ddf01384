package xmltok

import (
	"unicode"
	"unicode/utf8"
)

// text reads character data at pos, inside the root element, decoding
// references and line ends in place. Text that fills the buffer is returned
// in pieces; a piece never ends inside a character, a reference, a CR LF
// pair or a possible "]]>".
func (s *Reader) text() (*Token, error) {
	k, w := 0, 0 // read and write offsets from pos
	for {
		b := s.buf[s.pos:s.end]
	scan:
		for k < len(b) {
			c := b[k]
			if class[c]&cText != 0 {
				r0 := k
				for k++; k < len(b) && class[b[k]]&cText != 0; k++ {
				}
				if w != r0 {
					copy(b[w:], b[r0:k])
				}
				w += k - r0
				continue
			}
			switch {
			case c == '<':
				if w == k {
					s.setRaw(s.pos, s.pos+k)
				}
				s.pos += k
				return s.textToken(CharData, b[:w]), nil
			case c == '&':
				r, n, err := s.ref(b, k, false)
				if err == errMore {
					break scan
				}
				if err != nil {
					return nil, err
				}
				w += utf8.EncodeRune(b[w:], r)
				k += n
			case c == '\r':
				if k+1 == len(b) {
					break scan
				}
				b[w] = '\n'
				w, k = w+1, k+1
				if b[k] == '\n' {
					k++
				}
			case c == ']':
				if k+2 < len(b) {
					if b[k+1] == ']' && b[k+2] == '>' {
						return nil, s.failAt(k, nil, "]]> not allowed in text (outside a CDATA section)")
					}
				} else if k+1 == len(b) || b[k+1] == ']' {
					break scan
				}
				b[w] = ']'
				w, k = w+1, k+1
			case c >= utf8.RuneSelf:
				n, err := s.char(b, k)
				if err == errMore {
					break scan
				}
				if err != nil {
					return nil, err
				}
				copy(b[w:], b[k:k+n])
				w, k = w+n, k+n
			default:
				return nil, s.failAt(k, nil, "illegal character code %U", rune(c))
			}
		}
		if t, err, done := s.textMore(b, k, w, "a reference"); done {
			if t != nil && w == k {
				s.setRaw(s.pos-k, s.pos)
			}
			return t, err
		}
	}
}

// textMore is what text and cdata do when they need more input at k: read
// more if the buffer has room; if it is full, return what was decoded (w
// bytes, k read); if nothing was, grow it.
func (s *Reader) textMore(b []byte, k, w int, what string) (*Token, error, bool) {
	switch {
	case s.pos > 0 || s.end < len(s.buf):
		if s.more(s.end - s.pos + 1) {
			return nil, nil, false
		}
		return nil, s.readFailure(what), true
	case k > 0:
		s.pos += k
		return s.textToken(CharData, b[:w]), nil, true
	}
	if err := s.moreFor(what); err != nil {
		return nil, err, true
	}
	return nil, nil, false
}

// char checks the non-ASCII character at b[k] and returns its length.
func (s *Reader) char(b []byte, k int) (int, error) {
	if !utf8.FullRune(b[k:]) {
		return 0, errMore
	}
	r, n := utf8.DecodeRune(b[k:])
	if r == utf8.RuneError && n == 1 {
		return 0, s.failAt(k, nil, "invalid UTF-8")
	}
	if r == 0xFFFE || r == 0xFFFF {
		return 0, s.failAt(k, nil, "illegal character code %U", r)
	}
	return n, nil
}

// cdata reads the content of a CDATA section, its start already consumed,
// like text: in pieces when it fills the buffer.
func (s *Reader) cdata() (*Token, error) {
	k, w := 0, 0
	for {
		b := s.buf[s.pos:s.end]
	scan:
		for k < len(b) {
			c := b[k]
			if class[c]&cCDATA != 0 {
				r0 := k
				for k++; k < len(b) && class[b[k]]&cCDATA != 0; k++ {
				}
				if w != r0 {
					copy(b[w:], b[r0:k])
				}
				w += k - r0
				continue
			}
			switch {
			case c == ']':
				if k+2 < len(b) {
					if b[k+1] == ']' && b[k+2] == '>' {
						s.inCDATA = false
						s.pos += k + 3
						if w == 0 {
							return nil, nil
						}
						return s.textToken(CharData, b[:w]), nil
					}
				} else if k+1 == len(b) || b[k+1] == ']' {
					break scan
				}
				b[w] = ']'
				w, k = w+1, k+1
			case c == '\r':
				if k+1 == len(b) {
					break scan
				}
				b[w] = '\n'
				w, k = w+1, k+1
				if b[k] == '\n' {
					k++
				}
			case c >= utf8.RuneSelf:
				n, err := s.char(b, k)
				if err == errMore {
					break scan
				}
				if err != nil {
					return nil, err
				}
				copy(b[w:], b[k:k+n])
				w, k = w+n, k+n
			default:
				return nil, s.failAt(k, nil, "illegal character code %U", rune(c))
			}
		}
		if t, err, done := s.textMore(b, k, w, "a CDATA section"); done {
			return t, err
		}
	}
}

// ref decodes the reference at b[k] ('&'). complete says b holds everything
// the reference can be part of (an attribute value): running off its end is
// an error, not a reason to read more.
func (s *Reader) ref(b []byte, k int, complete bool) (rune, int, error) {
	more := func() (rune, int, error) {
		if complete {
			return 0, 0, s.failAt(k, nil, "invalid character entity %s (no semicolon)", b[k:])
		}
		return 0, 0, errMore
	}
	i := k + 1
	if i == len(b) {
		return more()
	}
	if b[i] != '#' {
		for j := i; j < len(b); j++ {
			if b[j] == ';' {
				switch string(b[i:j]) {
				case "lt":
					return '<', j + 1 - k, nil
				case "gt":
					return '>', j + 1 - k, nil
				case "amp":
					return '&', j + 1 - k, nil
				case "apos":
					return '\'', j + 1 - k, nil
				case "quot":
					return '"', j + 1 - k, nil
				}
				return 0, 0, s.failAt(k, nil, "invalid character entity %s (only the five predefined entities are)", b[k:j+1])
			}
			if j-i > 4 || class[b[j]]&cName == 0 {
				return 0, 0, s.failAt(k, nil, "invalid character entity %s", b[k:j+1])
			}
		}
		return more()
	}
	i++
	base := rune(10)
	if i < len(b) && b[i] == 'x' {
		base = 16
		i++
	}
	start := i
	var v rune
	for ; i < len(b); i++ {
		c := rune(b[i])
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case base == 16 && 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case base == 16 && 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			c = -1
		}
		if c < 0 {
			break
		}
		if v = v*base + c; v > unicode.MaxRune {
			v = unicode.MaxRune + 1
		}
	}
	if i == len(b) {
		return more()
	}
	if b[i] != ';' || i == start {
		return 0, 0, s.failAt(k, nil, "invalid character reference %s", b[k:i+1])
	}
	switch {
	case v > unicode.MaxRune:
		return 0, 0, s.failAt(k, nil, "invalid character entity %s (beyond Unicode)", b[k:i+1])
	case v >= 0xD800 && v <= 0xDFFF:
		return 0, 0, s.failAt(k, nil, "character reference %s to a surrogate", b[k:i+1])
	case !isChar(v):
		return 0, 0, s.failAt(k, nil, "illegal character code %U", v)
	}
	return v, i + 1 - k, nil
}

// decodeValue decodes the references of the attribute value b[val:end] and
// normalizes its white space (XML 1.0 §3.3.3), in place. It returns the new
// end.
func (s *Reader) decodeValue(b []byte, val, end int) (int, error) {
	v := b[:end]
	w := val
	for k := val; k < end; {
		switch c := b[k]; c {
		case '&':
			r, n, err := s.ref(v, k, true)
			if err != nil {
				return 0, err
			}
			w += utf8.EncodeRune(b[w:], r)
			k += n
		case '\t', '\n':
			b[w] = ' '
			w, k = w+1, k+1
		case '\r':
			b[w] = ' '
			w, k = w+1, k+1
			if k < end && b[k] == '\n' {
				k++
			}
		default:
			b[w] = c
			w, k = w+1, k+1
		}
	}
	return w, nil
}
