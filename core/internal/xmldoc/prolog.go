package xmldoc

import (
	"bytes"
	"fmt"
	"strings"
)

// prepare turns a document as stored into UTF-8 the tokenizer accepts: the
// byte order mark read, the encoding transcoded, the XML declaration,
// processing instructions and the document type declaration blanked (spaces,
// their line ends kept, so that lines stay where they were) and the internal
// subset's entities and attribute defaults applied. It returns in itself
// when nothing needs changing.
func prepare(in []byte, lim Limits) ([]byte, error) {
	data, utf16, err := decodeBOM(in)
	if err != nil {
		return nil, err
	}
	owned := utf16 // data is a copy of our own, free to blank
	own := func() {
		if !owned {
			data, owned = bytes.Clone(data), true
		}
	}
	p := skipSpace(data, 0)
	if hasDecl(data[p:]) {
		end := bytes.Index(data[p:], []byte("?>"))
		if end < 0 {
			return nil, errAt(data, p, "the XML declaration is not closed")
		}
		end += p + 2
		label, err := declEncoding(data[p+5 : end-2])
		if err != nil {
			return nil, errAt(data, p, "%v", err)
		}
		if utf16 {
			if label != "" && !strings.HasPrefix(strings.ToLower(label), "utf-16") {
				return nil, errAt(data, p, "the document is UTF-16 but declares the encoding %q", label)
			}
		} else if label != "" {
			cs, err := charsetOf(label)
			if err != nil {
				return nil, errAt(data, p, "%v", err)
			}
			if cs != csUTF8 {
				t, changed, err := transcode(data, cs)
				if err != nil {
					return nil, errAt(data, p, "%v", err)
				}
				if changed {
					data, owned = t, true
				}
			}
		}
		// The tokenizer reads a declaration at the very start that says
		// UTF-8; any other is blanked (it was checked here).
		if p != 0 || utf16 || label != "" && !isUTF8Label(label) {
			own()
			blank(data[p:end])
		}
		p = end
	}
	var d *dtd
	for {
		p = skipSpace(data, p)
		rest := data[p:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			e := bytes.Index(rest[4:], []byte("-->"))
			if e < 0 {
				return nil, errAt(data, p, "a comment is not closed")
			}
			p += 4 + e + 3
			continue
		case bytes.HasPrefix(rest, []byte("<?")):
			e := bytes.Index(rest, []byte("?>"))
			if e < 0 {
				return nil, errAt(data, p, "a processing instruction is not closed")
			}
			own()
			blank(data[p : p+e+2])
			p += e + 2
			continue
		case bytes.HasPrefix(rest, []byte("<!DOCTYPE")):
			if d != nil {
				return nil, errAt(data, p, "a second document type declaration")
			}
			var n int
			var err error
			d, n, err = parseDoctype(data, p, lim)
			if err != nil {
				return nil, err
			}
			own()
			blank(data[p : p+n])
			p += n
			continue
		}
		break
	}
	needPass := d != nil && (len(d.entities) > 0 || len(d.defaults) > 0) || bytes.Contains(data[p:], []byte("<?"))
	if !needPass {
		return data, nil
	}
	return rewrite(data, p, d, lim)
}

// decodeBOM skips a UTF-8 byte order mark and transcodes UTF-16 (with a byte
// order mark, or recognised by its "<?" in either order) to UTF-8.
func decodeBOM(b []byte) ([]byte, bool, error) {
	switch {
	case len(b) >= 4 && (bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}) || bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}) ||
		bytes.HasPrefix(b, []byte{0, 0, 0, '<'}) || bytes.HasPrefix(b, []byte{'<', 0, 0, 0})):
		return nil, false, fmt.Errorf("xml: UTF-32 is not supported")
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		return b[3:], false, nil
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		out, err := fromUTF16(b[2:], true)
		return out, true, wrapEnc(err)
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		out, err := fromUTF16(b[2:], false)
		return out, true, wrapEnc(err)
	case bytes.HasPrefix(b, []byte{0, '<', 0, '?'}):
		out, err := fromUTF16(b, true)
		return out, true, wrapEnc(err)
	case bytes.HasPrefix(b, []byte{'<', 0, '?', 0}):
		out, err := fromUTF16(b, false)
		return out, true, wrapEnc(err)
	}
	return b, false, nil
}

func wrapEnc(err error) error {
	if err != nil {
		return fmt.Errorf("xml: %w", err)
	}
	return nil
}

func isUTF8Label(l string) bool {
	switch strings.ToLower(l) {
	case "utf-8", "us-ascii", "ascii":
		return true // what the tokenizer accepts itself
	}
	return false
}

// hasDecl reports whether b starts with an XML declaration.
func hasDecl(b []byte) bool {
	return len(b) >= 6 && string(b[:5]) == "<?xml" && (isSpace(b[5]) || b[5] == '?')
}

// declEncoding reads the XML declaration's content (between "<?xml" and
// "?>"): version 1.0 first, then the encoding label if there is one.
func declEncoding(d []byte) (string, error) {
	attrs := map[string]string{}
	var order []string
	s := string(d)
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if s == "" {
			break
		}
		name, rest, ok := strings.Cut(s, "=")
		name = strings.TrimSpace(name)
		rest = strings.TrimLeft(rest, " \t\r\n")
		if !ok || name == "" || rest == "" || rest[0] != '"' && rest[0] != '\'' {
			return "", fmt.Errorf("malformed XML declaration")
		}
		e := strings.IndexByte(rest[1:], rest[0])
		if e < 0 {
			return "", fmt.Errorf("malformed XML declaration")
		}
		if _, dup := attrs[name]; dup {
			return "", fmt.Errorf("malformed XML declaration: %s twice", name)
		}
		attrs[name] = rest[1 : 1+e]
		order = append(order, name)
		s = rest[e+2:]
	}
	if len(order) == 0 || order[0] != "version" {
		return "", fmt.Errorf("malformed XML declaration: the version must come first")
	}
	if attrs["version"] != "1.0" {
		return "", fmt.Errorf("unsupported XML version %q (1.0 is)", attrs["version"])
	}
	for _, n := range order[1:] {
		if n != "encoding" && n != "standalone" {
			return "", fmt.Errorf("malformed XML declaration: unexpected %s", n)
		}
	}
	return attrs["encoding"], nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(b []byte, p int) int {
	for p < len(b) && isSpace(b[p]) {
		p++
	}
	return p
}

// blank overwrites b with spaces, keeping its line ends.
func blank(b []byte) {
	for i, c := range b {
		if c != '\n' && c != '\r' {
			b[i] = ' '
		}
	}
}

// lineAt is the line of byte offset p in b.
func lineAt(b []byte, p int) int {
	if p > len(b) {
		p = len(b)
	}
	return 1 + bytes.Count(b[:p], []byte{'\n'})
}

// posError is an error found before the tokenizer ran, at a line.
type posError struct {
	line int
	msg  string
	err  error
}

func (e *posError) Error() string { return e.msg }
func (e *posError) Unwrap() error { return e.err }

func errAt(b []byte, p int, format string, args ...any) error {
	return &posError{line: lineAt(b, p), msg: "xml: " + fmt.Sprintf(format, args...)}
}

func limitAt(b []byte, p int, err error, format string, args ...any) error {
	return &posError{line: lineAt(b, p), msg: "xml: " + fmt.Sprintf(format, args...), err: err}
}
