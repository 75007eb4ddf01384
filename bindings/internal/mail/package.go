package mail

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"slices"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// A message with Packaging MTOM or SwA travels as a multipart/related mail:
// the mail's Content-Type is the package's (core.Message.ContentType), and
// its body the package core writes, each part re-encoded so the mail is
// 7bit: the root part (the envelope) 7bit when its lines allow, else
// quoted-printable, every other part base64 in lines of 76. core reads such
// a mail back with core.ReadPackage, which undoes the encodings.

// base64Line is the length of a base64 line in a mail (RFC 2045).
const base64Line = 76

// errStopped stops a package's writer when its re-encoding failed.
var errStopped = errors.New("mail: the package's re-encoding stopped")

// writePackage appends m's package to dst as a mail body: core writes it
// into a pipe, and each part is copied into dst with a transfer encoding a
// mail can carry. The package is never held twice.
func writePackage(dst *bytes.Buffer, m *core.Message) error {
	_, params, err := mime.ParseMediaType(m.ContentType())
	if err != nil || params["boundary"] == "" {
		return fmt.Errorf("mail: the package's Content-Type %q: %v", m.ContentType(), err)
	}
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := m.Write(pw, core.WriteOptions{XMLDeclaration: true})
		pw.CloseWithError(err) // nil: EOF
		done <- err
	}()
	err = reencode(dst, pr, params["boundary"])
	pr.CloseWithError(errStopped) // the writer returns, if it still writes
	werr := <-done
	switch {
	case werr != nil && !errors.Is(werr, errStopped):
		return fmt.Errorf("mail: writing the package: %w", werr)
	case err != nil:
		return fmt.Errorf("mail: writing the package: %w", err)
	}
	return nil
}

// reencode copies the package r (delimited by boundary) into dst, part by
// part: the first (the root, as core writes it) as text, the others in
// base64.
func reencode(dst *bytes.Buffer, r io.Reader, boundary string) error {
	mr := multipart.NewReader(r, boundary)
	for n := 0; ; n++ {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		dst.WriteString("--" + boundary + "\r\n")
		if err := partHeader(dst, p.Header); err != nil {
			return err
		}
		if n == 0 {
			err = textPart(dst, p)
		} else {
			err = base64Part(dst, p)
		}
		if err != nil {
			return err
		}
		dst.WriteString("\r\n")
	}
	dst.WriteString("--" + boundary + "--\r\n")
	return nil
}

// partHeader writes a part's header but its transfer encoding (the part's
// writer adds it): Content-Type and Content-ID first, the others sorted.
func partHeader(dst *bytes.Buffer, h textproto.MIMEHeader) error {
	keys := make([]string, 0, len(h))
	for k := range h {
		switch k {
		case "Content-Type", "Content-Id", "Content-Transfer-Encoding":
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	keys = append([]string{"Content-Type", "Content-Id"}, keys...)
	for _, k := range keys {
		for _, v := range h[k] {
			name := k
			if k == "Content-Id" {
				name = "Content-ID"
			}
			line := name + ": " + v
			if k == "Content-Type" {
				folded, err := foldParams(v)
				if err != nil {
					return err
				}
				line = name + ": " + folded
			} else if len(line) > MaxHeaderLine {
				return fmt.Errorf("mail: part header %s: %w", name, ErrHeaderTooLong)
			}
			dst.WriteString(line + "\r\n")
		}
	}
	return nil
}

// textPart writes the root part: 7bit with CRLF line ends when its lines
// allow, else quoted-printable.
func textPart(dst *bytes.Buffer, r io.Reader) error {
	body, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	if textEncoding(body) == "7bit" {
		dst.WriteString("Content-Transfer-Encoding: 7bit\r\n\r\n")
		dst.Write(bytes.ReplaceAll(body, []byte("\n"), []byte("\r\n")))
		return nil
	}
	dst.WriteString("Content-Transfer-Encoding: quoted-printable\r\n\r\n")
	qp := quotedprintable.NewWriter(dst)
	if _, err := qp.Write(body); err != nil {
		return err
	}
	return qp.Close()
}

// base64Part writes a part in base64, in lines of base64Line.
func base64Part(dst *bytes.Buffer, r io.Reader) error {
	dst.WriteString("Content-Transfer-Encoding: base64\r\n\r\n")
	lb := &lineBreaker{w: dst}
	enc := base64.NewEncoder(base64.StdEncoding, lb)
	if _, err := io.Copy(enc, r); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if lb.lines > 0 && lb.line == 0 {
		dst.Truncate(dst.Len() - 2) // a full last line: the part's own CRLF follows
	}
	return nil
}

// lineBreaker writes CRLF after every base64Line bytes.
type lineBreaker struct {
	w     *bytes.Buffer
	line  int // bytes in the current line
	lines int // lines ended
}

func (l *lineBreaker) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), base64Line-l.line)
		l.w.Write(p[:k])
		p = p[k:]
		if l.line += k; l.line == base64Line {
			l.w.WriteString("\r\n")
			l.line, l.lines = 0, l.lines+1
		}
	}
	return n, nil
}

// foldParams folds a Content-Type value before each of its parameters, so
// that no line of the field is longer than MaxHeaderLine (the first line
// counts "Content-Type: "). Semicolons in quoted strings are not
// parameter separators.
func foldParams(ct string) (string, error) {
	var pieces []string
	quoted, esc, from := false, false, 0
	for i := 0; i < len(ct); i++ {
		switch c := ct[i]; {
		case esc:
			esc = false
		case quoted && c == '\\':
			esc = true
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			pieces = append(pieces, strings.TrimSpace(ct[from:i]))
			from = i + 1
		}
	}
	pieces = append(pieces, strings.TrimSpace(ct[from:]))
	var b strings.Builder
	for i, p := range pieces {
		line := p
		if i == 0 {
			line = "Content-Type: " + p
		} else {
			b.WriteString("\r\n\t")
		}
		if i < len(pieces)-1 {
			p += ";"
			line += ";"
		}
		if len(line)+1 > MaxHeaderLine {
			return "", fmt.Errorf("mail: a Content-Type parameter of %d bytes: %w", len(line), ErrHeaderTooLong)
		}
		b.WriteString(p)
	}
	return b.String(), nil
}

// packageType reports whether a multipart/related body with this type
// parameter is a SOAP package (MTOM or SwA): application/xop+xml,
// application/soap+xml, text/xml, or no type (RFC 2387 wants one; peers
// leave it out). Another type (text/html with its images) is searched for
// a SOAP part as any multipart is.
func packageType(t string) bool {
	mt, _, _ := parseMediaType(t)
	switch mt {
	case "", core.MediaTypeXOP, core.MediaTypeV11, core.MediaTypeV12:
		return true
	}
	return false
}

// readPackage reads a multipart/related body (a part of a mail, or the mail
// itself) as a package with core.ReadPackage: its parts spooled within
// lim, base64 and quoted-printable parts decoded. A package in a mail is
// 7bit or 8bit (RFC 2045 allows no other encoding of a multipart): its
// bytes are read as they are, the multipart reader takes either line end;
// base64 or quoted-printable is undone for a peer that used one anyway.
func readPackage(h textproto.MIMEHeader, ct, mt string, params map[string]string, body io.Reader, lim core.Limits) (*envelopePart, error) {
	switch cte := strings.ToLower(strings.TrimSpace(h.Get("Content-Transfer-Encoding"))); cte {
	case "", "7bit", "8bit", "binary":
	default:
		dec, err := decodeTransfer(cte, body)
		if err != nil {
			return nil, err
		}
		body = dec
	}
	// The type as core reads it (parseMediaType took unquoted values).
	norm := mime.FormatMediaType(mt, params)
	if norm == "" {
		return nil, &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf("malformed Content-Type %q", ct),
			Cause: fmt.Errorf("%w: a parameter cannot be read", core.ErrMalformed)}
	}
	m, err := core.ReadPackage(body, norm, lim)
	if err != nil {
		return nil, err
	}
	return &envelopePart{msg: m, contentType: ct, action: params["action"], soapAction: unquote(strings.TrimSpace(h.Get("Soapaction")))}, nil
}
