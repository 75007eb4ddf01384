package xmltok

import (
	"io"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// encodingError is a failure of the UTF-16 transcoder.
type encodingError struct{ msg string }

func (e encodingError) Error() string { return "xml: " + e.msg }

// begin looks at the first bytes: a UTF-8 byte order mark is skipped, a
// UTF-16 one puts a transcoder in front of the input.
func (s *Reader) begin() error {
	s.begun = true
	s.more(3)
	b := s.buf[s.pos:s.end]
	switch {
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		s.pos += 3
		s.base -= 3
	case len(b) >= 2 && (b[0] == 0xFE && b[1] == 0xFF || b[0] == 0xFF && b[1] == 0xFE):
		// raw takes all that was read after the mark (the first read may
		// have brought more than 4 KiB)
		u := &utf16Reader{r: &s.cnt, big: b[0] == 0xFE, raw: make([]byte, max(4096, len(b)-2)), err: s.rerr}
		u.rn = copy(u.raw, b[2:])
		s.src, s.utf16, s.rerr = u, true, nil
		s.pos, s.end, s.base = 0, 0, 0
	}
	return nil
}

// checkEncoding accepts the encodings the input can really be in.
func (s *Reader) checkEncoding(label string) bool {
	l := strings.ToLower(label)
	if s.utf16 {
		return l == "utf-16" || l == "utf-16le" || l == "utf-16be"
	}
	return l == "utf-8" || l == "us-ascii" || l == "ascii"
}

// utf16Reader transcodes UTF-16 to UTF-8 as it streams.
type utf16Reader struct {
	r      io.Reader
	big    bool
	raw    []byte
	rp, rn int    // raw[rp:rn] is buffered
	err    error  // from r, once seen
	pend   []byte // transcoded bytes that did not fit in the last Read
	pbuf   [4]byte
}

func (u *utf16Reader) unit(i int) rune {
	if u.big {
		return rune(u.raw[i])<<8 | rune(u.raw[i+1])
	}
	return rune(u.raw[i+1])<<8 | rune(u.raw[i])
}

func (u *utf16Reader) fill() {
	if u.err != nil {
		return
	}
	u.rn = copy(u.raw, u.raw[u.rp:u.rn])
	u.rp = 0
	for u.rn < 4 && u.err == nil {
		n, err := u.r.Read(u.raw[u.rn:])
		u.rn += n
		if err != nil {
			u.err = err
		} else if n == 0 {
			u.err = io.ErrNoProgress
		}
	}
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	n := copy(p, u.pend)
	u.pend = u.pend[n:]
	for n < len(p) && len(u.pend) == 0 {
		if u.rn-u.rp < 4 {
			u.fill()
		}
		avail := u.rn - u.rp
		if avail < 2 {
			if n > 0 {
				break
			}
			if avail == 1 && u.err == io.EOF {
				return 0, encodingError{"truncated UTF-16 input"}
			}
			return 0, u.err
		}
		r := u.unit(u.rp)
		size := 2
		if utf16.IsSurrogate(r) {
			if avail < 4 {
				if u.err == io.EOF {
					return n, encodingError{"truncated UTF-16 surrogate pair"}
				}
				if n > 0 {
					break
				}
				return 0, u.err
			}
			r = utf16.DecodeRune(r, u.unit(u.rp+2))
			if r == utf8.RuneError {
				return n, encodingError{"invalid UTF-16 surrogate pair"}
			}
			size = 4
		}
		u.rp += size
		if len(p)-n >= utf8.UTFMax || utf8.RuneLen(r) <= len(p)-n {
			n += utf8.EncodeRune(p[n:], r)
		} else {
			k := utf8.EncodeRune(u.pbuf[:], r)
			c := copy(p[n:], u.pbuf[:k])
			n += c
			u.pend = u.pbuf[c:k]
		}
	}
	return n, nil
}
