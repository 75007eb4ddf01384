package core

import (
	"fmt"
	"io"
)

// xop:Include in header blocks. MTOM optimizes any base64Binary element
// of the envelope, header blocks included (a WS-Security token, a
// signature's value). A header block is held as its XML, read whole before
// the body, so its includes are checked when the package is read, by the
// rules of the body's (XOP 1.0 §3.2), and stay in its XML as they were:
// HeaderBlock.Decode takes a Binary holding one as its part, and the block
// is written as it is, so its message must be written as MTOM (the parts
// it names carried as a body's are). Rewriting the block into inline base64
// would hold a part's base64 in memory: a block read with an include is
// not written under SwA or Inline (decode it and build a new block).
//
// Outside an MTOM package (an envelope alone, SwA), a header block holding
// an xop:Include is refused when the message is read, as the body's is
// when it is read.

// headerXOP is what a header block read with an xop:Include in it keeps:
// the MTOM message it was read from (nil until ReadPackage checked its
// includes), the package's parts and the parts its includes name.
type headerXOP struct {
	msg   *Message
	parts []*Attachment
	named []*Attachment
	lim   Limits // the limits the package was read with
}

// refuseHeaderIncludes refuses a message read outside an MTOM package whose
// header blocks hold an xop:Include; the body's stream is released.
func (m *Message) refuseHeaderIncludes(what string) error {
	if m.Envelope == nil {
		return nil
	}
	for i := range m.Envelope.Headers {
		if b := &m.Envelope.Headers[i]; b.xop != nil {
			f := &Fault{Code: CodeSender, Version: m.Version(),
				Reason: fmt.Sprintf("header block %s: an xop:Include in %s, not an XOP package (MTOM)", qnameString(b.Name), what)}
			m.releaseBody(f)
			return f
		}
	}
	return nil
}

// releaseBody gives a refused message's tokenizer back.
func (m *Message) releaseBody(err error) {
	if s := m.Envelope.Body.src; s != nil && s.in != nil && !s.in.done && s.in.err == nil {
		s.in.fail(err)
	}
}

// resolveHeaderIncludes checks the includes of m's header blocks (m read
// from an MTOM package with parts) as the body's are checked, and notes
// the parts each names.
func (m *Message) resolveHeaderIncludes(parts []*Attachment, lim Limits) error {
	// the blocks were read within lim; namespace-complete, a block's start
	// tag also declares what the Envelope and the Header declared
	flim := lim
	if flim.MaxNSDecls > 0 {
		flim.MaxNSDecls *= 3
	}
	if flim.MaxHeaderBytes > 0 {
		flim.MaxHeaderBytes *= maxCompletion
	}
	for i := range m.Envelope.Headers {
		b := &m.Envelope.Headers[i]
		if b.xop == nil {
			continue
		}
		in := newFragmentLim(b.XML, flim)
		in.v, in.msg = m.Version(), m
		var named []*Attachment
		in.xop = &xopState{beside: -1, parts: parts, discard: true, block: true, named: &named}
		for {
			_, _, err := in.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				f := FaultOf(err)
				if f == nil || f.Code != CodeSender {
					f = &Fault{Code: CodeSender, Version: m.Version(), Reason: err.Error(), Cause: err}
				}
				f = &Fault{Code: f.Code, Version: m.Version(), Reason: "header block " + qnameString(b.Name) + ": " + f.Reason, Cause: err}
				m.releaseBody(f)
				return f
			}
		}
		b.xop = &headerXOP{msg: m, parts: parts, named: named, lim: lim}
	}
	return nil
}

// blockIncludes lets a header block read with includes be written into the
// envelope x writes: only as MTOM, the parts it names carried.
func (x *xmlWriter) blockIncludes(b *HeaderBlock) error {
	if x.msg == nil || x.msg.Packaging != MTOM {
		p := "no package"
		if x.msg != nil {
			p = "Packaging " + x.msg.Packaging.String()
		}
		return fmt.Errorf("core: header block %s holds an xop:Include: it is written as read, so only into an MTOM package (%s); decode it and build a new block to send it otherwise", qnameString(b.Name), p)
	}
	for _, a := range b.xop.named {
		x.carry(a)
	}
	return nil
}

// contextReader is the CharsetReader HeaderBlock.Decode gives its decoder:
// a Binary being decoded learns the block's parts.
func (h *headerXOP) contextReader() func(string, io.Reader) (io.Reader, error) {
	return func(label string, r io.Reader) (io.Reader, error) {
		if c, ok := r.(*binaryContext); ok && label == binaryContextLabel {
			c.hdr, c.lim = h, h.lim
			return c, nil
		}
		return nil, fmt.Errorf("core: header block: charset %q", label)
	}
}
