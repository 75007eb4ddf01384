package core

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net/textproto"
	"net/url"
	"os"
	"strings"
	"sync"
)

// Attachment is one MIME part of a package besides the root part (the
// SOAP envelope): an MTOM/XOP part an xop:Include names, or an SwA part.
//
// A part read by ReadPackage is held in memory up to Limits.SpoolThreshold
// and in a temporary file beyond it; Open may be called any number of
// times, also at once, until the Message is closed (Message.Close). An
// outbound one is built by NewAttachment (bytes streamed from a func when
// the message is written) or BytesAttachment.
type Attachment struct {
	ID     string               // Content-ID without the angle brackets (a cid: URL names it, %-unescaped)
	Type   string               // Content-Type of the part, with parameters ("" is application/octet-stream)
	Header textproto.MIMEHeader // other part headers: as read; extra ones to write

	data  []byte     // in memory (not nil for a part held in memory, even empty)
	spool *spoolFile // the package's temporary file
	off   int64      // where the part is in it
	open  func() (io.ReadCloser, error)
	size  int64
	// binary: a Binary stands for it (AttachBinary): under Inline it is
	// written inline, in the body, and needs no part
	binary bool
	// read: a part read from a package (ReadPackage)
	read bool
}

// NewAttachment returns an attachment of the given Content-Type whose bytes
// open returns when the message is written (once per write), with a fresh
// Content-ID. size is its length in bytes, -1 if unknown; a known size
// that open's bytes do not match fails the write.
func NewAttachment(contentType string, open func() (io.ReadCloser, error), size int64) *Attachment {
	if size < 0 {
		size = -1
	}
	return &Attachment{ID: NewContentID(), Type: contentType, open: open, size: size}
}

// BytesAttachment returns an attachment holding data (not copied: it must
// not change until the message is written), with a fresh Content-ID.
func BytesAttachment(contentType string, data []byte) *Attachment {
	if data == nil {
		data = []byte{}
	}
	return &Attachment{ID: NewContentID(), Type: contentType, data: data, size: int64(len(data))}
}

// NewContentID returns a fresh Content-ID (without angle brackets): 32
// random hex digits @soapwire, an RFC 2392 addr-spec that needs no
// escaping in a cid: URL.
func NewContentID() string {
	var b [16]byte
	rand.Read(b[:])
	const hex = "0123456789abcdef"
	out := make([]byte, 0, 32+len("@soapwire"))
	for _, c := range b {
		out = append(out, hex[c>>4], hex[c&0x0f])
	}
	return string(append(out, "@soapwire"...))
}

// ErrAttachmentClosed is the error of Open on a part read from a package
// once its Message was closed: its spool file is gone.
var ErrAttachmentClosed = errors.New("core: attachment: its message was closed")

// Open returns the attachment's bytes. For a part read from a package it
// may be called more than once, and at once from several goroutines; for
// one built by NewAttachment it calls the open func.
func (a *Attachment) Open() (io.ReadCloser, error) {
	switch {
	case a == nil:
		return nil, errors.New("core: attachment: nil")
	case a.spool != nil:
		f := a.spool.file()
		if f == nil {
			return nil, ErrAttachmentClosed
		}
		return io.NopCloser(io.NewSectionReader(f, a.off, a.size)), nil
	case a.data != nil:
		return io.NopCloser(bytes.NewReader(a.data)), nil
	case a.open != nil:
		return a.open()
	}
	return nil, errors.New("core: attachment: it has no content")
}

// Size returns the attachment's length in bytes, -1 if unknown.
func (a *Attachment) Size() int64 {
	if a == nil {
		return -1
	}
	return a.size
}

// Spooled reports whether the part is held in a temporary file (a part
// ReadPackage read beyond Limits.SpoolThreshold).
func (a *Attachment) Spooled() bool { return a != nil && a.spool != nil }

// contentType is the Content-Type to write for a.
func (a *Attachment) contentType() string {
	if a.Type == "" {
		return "application/octet-stream"
	}
	return a.Type
}

// spoolFile is a temporary file holding the parts of a package beyond the
// spool threshold, one after the other (or one decoded Binary value). It is removed from its
// folder as soon as it is written where the system allows it (the open
// file lives on until closed: nothing is left behind, even by a process
// that dies), else when the message is closed.
type spoolFile struct {
	mu   sync.Mutex
	f    *os.File
	name string // still to remove at close ("" once removed)
}

func (s *spoolFile) file() *os.File {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f
}

// close closes and, if still there, removes the file.
func (s *spoolFile) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.f != nil {
		err = s.f.Close()
		s.f = nil
	}
	if s.name != "" {
		if rerr := os.Remove(s.name); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
		s.name = ""
	}
	return err
}

// normalizeCID returns the Content-ID id names: "cid:" URLs %-unescaped
// (RFC 2392), angle brackets removed.
func normalizeCID(id string) string {
	id = strings.TrimSpace(id)
	if len(id) >= 4 && strings.EqualFold(id[:4], "cid:") {
		id = id[4:]
		if u, err := url.PathUnescape(id); err == nil {
			id = u
		}
	}
	if len(id) >= 2 && id[0] == '<' && id[len(id)-1] == '>' {
		id = id[1 : len(id)-1]
	}
	return id
}

// Attachment returns the attachment whose Content-ID is id (with or without
// "cid:" and angle brackets), nil if none.
func (m *Message) Attachment(id string) *Attachment {
	if m == nil {
		return nil
	}
	id = normalizeCID(id)
	for _, a := range m.Attachments {
		if a != nil && a.ID == id {
			return a
		}
	}
	return nil
}

// Close releases what reading m from a package holds: its spool files are
// closed and removed (Open on its parts then fails with
// ErrAttachmentClosed). It is idempotent, and a no-op for a message built in
// memory. core.Serve calls it once a delivery is settled; the request-reply
// bindings once the reply is written.
func (m *Message) Close() error {
	if m == nil || m.pkg == nil {
		return nil
	}
	var errs []error
	for _, s := range m.pkg.spools {
		if err := s.close(); err != nil {
			errs = append(errs, err)
		}
	}
	m.pkg.spools = nil
	return errors.Join(errs...)
}
