package main

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

// sniffSize is how much of the input send looks at to find the root
// element: the prolog (XML declaration, comments) must end within it.
const sniffSize = 64 << 10

// payload is what send read: an envelope to send as it is, or a document
// to wrap in one.
type payload struct {
	envelope *core.Message // the input is a SOAP 1.1 or 1.2 envelope
	root     xml.Name      // else: the document's root element
	doc      io.Reader     // and the document from its root element on (prolog left out)
}

// Errors of reading the input of send.
var (
	errEmptyInput = errors.New("the input is empty")
	errNoRoot     = errors.New("no XML element found")
	errNotUTF8    = errors.New("only UTF-8 documents (or UTF-16 with a byte order mark) can be sent")
	errDoctype    = errors.New("a DOCTYPE is not allowed in SOAP")
	errProcInst   = errors.New("a processing instruction is not allowed in SOAP")
)

// sniff looks at the start of r: a SOAP envelope (its root element is
// Envelope in the 1.1 or 1.2 namespace) is read with core.ReadMessage, its
// body left to stream; anything else is a document whose prolog (byte
// order mark, XML declaration, comments) is dropped, since a Body cannot
// hold it. Envelopes are read with the default limits but for the size:
// the input is the user's own file.
func sniff(r io.Reader) (*payload, error) {
	br := bufio.NewReaderSize(r, sniffSize)
	head, err := br.Peek(sniffSize)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if len(head) == 0 {
		return nil, errEmptyInput
	}
	if bytes.HasPrefix(head, []byte{0xFE, 0xFF}) || bytes.HasPrefix(head, []byte{0xFF, 0xFE}) {
		return sniffUTF16(br)
	}
	bom := 0
	if bytes.HasPrefix(head, []byte{0xEF, 0xBB, 0xBF}) {
		bom = 3
	}
	root, off, err := findRoot(head[bom:], len(head) < sniffSize)
	if err != nil {
		return nil, err
	}
	off += bom
	if (root.Space == core.NamespaceV11 || root.Space == core.NamespaceV12) && root.Local == "Envelope" {
		m, err := core.ReadMessage(br, sendLimits())
		if err != nil {
			return nil, fmt.Errorf("reading the envelope: %w", err)
		}
		return &payload{envelope: m}, nil
	}
	if _, err := br.Discard(off); err != nil {
		return nil, err
	}
	return &payload{root: root, doc: br}, nil
}

// sniffUTF16 reads a UTF-16 input (r starts with its byte order mark) the
// way document.Send reads a UTF-16 document: transcoded to UTF-8, its
// prolog checked and dropped; what follows is sniffed as UTF-8, so an
// envelope is sent as it is and anything else is wrapped.
func sniffUTF16(r io.Reader) (*payload, error) {
	body, err := document.NewBody(r)
	if err != nil {
		return nil, fmt.Errorf("reading the UTF-16 input: %w", err)
	}
	pr, pw := io.Pipe()
	go func() {
		_, err := body.WriteTo(pw)
		pw.CloseWithError(err)
	}()
	p, err := sniff(pr)
	if err != nil {
		pr.CloseWithError(err) // ends the transcoding goroutine
		return nil, err
	}
	return p, nil
}

// sendLimits are the limits envelopes given to send are read with.
func sendLimits() core.Limits { return core.Limits{MaxBytes: -1} }

// findRoot returns the name of the first element in head and the offset
// where its start tag begins. complete says head is the whole input.
func findRoot(head []byte, complete bool) (xml.Name, int, error) {
	d := xml.NewDecoder(bytes.NewReader(head))
	first := true
	for {
		off := int(d.InputOffset())
		tok, err := d.Token()
		if err != nil {
			switch {
			case errors.Is(err, io.EOF) || (!complete && errors.Is(err, io.ErrUnexpectedEOF)):
				if complete {
					return xml.Name{}, 0, errNoRoot
				}
				return xml.Name{}, 0, fmt.Errorf("%w in the first %d KiB", errNoRoot, sniffSize>>10)
			case strings.Contains(err.Error(), "CharsetReader"):
				return xml.Name{}, 0, fmt.Errorf("%w: %v", errNotUTF8, err)
			}
			return xml.Name{}, 0, fmt.Errorf("not XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return t.Name, off, nil
		case xml.Directive:
			return xml.Name{}, 0, errDoctype
		case xml.ProcInst:
			if t.Target != "xml" || !first {
				return xml.Name{}, 0, fmt.Errorf("%w: <?%s …?>", errProcInst, t.Target)
			}
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return xml.Name{}, 0, errors.New("not XML: text before the root element")
			}
		}
		first = false
	}
}

// checkPrefix is the envelope prefix of the wrapper checkDocument reads a
// document in; unlikely to collide with the document's own.
const checkPrefix = "soapwire-check"

// checkDocument reads a document (its root element on) the way a peer's
// soapwire reads a Body, with core's strict reader and default limits but
// for the size, and returns the refusal as an error.
func checkDocument(r io.Reader) error {
	open := `<` + checkPrefix + `:Envelope xmlns:` + checkPrefix + `="` + core.NamespaceV12 + `"><` + checkPrefix + `:Body>`
	closing := `</` + checkPrefix + `:Body></` + checkPrefix + `:Envelope>`
	env, err := core.ReadEnvelope(io.MultiReader(strings.NewReader(open), r, strings.NewReader(closing)), sendLimits())
	if err == nil {
		err = env.Body.Discard()
	}
	if err != nil {
		return fmt.Errorf("the document is not XML a SOAP Body can hold: %s", documentReason(core.FaultOf(err).Reason, len(open)))
	}
	return nil
}

// atByte is how core's reasons say where in the envelope a problem is.
var atByte = regexp.MustCompile(`\(at byte (\d+)\)`)

// documentReason rewrites a reason about the wrapper envelope as one about
// the document: its offsets counted from the document's root element.
func documentReason(reason string, wrapper int) string {
	reason = strings.TrimPrefix(reason, "malformed envelope: ")
	return atByte.ReplaceAllStringFunc(reason, func(m string) string {
		n, err := strconv.Atoi(atByte.FindStringSubmatch(m)[1])
		if err != nil || n < wrapper {
			return m
		}
		return fmt.Sprintf("(at byte %d of the root element)", n-wrapper)
	})
}

// copyChecked copies the document src to w while checkDocument reads the
// same bytes; it stops at the first refusal, so a malformed document is an
// error of the send (the bindings then send nothing, or abort what they
// started).
func copyChecked(w io.Writer, src io.Reader) error {
	pr, pw := io.Pipe()
	verdict := make(chan error, 1)
	go func() {
		err := checkDocument(pr)
		verdict <- err
		_, _ = io.Copy(io.Discard, pr) // keep the copy below from blocking
	}()
	buf := make([]byte, 32<<10)
	var copyErr, checkErr error
	checked := false
loop:
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				copyErr = err
				break
			}
			if _, err := pw.Write(buf[:n]); err != nil {
				copyErr = err
				break
			}
		}
		select {
		case checkErr = <-verdict:
			checked = true
			if checkErr != nil {
				break loop
			}
		default:
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			copyErr = rerr
			break
		}
	}
	if copyErr != nil {
		pw.CloseWithError(copyErr)
	} else {
		pw.Close()
	}
	if !checked {
		checkErr = <-verdict
	}
	if copyErr != nil {
		return copyErr
	}
	return checkErr
}
