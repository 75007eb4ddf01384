package document

import (
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// utf16Reader transcodes UTF-16 (after its byte order mark) to UTF-8 as it
// is read. A lone surrogate or an odd number of bytes is an ErrEncoding.
type utf16Reader struct {
	r    io.Reader
	big  bool
	in   []byte // raw bytes; in[:pend] carried over from the last fill
	pend int
	out  []byte // transcoded bytes not yet returned
	buf  []byte // out's storage
	off  int64  // offset of in[0] in the document (the mark counted)
	err  error
}

func newUTF16Reader(r io.Reader, big bool) *utf16Reader {
	return &utf16Reader{r: r, big: big, in: make([]byte, 4096), buf: make([]byte, 0, 4096*3/2+4), off: 2}
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		u.fill()
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}

// fill reads and transcodes what it can; u.err is set at the end or on an
// error (after what came before it is in u.out).
func (u *utf16Reader) fill() {
	n, err := u.r.Read(u.in[u.pend:])
	total := u.pend + n
	out := u.buf[:0]
	i := 0
	for ; i+2 <= total; i += 2 {
		c := u.unit(i)
		if !utf16.IsSurrogate(rune(c)) {
			out = utf8.AppendRune(out, rune(c))
			continue
		}
		if c >= 0xDC00 {
			u.err = fmt.Errorf("%w: a lone low surrogate at byte %d", ErrEncoding, u.off+int64(i))
			break
		}
		if i+4 > total {
			break // the pair's second half is still to come
		}
		r := utf16.DecodeRune(rune(c), rune(u.unit(i+2)))
		if r == utf8.RuneError {
			u.err = fmt.Errorf("%w: a lone high surrogate at byte %d", ErrEncoding, u.off+int64(i))
			break
		}
		out = utf8.AppendRune(out, r)
		i += 2
	}
	u.out, u.buf = out, out
	if u.err != nil {
		return
	}
	u.pend = copy(u.in, u.in[i:total])
	u.off += int64(i)
	switch {
	case errors.Is(err, io.EOF) && u.pend > 0:
		u.err = fmt.Errorf("%w: the document ends in the middle of a UTF-16 character (byte %d)", ErrEncoding, u.off)
	case err != nil:
		u.err = err
	}
}

func (u *utf16Reader) unit(i int) uint16 {
	if u.big {
		return uint16(u.in[i])<<8 | uint16(u.in[i+1])
	}
	return uint16(u.in[i+1])<<8 | uint16(u.in[i])
}
