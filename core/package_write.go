package core

import (
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"slices"
	"strings"
)

// writePackage writes m as a MIME package (MTOM or SwA): the root part
// holding the envelope, then one part per attachment, each with its
// Content-Type, Content-Transfer-Encoding binary and Content-ID. The
// package's own Content-Type (boundary, root) is ContentType's: a transport
// carries it in its header.
func (m *Message) writePackage(w io.Writer, o WriteOptions) (int64, error) {
	if m.Packaging != MTOM && m.Packaging != SwA {
		return 0, fmt.Errorf("core: unknown packaging %d", m.Packaging)
	}
	ids := m.ids()
	for i, a := range m.Attachments {
		if a == nil {
			return 0, fmt.Errorf("core: attachment %d is nil", i)
		}
		if a.ID == "" {
			a.ID = NewContentID()
		}
		if err := checkContentID(a.ID); err != nil {
			return 0, err
		}
	}
	pw := &partWriter{w: w}
	pw.str("--" + ids.boundary + "\r\nContent-Type: " + m.rootType() +
		"\r\nContent-Transfer-Encoding: binary\r\nContent-ID: <" + ids.root + ">\r\n\r\n")
	if pw.err != nil {
		return pw.n, pw.err
	}
	xo := new(xopOut)
	n, err := m.writeEnvelope(w, o, xo)
	pw.n += n
	if err != nil {
		return pw.n, err
	}
	for _, a := range xo.extra { // checked before anything of them is written
		if err := checkContentID(a.ID); err != nil {
			return pw.n, err
		}
	}
	for _, parts := range [][]*Attachment{m.Attachments, xo.extra} {
		for _, a := range parts {
			if err := pw.part(ids.boundary, a); err != nil {
				return pw.n, err
			}
		}
	}
	pw.str("\r\n--" + ids.boundary + "--\r\n")
	return pw.n, pw.err
}

// rootType is the Content-Type of a package's root part.
func (m *Message) rootType() string {
	if m.Packaging == MTOM {
		var b strings.Builder
		b.WriteString(MediaTypeXOP + "; charset=UTF-8")
		param(&b, "type", m.envelopeType(false))
		return b.String()
	}
	v := m.Version().orV11()
	var b strings.Builder
	b.WriteString(v.MediaType() + "; charset=UTF-8")
	if v == V12 && m.Action != "" {
		param(&b, "action", m.Action)
	}
	return b.String()
}

// partWriter writes a package's parts, counting.
type partWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (p *partWriter) str(s string) {
	if p.err != nil {
		return
	}
	n, err := io.WriteString(p.w, s)
	p.n += int64(n)
	p.err = err
}

// part writes one attachment: its delimiter, headers and bytes.
func (p *partWriter) part(boundary string, a *Attachment) error {
	var h strings.Builder
	h.WriteString("\r\n--" + boundary + "\r\n")
	ct := a.contentType()
	if err := checkHeaderValue("Content-Type", ct); err != nil {
		return err
	}
	h.WriteString("Content-Type: " + ct + "\r\nContent-Transfer-Encoding: binary\r\nContent-ID: <" + a.ID + ">\r\n")
	keys := make([]string, 0, len(a.Header))
	for k := range a.Header {
		switch textproto.CanonicalMIMEHeaderKey(k) {
		case "Content-Type", "Content-Id", "Content-Transfer-Encoding":
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := checkHeaderName(k); err != nil {
			return err
		}
		for _, v := range a.Header[k] {
			if err := checkHeaderValue(k, v); err != nil {
				return err
			}
			h.WriteString(k + ": " + v + "\r\n")
		}
	}
	h.WriteString("\r\n")
	p.str(h.String())
	if p.err != nil {
		return p.err
	}
	rc, err := a.Open()
	if err != nil {
		return fmt.Errorf("core: attachment %s: %w", a.ID, err)
	}
	n, err := io.Copy(p.w, rc)
	p.n += n
	if cerr := rc.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		p.err = fmt.Errorf("core: attachment %s: %w", a.ID, err)
		return p.err
	}
	if a.size >= 0 && n != a.size {
		p.err = fmt.Errorf("core: attachment %s: %d bytes, its size says %d", a.ID, n, a.size)
	}
	return p.err
}

// checkContentID refuses a Content-ID a part header cannot hold.
func checkContentID(id string) error {
	if err := checkHeaderValue("Content-ID", id); err != nil {
		return err
	}
	if strings.ContainsAny(id, "<> ") {
		return fmt.Errorf("core: attachment Content-ID %q holds '<', '>' or a space", id)
	}
	return nil
}

// errHeader is the error of a part header a package cannot hold.
var errHeader = errors.New("core: attachment header")

func checkHeaderValue(name, v string) error {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c == '\r' || c == '\n' || c == 0 {
			return fmt.Errorf("%w %s: a line break or NUL in %q", errHeader, name, v)
		}
	}
	return nil
}

func checkHeaderName(k string) error {
	if k == "" {
		return fmt.Errorf("%w: an empty name", errHeader)
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; c <= ' ' || c >= 0x7f || c == ':' {
			return fmt.Errorf("%w name %q: not a header field name", errHeader, k)
		}
	}
	return nil
}
