package core

import (
	"encoding/xml"
	"fmt"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// The Header's blocks: each kept as namespace-complete XML, and their
// names.

// header reads the Header's blocks, into room while they fit.
func (p *parser) header(room []HeaderBlock) ([]HeaderBlock, error) {
	start := p.r.Offset()
	blocks := room
	from := p.ancestors()
	for {
		t, err := p.structural("Header")
		if err != nil {
			return nil, err
		}
		if err := p.checkSize("the Header", start); err != nil {
			return nil, err
		}
		if t.Kind == xmltok.EndElement {
			keepBlocks(blocks, p.blocks.buf[from:])
			if cap(p.blocks.buf) > maxPooledBuf {
				p.blocks.buf, p.ancKey = nil, p.ancKey[:0] // grown by an unusual Header: let it go
			}
			return blocks, nil
		}
		blocks = append(blocks, HeaderBlock{})
		if err := p.block(t, start, &blocks[len(blocks)-1]); err != nil {
			return nil, err
		}
	}
}

// keepBlocks moves the blocks' XML out of the scratch buffer (where it lies
// in order, one block after the other, from its start) into an arena of
// their own.
func keepBlocks(blocks []HeaderBlock, scratch []byte) {
	if len(blocks) == 0 {
		return
	}
	arena := append([]byte(nil), scratch...)
	off := 0
	for i := range blocks {
		n := len(blocks[i].XML)
		blocks[i].XML = arena[off : off+n : off+n]
		off += n
	}
}

// block reads one header block whose start tag is t into b. b.XML is left
// pointing into the scratch buffer (see keepBlocks).
func (p *parser) block(t *xmltok.Token, start int64, b *HeaderBlock) error {
	if len(t.Name.Space) == 0 {
		return p.sender("header block <%s> is not namespace-qualified", t.Name.Local)
	}
	if err := b.soapAttrs(p.v, t.Attr); err != nil {
		b.Name = xmlName(t.Name)
		return b.soapAttrs(p.v, t.Attr) // again, for the name in the fault
	}
	if n, ok := knownName(t.Name); ok {
		b.Name = n
	} else {
		// named later (names): b.Name stays zero until then
		p.nbuf = append(append(p.nbuf, t.Name.Space...), t.Name.Local...)
		p.nlen = append(p.nlen, len(t.Name.Space), len(t.Name.Local))
	}
	// 1.2 fault headers are folded into the Fault when the body is one:
	// NotUnderstood, and Upgrade (also in a 1.1 envelope, Part 1 Appendix A).
	if p.v == V12 && t.Name.Is(NamespaceV12, "NotUnderstood") {
		q := string(attrValue(t, "", "qname"))
		if n, err := p.qname(q); err == nil {
			p.nu = append(p.nu, n)
		}
	}
	if isInclude(t) {
		b.xop = new(headerXOP)
	}
	upgrade := t.Name.Is(NamespaceV12, "Upgrade")
	if upgrade && p.upg == nil {
		p.upg = []Version{}
	}
	x := &p.blocks
	at := len(x.buf)
	// the start tag, namespace-complete: the declarations in scope on the
	// Header (rendered once) that the block does not make again, then its
	// own and its attributes, as read when the tokenizer has them as they
	// were (Raw)
	n := len(t.Name.Local)
	if len(t.Name.Prefix) > 0 {
		n += len(t.Name.Prefix) + 1
	}
	raw := p.r.Raw()
	if raw != nil {
		x.buf = append(x.buf, raw[:1+n]...)
	} else {
		wOpen(x, t.Name.Prefix, t.Name.Local)
	}
outer:
	for _, a := range p.anc {
		for _, d := range t.NS {
			if string(d.Prefix) == string(x.buf[a.prefix:a.prefixEnd]) {
				continue outer
			}
		}
		x.buf = append(x.buf, x.buf[a.start:a.end]...)
	}
	if raw != nil {
		x.buf = append(x.buf, raw[1+n:]...)
	} else {
		for _, d := range t.NS {
			wDecl(x, d.Prefix, d.URI)
		}
		for _, a := range t.Attr {
			wAttr(x, a.Name.Prefix, a.Name.Local, a.Value)
		}
	}
	depth := p.r.Depth()
	for depth <= p.r.Depth() {
		t, err := p.next()
		if err != nil {
			return err
		}
		if err := p.checkSize("the Header", start); err != nil {
			return err
		}
		if upgrade && t.Kind == xmltok.StartElement && p.r.Depth() == depth+1 && t.Name.Is(NamespaceV12, "SupportedEnvelope") {
			p.supported(t)
		}
		if t.Kind == xmltok.StartElement && b.xop == nil && isInclude(t) {
			b.xop = new(headerXOP) // checked and resolved by ReadPackage, refused elsewhere
		}
		x.rawToken(t, p.r.Raw())
	}
	if m := p.lim.MaxHeaderBytes; m > 0 && int64(len(x.buf)) > maxCompletion*m {
		// each block declares every namespace in scope: bound what that adds
		return &Fault{Code: CodeSender, Version: p.v, Cause: ErrLimit,
			Reason: fmt.Sprintf("the Header's blocks are larger than %d bytes once the namespaces in scope are declared on each", maxCompletion*m)}
	}
	b.XML = x.buf[at:len(x.buf):len(x.buf)]
	return nil
}

// supported reads the SupportedEnvelope element t of an Upgrade block into
// p.upg: the versions whose envelope its qname names (others are not
// versions soapwire has, and are left out).
func (p *parser) supported(t *xmltok.Token) {
	n, err := p.qname(string(attrValue(t, "", "qname")))
	if err != nil || n.Local != "Envelope" {
		return
	}
	switch n.Space {
	case NamespaceV12:
		p.upg = append(p.upg, V12)
	case NamespaceV11:
		p.upg = append(p.upg, V11)
	}
}

// ancDecl is a namespace declaration in scope on the Header, rendered in
// p.blocks.buf: the declaration at [start, end), its prefix at [prefix,
// prefixEnd).
type ancDecl struct{ start, end, prefix, prefixEnd int }

// ancestors renders the namespace declarations in scope on the Header (the
// current position) once, at the start of the scratch buffer, for every
// block's start tag to copy. It returns where the blocks start. When the
// declarations are those of the parser's last envelope (the same service
// called again), the rendering still at the start of the scratch buffer is
// kept.
func (p *parser) ancestors() int {
	x := &p.blocks
	if p.sameAncestors() {
		*x = xmlWriter{buf: x.buf[:p.ancEnd]}
		return p.ancEnd
	}
	*x = xmlWriter{buf: x.buf[:0]}
	if x.buf == nil {
		x.buf = make([]byte, 0, 1024)
	}
	p.anc = p.anc0[:0]
	for _, d := range p.r.Scope() {
		a := ancDecl{start: len(x.buf), prefix: len(x.buf) + len(" xmlns:")}
		wDecl(x, d.Prefix, d.URI)
		a.end, a.prefixEnd = len(x.buf), a.prefix+len(d.Prefix)
		if len(d.Prefix) == 0 {
			a.prefix, a.prefixEnd = 0, 0
		}
		p.anc = append(p.anc, a)
	}
	p.ancKey = p.ancKey[:0]
	for _, d := range p.r.Bindings() {
		p.ancKey = append(append(append(append(p.ancKey, d.Prefix...), 0), d.URI...), 0)
	}
	p.ancEnd = len(x.buf)
	return p.ancEnd
}

// sameAncestors reports whether the declarations in effect are those
// ancKey holds (prefix, NUL, URI, NUL for each: neither holds a NUL).
func (p *parser) sameAncestors() bool {
	k := p.ancKey
	if len(k) == 0 || cap(p.blocks.buf) < p.ancEnd {
		return false
	}
	for _, d := range p.r.Bindings() {
		n := len(d.Prefix) + len(d.URI) + 2
		if len(k) < n || string(k[:len(d.Prefix)]) != string(d.Prefix) || k[len(d.Prefix)] != 0 ||
			string(k[len(d.Prefix)+1:n-1]) != string(d.URI) || k[n-1] != 0 {
			return false
		}
		k = k[n:]
	}
	return len(k) == 0
}

// maxCompletion bounds the header blocks' XML, once namespace-complete, to
// this many times MaxHeaderBytes.
const maxCompletion = 8

// xmlName copies a token's name into an xml.Name, in one allocation, none
// for the WS-Addressing headers.
func xmlName(n xmltok.Name) xml.Name {
	if k, ok := knownName(n); ok {
		return k
	}
	s := string(n.Space) + string(n.Local)
	return xml.Name{Space: s[:len(n.Space)], Local: s[len(n.Space):]}
}

// knownName returns the name of a WS-Addressing header as constants.
func knownName(n xmltok.Name) (xml.Name, bool) {
	if string(n.Space) == NamespaceAddressing {
		switch string(n.Local) {
		case "To", "Action", "MessageID", "RelatesTo", "ReplyTo", "FaultTo":
			return xml.Name{Space: NamespaceAddressing, Local: known(n.Local)}, true
		}
	}
	return xml.Name{}, false
}

// names names the header blocks read without a name (block), and the
// body's first child n when not nil, from one string.
func (p *parser) names(blocks []HeaderBlock, n *xmltok.Name) xml.Name {
	var body xml.Name
	at := len(p.nbuf)
	if n != nil {
		if k, ok := knownName(*n); ok {
			body, n = k, nil
		} else {
			p.nbuf = append(append(p.nbuf, n.Space...), n.Local...)
		}
	}
	if len(p.nbuf) == 0 {
		return body
	}
	all := p.intern(p.nbuf)
	if n != nil {
		body = xml.Name{Space: all[at : at+len(n.Space)], Local: all[at+len(n.Space):]}
	}
	off, j := 0, 0
	for i := range blocks {
		if j == len(p.nlen) {
			break
		}
		b := &blocks[i]
		if b.Name.Local != "" {
			continue
		}
		sl, ll := p.nlen[j], p.nlen[j+1]
		b.Name = xml.Name{Space: all[off : off+sl], Local: all[off+sl : off+sl+ll]}
		off, j = off+sl+ll, j+2
	}
	return body
}
