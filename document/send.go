package document

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Receipt is what the transport confirmed for a sent document.
type Receipt struct {
	MessageID    string // the document's wsa:MessageID
	Conversation string // its conversation id
	To           string // where it was sent
	// Transport is what the binding reported in the message's Meta after
	// sending: "http.status" (202), "smtp.queued-as", "ftp.file",
	// "nats.stream" and "nats.seq", … . Empty when the binding reports
	// nothing.
	Transport map[string]string
}

// SendOption configures Send: the message it builds (every MessageOption)
// and what it records (WithTracking).
type SendOption interface{ applySend(*messageConfig) }

// MessageOption configures one message built by NewMessage, Incoming.Reply
// or Send.
type MessageOption interface {
	SendOption
	applyMessage(*messageConfig)
}

type messageConfig struct {
	version      core.Version
	action       string
	id           string
	conversation string
	replyTo      string
	faultTo      string
	headers      []core.HeaderBlock
	store        Store
	deadline     time.Time
}

// messageOptionFunc is a MessageOption.
type messageOptionFunc func(*messageConfig)

func (f messageOptionFunc) applyMessage(c *messageConfig) { f(c) }
func (f messageOptionFunc) applySend(c *messageConfig)    { f(c) }

// WithVersion picks the SOAP version (default 1.2).
func WithVersion(v core.Version) MessageOption {
	return messageOptionFunc(func(c *messageConfig) { c.version = v })
}

// WithAction sets the action (wsa:Action, and the binding's SOAPAction or
// action parameter).
func WithAction(a string) MessageOption {
	return messageOptionFunc(func(c *messageConfig) { c.action = a })
}

// WithMessageID sets the message id (default: a fresh urn:uuid).
func WithMessageID(id string) MessageOption {
	return messageOptionFunc(func(c *messageConfig) { c.id = id })
}

// WithConversation sets the conversation id (default: the message id, which
// starts a new conversation).
func WithConversation(id string) MessageOption {
	return messageOptionFunc(func(c *messageConfig) { c.conversation = id })
}

// WithReplyTo sets where replies go (wsa:ReplyTo).
func WithReplyTo(addr string) MessageOption {
	return messageOptionFunc(func(c *messageConfig) { c.replyTo = addr })
}

// WithFaultTo sets where faults go (wsa:FaultTo).
func WithFaultTo(addr string) MessageOption {
	return messageOptionFunc(func(c *messageConfig) { c.faultTo = addr })
}

// WithHeader adds a header block.
func WithHeader(b core.HeaderBlock) MessageOption {
	return messageOptionFunc(func(c *messageConfig) { c.headers = append(c.headers, b) })
}

// WithTracking makes Send record the conversation in s: awaiting a reply
// (before sending) when ReplyTo names an address, acknowledged once the
// transport accepted a document that wants no reply, failed when sending
// failed. deadline, when not zero, is when the reply is due (see Expire). A
// Correlator serving the ReplyTo address with the same Store settles it
// when the reply comes.
func WithTracking(s Store, deadline time.Time) SendOption {
	return trackingOption{s, deadline}
}

type trackingOption struct {
	s        Store
	deadline time.Time
}

func (o trackingOption) applySend(c *messageConfig) { c.store, c.deadline = o.s, o.deadline }

// NewMessage wraps doc in an envelope addressed to `to`, with WS-Addressing
// headers (MessageID, To, Action, ReplyTo, FaultTo) and a Conversation
// header block. doc is:
//   - []byte or string: the document's XML;
//   - an io.Reader: copied into the Body as the envelope is written, so a
//     large document streams (it can be written once);
//   - a core.Body: used as it is;
//   - nil: an empty Body;
//   - any other value: marshalled with encoding/xml.
//
// The prolog of a []byte, string or io.Reader document (byte order mark,
// XML declaration, comments, whitespace before the root element) is
// dropped and checked as NewBody does. NewMessage reads nothing: a refused
// prolog is the error of writing the message (the Sender's Send fails with
// a *PrologError before any of the document is written, though the
// envelope's start may have been). Send, or NewBody first, refuses it
// before anything is written.
func NewMessage(to string, doc any, opts ...MessageOption) *core.Message {
	c := messageConfig{version: core.V12}
	for _, o := range opts {
		o.applyMessage(&c)
	}
	return c.message(to, bodyOf(doc))
}

func (c *messageConfig) message(to string, body core.Body) *core.Message {
	if c.id == "" {
		c.id = core.NewMessageID()
	}
	if c.conversation == "" {
		c.conversation = c.id
	}
	m := core.NewMessage(c.version, body)
	m.To, m.Action, m.ID, m.ReplyTo, m.FaultTo = to, c.action, c.id, c.replyTo, c.faultTo
	if len(c.headers) == 0 && conversationBlockLen(c.conversation) <= smallBlock {
		// the common case: the block and its XML in one allocation
		a := new(struct {
			hs [1]core.HeaderBlock
			x  [smallBlock]byte
		})
		a.hs[0] = conversationTemplate
		a.hs[0].XML = appendConversation(a.x[:0], c.conversation)
		m.Envelope.Headers = a.hs[:]
		return m
	}
	m.Envelope.Headers = make([]core.HeaderBlock, 0, 1+len(c.headers))
	m.Envelope.Headers = append(m.Envelope.Headers, conversationBlock(c.conversation))
	m.Envelope.Headers = append(m.Envelope.Headers, c.headers...)
	return m
}

// smallBlock is room for a Conversation block with a urn:uuid id.
const smallBlock = 128

// Send wraps doc in an envelope (see NewMessage) and sends it with out. When
// out is an *Outbox, the Sender is picked by the scheme of `to`, and an
// address it has no Sender for is refused with ErrUnknownScheme before
// anything is built or sent. The document's prolog is dropped and checked
// (see NewBody) before anything is sent or tracked: a reader is read up to
// its root element first, and a refused prolog is a *PrologError
// (ErrProlog). Send returns what the transport confirmed.
func Send(ctx context.Context, out core.Sender, to string, doc any, opts ...SendOption) (*Receipt, error) {
	if to == "" || to == core.AnonymousAddress || to == core.NoneAddress {
		return nil, fmt.Errorf("%w: %q", ErrNoAddress, to)
	}
	if o, ok := out.(*Outbox); ok {
		s, err := o.Sender(to)
		if err != nil {
			return nil, err
		}
		out = s
	}
	c := messageConfigs.Get().(*messageConfig)
	defer c.release()
	for _, o := range opts {
		o.applySend(c)
	}
	body, err := NewBody(doc)
	if err != nil {
		return nil, err
	}
	m := c.message(to, body)
	conv := c.conversation
	awaits := isAddress(m.ReplyTo)
	if c.store != nil && awaits {
		if err := c.track(ctx, conv, func(cv *Conversation) { awaitReply(cv, m.ID, c.deadline) }); err != nil {
			return nil, err
		}
	}
	if err := out.Send(ctx, m); err != nil {
		if c.store != nil {
			_ = c.track(context.WithoutCancel(ctx), conv, func(cv *Conversation) {
				cv.Pending = remove(cv.Pending, m.ID)
				cv.State = StateFailed
			})
		}
		return nil, fmt.Errorf("document: send to %s: %w", to, err)
	}
	if c.store != nil && !awaits {
		if err := c.track(ctx, conv, func(cv *Conversation) {
			if cv.State == StateOpen {
				cv.State = StateAcknowledged
			}
		}); err != nil {
			return nil, fmt.Errorf("document: sent to %s, but %w", to, err)
		}
	}
	return &Receipt{MessageID: m.ID, Conversation: conv, To: to, Transport: maps.Clone(m.Meta)}, nil
}

// messageConfigs reuses Send's configurations (which the options, being
// functions, would otherwise move to the heap for every message).
var messageConfigs = sync.Pool{New: func() any { return &messageConfig{version: core.V12} }}

// release resets c to the defaults (keeping the headers' array) and puts it
// back in the pool.
func (c *messageConfig) release() {
	clear(c.headers)
	*c = messageConfig{version: core.V12, headers: c.headers[:0]}
	messageConfigs.Put(c)
}

func (c *messageConfig) track(ctx context.Context, conv string, fn func(*Conversation)) error {
	if err := c.store.Update(ctx, conv, func(cv *Conversation) error { fn(cv); return nil }); err != nil {
		return fmt.Errorf("document: recording conversation %s: %w", conv, err)
	}
	return nil
}

// awaitReply records that request id of cv awaits a reply due by deadline.
func awaitReply(cv *Conversation, id string, deadline time.Time) {
	cv.State = StateAwaitingReply
	if !slices.Contains(cv.Pending, id) {
		cv.Pending = append(cv.Pending, id)
	}
	if !deadline.IsZero() && deadline.After(cv.Deadline) {
		cv.Deadline = deadline
	}
}

func isAddress(a string) bool {
	return a != "" && a != core.AnonymousAddress && a != core.NoneAddress
}
