package mail

import (
	"bytes"
	"encoding/base64"
	"io"
	"mime/quotedprintable"
	"strings"
)

// decodeTransfer undoes a Content-Transfer-Encoding. Text encodings have
// their CRLF line ends turned back into LF (XML treats both alike).
func decodeTransfer(cte string, r io.Reader) (io.Reader, error) {
	if m, ok := r.(*memBody); ok && !m.read {
		// In memory: decoded at once, in place.
		switch strings.ToLower(strings.TrimSpace(cte)) {
		case "", "7bit", "8bit":
			return bytes.NewReader(crlfToLF(m.b)), nil
		case "quoted-printable":
			if out, ok := decodeQP(m.b); ok {
				return bytes.NewReader(crlfToLF(out)), nil
			}
			// Malformed: the Reader's error, where it finds it.
		}
	}
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "", "7bit", "8bit":
		return &crlfReader{r: r}, nil
	case "binary":
		return r, nil
	case "quoted-printable":
		return &crlfReader{r: quotedprintable.NewReader(r)}, nil
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &spaceDropper{r: r}), nil
	}
	return nil, senderFault("unsupported Content-Transfer-Encoding %q", cte)
}

// crlfToLF turns CRLF into LF in b (a lone CR stays), as crlfReader does,
// and returns the shortened b.
func crlfToLF(b []byte) []byte {
	i := bytes.Index(b, []byte("\r\n"))
	if i < 0 {
		return b
	}
	out := b[:i]
	for rest := b[i+1:]; ; {
		// rest starts with the LF of a CRLF.
		j := bytes.Index(rest[1:], []byte("\r\n"))
		if j < 0 {
			return append(out, rest...)
		}
		out = append(out, rest[:j+1]...)
		rest = rest[j+2:]
	}
}

// maxQPLine is the longest line mime/quotedprintable's Reader reads (its
// bufio buffer), less one.
const maxQPLine = 4095

// decodeQP decodes quoted-printable src in one pass, with the rules (and
// leniencies) of mime/quotedprintable's Reader, into a new slice. ok is
// false wherever that Reader would fail: the caller then streams the body
// through it, which reports the error where it finds it.
func decodeQP(src []byte) (out []byte, ok bool) {
	out = make([]byte, 0, len(src))
	for len(src) > 0 {
		var whole []byte
		last := false
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			whole, src = src[:i+1], src[i+1:]
		} else {
			whole, src, last = src, nil, true
		}
		if len(whole) > maxQPLine {
			return nil, false
		}
		t := bytes.TrimRight(whole, " \t\r\n")
		var eol []byte
		if len(t) > 0 && t[len(t)-1] == '=' {
			right := whole[len(t):]
			t = t[:len(t)-1]
			if !bytes.HasPrefix(right, []byte("\n")) && !bytes.HasPrefix(right, []byte("\r\n")) &&
				!(len(right) == 0 && len(t) > 0 && last) {
				return nil, false
			}
		} else if !last {
			eol = whole[len(whole)-1:]
			if bytes.HasSuffix(whole, []byte("\r\n")) {
				eol = whole[len(whole)-2:]
			}
		}
		// The Reader decodes t+eol; an = looks at the two bytes after it.
		n := len(t) + len(eol)
		at := func(k int) byte {
			if k < len(t) {
				return t[k]
			}
			return eol[k-len(t)]
		}
		for j := 0; j < len(t); {
			// A run of bytes that stand for themselves.
			k := j
			for k < len(t) {
				if c := t[k]; c == '=' || c < ' ' && c != '\t' && c != '\r' || c == 0x7f {
					break
				}
				k++
			}
			out = append(out, t[j:k]...)
			if j = k; j == len(t) {
				break
			}
			if t[j] != '=' {
				return nil, false // a control byte
			}
			if j+2 < n {
				hi, ok1 := unhex(at(j + 1))
				lo, ok2 := unhex(at(j + 2))
				if ok1 && ok2 {
					out = append(out, hi<<4|lo)
					j += 3
					continue
				}
			}
			if n-j >= 2 && at(j+1) != '\r' && at(j+1) != '\n' {
				out = append(out, '=') // a literal =
				j++
				continue
			}
			return nil, false
		}
		out = append(out, eol...)
	}
	return out, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// crlfReader turns CRLF into LF; a lone CR stays.
type crlfReader struct {
	r    io.Reader
	buf  []byte
	data []byte // read, not yet returned
	err  error
}

func (c *crlfReader) Read(p []byte) (int, error) {
	if c.buf == nil {
		c.buf = make([]byte, 4<<10)
	}
	n := 0
	for n < len(p) {
		if len(c.data) == 0 {
			if c.err != nil || n > 0 {
				break
			}
			k, err := c.r.Read(c.buf)
			c.data, c.err = c.buf[:k], err
			continue
		}
		i := bytes.IndexByte(c.data, '\r')
		switch {
		case i < 0:
			k := copy(p[n:], c.data)
			n, c.data = n+k, c.data[k:]
		case i > 0:
			k := copy(p[n:], c.data[:i])
			n, c.data = n+k, c.data[k:]
		case len(c.data) == 1 && c.err == nil:
			// A CR ends what was read: see what follows it first.
			if n > 0 {
				return n, nil
			}
			c.buf[0] = '\r'
			k, err := c.r.Read(c.buf[1:])
			c.data, c.err = c.buf[:1+k], err
		case len(c.data) > 1 && c.data[1] == '\n':
			c.data = c.data[1:]
		default:
			p[n] = '\r'
			n, c.data = n+1, c.data[1:]
		}
	}
	if n == 0 && c.err != nil {
		return 0, c.err
	}
	return n, nil
}

// spaceDropper drops the whitespace MUAs put into base64 bodies beside
// line ends (encoding/base64 skips only CR and LF).
type spaceDropper struct{ r io.Reader }

func (s *spaceDropper) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		out := 0
		for _, b := range p[:n] {
			if b != ' ' && b != '\t' {
				p[out] = b
				out++
			}
		}
		if out > 0 || err != nil {
			return out, err
		}
	}
}
