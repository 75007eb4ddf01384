package xmltok

import (
	"errors"
	"io"
	"sync"
)

// defaultBufSize is the buffer a Reader starts with. Text longer than the
// buffer is returned in pieces; only a single tag, comment or XML declaration
// larger than it makes it grow (up to Limits.MaxTokenBytes).
const defaultBufSize = 8 << 10

// maxPooled is the largest buffer returned to the pool.
const maxPooled = 64 << 10

// readBufs recycles Readers with their buffers (see Release): allocating and
// zeroing them per document was a large share of the cost of a small one.
var readBufs = sync.Pool{New: func() any {
	return &Reader{
		buf:    make([]byte, defaultBufSize),
		names:  make([]byte, 0, 256),
		nsbuf:  make([]byte, 0, 512),
		stack:  make([]elem, 0, 16),
		ns:     make([]NS, 0, 16),
		attrs:  make([]Attr, 0, 16),
		raw:    make([]rawAttr, 0, 16),
		scope:  make([]NS, 0, 8),
		xmlURI: []byte(XMLNamespace),
	}
}}

// counter counts the input bytes and fails with ErrTooLarge beyond max. It
// never reads more than one byte past max.
type counter struct {
	r   io.Reader
	n   int64
	max int64 // <= 0: no limit
}

func (c *counter) Read(p []byte) (int, error) {
	if c.max > 0 {
		if c.n > c.max {
			return 0, ErrTooLarge
		}
		if rest := c.max - c.n + 1; int64(len(p)) > rest {
			p = p[:rest]
		}
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if c.max > 0 && c.n > c.max {
		return n, ErrTooLarge
	}
	return n, err
}

// more reads until at least need bytes are buffered from pos, or the input
// ends or fails (s.rerr is set then). It moves the buffered bytes to the
// front and grows the buffer when need is larger: callers bound need. It
// reports whether it added any byte.
func (s *Reader) more(need int) bool {
	if s.rerr != nil {
		return false
	}
	if s.pos > 0 {
		n := copy(s.buf, s.buf[s.pos:s.end])
		s.base += int64(s.pos)
		s.end, s.pos = n, 0
	}
	if need > len(s.buf) {
		size := max(need, 2*len(s.buf))
		if s.maxTok > 0 && size > s.maxTok {
			size = max(need, s.maxTok)
		}
		nb := make([]byte, size)
		copy(nb, s.buf[:s.end])
		s.buf = nb
	}
	added := false
	for empty := 0; s.end < need; {
		n, err := s.src.Read(s.buf[s.end:])
		s.end += n
		if n > 0 {
			added, empty = true, 0
		} else if empty++; empty > 100 && err == nil {
			err = io.ErrNoProgress
		}
		if err != nil {
			s.rerr = err
			break
		}
	}
	return added
}

// moreFor makes room for and reads more of a construct that must be whole in
// the buffer (a tag, a comment, a reference): at least twice what is
// buffered, so that parsing it again from its start costs linear time in all.
// It returns nil when bytes were added, else the error to report: the limit,
// a truncation inside what, or a read error.
func (s *Reader) moreFor(what string) error {
	avail := s.end - s.pos
	if s.maxTok > 0 && avail >= s.maxTok {
		return s.failAt(0, ErrLimit, "%s is longer than %d bytes", what, s.maxTok)
	}
	need := max(2*avail, 64)
	if s.maxTok > 0 && need > s.maxTok {
		need = s.maxTok
	}
	if s.more(need) {
		return nil
	}
	return s.readFailure(what)
}

// readFailure is the error for input that ended, or failed, inside what.
func (s *Reader) readFailure(what string) error {
	switch {
	case s.rerr == io.EOF:
		if len(s.stack) > 0 {
			return s.failAt(s.end-s.pos, io.ErrUnexpectedEOF, "unexpected end of input inside <%s>", s.topName())
		}
		return s.failAt(s.end-s.pos, io.ErrUnexpectedEOF, "unexpected end of input in %s", what)
	case errors.Is(s.rerr, ErrTooLarge):
		return s.failAt(s.end-s.pos, ErrTooLarge, "input exceeds %d bytes", s.lim.MaxBytes)
	}
	var ee encodingError
	if errors.As(s.rerr, &ee) {
		return s.failAt(s.end-s.pos, s.rerr, "%s", ee.msg)
	}
	return s.failAt(s.end-s.pos, s.rerr, "reading the input: %v", s.rerr)
}
