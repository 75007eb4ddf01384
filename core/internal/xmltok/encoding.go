package xmltok

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// sizeLimit counts the bytes read and fails with ErrTooLarge beyond max.
type sizeLimit struct {
	r   io.Reader
	n   int64
	max int64 // <= 0: no limit
}

func (s *sizeLimit) Read(p []byte) (int, error) {
	if s.max > 0 {
		if s.n > s.max {
			return 0, ErrTooLarge
		}
		if rest := s.max - s.n + 1; int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	if s.max > 0 && s.n > s.max {
		return n, ErrTooLarge
	}
	return n, err
}

// decodeBOM looks at the first bytes: a UTF-8 byte order mark is dropped, a
// UTF-16 one switches to a transcoding reader. It reports whether the input
// was UTF-16.
func decodeBOM(br *bufio.Reader) (io.Reader, bool) {
	b, _ := br.Peek(3)
	switch {
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		br.Discard(3)
		return br, false
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		br.Discard(2)
		return &utf16Reader{r: br, big: true}, true
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		br.Discard(2)
		return &utf16Reader{r: br}, true
	}
	return br, false
}

// charsetReader accepts the declared encodings the input can really be in.
func charsetReader(utf16in bool) func(string, io.Reader) (io.Reader, error) {
	return func(label string, in io.Reader) (io.Reader, error) {
		l := strings.ToLower(label)
		switch {
		case utf16in && (l == "utf-16" || l == "utf-16le" || l == "utf-16be" || l == "utf16"):
			return in, nil // already transcoded to UTF-8
		case l == "us-ascii" || l == "ascii":
			return in, nil // a subset of UTF-8; non-ASCII bytes stay checked as UTF-8
		}
		return nil, fmt.Errorf("unsupported encoding %q (UTF-8 and UTF-16 with a byte order mark are)", label)
	}
}

// utf16Reader transcodes UTF-16 to UTF-8 as it streams.
type utf16Reader struct {
	r   *bufio.Reader
	big bool
	out []byte
	err error
}

func (u *utf16Reader) unit() (uint16, error) {
	var b [2]byte
	if _, err := io.ReadFull(u.r, b[:]); err != nil {
		if err == io.ErrUnexpectedEOF {
			return 0, fmt.Errorf("truncated UTF-16 input")
		}
		return 0, err
	}
	if u.big {
		return uint16(b[0])<<8 | uint16(b[1]), nil
	}
	return uint16(b[1])<<8 | uint16(b[0]), nil
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) < len(p) && u.err == nil {
		c, err := u.unit()
		if err != nil {
			u.err = err
			break
		}
		r := rune(c)
		if utf16.IsSurrogate(r) {
			c2, err := u.unit()
			if err != nil {
				u.err = fmt.Errorf("truncated UTF-16 surrogate pair")
				break
			}
			r = utf16.DecodeRune(r, rune(c2))
			if r == utf8.RuneError {
				u.err = fmt.Errorf("invalid UTF-16 surrogate pair")
				break
			}
		}
		u.out = utf8.AppendRune(u.out, r)
		if len(u.out) >= 4096 {
			break
		}
	}
	n := copy(p, u.out)
	u.out = u.out[:copy(u.out, u.out[n:])]
	if n == 0 && u.err != nil {
		return 0, u.err
	}
	return n, nil
}
