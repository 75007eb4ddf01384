package drop

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/textproto"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// A message with attachments (Packaging MTOM or SwA) is one MIME file, so
// that the Sender's rename still makes the whole message appear at once:
//
//	MIME-Version: 1.0
//	Content-Type: <m.ContentType(): multipart/related; type=...; boundary=...; start=...>
//	<empty line>
//	<the package, as core writes it>
//
// A file whose first byte (after white space) is '<', or that starts with
// a byte order mark, is a plain envelope, as before packages; a file that
// starts with a header field ("Name:") is a MIME file, read with
// core.ReadPackage and its Content-Type (a MIME file of type text/xml,
// application/soap+xml or application/xml holds a plain envelope in that
// charset; another type is refused). A MIME file looks finished when it ends with its package's
// closing delimiter ("--boundary--", then only white space) where a plain
// one needs its Envelope end tag.

// MaxFileHeaderBytes bounds the header of a MIME file.
const MaxFileHeaderBytes = 16 << 10

// headLen is how much of a file's start decides its form.
const headLen = 512

// MIMEHeader returns the header a message's file starts with: "" for a
// message written as a plain envelope (Packaging Inline).
func MIMEHeader(m *core.Message) string {
	if m.Packaging != core.MTOM && m.Packaging != core.SwA {
		return ""
	}
	return "MIME-Version: 1.0\r\nContent-Type: " + m.ContentType() + "\r\n\r\n"
}

// isMIME reports whether a file starting with head is a MIME file: it
// starts with a header field name and its colon, not with '<' or a byte
// order mark (after white space).
func isMIME(head []byte) bool {
	for _, bom := range [][]byte{{0xef, 0xbb, 0xbf}, {0xfe, 0xff}, {0xff, 0xfe}} {
		if bytes.HasPrefix(head, bom) {
			return false
		}
	}
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] == '<' {
		return false
	}
	for i, c := range head {
		switch {
		case c == ':':
			return i > 0
		case c <= ' ' || c >= 0x7f:
			return false
		}
	}
	return false
}

// fileHeader reads a MIME file's header from r (at most MaxFileHeaderBytes)
// and returns its Content-Type and a reader of what follows it.
func fileHeader(r io.Reader) (string, io.Reader, error) {
	lr := &io.LimitedReader{R: r, N: MaxFileHeaderBytes}
	br := bufio.NewReaderSize(lr, 4096)
	h, err := textproto.NewReader(br).ReadMIMEHeader()
	switch {
	case err != nil && lr.N == 0:
		return "", nil, &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf("the file's MIME header is larger than %d bytes", MaxFileHeaderBytes), Cause: core.ErrLimit}
	case err != nil:
		return "", nil, malformedFile("its MIME header cannot be read: %v", err)
	}
	ct := h.Get("Content-Type")
	if ct == "" {
		return "", nil, malformedFile("a MIME file without a Content-Type")
	}
	return ct, io.MultiReader(br, r), nil
}

// malformedFile is the Sender fault of a MIME file that is not well formed.
func malformedFile(format string, args ...any) *core.Fault {
	reason := "malformed MIME file: " + fmt.Sprintf(format, args...)
	return &core.Fault{Code: core.CodeSender, Reason: reason, Cause: fmt.Errorf("%w: %s", core.ErrMalformed, reason)}
}

// readFile reads the message a file holds, plain or MIME (see above).
func readFile(r io.Reader, head []byte, lim core.Limits) (*core.Message, error) {
	if !isMIME(head) {
		return core.ReadMessage(r, lim)
	}
	ct, rest, err := fileHeader(r)
	if err != nil {
		return nil, err
	}
	switch mt, _, _ := mime.ParseMediaType(ct); mt {
	case core.MediaTypeMultipartRel, core.MediaTypeV11, core.MediaTypeV12, "application/xml":
	default:
		return nil, malformedFile("its Content-Type %q is not multipart/related, text/xml or application/soap+xml", ct)
	}
	return core.ReadPackage(rest, ct, lim)
}

// packageEnd returns the closing delimiter of the package a MIME file
// starting with head holds ("--boundary--"), "" when it holds none (the
// header unreadable in head, or not multipart).
func packageEnd(head []byte) string {
	ct, _, err := fileHeader(bytes.NewReader(head))
	if err != nil {
		return ""
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return ""
	}
	return "--" + params["boundary"] + "--"
}

// endsWithDelimiter reports whether tail ends, but for white space, with
// end on a line of its own.
func endsWithDelimiter(tail []byte, end string) bool {
	tail = bytes.TrimRight(tail, " \t\r\n")
	if !bytes.HasSuffix(tail, []byte(end)) {
		return false
	}
	before := tail[:len(tail)-len(end)]
	return len(before) == 0 || before[len(before)-1] == '\n'
}

// fileBounds are the bounds of a file by its form: a plain envelope
// within Limits.MaxBytes, a MIME file within Limits.MaxPackageBytes and
// its header (-1: none).
type fileBounds struct {
	plain, mime int64
}

// boundsOf resolves l's bounds on files as core reads them: MaxBytes
// (default 16 MiB), MaxPackageBytes (default 4 × MaxBytes, none when
// MaxBytes is off).
func boundsOf(l core.Limits) fileBounds {
	plain := l.MaxBytes
	switch {
	case plain == 0:
		plain = core.DefaultLimits().MaxBytes
	case plain < 0:
		plain = -1
	}
	pkg := l.MaxPackageBytes
	switch {
	case pkg == 0 && plain > 0:
		pkg = 4 * plain
	case pkg <= 0:
		pkg = -1
	}
	if pkg > 0 {
		pkg += MaxFileHeaderBytes
	}
	return fileBounds{plain: plain, mime: pkg}
}

// max is the larger bound, the one a listed size is held to before the
// form is known (-1: none).
func (b fileBounds) max() int64 {
	if b.plain < 0 || b.mime < 0 {
		return -1
	}
	return max(b.plain, b.mime)
}

// of is the bound of a file starting with head.
func (b fileBounds) of(head []byte) int64 {
	if isMIME(head) {
		return b.mime
	}
	return b.plain
}
