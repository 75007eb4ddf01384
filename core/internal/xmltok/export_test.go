package xmltok

import "io"

// NewReaderSize is NewReader with a buffer of size bytes, to test the
// buffer's edges; it is never pooled.
func NewReaderSize(r io.Reader, lim Limits, size int) *Reader {
	s := &Reader{buf: make([]byte, size)}
	s.reset(r, lim)
	return s
}

// BufferLen is the length of s's buffer.
func BufferLen(s *Reader) int { return len(s.buf) }

// Name character classes, for the exhaustive test against encoding/xml.
var (
	IsNameStart = isNameStart
	IsNameRune  = isNameRune
)

// ClassOf is the byte class table's entry for c, and the classes, for the
// test that recomputes the table.
func ClassOf(c byte) uint8 { return class[c] }

const (
	CNameStart = cNameStart
	CName      = cName
	CText      = cText
	CValue     = cValue
	CSpace     = cSpace
	CCDATA     = cCDATA
)
