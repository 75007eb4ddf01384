package core

import (
	"bytes"
	"io"

	"github.com/soapwire/soapwire/core/internal/xmltok"
)

// WS-Addressing 1.0.
const (
	NamespaceAddressing = "http://www.w3.org/2005/08/addressing"
	// AnonymousAddress as ReplyTo means "answer on this transport's back-channel".
	AnonymousAddress = "http://www.w3.org/2005/08/addressing/anonymous"
	// NoneAddress as ReplyTo or FaultTo means "send nothing back".
	NoneAddress = "http://www.w3.org/2005/08/addressing/none"
)

// addressing reports whether m's fields call for WS-Addressing headers: an
// ID, a RelatesTo or an address. An Action alone travels in the transport
// (SOAPAction, the action parameter) and is written only alongside them.
func (m *Message) addressing() bool {
	return m.ID != "" || m.RelatesTo != "" || m.To != "" || m.ReplyTo != "" || m.FaultTo != ""
}

func (m *Message) addressingHeaders(envPrefix string) *headerExtra {
	if !m.addressing() {
		return nil
	}
	p := defaultAddressingPrefix
	if envPrefix == p {
		p = "wsa1"
	}
	return &headerExtra{prefix: p, space: NamespaceAddressing, write: func(x *xmlWriter) {
		for _, f := range [...]struct{ local, value string }{
			{"To", m.To}, {"Action", m.Action}, {"MessageID", m.ID}, {"RelatesTo", m.RelatesTo},
		} {
			if f.value != "" {
				x.element(p, f.local, "", f.value)
			}
		}
		for _, f := range [...]struct{ local, value string }{{"ReplyTo", m.ReplyTo}, {"FaultTo", m.FaultTo}} {
			if f.value != "" {
				x.open(p, f.local)
				x.element(p, "Address", "", f.value)
				x.close(p, f.local)
			}
		}
	}}
}

// takeAddressing moves the WS-Addressing 1.0 headers into m's fields. The
// other blocks keep their order; they are moved only when one was taken
// before them.
func (m *Message) takeAddressing() error {
	env := m.Envelope
	kept := 0
	for i := range env.Headers {
		b := &env.Headers[i]
		var dst *string
		epr := false
		if b.Name.Space == NamespaceAddressing {
			switch b.Name.Local {
			case "To":
				dst = &m.To
			case "Action":
				dst = &m.Action
			case "MessageID":
				dst = &m.ID
			case "RelatesTo":
				dst = &m.RelatesTo
			case "ReplyTo":
				dst, epr = &m.ReplyTo, true
			case "FaultTo":
				dst, epr = &m.FaultTo, true
			}
		}
		if dst == nil {
			if i != kept {
				env.Headers[kept] = *b
			}
			kept++
			continue
		}
		v, err := addressingValue(b.XML, epr)
		if err != nil {
			return &Fault{Code: CodeSender, Version: env.Version, Reason: "malformed wsa:" + b.Name.Local + " header", Cause: err}
		}
		*dst = v
	}
	env.Headers = env.Headers[:kept]
	return nil
}

// addressingValue returns the text of a block, or of its wsa:Address child
// for an endpoint reference.
func addressingValue(raw []byte, epr bool) (string, error) {
	if !epr {
		if v, ok := plainValue(raw); ok {
			return v, nil
		}
	}
	return tokenValue(raw, epr)
}

// tokenValue is addressingValue read with the tokenizer, for any block.
func tokenValue(raw []byte, epr bool) (string, error) {
	r := xmltok.NewReader(bytes.NewReader(raw), DefaultLimits().tokenizer())
	defer r.Release()
	var text []byte
	inAddr := !epr
	for {
		t, err := r.Next()
		if err != nil {
			if err == io.EOF {
				break
			}
			return "", err
		}
		switch t.Kind {
		case xmltok.StartElement:
			if epr && r.Depth() == 2 && t.Name.Is(NamespaceAddressing, "Address") {
				inAddr = true
			}
		case xmltok.EndElement:
			if epr && r.Depth() == 1 {
				inAddr = false
			}
		case xmltok.CharData:
			if inAddr && (r.Depth() == 1 && !epr || r.Depth() == 2 && epr) {
				text = append(text, t.Text...)
			}
		}
	}
	return trimSpace(string(text)), nil
}

// plainValue is addressingValue's answer for the common block, one element
// holding plain text (<wsa:MessageID …>urn:uuid:…</wsa:MessageID>),
// without a tokenizer. raw must be a block ReadMessage has already read (so
// well-formed): then, after the start tag, a '<' followed by '/' is the
// block's own end tag. Anything else (an empty element, a child element, a
// comment, CDATA, a reference or a carriage return to decode) is left to
// the tokenizer: ok is false.
func plainValue(raw []byte) (v string, ok bool) {
	i, quote := 0, byte(0)
	for ; i < len(raw); i++ { // the start tag's end, outside attribute values
		switch c := raw[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>':
			goto tagEnd
		}
	}
	return "", false
tagEnd:
	if i == 0 || raw[i-1] == '/' {
		return "", false
	}
	rest := raw[i+1:]
	j := bytes.IndexByte(rest, '<')
	if j < 0 || j+1 >= len(rest) || rest[j+1] != '/' {
		return "", false
	}
	text := trimSpace(rest[:j])
	if bytes.IndexByte(text, '&') >= 0 || bytes.IndexByte(text, '\r') >= 0 {
		return "", false
	}
	return string(text), true
}
