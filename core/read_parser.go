package core

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmltok"
	"github.com/soapwire/soapwire/core/internal/xmlvalue"
)

// The parser: what reading one envelope keeps, and the token-level
// primitives every part of the reading uses.

// newParser returns the parser kept with the tokenizer r (its Aux), set to
// read one envelope (into a readState: see attach): it is recycled with r,
// so nothing may use it once it has released r.
func newParser(r *xmltok.Reader, lim Limits) *parser {
	p, _ := r.Aux.(*parser)
	if p == nil {
		p = new(parser)
		r.Aux = p
	}
	p.st, p.r, p.lim, p.v, p.faultStart = nil, r, lim, 0, 0
	if p.nu != nil || p.upg != nil {
		p.nu, p.upg = nil, nil
	}
	p.nbuf, p.nlen = p.nbuf[:0], p.nlen[:0]
	return p
}

// attach makes st the readState p reads into, and p st's parser.
func (p *parser) attach(st *readState) {
	p.st, st.p = st, p
}

type parser struct {
	st         *readState
	r          *xmltok.Reader // nil once the envelope is read to its end (or refused)
	lim        Limits
	v          Version
	faultStart int64
	nu         []xml.Name // 1.2 NotUnderstood blocks, for a fault body
	upg        []Version  // the envelopes an Upgrade block lists (non-nil once one is read), for a VersionMismatch fault body
	// the header blocks' XML, one after the other, behind the declarations
	// in scope on the Header: a scratch buffer kept with the parser, copied
	// into one exactly sized arena at the Header's end
	blocks xmlWriter
	anc    []ancDecl // the declarations in scope on the Header
	anc0   [4]ancDecl
	// the names of the header blocks not named yet, space then local, one
	// after the other, and their lengths: they are made strings all at once
	// with the body's (see names)
	nbuf []byte
	nlen []int
	// the strings names made last (see intern)
	interned [4]string
	internAt uint8
	// the declarations ancestors rendered last (see sameAncestors), and
	// where their rendering ends in blocks.buf
	ancKey []byte
	ancEnd int
	// Body.Decode's plans (xmlvalue), and its buffer for elements' text,
	// kept from one envelope to the next
	plans xmlvalue.Cache
	dtext []byte
}

// release hands the tokenizer, and with it the parser, back once the
// envelope has been read to its end or refused: nothing reads either again.
// Only the owner calls it (the readState's p, the body's in.p, both cleared
// here, or the parser's own code before it returns).
func (p *parser) release() {
	r, st := p.r, p.st
	if r == nil {
		return
	}
	if st != nil {
		st.p = nil
		if st.in.p == p {
			st.in.r, st.in.p = nil, nil
		}
	}
	p.r, p.st = nil, nil
	r.Release()
}

func (p *parser) sender(format string, args ...any) *Fault {
	return &Fault{Code: CodeSender, Version: p.v, Reason: fmt.Sprintf(format, args...)}
}

// wrap turns a tokenizer error into a Sender fault.
func (p *parser) wrap(err error) error {
	var f *Fault
	if errors.As(err, &f) {
		return f
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	reason := "malformed envelope: " + err.Error()
	if errors.Is(err, ErrTooLarge) {
		reason = fmt.Sprintf("the envelope is larger than %d bytes", p.lim.MaxBytes)
	}
	return &Fault{Code: CodeSender, Version: p.v, Reason: reason, Cause: err}
}

func (p *parser) next() (*xmltok.Token, error) {
	t, err := p.r.Next()
	if err != nil {
		return nil, p.wrap(err)
	}
	return t, nil
}

func (p *parser) checkSize(what string, start int64) error {
	if p.lim.MaxHeaderBytes > 0 && p.r.Offset()-start > p.lim.MaxHeaderBytes {
		return &Fault{Code: CodeSender, Version: p.v, Reason: fmt.Sprintf("%s is larger than %d bytes", what, p.lim.MaxHeaderBytes), Cause: ErrLimit}
	}
	return nil
}

// structural returns the next element token at the current level, skipping
// whitespace and comments; text is refused with "text directly in <where>".
func (p *parser) structural(where string) (*xmltok.Token, error) {
	for {
		t, err := p.next()
		if err != nil {
			return nil, err
		}
		switch t.Kind {
		case xmltok.CharData:
			if !xmltok.IsSpace(t.Text) {
				return nil, p.sender("text directly in the %s", where)
			}
		case xmltok.Comment:
		default:
			return t, nil
		}
	}
}

// intern returns b as a string: one of the last few it made when equal to
// b (a service's messages name the same operations and header blocks over
// and over), else a new one, kept in place of the oldest. Names longer
// than internMax are not kept.
func (p *parser) intern(b []byte) string {
	for _, s := range p.interned {
		if s == string(b) {
			return s
		}
	}
	s := string(b)
	if len(s) <= internMax {
		p.interned[p.internAt%uint8(len(p.interned))] = s
		p.internAt++
	}
	return s
}

// internMax is the longest string intern keeps.
const internMax = 256

// known returns the constant equal to b among the names and URIs the core
// meets often, or a copy of b.
func known(b []byte) string {
	switch string(b) {
	case "To":
		return "To"
	case "Action":
		return "Action"
	case "MessageID":
		return "MessageID"
	case "RelatesTo":
		return "RelatesTo"
	case "ReplyTo":
		return "ReplyTo"
	case "FaultTo":
		return "FaultTo"
	case RoleNext:
		return RoleNext
	case RoleNextV11:
		return RoleNextV11
	case RoleNone:
		return RoleNone
	case RoleUltimateReceiver:
		return RoleUltimateReceiver
	case EncodingStyleV11:
		return EncodingStyleV11
	case EncodingStyleV12:
		return EncodingStyleV12
	}
	return string(b)
}

// nameString renders a token's name as {space}local.
func nameString(n xmltok.Name) string {
	if len(n.Space) == 0 {
		return string(n.Local)
	}
	return "{" + string(n.Space) + "}" + string(n.Local)
}

// versionOf is VersionOf for a token's namespace.
func versionOf(ns []byte) Version {
	switch string(ns) {
	case NamespaceV11:
		return V11
	case NamespaceV12:
		return V12
	}
	return 0
}
