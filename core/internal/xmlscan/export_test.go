package xmlscan

import "io"

// NewScannerSize is NewScanner with a buffer of size bytes, to test the
// buffer's edges; it is never pooled.
func NewScannerSize(r io.Reader, lim Limits, size int) *Scanner {
	s := &Scanner{}
	s.init(r, lim, &scratch{buf: make([]byte, size)})
	return s
}

// BufferLen is the length of s's buffer (0 once released).
func BufferLen(s *Scanner) int { return len(s.buf) }

// Name character classes, for the exhaustive test against encoding/xml.
var (
	IsNameStart = isNameStart
	IsNameRune  = isNameRune
)
