package document

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"

	"github.com/soapwire/soapwire/core"
)

// NewBody turns a document into the Body of a message, as Send does: doc is
// as for NewMessage. The prolog of a []byte, string or io.Reader document
// (a byte order mark, the XML declaration, comments, whitespace: what
// precedes the root element) is dropped, since a SOAP Body cannot hold it,
// and checked now: a DOCTYPE, a processing instruction, an encoding other
// than UTF-8 (or UTF-16 with a byte order mark, which is transcoded to
// UTF-8), text before the root element or a prolog over MaxProlog is a
// *PrologError (ErrProlog). A reader is read up to its root element only;
// the rest streams when the message is written.
//
// Use it to refuse a bad document before a message is built, when the
// message goes out through something other than Send (a Correlator's
// RoundTrip, an Incoming.Reply): NewMessage cannot return an error, so it
// checks the prolog only when the message is written.
func NewBody(doc any) (core.Body, error) {
	switch d := doc.(type) {
	case []byte:
		raw, err := stripBytes(d)
		if err != nil {
			return core.Body{}, err
		}
		return core.RawBody(raw), nil
	case string:
		return NewBody([]byte(d))
	case io.Reader:
		rest, err := stripStream(d)
		if err != nil {
			return core.Body{}, err
		}
		return copyBody(rest), nil
	}
	return bodyOf(doc), nil
}

// bodyOf is NewMessage's body: as NewBody, but a reader's prolog is read
// and checked only when the body is written, and a refusal is the error of
// writing it.
func bodyOf(doc any) core.Body {
	switch d := doc.(type) {
	case nil:
		return core.Body{}
	case core.Body:
		return d
	case []byte, string:
		b, err := NewBody(d)
		if err != nil {
			return core.StreamBody(xml.Name{}, func(io.Writer) error { return err })
		}
		return b
	case io.Reader:
		return core.StreamBody(xml.Name{}, func(w io.Writer) error {
			rest, err := stripStream(d)
			if err != nil {
				return err
			}
			_, err = io.Copy(w, rest)
			return err
		})
	}
	return core.ValueBody(doc)
}

// copyBody streams r into the Body.
func copyBody(r io.Reader) core.Body {
	return core.StreamBody(xml.Name{}, func(w io.Writer) error {
		_, err := io.Copy(w, r)
		return err
	})
}

// stripBytes returns doc from its root element on (nil for a document of
// whitespace only), having checked its prolog.
func stripBytes(doc []byte) ([]byte, error) {
	if len(doc) > 1 && doc[0] == '<' && isNameStart(doc[1]) {
		return doc, nil // no prolog: the common case, without a reader
	}
	if bytes.HasPrefix(doc, bomUTF16BE) || bytes.HasPrefix(doc, bomUTF16LE) {
		rest, err := stripStream(bytes.NewReader(doc))
		if err != nil {
			return nil, err
		}
		raw, err := io.ReadAll(rest)
		if err != nil {
			return nil, err
		}
		if len(raw) == 0 {
			return nil, nil
		}
		return raw, nil
	}
	p := &prolog{}
	if bytes.HasPrefix(doc, bomUTF8) {
		p.off = int64(len(bomUTF8))
	}
	p.limit = p.off + MaxProlog
	p.br = bufio.NewReaderSize(bytes.NewReader(doc[p.off:]), 64)
	found, err := p.scan()
	if err != nil || !found {
		return nil, err
	}
	return doc[p.off:], nil
}

// stripStream returns r from its root element on (an empty reader for a
// document of whitespace only), having read and checked its prolog: at most
// MaxProlog bytes past the byte order mark, plus what the buffer holds.
func stripStream(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, err := br.Peek(len(bomUTF8))
	if err != nil && len(head) < len(bomUTF8) && !isEOF(err) {
		return nil, readError(err)
	}
	p := &prolog{}
	switch {
	case bytes.HasPrefix(head, bomUTF8):
		p.off = int64(len(bomUTF8))
	case bytes.HasPrefix(head, bomUTF16BE), bytes.HasPrefix(head, bomUTF16LE):
		big := head[0] == bomUTF16BE[0]
		p.off, p.utf16 = 2, "UTF-16LE"
		if big {
			p.utf16 = "UTF-16BE"
		}
		_, _ = br.Discard(2)
		br = bufio.NewReader(newUTF16Reader(br, big))
	}
	if p.utf16 == "" {
		_, _ = br.Discard(int(p.off))
	}
	p.br, p.limit = br, p.off+MaxProlog
	found, err := p.scan()
	if err != nil {
		return nil, err
	}
	if !found {
		return bytes.NewReader(nil), nil
	}
	return br, nil
}

func isEOF(err error) bool { return err == io.EOF || err == io.ErrUnexpectedEOF }
