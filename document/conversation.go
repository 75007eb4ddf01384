package document

import (
	"bytes"
	"encoding/xml"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Namespace is the namespace of soapwire's document header blocks and
// receipts.
const Namespace = "urn:soapwire:document"

// ConversationHeader is the name of the header block that carries the
// conversation id: <d:Conversation xmlns:d="urn:soapwire:document">id</d:Conversation>.
var ConversationHeader = xml.Name{Space: Namespace, Local: "Conversation"}

// MaxIDLen bounds message and conversation ids the Handler accepts (bytes);
// a longer one is a Sender fault.
const MaxIDLen = 1024

// ConversationOf returns the conversation id a message carries: its
// Conversation header block, else its RelatesTo (a reply continues the
// conversation of its request when the peer did not echo the header), else
// its own ID.
func ConversationOf(m *core.Message) string {
	if m == nil {
		return ""
	}
	if m.Envelope != nil {
		for i := range m.Envelope.Headers {
			if b := &m.Envelope.Headers[i]; b.Name == ConversationHeader {
				if text, ok := plainText(b.XML); ok {
					// the common form; a conversation its first message
					// started shares that message's id string
					switch text = bytes.TrimSpace(text); {
					case len(text) == 0:
						continue
					case string(text) == m.ID:
						return m.ID
					case string(text) == m.RelatesTo:
						return m.RelatesTo
					}
					return string(text)
				}
				if id := blockText(b.XML); id != "" {
					return id
				}
			}
		}
	}
	if m.RelatesTo != "" {
		return m.RelatesTo
	}
	return m.ID
}

// SetConversation sets (or replaces) m's conversation header block.
func SetConversation(m *core.Message, id string) {
	if m.Envelope == nil {
		m.Envelope = &core.Envelope{}
	}
	hs := m.Envelope.Headers[:0]
	for _, b := range m.Envelope.Headers {
		if b.Name != ConversationHeader {
			hs = append(hs, b)
		}
	}
	m.Envelope.Headers = append(hs, conversationBlock(id))
}

func hasConversation(m *core.Message) bool {
	if m.Envelope == nil {
		return false
	}
	for i := range m.Envelope.Headers {
		if m.Envelope.Headers[i].Name == ConversationHeader {
			return true
		}
	}
	return false
}

// conversationTemplate is a parsed Conversation block. Every block Send
// writes has this very start tag and differs only in its text, so a copy
// of the template with the new XML is what ParseHeaderBlock would return
// for it, without tokenizing it again for every message.
var conversationTemplate = func() core.HeaderBlock {
	b, err := core.ParseHeaderBlock([]byte(conversationStart + conversationEnd))
	if err != nil { // cannot happen: the XML is ours
		panic("document: conversation block: " + err.Error())
	}
	return b
}()

const (
	conversationStart = `<d:Conversation xmlns:d="` + Namespace + `">`
	conversationEnd   = `</d:Conversation>`
)

func conversationBlock(id string) core.HeaderBlock {
	b := conversationTemplate
	b.XML = appendConversation(make([]byte, 0, conversationBlockLen(id)), id)
	return b
}

// conversationBlockLen is the length of the block for id when id needs no
// escaping (a lower bound otherwise).
func conversationBlockLen(id string) int {
	return len(conversationStart) + len(id) + len(conversationEnd)
}

// appendConversation appends the Conversation block for id.
func appendConversation(x []byte, id string) []byte {
	x = append(x, conversationStart...)
	x = appendText(x, id)
	return append(x, conversationEnd...)
}

// appendText appends s escaped as XML character data; characters XML 1.0
// cannot carry become U+FFFD.
func appendText(dst []byte, s string) []byte {
	if plainASCII(s) {
		return append(dst, s...)
	}
	for _, r := range s {
		switch {
		case r == '&':
			dst = append(dst, "&amp;"...)
		case r == '<':
			dst = append(dst, "&lt;"...)
		case r == '>':
			dst = append(dst, "&gt;"...)
		case r == '\r':
			dst = append(dst, "&#xD;"...)
		case r < 0x20 && r != '\t' && r != '\n', r == 0xFFFE, r == 0xFFFF:
			dst = append(dst, "\uFFFD"...)
		default:
			dst = append(dst, string(r)...)
		}
	}
	return dst
}

// plainASCII reports whether s is printable ASCII without '&', '<' or '>':
// text appendText copies as it is.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7F || c == '&' || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

// blockText returns the trimmed character data of a header block element
// (its direct text, as encoding/xml's ",chardata" sees it). The common form,
// plain text with no markup or references, is read without a decoder.
func blockText(raw []byte) string {
	if text, ok := plainText(raw); ok {
		return strings.TrimSpace(string(text))
	}
	var v struct {
		Text string `xml:",chardata"`
	}
	if err := xml.Unmarshal(raw, &v); err != nil {
		return ""
	}
	return strings.TrimSpace(v.Text)
}

// plainText returns the content of the element raw holds when it is plain
// text: no child, comment, CDATA, reference or carriage return (which XML
// would normalize). ok is false when a decoder must decide.
func plainText(raw []byte) (text []byte, ok bool) {
	i := 0
	for ; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '"', '\'':
			// skip the attribute value (most of a start tag)
			j := bytes.IndexByte(raw[i+1:], c)
			if j < 0 {
				return nil, false
			}
			i += 1 + j
		case '>':
			goto end
		}
	}
	return nil, false
end:
	if i == 0 || raw[0] != '<' || raw[i-1] == '/' {
		return nil, false
	}
	rest := raw[i+1:]
	j := bytes.IndexByte(rest, '<')
	if j < 0 || !bytes.HasPrefix(rest[j:], []byte("</")) || bytes.IndexByte(rest[j+1:], '<') >= 0 {
		return nil, false
	}
	text = rest[:j]
	if bytes.IndexByte(text, '&') >= 0 || bytes.IndexByte(text, '\r') >= 0 || bytes.IndexByte(text, '>') >= 0 {
		return nil, false
	}
	return text, true
}
