package document

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/soapwire/soapwire/core"
)

// Incoming is a received document with its conversation.
type Incoming struct {
	Message      *core.Message
	Conversation string // the conversation id (see ConversationOf)
}

// Decode decodes the document (the Body's first child) into v with
// encoding/xml. The body is read once: Decode or read Message.Body(), not
// both.
func (in *Incoming) Decode(v any) error { return in.Message.Body().Decode(v) }

// Reply builds a reply in the same conversation: the version of the
// incoming message, RelatesTo its ID, a fresh ID and the conversation header
// block. doc is as for NewMessage. The Handler sends it to ReplyTo.
func (in *Incoming) Reply(doc any, opts ...MessageOption) *core.Message {
	opts = append([]MessageOption{WithVersion(in.Message.Version()), WithConversation(in.Conversation)}, opts...)
	m := NewMessage("", doc, opts...)
	m.RelatesTo = in.Message.ID
	return m
}

// HandleFunc processes one document. It returns a reply (see
// Incoming.Reply), nil for none, or an error that becomes a fault: a
// *core.Fault as it is, any other error a Receiver fault that does not
// reveal its text.
type HandleFunc func(ctx context.Context, in *Incoming) (*core.Message, error)

// Handler is a core.Handler for document handlers; serve it with a binding
// (net/http through the HTTP binding's NewHandler, or core.Serve over a
// Receiver).
//
// For each message it:
//  1. checks ReplyTo and FaultTo against the reply policy (WithReplyPolicy)
//     and the Outbox's routes. A refused address is a
//     Sender fault, logged, and nothing is sent anywhere: the fault goes back
//     on the back-channel only (HTTP), and the Handler blanks the message's
//     ReplyTo and FaultTo (FaultTo becomes none) so that core.Serve parks
//     the message instead of sending the fault there;
//  2. with a Store (WithStore), recognises a message id it has already
//     processed in this conversation: the HandleFunc does not run again and
//     the recorded outcome (reply, receipt or fault) is sent again to where
//     it went the first time. Duplicates arriving while the first is being
//     processed wait for its outcome;
//  3. calls the HandleFunc with the document and its conversation;
//  4. sends the reply, or a receipt (WithReceipts) when there is none, to
//     ReplyTo, and a fault to FaultTo (else ReplyTo), through the Outbox; an
//     absent or anonymous address means the back-channel (the reply or fault
//     is returned), none means nothing is sent.
//
// What is recorded before anything is sent: a redelivery after a failed
// send replays the outcome. A Receiver fault is not recorded (a retry may
// succeed), so a resent message is processed again; every other outcome is.
// When sending to ReplyTo or FaultTo fails, the Handler returns a Receiver
// fault with the message's FaultTo set to none, so core.Serve Nacks it for
// redelivery rather than faulting to the address that just failed.
type Handler struct {
	fn    HandleFunc
	o     handlerConfig
	owner string

	mu sync.Mutex
	// inflight holds the messages being processed; the channel, made only
	// when a duplicate waits for one, is closed when it ends.
	inflight map[msgKey]chan struct{}
}

// msgKey names a received message: duplicates share it.
type msgKey struct{ conv, id string }

var _ core.Handler = (*Handler)(nil)

// NewHandler returns a Handler running fn. It panics if fn is nil.
func NewHandler(fn HandleFunc, opts ...HandlerOption) *Handler {
	if fn == nil {
		panic("document: NewHandler with a nil HandleFunc")
	}
	return &Handler{fn: fn, o: newHandlerConfig(opts), owner: core.NewMessageID(), inflight: make(map[msgKey]chan struct{})}
}

// ReceiptAction is the action of a business-level receipt (WithReceipts).
const ReceiptAction = Namespace + ":Receipt"

// ReceiptDocument is the body of a business-level receipt: the peer's
// document with this MessageID was received and processed.
type ReceiptDocument struct {
	XMLName   xml.Name `xml:"urn:soapwire:document Receipt"`
	MessageID string   `xml:"urn:soapwire:document MessageID"`
}

func receiptBody(id string) []byte {
	b := make([]byte, 0, 128+len(id))
	b = append(b, `<d:Receipt xmlns:d="`+Namespace+`"><d:MessageID>`...)
	b = appendText(b, id)
	return append(b, `</d:MessageID></d:Receipt>`...)
}

// ServeSOAP processes m (see Handler).
func (h *Handler) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	if core.IsReplyAddress(m.ReplyTo) || core.IsReplyAddress(m.FaultTo) {
		if err := h.policy(ctx).AllowAnswers(ctx, m, h.o.outbox); err != nil {
			h.o.log.WarnContext(ctx, "document: reply address refused", slog.String("id", m.ID), slog.String("reply_to", m.ReplyTo), slog.String("fault_to", m.FaultTo), slog.Any("err", err))
			return nil, h.park(m, core.FaultOf(err))
		}
	}
	conv := ConversationOf(m)
	if conv == m.ID {
		conv = m.ID // one string kept, not two equal ones
	}
	if len(m.ID) > MaxIDLen || len(conv) > MaxIDLen {
		h.o.log.InfoContext(ctx, "document: id too long", slog.Int("id_len", len(m.ID)), slog.Int("conversation_len", len(conv)))
		f := core.SenderFault("the message or conversation id is longer than %d bytes", MaxIDLen)
		return h.deliver(ctx, m, h.faultReply(m, conv, f), destination(m, true))
	}
	in := &Incoming{Message: m, Conversation: conv}
	if h.o.store == nil || m.ID == "" {
		r := h.process(ctx, in)
		return h.deliver(ctx, m, r.reply, r.to)
	}
	return h.serveOnce(ctx, in)
}

// policy is the reply policy in force: WithReplyPolicy's, else that of the
// core.Serve the Handler runs under, else the zero core.ReplyPolicy.
func (h *Handler) policy(ctx context.Context) core.ReplyPolicy {
	if h.o.policy != nil {
		return *h.o.policy
	}
	p, _ := core.ReplyPolicyOf(ctx)
	return p
}

// result is what processing a message produced.
type result struct {
	reply *core.Message // reply, receipt or fault message; nil for none
	to    string        // where it goes: "" the back-channel, or an address, or none
	keep  bool          // record it for duplicates
	fault bool
}

// process runs the HandleFunc and turns what it returned into a message.
func (h *Handler) process(ctx context.Context, in *Incoming) result {
	m := in.Message
	reply, err := h.fn(ctx, in)
	if err != nil {
		f := core.FaultOf(err)
		if f.Code == core.CodeReceiver {
			h.o.log.WarnContext(ctx, "document: handler failed", slog.String("id", m.ID), slog.Any("err", err))
		}
		return result{reply: h.faultReply(m, in.Conversation, f), to: destination(m, true), keep: f.Code != core.CodeReceiver, fault: true}
	}
	if reply == nil && h.o.receipts && m.ReplyTo != "" && m.ReplyTo != core.NoneAddress {
		reply = in.Reply(receiptBody(m.ID), WithAction(ReceiptAction))
	}
	if reply != nil {
		if reply.Envelope == nil {
			reply.Envelope = &core.Envelope{}
		}
		if reply.Envelope.Version == 0 {
			reply.Envelope.Version = m.Version()
		}
		if reply.RelatesTo == "" {
			reply.RelatesTo = m.ID
		}
		if reply.ID == "" {
			reply.ID = core.NewMessageID()
		}
		if !hasConversation(reply) {
			SetConversation(reply, in.Conversation)
		}
	}
	return result{reply: reply, to: destination(m, false), keep: true}
}

func (h *Handler) faultReply(m *core.Message, conv string, f *core.Fault) *core.Message {
	r := m.FaultReply(versioned(f, m.Version()))
	r.Action = core.FaultAction
	if r.ID == "" {
		r.ID = core.NewMessageID()
	}
	SetConversation(r, conv)
	return r
}

// destination is where the reply (or fault) to m goes: "" for the
// back-channel.
func destination(m *core.Message, fault bool) string {
	to := m.ReplyTo
	if fault && m.FaultTo != "" {
		to = m.FaultTo
	}
	if to == core.AnonymousAddress {
		return ""
	}
	return to
}

// deliver returns reply on the back-channel, or sends it to `to` through
// the Outbox.
func (h *Handler) deliver(ctx context.Context, m *core.Message, reply *core.Message, to string) (*core.Message, error) {
	if reply == nil || to == core.NoneAddress {
		return nil, nil
	}
	if to == "" {
		if f := reply.Fault(); f != nil {
			c := *f
			c.Remote = false
			return nil, versioned(&c, m.Version())
		}
		return reply, nil
	}
	if h.o.outbox == nil {
		h.o.log.ErrorContext(ctx, "document: no outbox to send the reply with", slog.String("id", m.ID), slog.String("to", to))
		return nil, h.park(m, core.ReceiverFault("no outbox to send the reply with"))
	}
	reply.To = to
	// `to` is the peer's: a Sender that connects where it says checks
	// where that is (core.WithAnswerPolicy)
	if err := h.o.outbox.Send(core.WithAnswerPolicy(ctx, h.policy(ctx)), reply); err != nil {
		h.o.log.ErrorContext(ctx, "document: sending the reply failed", slog.String("id", m.ID), slog.String("to", to), slog.Any("err", err))
		if errors.Is(err, core.ErrReplyRefused) {
			// refused where it would connect (a name that resolves to a
			// private address): the peer's address, not this side's fault
			return nil, h.park(m, &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf("reply address %q cannot be reached from here", to), Cause: err})
		}
		return nil, h.park(m, &core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: err})
	}
	return nil, nil
}

// park answers m with f on the back-channel only: it clears m's ReplyTo and
// sets its FaultTo to none, so that core.Serve sends nothing and Nacks
// (parks or redelivers) the message.
func (h *Handler) park(m *core.Message, f *core.Fault) *core.Fault {
	m.ReplyTo, m.FaultTo = "", core.NoneAddress
	return versioned(f, m.Version())
}

// versioned is f in version v unless f knows its version already.
func versioned(f *core.Fault, v core.Version) *core.Fault {
	if f.Version != 0 {
		return f
	}
	return f.WithVersion(v)
}
