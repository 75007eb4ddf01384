package core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"os"
	"strings"
)

// ReadPackage reads a message as a transport delivers it, contentType
// being the transport's Content-Type for its bytes:
//
//   - multipart/related: a MIME package (MTOM/XOP or SwA). Its parts are
//     read at once, each decoded (Content-Transfer-Encoding base64 and
//     quoted-printable are undone) and held in memory up to
//     Limits.SpoolThreshold, beyond it in a temporary file in
//     Limits.SpoolDir. The root part is the one the start parameter names,
//     else the first; the others become m.Attachments, in package order. A
//     root of type application/xop+xml makes m.Packaging MTOM (the
//     envelope's media type is its type parameter, or the package's
//     start-info), one of type text/xml or application/soap+xml SwA. The
//     envelope is then read from the root as ReadMessage reads it; its
//     version must be the one the root's media type names (else a
//     VersionMismatch fault in the media type's version), and a 1.2 action
//     parameter there is taken into m.Action (see TakeAction).
//   - anything else: ReadMessage(CharsetReader(charset, r), lim), the
//     charset being contentType's; m.Packaging is Inline.
//
// The xop:Include elements of an MTOM message's header blocks are checked
// here, by the rules of the body's (a Sender fault naming the block); an
// SwA package's header block holding one is refused (see HeaderBlock).
//
// Errors are *Fault. A package is bounded by lim (MaxParts,
// MaxPartBytes, MaxPackageBytes, MaxPartHeaderBytes; MaxBytes bounds the
// root): crossing a bound is a Sender fault with ErrTooLarge (a size) or
// ErrLimit (a count, a header) in its chain; a package that is not well
// formed (no boundary, never closed, cut off, no root, two parts with one
// Content-ID, a header field name that is not a token, an unknown transfer
// encoding, broken base64: white space in it is not data, RFC 2045 §6.8,
// any other character outside the alphabet is refused) is a Sender fault with
// ErrMalformed in its chain. A part that is itself multipart is bytes like
// any other: packages are not parsed recursively.
//
// The caller closes the message once done with it (Message.Close): that
// removes its spool files.
func ReadPackage(r io.Reader, contentType string, lim Limits) (*Message, error) {
	mt, params, perr := mime.ParseMediaType(contentType)
	if !strings.EqualFold(mt, MediaTypeMultipartRel) {
		return ReadMessage(CharsetReader(params["charset"], r), lim)
	}
	if perr != nil {
		return nil, malformed("the package's Content-Type %q: %v", contentType, perr)
	}
	boundary := params["boundary"]
	if boundary == "" {
		return nil, malformed("multipart/related without a boundary parameter")
	}
	lim = lim.resolved()
	pr := &packageReader{lim: lim, src: &countReader{r: r, max: lim.MaxPackageBytes}, start: normalizeCID(params["start"])}
	m, err := pr.read(boundary, params)
	if err != nil {
		for _, s := range pr.spools {
			s.close()
		}
		return nil, err
	}
	return m, nil
}

// packageReader is what reading one package needs.
type packageReader struct {
	lim    Limits
	src    *countReader
	start  string // the root's Content-ID, "" for the first part
	spools []*spoolFile
	mem    int64        // bytes of parts held in memory
	file   *spoolFile   // the package's temporary file, once a part needs it
	off    int64        // its length
	buf    bytes.Buffer // a part's bytes as they are read
}

// headerSlack is how far the package's reader may read ahead of a part's
// header (mime/multipart buffers 4 KiB): the read stops at
// MaxPartHeaderBytes plus this, the header's own size is checked once read.
const headerSlack = 16 << 10

func (pr *packageReader) read(boundary string, params map[string]string) (*Message, error) {
	mr := multipart.NewReader(pr.src, boundary)
	var (
		parts    []*Attachment
		root     *Attachment
		rootType string
		seen     = make(map[string]bool)
	)
	for n := 1; ; n++ {
		if h := pr.lim.MaxPartHeaderBytes; h > 0 {
			pr.src.guard = pr.src.n + int64(h) + headerSlack
		}
		p, err := mr.NextRawPart()
		pr.src.guard = 0
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, pr.fail(err, "part %d", n)
		}
		if pr.lim.MaxParts > 0 && n > pr.lim.MaxParts {
			return nil, &Fault{Code: CodeSender, Reason: fmt.Sprintf("the package has more than %d parts", pr.lim.MaxParts), Cause: ErrLimit}
		}
		hsize := 0
		for k, vs := range p.Header {
			if checkHeaderName(k) != nil {
				// net/textproto takes names with spaces in them: a header
				// that no part could be written with again
				return nil, malformed("part %d: the header field name %q is not a token", n, k)
			}
			for _, v := range vs {
				hsize += len(k) + len(v) + 4
			}
		}
		if h := pr.lim.MaxPartHeaderBytes; h > 0 && hsize > h {
			return nil, &Fault{Code: CodeSender, Reason: fmt.Sprintf("part %d's header is larger than %d bytes", n, h), Cause: ErrLimit}
		}
		id := normalizeCID(p.Header.Get("Content-Id"))
		if id != "" {
			if seen[id] {
				return nil, malformed("two parts with the Content-ID <%s>", id)
			}
			seen[id] = true
		}
		isRoot := root == nil && (pr.start == "" && n == 1 || pr.start != "" && id == pr.start)
		body, err := transferDecoder(p)
		if err != nil {
			return nil, err
		}
		max := pr.lim.MaxPartBytes
		if isRoot && pr.lim.MaxBytes > 0 && (max == 0 || pr.lim.MaxBytes < max) {
			max = pr.lim.MaxBytes
		}
		a := &Attachment{ID: id, Type: p.Header.Get("Content-Type"), Header: p.Header}
		if err := pr.spool(a, body, max, n, isRoot); err != nil {
			return nil, err
		}
		for _, k := range []string{"Content-Type", "Content-Id", "Content-Transfer-Encoding"} {
			delete(a.Header, k)
		}
		if isRoot {
			root, rootType = a, a.Type
			continue
		}
		parts = append(parts, a)
	}
	if root == nil {
		if pr.start != "" {
			return nil, malformed("the package's start parameter names <%s>, which no part has", pr.start)
		}
		return nil, malformed("the package has no part")
	}
	if rootType == "" {
		rootType = params["type"]
	}
	return pr.envelope(root, rootType, params, parts)
}

// envelope reads the envelope in root.
func (pr *packageReader) envelope(root *Attachment, rootType string, params map[string]string, parts []*Attachment) (*Message, error) {
	rmt, rparams, err := mime.ParseMediaType(rootType)
	if err != nil && err != mime.ErrInvalidMediaParameter {
		return nil, malformed("the root part's Content-Type %q: %v", rootType, err)
	}
	var (
		packaging Packaging
		emt       string // the envelope's media type
		eparams   map[string]string
	)
	switch rmt {
	case MediaTypeXOP:
		packaging = MTOM
		info := rparams["type"]
		if info == "" {
			info = params["start-info"]
		}
		emt, eparams, _ = mime.ParseMediaType(info)
		if eparams == nil {
			eparams = map[string]string{}
		}
		if eparams["action"] == "" && params["start-info"] != "" {
			_, sp, _ := mime.ParseMediaType(params["start-info"])
			eparams["action"] = sp["action"]
		}
	case MediaTypeV11, MediaTypeV12:
		packaging, emt, eparams = SwA, rmt, rparams
		if eparams == nil {
			eparams = map[string]string{}
		}
	default:
		return nil, malformed("the root part is %q, not a SOAP envelope (text/xml, application/soap+xml or application/xop+xml)", rootType)
	}
	var mv Version
	switch emt {
	case MediaTypeV11:
		mv = V11
	case MediaTypeV12:
		mv = V12
	}
	action := eparams["action"]
	if action == "" {
		action = params["action"]
	}
	var m *Message
	charset := rparams["charset"]
	if root.spool != nil {
		m, err = readMessage(CharsetReader(charset, io.NewSectionReader(root.spool.file(), root.off, root.size)), pr.lim)
	} else if cs := strings.ToLower(charset); strings.HasPrefix(cs, "utf-16") {
		m, err = readMessage(CharsetReader(charset, bytes.NewReader(root.data)), pr.lim)
	} else {
		m, err = readMessageBytes(root.data, pr.lim)
	}
	if err != nil {
		return nil, err
	}
	if v := m.Version(); mv != 0 && v != mv {
		return nil, &Fault{Code: CodeVersionMismatch, Version: mv,
			Reason: "a SOAP " + v.String() + " envelope in a root part of type " + mv.MediaType() + ", the SOAP " + mv.String() + " media type (SOAP " + v.String() + " is " + v.MediaType() + ")"}
	}
	if err := m.TakeAction(action, "the root part's action parameter"); err != nil {
		return nil, err
	}
	m.Attachments, m.Packaging = parts, packaging
	if len(pr.spools) > 0 {
		m.pkgState().spools = pr.spools
	}
	if packaging == MTOM {
		m.enableXOP()
		if err := m.resolveHeaderIncludes(parts, pr.lim); err != nil {
			return nil, err
		}
	} else if err := m.refuseHeaderIncludes("an SwA package"); err != nil {
		return nil, err
	}
	return m, nil
}

// transferDecoder returns the decoded bytes of p.
func transferDecoder(p *multipart.Part) (io.Reader, error) {
	switch cte := strings.ToLower(strings.TrimSpace(p.Header.Get("Content-Transfer-Encoding"))); cte {
	case "", "binary", "8bit", "7bit":
		return p, nil
	case "base64":
		return base64Part(p), nil
	case "quoted-printable":
		return quotedprintable.NewReader(p), nil
	default:
		return nil, malformed("a part's Content-Transfer-Encoding %q is not one of binary, 8bit, 7bit, base64, quoted-printable", cte)
	}
}

// spool reads a part's bytes into a: in memory while the package's parts
// held in memory stay within the spool threshold, else into the package's
// temporary file (one for all its parts); more than max bytes (0: no bound)
// is refused.
func (pr *packageReader) spool(a *Attachment, body io.Reader, max int64, n int, isRoot bool) error {
	what := fmt.Sprintf("part %d", n)
	if isRoot {
		what = "the root part"
	}
	tooLarge := func() error {
		return &Fault{Code: CodeSender, Reason: fmt.Sprintf("%s is larger than %d bytes", what, max), Cause: ErrTooLarge}
	}
	mem := int64(-1) // what this part may still hold in memory; -1: no bound
	if t := pr.lim.SpoolThreshold; t > 0 {
		mem = t - pr.mem
		if mem < 0 {
			mem = 0
		}
	}
	if max > 0 && (mem < 0 || max < mem) {
		mem = max // never more than max in memory
	}
	buf := &pr.buf // reused while parts go to the file
	buf.Reset()
	var err error
	switch {
	case mem > 0:
		_, err = buf.ReadFrom(io.LimitReader(body, mem+1))
	case mem < 0:
		_, err = buf.ReadFrom(body)
	}
	if err != nil {
		return pr.fail(err, "%s", what)
	}
	if mem < 0 || mem > 0 && int64(buf.Len()) <= mem {
		a.data, a.size = buf.Bytes(), int64(buf.Len())
		if a.data == nil {
			a.data = []byte{}
		}
		pr.buf = bytes.Buffer{} // a.data keeps its bytes
		pr.mem += a.size
		return nil
	}
	if max > 0 && int64(buf.Len()) > max {
		return tooLarge()
	}
	if pr.file == nil {
		f, err := os.CreateTemp(pr.lim.SpoolDir, "soapwire-package-*")
		if err != nil {
			return &Fault{Code: CodeReceiver, Reason: "the package cannot be spooled", Cause: err}
		}
		pr.file = &spoolFile{f: f, name: f.Name()}
		if os.Remove(f.Name()) == nil {
			pr.file.name = "" // the open file lives on, nothing is left behind
		}
		pr.spools = append(pr.spools, pr.file)
	}
	a.spool, a.off = pr.file, pr.off
	written, err := buf.WriteTo(pr.file.f)
	if err != nil {
		return &Fault{Code: CodeReceiver, Reason: "the package cannot be spooled", Cause: err}
	}
	src := body
	if max > 0 {
		src = io.LimitReader(body, max-written+1)
	}
	k, err := io.Copy(pr.file.f, readOnly{src})
	written += k
	pr.off += written
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return &Fault{Code: CodeReceiver, Reason: "the package cannot be spooled", Cause: err}
		}
		return pr.fail(err, "%s", what)
	}
	if max > 0 && written > max {
		return tooLarge()
	}
	a.size = written
	return nil
}

// readOnly hides a reader's WriteTo, so io.Copy reads it into its buffer
// and the file's own ReadFrom does not see it.
type readOnly struct{ r io.Reader }

func (r readOnly) Read(p []byte) (int, error) { return r.r.Read(p) }

// fail is the fault of err, met reading the package at what.
func (pr *packageReader) fail(err error, format string, args ...any) *Fault {
	where := fmt.Sprintf(format, args...)
	switch {
	case errors.Is(err, errPartBase64):
		return malformed("%s: %v", where, err)
	case pr.src.err != nil && errors.Is(pr.src.err, ErrTooLarge):
		return &Fault{Code: CodeSender, Reason: fmt.Sprintf("the package is larger than %d bytes", pr.lim.MaxPackageBytes), Cause: ErrTooLarge}
	case pr.src.err != nil:
		return &Fault{Code: CodeSender, Reason: fmt.Sprintf("%s: a part's header (or the preamble) is larger than %d bytes", where, pr.lim.MaxPartHeaderBytes), Cause: ErrLimit}
	case pr.src.readErr != nil:
		// the transport failed: not the package's fault
		return &Fault{Code: CodeSender, Reason: "reading the package: " + pr.src.readErr.Error(), Cause: pr.src.readErr}
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return malformed("%s: %v (a package cut off, or never closed)", where, err)
}

// malformed is the Sender fault of a package that is not well formed.
func malformed(format string, args ...any) *Fault {
	reason := "malformed package: " + fmt.Sprintf(format, args...)
	return &Fault{Code: CodeSender, Reason: reason, Cause: fmt.Errorf("%w: %s", ErrMalformed, reason)}
}

// countReader counts what a package's reader takes from the transport and
// stops it at the package's bound, and at a part header's bound while one
// is read (guard).
type countReader struct {
	r       io.Reader
	n       int64
	max     int64 // 0: none
	guard   int64 // 0: none
	err     error // the bound crossed (sticky)
	readErr error // the transport's error, not io.EOF
}

func (c *countReader) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	if c.max > 0 && c.n >= c.max+1 || c.guard > 0 && c.n >= c.guard {
		return 0, c.bound()
	}
	if c.max > 0 && int64(len(p)) > c.max+1-c.n {
		p = p[:c.max+1-c.n]
	}
	if c.guard > 0 && int64(len(p)) > c.guard-c.n {
		p = p[:c.guard-c.n]
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.readErr = err
	}
	if c.max > 0 && c.n > c.max {
		return 0, c.bound()
	}
	return n, err
}

// bound makes the crossed bound's error sticky.
func (c *countReader) bound() error {
	if c.max > 0 && c.n > c.max {
		c.err = fmt.Errorf("core: package: %w", ErrTooLarge)
	} else {
		c.err = fmt.Errorf("core: package: part header: %w", ErrLimit)
	}
	return c.err
}
