package core

import (
	"fmt"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// faultHeaders reports whether writing f in v adds header blocks
// (1.2 NotUnderstood, 1.2 Upgrade).
func faultHeaders(f *Fault, v Version) bool {
	return v == V12 && (len(f.NotUnderstood) > 0 || f.Code == CodeVersionMismatch) ||
		v == V11 && f.Code == CodeVersionMismatch && f.Supported != nil
}

func writeFaultHeaders(x *xmlWriter, f *Fault, v Version, p string) {
	if v != V12 {
		if f.Code == CodeVersionMismatch && f.Supported != nil {
			// the 1.2 Upgrade block in a 1.1 envelope, in its own namespace
			writeUpgrade(x, f, "upg", true)
		}
		return
	}
	for _, n := range f.NotUnderstood {
		x.open(p, "NotUnderstood")
		if n.Space != "" {
			x.decl("q", n.Space)
			x.attr("", "qname", "q:"+n.Local)
		} else {
			x.attr("", "qname", n.Local)
		}
		x.close(p, "NotUnderstood")
	}
	if f.Code == CodeVersionMismatch {
		writeUpgrade(x, f, p, false)
	}
}

// writeUpgrade writes the 1.2 Upgrade header block listing the envelopes
// f.Supported names (nil: 1.2, then 1.1) under prefix p, declared on it
// when own.
func writeUpgrade(x *xmlWriter, f *Fault, p string, own bool) {
	supported := f.Supported
	if supported == nil {
		supported = []Version{V12, V11}
	}
	x.open(p, "Upgrade")
	if own {
		x.decl(p, NamespaceV12)
	}
	for i, sv := range supported {
		q := fmt.Sprintf("v%d", i)
		x.open(p, "SupportedEnvelope")
		x.decl(q, sv.Namespace())
		x.attr("", "qname", q+":Envelope")
		x.close(p, "SupportedEnvelope")
	}
	x.close(p, "Upgrade")
}

// writeFault writes f as the Fault element of version v. own declares the
// envelope prefix on the Fault (when written outside an envelope).
func writeFault(x *xmlWriter, f *Fault, v Version, p string, own bool) {
	x.open(p, "Fault")
	if own {
		x.decl(p, v.Namespace())
	}
	if v == V12 {
		writeFault12(x, f, p)
	} else {
		writeFault11(x, f, p)
	}
	x.close(p, "Fault")
}

func writeFault11(x *xmlWriter, f *Fault, p string) {
	x.open("", "faultcode")
	writeCode11(x, f, p)
	x.close("", "faultcode")
	x.open("", "faultstring")
	if f.Lang != "" {
		x.attr("xml", "lang", f.Lang)
	}
	x.text(f.Reason)
	x.close("", "faultstring")
	if f.Node != "" {
		x.open("", "faultactor")
		x.text(f.Node)
		x.close("", "faultactor")
	}
	if f.Detail != nil {
		x.open("", "detail")
		x.Write(f.Detail)
		x.close("", "detail")
	}
}

func writeFault12(x *xmlWriter, f *Fault, p string) {
	x.open(p, "Code")
	x.open(p, "Value")
	x.text(p + ":" + f.Code.local(V12))
	x.close(p, "Value")
	for i, s := range f.Subcodes {
		x.open(p, "Subcode")
		x.open(p, "Value")
		q := fmt.Sprintf("sc%d", i)
		if s.Space != "" {
			x.decl(q, s.Space)
			x.text(q + ":" + s.Local)
		} else {
			x.text(s.Local)
		}
		x.close(p, "Value")
	}
	for range f.Subcodes {
		x.close(p, "Subcode")
	}
	x.close(p, "Code")
	x.open(p, "Reason")
	lang := f.Lang
	if lang == "" {
		lang = "en"
	}
	x.open(p, "Text")
	x.attr("xml", "lang", lang)
	x.text(f.Reason)
	x.close(p, "Text")
	for _, t := range f.Translations {
		x.open(p, "Text")
		x.attr("xml", "lang", t.Lang)
		x.text(t.Text)
		x.close(p, "Text")
	}
	x.close(p, "Reason")
	if f.Node != "" {
		x.element(p, "Node", "", f.Node)
	}
	if f.Role != "" {
		x.element(p, "Role", "", f.Role)
	}
	if f.Detail != nil {
		x.open(p, "Detail")
		x.Write(f.Detail)
		x.close(p, "Detail")
	}
}

// readFault reads a Fault element whose start tag has just been read.
func (p *parser) readFault() (*Fault, error) {
	f := &Fault{Version: p.v, Remote: true}
	ns := p.v.Namespace()
	base := p.r.Depth()
	var haveCode bool
	for {
		t, err := p.next()
		if err != nil {
			return nil, err
		}
		if err := p.checkSize("the Fault", p.faultStart); err != nil {
			return nil, err
		}
		d := p.r.Depth()
		switch t.Kind {
		case xmltok.EndElement:
			if d < base {
				if !haveCode {
					return nil, p.sender("a Fault without a fault code")
				}
				return f, nil
			}
			continue
		case xmltok.CharData:
			if !xmltok.IsSpace(t.Text) {
				return nil, p.sender("text directly in the Fault")
			}
			continue
		case xmltok.Comment:
			continue
		}
		// a child of Fault
		local, space := string(t.Name.Local), string(t.Name.Space)
		if p.v == V11 && (space == "" || space == ns) {
			switch local {
			case "faultcode":
				s, err := p.text()
				if err != nil {
					return nil, err
				}
				if err := f.setCode11(p, s); err != nil {
					return nil, err
				}
				haveCode = true
				continue
			case "faultstring":
				f.Lang = string(attrValue(t, xmltok.XMLNamespace, "lang"))
				if f.Reason, err = p.text(); err != nil {
					return nil, err
				}
				continue
			case "faultactor":
				if f.Node, err = p.text(); err != nil {
					return nil, err
				}
				continue
			case "detail":
				if f.Detail, err = p.content(); err != nil {
					return nil, err
				}
				continue
			}
		}
		if p.v == V12 && space == ns {
			switch local {
			case "Code":
				if err := p.readCode12(f); err != nil {
					return nil, err
				}
				haveCode = true
				continue
			case "Reason":
				if err := p.readReason(f); err != nil {
					return nil, err
				}
				continue
			case "Node":
				if f.Node, err = p.text(); err != nil {
					return nil, err
				}
				continue
			case "Role":
				if f.Role, err = p.text(); err != nil {
					return nil, err
				}
				continue
			case "Detail":
				if f.Detail, err = p.content(); err != nil {
					return nil, err
				}
				continue
			}
		}
		if err := p.skip(); err != nil { // tolerate unknown children
			return nil, err
		}
	}
}

// readCode12 reads Code: Value, then nested Subcode/Value.
func (p *parser) readCode12(f *Fault) error {
	ns := p.v.Namespace()
	top := true
	for depth := p.r.Depth(); ; {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch {
		case t.Kind == xmltok.EndElement && p.r.Depth() < depth:
			return nil
		case t.Kind == xmltok.StartElement && t.Name.Is(ns, "Value"):
			s, err := p.text()
			if err != nil {
				return err
			}
			q, err := p.qname(s)
			if err != nil {
				return err
			}
			if top {
				code, ok := codeOf(V12, q.Local)
				if !ok || q.Space != ns {
					return p.sender("unknown fault code %q", s)
				}
				f.Code = code
				top = false
			} else {
				f.Subcodes = append(f.Subcodes, q)
			}
		case t.Kind == xmltok.StartElement && t.Name.Is(ns, "Subcode"):
			// descend: its Value is read by the loop
		case t.Kind == xmltok.StartElement:
			if err := p.skip(); err != nil {
				return err
			}
		case t.Kind == xmltok.CharData && !xmltok.IsSpace(t.Text):
			return p.sender("text directly in the fault Code")
		}
	}
}

func (p *parser) readReason(f *Fault) error {
	ns := p.v.Namespace()
	for depth := p.r.Depth(); ; {
		t, err := p.next()
		if err != nil {
			return err
		}
		switch {
		case t.Kind == xmltok.EndElement && p.r.Depth() < depth:
			return nil
		case t.Kind == xmltok.StartElement && t.Name.Is(ns, "Text"):
			lang := string(attrValue(t, xmltok.XMLNamespace, "lang"))
			s, err := p.text()
			if err != nil {
				return err
			}
			if f.Reason == "" && f.Lang == "" {
				f.Reason, f.Lang = s, lang
			} else {
				f.Translations = append(f.Translations, Text{Lang: lang, Text: s})
			}
		case t.Kind == xmltok.StartElement:
			if err := p.skip(); err != nil {
				return err
			}
		}
	}
}

func attrValue(t *xmltok.Token, space, local string) []byte {
	for _, a := range t.Attr {
		if a.Name.Is(space, local) {
			return a.Value
		}
	}
	return nil
}
