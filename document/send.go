package document

import (
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"maps"

	"github.com/soapwire/soapwire/core"
)

// Namespace is the namespace of soapwire's document header blocks.
const Namespace = "urn:soapwire:document"

// ConversationHeader is the name of the header block that carries the
// conversation id: <d:Conversation xmlns:d="urn:soapwire:document">id</d:Conversation>.
var ConversationHeader = xml.Name{Space: Namespace, Local: "Conversation"}

// Receipt is what the transport confirmed for a sent document.
type Receipt struct {
	MessageID    string
	Conversation string
	To           string
	// Transport holds what the binding reported in the message's Meta after
	// sending (e.g. "http.status": "202", "smtp.queued-as", "ftp.file",
	// "nats.stream", "nats.seq").
	Transport map[string]string
}

// SendOption configures Send.
type SendOption func(*sendConfig)

type sendConfig struct {
	version      core.Version
	action       string
	id           string
	conversation string
	replyTo      string
	faultTo      string
	headers      []core.HeaderBlock
}

// WithVersion picks the SOAP version (default 1.2).
func WithVersion(v core.Version) SendOption { return func(c *sendConfig) { c.version = v } }

// WithAction sets the action.
func WithAction(a string) SendOption { return func(c *sendConfig) { c.action = a } }

// WithMessageID sets the message id (default: a fresh urn:uuid).
func WithMessageID(id string) SendOption { return func(c *sendConfig) { c.id = id } }

// WithConversation sets the conversation id (default: the message id, which
// starts a conversation).
func WithConversation(id string) SendOption { return func(c *sendConfig) { c.conversation = id } }

// WithReplyTo sets where replies go.
func WithReplyTo(addr string) SendOption { return func(c *sendConfig) { c.replyTo = addr } }

// WithFaultTo sets where faults go.
func WithFaultTo(addr string) SendOption { return func(c *sendConfig) { c.faultTo = addr } }

// WithHeader adds a header block.
func WithHeader(b core.HeaderBlock) SendOption {
	return func(c *sendConfig) { c.headers = append(c.headers, b) }
}

// NewMessage wraps doc in an envelope addressed to `to`. doc is []byte (the
// document's XML), an io.Reader (streamed as it is written), a core.Body, or
// any other value (marshalled with encoding/xml).
func NewMessage(to string, doc any, opts ...SendOption) *core.Message {
	c := sendConfig{version: core.V12}
	for _, o := range opts {
		o(&c)
	}
	if c.id == "" {
		c.id = core.NewMessageID()
	}
	if c.conversation == "" {
		c.conversation = c.id
	}
	m := core.NewMessage(c.version, bodyOf(doc))
	m.To, m.Action, m.ID, m.ReplyTo, m.FaultTo = to, c.action, c.id, c.replyTo, c.faultTo
	m.Envelope.Headers = append(m.Envelope.Headers, conversationBlock(c.conversation))
	m.Envelope.Headers = append(m.Envelope.Headers, c.headers...)
	return m
}

func bodyOf(doc any) core.Body {
	switch d := doc.(type) {
	case nil:
		return core.Body{}
	case core.Body:
		return d
	case []byte:
		return core.RawBody(d)
	case string:
		return core.RawBody([]byte(d))
	case io.Reader:
		return core.StreamBody(xml.Name{}, func(w io.Writer) error {
			_, err := io.Copy(w, d)
			return err
		})
	}
	return core.ValueBody(doc)
}

func conversationBlock(id string) core.HeaderBlock {
	var x []byte
	x = append(x, `<d:Conversation xmlns:d="`+Namespace+`">`...)
	x = appendText(x, id)
	x = append(x, `</d:Conversation>`...)
	b, err := core.ParseHeaderBlock(x)
	if err != nil { // cannot happen: the XML is ours and escaped
		panic(err)
	}
	return b
}

func appendText(dst []byte, s string) []byte {
	for _, r := range s {
		switch r {
		case '&':
			dst = append(dst, "&amp;"...)
		case '<':
			dst = append(dst, "&lt;"...)
		case '>':
			dst = append(dst, "&gt;"...)
		default:
			if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
				r = '\uFFFD'
			}
			dst = append(dst, string(r)...)
		}
	}
	return dst
}

// ConversationOf returns the conversation id a message carries: its
// Conversation header block, else its RelatesTo (a reply continues the
// conversation of its request when the peer did not echo the header), else
// its own ID.
func ConversationOf(m *core.Message) string {
	if m.Envelope != nil {
		for _, b := range m.Envelope.Headers {
			if b.Name == ConversationHeader {
				var v struct {
					Text string `xml:",chardata"`
				}
				if err := xml.Unmarshal(b.XML, &v); err == nil && v.Text != "" {
					return v.Text
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
	hs := m.Envelope.Headers[:0]
	for _, b := range m.Envelope.Headers {
		if b.Name != ConversationHeader {
			hs = append(hs, b)
		}
	}
	m.Envelope.Headers = append(hs, conversationBlock(id))
}

// Send wraps doc in an envelope (see NewMessage) and sends it with out (an
// Outbox picks the Sender by the scheme of to). It returns what the
// transport confirmed.
func Send(ctx context.Context, out core.Sender, to string, doc any, opts ...SendOption) (*Receipt, error) {
	if to == "" {
		return nil, ErrNoAddress
	}
	if o, ok := out.(*Outbox); ok {
		if _, err := o.Sender(to); err != nil {
			return nil, err
		}
	}
	m := NewMessage(to, doc, opts...)
	if err := out.Send(ctx, m); err != nil {
		return nil, fmt.Errorf("document: send to %s: %w", to, err)
	}
	return &Receipt{MessageID: m.ID, Conversation: ConversationOf(m), To: to, Transport: maps.Clone(m.Meta)}, nil
}
