package document

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// MaxProlog is the most a document's prolog may take, in bytes after the
// byte order mark: the XML declaration, comments and whitespace before the
// root element. Send reads at most this much of a stream before it sends
// anything; a longer prolog is refused.
const MaxProlog = 64 << 10

// PrologError is the refusal of a document's prolog (what comes before its
// root element). errors.Is(err, ErrProlog) holds.
type PrologError struct {
	// Offset is where the refused part starts: a byte offset in the
	// document, counting the byte order mark (for a UTF-16 document, in its
	// UTF-8 transcoding after the 2-byte mark).
	Offset int64
	Reason string
}

func (e *PrologError) Error() string {
	return fmt.Sprintf("document: prolog refused at byte %d: %s", e.Offset, e.Reason)
}

// Unwrap returns ErrProlog.
func (e *PrologError) Unwrap() error { return ErrProlog }

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF16LE = []byte{0xFF, 0xFE}
)

// prolog reads and checks a document's prolog from br, leaving br at the
// root element's '<'.
type prolog struct {
	br    *bufio.Reader
	off   int64  // offset of br's next byte in the document
	limit int64  // the prolog must end before it
	utf16 string // "UTF-16BE" or "UTF-16LE" for a transcoded document, else ""
	seen  bool   // a declaration or comment was read (not just whitespace)
}

// scan consumes the prolog. It returns true when br is at the root
// element, false when the document ends without one (after whitespace
// only: an empty document).
func (p *prolog) scan() (bool, error) {
	for {
		head, err := p.peek(2)
		if len(head) == 0 {
			if err != nil {
				return false, err
			}
			if p.seen {
				return false, p.fail(p.off, "the document has no root element")
			}
			return false, nil
		}
		switch c := head[0]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			if err := p.skip(1); err != nil {
				return false, err
			}
		case c != '<':
			if c == 0 {
				return false, p.fail(p.off, "a NUL byte: the document is not UTF-8 (a UTF-16 document needs a byte order mark)")
			}
			return false, p.fail(p.off, "text before the root element")
		case len(head) < 2:
			if err != nil {
				return false, err
			}
			return false, p.fail(p.off, "the document ends in markup")
		case head[1] == '?':
			if err := p.procInst(); err != nil {
				return false, err
			}
		case head[1] == '!':
			if err := p.bang(); err != nil {
				return false, err
			}
		case isNameStart(head[1]):
			return true, nil
		default:
			return false, p.fail(p.off, fmt.Sprintf("malformed markup %q before the root element", head))
		}
	}
}

// peek returns up to n bytes without consuming them; a short result comes
// with io.EOF (or nil when more is merely not buffered, which bufio does not
// do) or a read error.
func (p *prolog) peek(n int) ([]byte, error) {
	b, err := p.br.Peek(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return b, readError(err)
	}
	return b, nil
}

// readError wraps an error of the document's reader.
func readError(err error) error {
	if errors.Is(err, ErrEncoding) {
		return err
	}
	return fmt.Errorf("document: reading the document: %w", err)
}

// skip consumes n bytes the caller has peeked.
func (p *prolog) skip(n int) error {
	if p.off+int64(n) > p.limit {
		return p.fail(p.limit, fmt.Sprintf("the prolog is longer than %d KiB", MaxProlog>>10))
	}
	p.off += int64(n)
	_, err := p.br.Discard(n)
	return err
}

// next consumes one byte; io.EOF when there is none.
func (p *prolog) next() (byte, error) {
	if p.off >= p.limit {
		return 0, p.fail(p.limit, fmt.Sprintf("the prolog is longer than %d KiB", MaxProlog>>10))
	}
	c, err := p.br.ReadByte()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, readError(err)
	}
	p.off++
	return c, nil
}

func (p *prolog) fail(off int64, reason string) error {
	return &PrologError{Offset: off, Reason: reason}
}

// maxTarget bounds a processing instruction's target as read (the longest
// name quoted in a refusal).
const maxTarget = 64

// procInst reads "<?": the XML declaration, or a refused processing
// instruction.
func (p *prolog) procInst() error {
	start := p.off
	if err := p.skip(2); err != nil {
		return err
	}
	var target []byte
	var end byte
	for {
		c, err := p.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return p.fail(start, "the document ends in a processing instruction")
			}
			return err
		}
		if isSpace(c) || c == '?' {
			end = c
			break
		}
		if len(target) == maxTarget {
			return p.fail(start, fmt.Sprintf("a processing instruction <?%s…: not allowed in SOAP", target))
		}
		target = append(target, c)
	}
	switch {
	case string(target) == "xml":
	case strings.EqualFold(string(target), "xml"):
		return p.fail(start, fmt.Sprintf("a processing instruction <?%s?>: the target is reserved", target))
	case len(target) == 0:
		return p.fail(start, "a processing instruction with no target")
	default:
		return p.fail(start, fmt.Sprintf("a processing instruction <?%s …?>: not allowed in SOAP (only the XML declaration, which is dropped)", target))
	}
	if p.seen {
		return p.fail(start, "the XML declaration is not at the start of the document")
	}
	p.seen = true
	if end == '?' {
		return p.fail(start, "the XML declaration has no version")
	}
	decl := make([]byte, 0, 64)
	for {
		c, err := p.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return p.fail(start, "the document ends in the XML declaration")
			}
			return err
		}
		if c == '>' && len(decl) > 0 && decl[len(decl)-1] == '?' {
			decl = decl[:len(decl)-1]
			break
		}
		decl = append(decl, c)
	}
	if reason := p.declaration(decl); reason != "" {
		return p.fail(start, reason)
	}
	return nil
}

// declaration checks the XML declaration's pseudo-attributes (what follows
// "<?xml" and one whitespace, up to "?>") and returns why it is refused, or
// "".
func (p *prolog) declaration(decl []byte) string {
	order := []string{"version", "encoding", "standalone"}
	next := 0 // index in order of the first attribute still allowed
	for i := 0; ; {
		ws := i
		for i < len(decl) && isSpace(decl[i]) {
			i++
		}
		if i == len(decl) {
			break
		}
		if next > 0 && ws == i {
			return "malformed XML declaration: no space between attributes"
		}
		nameStart := i
		for i < len(decl) && decl[i] >= 'a' && decl[i] <= 'z' {
			i++
		}
		name := string(decl[nameStart:i])
		for i < len(decl) && isSpace(decl[i]) {
			i++
		}
		if i == len(decl) || decl[i] != '=' {
			return "malformed XML declaration"
		}
		i++
		for i < len(decl) && isSpace(decl[i]) {
			i++
		}
		if i == len(decl) || decl[i] != '"' && decl[i] != '\'' {
			return "malformed XML declaration: an unquoted value"
		}
		q := decl[i]
		end := bytes.IndexByte(decl[i+1:], q)
		if end < 0 {
			return "malformed XML declaration: an unterminated value"
		}
		value := string(decl[i+1 : i+1+end])
		i += end + 2

		at := -1
		for k := next; k < len(order); k++ {
			if order[k] == name {
				at = k
			}
		}
		switch {
		case at < 0:
			return fmt.Sprintf("malformed XML declaration: unexpected attribute %.32q", name)
		case next == 0 && at != 0:
			return "the XML declaration has no version"
		}
		next = at + 1
		if reason := p.declared(name, value); reason != "" {
			return reason
		}
	}
	if next == 0 {
		return "the XML declaration has no version"
	}
	return ""
}

// declared checks one pseudo-attribute's value.
func (p *prolog) declared(name, value string) string {
	switch name {
	case "version":
		if value == "1.0" {
			return ""
		}
		return fmt.Sprintf("XML version %.16q is not supported: the envelope is XML 1.0", value)
	case "encoding":
		return p.encoding(value)
	default: // standalone
		if value == "yes" || value == "no" {
			return ""
		}
		return fmt.Sprintf("malformed XML declaration: standalone=%.16q", value)
	}
}

// encoding checks the declared encoding against the one the document is in.
func (p *prolog) encoding(enc string) string {
	upper := strings.ToUpper(enc)
	utf16 := upper == "UTF-16" || upper == "UTF-16LE" || upper == "UTF-16BE"
	switch {
	case p.utf16 == "" && (upper == "UTF-8" || upper == "US-ASCII" || upper == "ASCII"):
		return ""
	case p.utf16 != "" && (upper == "UTF-16" || upper == p.utf16):
		return ""
	case p.utf16 == "" && utf16:
		return fmt.Sprintf("the declaration says encoding %q, but the document has no UTF-16 byte order mark", enc)
	case p.utf16 != "":
		return fmt.Sprintf("the declaration says encoding %.32q, but the document starts with a %s byte order mark", enc, p.utf16)
	}
	return fmt.Sprintf("encoding %.32q is not supported: convert the document to UTF-8 (or UTF-16 with a byte order mark)", enc)
}

// bang reads "<!": a comment, or a refused DOCTYPE or CDATA section.
func (p *prolog) bang() error {
	start := p.off
	head, err := p.peek(9)
	if err != nil {
		return err
	}
	switch {
	case bytes.HasPrefix(head, []byte("<!--")):
	case bytes.Equal(head, []byte("<!DOCTYPE")):
		return p.fail(start, "a DOCTYPE: not allowed in SOAP (no DTDs)")
	case bytes.Equal(head, []byte("<![CDATA[")):
		return p.fail(start, "a CDATA section before the root element")
	default:
		return p.fail(start, fmt.Sprintf("malformed markup %q before the root element", head))
	}
	if err := p.skip(4); err != nil {
		return err
	}
	p.seen = true
	dashes := 0
	for {
		c, err := p.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return p.fail(start, "an unterminated comment")
			}
			return err
		}
		switch {
		case dashes == 2 && c == '>':
			return nil
		case dashes == 2:
			return p.fail(p.off-3, `"--" inside a comment`)
		case c == '-':
			dashes++
		default:
			dashes = 0
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isNameStart: the first byte of an element name (any non-ASCII byte is
// left to the receiver's reader to judge).
func isNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= 0x80
}
