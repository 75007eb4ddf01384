package document

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/soapwire/soapwire/core"
)

// Incoming is a received document with its conversation.
type Incoming struct {
	Message      *core.Message
	Conversation string // the conversation id (see ConversationOf)
}

// Reply builds a reply in the same conversation: same version, RelatesTo
// the incoming message, a fresh id, the conversation header. doc is as for
// NewMessage.
func (in *Incoming) Reply(doc any, opts ...SendOption) *core.Message {
	opts = append([]SendOption{WithVersion(in.Message.Version()), WithConversation(in.Conversation)}, opts...)
	m := NewMessage("", doc, opts...)
	m.RelatesTo = in.Message.ID
	return m
}

// HandleFunc processes one document. It returns a reply (see
// Incoming.Reply), nil for none, or an error that becomes a fault.
type HandleFunc func(ctx context.Context, in *Incoming) (*core.Message, error)

// Handler is a core.Handler for document handlers. With a Store it
// recognises a repeated delivery of a message id it has processed: the
// HandleFunc does not run again, the earlier outcome is sent again. Replies
// and faults go to the message's ReplyTo / FaultTo: on the back-channel when
// those are absent or anonymous (the reply is returned), through Outbox
// otherwise, after Policy allowed the address (a refused address is a Sender
// fault, and nothing is sent there).
type Handler struct {
	Handle HandleFunc
	Store  Store       // nil: no duplicate suppression, no state
	Outbox core.Sender // sends to non-anonymous ReplyTo/FaultTo addresses
	// Policy checks ReplyTo and FaultTo. nil: the schemes Outbox has (when
	// it is an *Outbox), or none at all.
	Policy *Policy
	// Receipts sends a receipt document to ReplyTo when Handle returns no
	// reply (a business-level acknowledgment).
	Receipts bool
	// InFlightLease is how long a message being processed elsewhere keeps
	// duplicates away (default 5 minutes); after it a duplicate is processed.
	InFlightLease time.Duration
	Logger        *slog.Logger

	locks sync.Map // message id → *sync.Mutex: duplicates in this process wait
}

var _ core.Handler = (*Handler)(nil)

// ReceiptName is the element of a receipt document.
const ReceiptName = "Receipt"

func (h *Handler) log() *slog.Logger {
	if h.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.Logger
}

func (h *Handler) policy() Policy {
	if h.Policy != nil {
		return *h.Policy
	}
	if o, ok := h.Outbox.(*Outbox); ok {
		return Policy{Schemes: o.Schemes()}
	}
	return Policy{}
}

// ServeSOAP processes m.
func (h *Handler) ServeSOAP(ctx context.Context, m *core.Message) (*core.Message, error) {
	pol := h.policy()
	for _, addr := range []string{m.ReplyTo, m.FaultTo} {
		if err := pol.Allow(addr); err != nil {
			h.log().WarnContext(ctx, "document: refused reply address", slog.String("id", m.ID), slog.String("address", addr), slog.Any("err", err))
			// Nothing may go to the peer's addresses: answer on the
			// back-channel only, or park (core.Serve Nacks a fault with
			// no address).
			m.ReplyTo, m.FaultTo = "", core.NoneAddress
			return nil, withVersion(core.FaultOf(err), m.Version())
		}
	}
	conv := ConversationOf(m)
	if h.Store == nil || m.ID == "" {
		return h.run(ctx, m, conv, nil)
	}
	mu, _ := h.locks.LoadOrStore(m.ID, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	defer func() {
		mu.(*sync.Mutex).Unlock()
		h.locks.Delete(m.ID)
	}()
	lease := h.InFlightLease
	if lease <= 0 {
		lease = 5 * time.Minute
	}
	var prior *Outcome
	_, err := h.Store.Update(ctx, conv, func(c *Conversation) error {
		if o, ok := c.Handled[m.ID]; ok && (o.Done || time.Since(o.Started) < lease) {
			prior = &o
			return errDuplicate
		}
		if c.Handled == nil {
			c.Handled = make(map[string]Outcome)
		}
		c.Handled[m.ID] = Outcome{Started: time.Now()}
		return nil
	})
	switch {
	case errors.Is(err, errDuplicate):
		return h.replay(ctx, m, prior)
	case err != nil:
		return nil, withVersion(&core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: err}, m.Version())
	}
	return h.run(ctx, m, conv, func(o Outcome) error {
		_, err := h.Store.Update(ctx, conv, func(c *Conversation) error {
			if c.Handled == nil {
				c.Handled = make(map[string]Outcome)
			}
			c.Handled[m.ID] = o
			if c.State == StateOpen {
				c.State = StateAcknowledged
			}
			return nil
		})
		return err
	})
}

var errDuplicate = errors.New("duplicate")

// run calls Handle, records the outcome (before anything is sent, so that a
// redelivery after a failed send replays it), and delivers it.
func (h *Handler) run(ctx context.Context, m *core.Message, conv string, record func(Outcome) error) (*core.Message, error) {
	in := &Incoming{Message: m, Conversation: conv}
	reply, err := h.Handle(ctx, in)
	if err != nil {
		reply = m.FaultReply(withVersion(core.FaultOf(err), m.Version()))
		reply.Action = core.FaultAction
		SetConversation(reply, conv)
	} else if reply == nil && h.Receipts && isAddress(m.ReplyTo) {
		reply = in.Reply(receiptDoc(m.ID))
	}
	if reply != nil && reply.RelatesTo == "" {
		reply.RelatesTo = m.ID
	}
	to := destination(m, reply)
	o := Outcome{Done: true, Started: time.Now(), To: to}
	if reply != nil && record != nil {
		var buf bytes.Buffer
		if _, werr := reply.WriteTo(&buf); werr != nil {
			return nil, werr
		}
		o.Reply = buf.Bytes()
		if reply, err = core.ReadMessage(bytes.NewReader(o.Reply), core.Unlimited()); err != nil {
			return nil, err
		}
	}
	if record != nil {
		if rerr := record(o); rerr != nil {
			h.log().ErrorContext(ctx, "document: recording the outcome failed", slog.String("id", m.ID), slog.Any("err", rerr))
		}
	}
	return h.deliver(ctx, m, reply, to)
}

// replay answers a duplicate with the recorded outcome.
func (h *Handler) replay(ctx context.Context, m *core.Message, o *Outcome) (*core.Message, error) {
	h.log().InfoContext(ctx, "document: duplicate delivery", slog.String("id", m.ID), slog.Bool("done", o.Done))
	if !o.Done || o.Reply == nil {
		return nil, nil // being processed elsewhere, or nothing to say again
	}
	reply, err := core.ReadMessage(bytes.NewReader(o.Reply), core.Unlimited())
	if err != nil {
		return nil, err
	}
	return h.deliver(ctx, m, reply, o.To)
}

// deliver returns reply on the back-channel, or sends it to `to`.
func (h *Handler) deliver(ctx context.Context, m *core.Message, reply *core.Message, to string) (*core.Message, error) {
	if reply == nil {
		return nil, nil
	}
	if to == core.NoneAddress {
		return nil, nil
	}
	if to == "" {
		if f := reply.Fault(); f != nil {
			return nil, f
		}
		return reply, nil
	}
	if h.Outbox == nil {
		m.FaultTo = core.NoneAddress
		return nil, withVersion(core.ReceiverFault("no outbox to send the reply to %s", to), m.Version())
	}
	reply.To = to
	if err := h.Outbox.Send(ctx, reply); err != nil {
		h.log().ErrorContext(ctx, "document: sending the reply failed", slog.String("id", m.ID), slog.String("to", to), slog.Any("err", err))
		// Park rather than fault to the same failing address; a redelivery
		// replays the recorded outcome.
		m.FaultTo = core.NoneAddress
		return nil, withVersion(&core.Fault{Code: core.CodeReceiver, Reason: core.InternalErrorReason, Cause: err}, m.Version())
	}
	return nil, nil
}

// destination is where the reply (or fault) to m goes: "" for the
// back-channel.
func destination(m *core.Message, reply *core.Message) string {
	to := m.ReplyTo
	if reply != nil && reply.Fault() != nil && m.FaultTo != "" {
		to = m.FaultTo
	}
	if to == core.AnonymousAddress {
		return ""
	}
	return to
}

func isAddress(a string) bool {
	return a != "" && a != core.AnonymousAddress && a != core.NoneAddress
}

func receiptDoc(id string) []byte {
	var b []byte
	b = append(b, `<d:`+ReceiptName+` xmlns:d="`+Namespace+`"><d:MessageID>`...)
	b = appendText(b, id)
	b = append(b, `</d:MessageID></d:`+ReceiptName+`>`...)
	return b
}

func withVersion(f *core.Fault, v core.Version) *core.Fault {
	if f.Version != 0 {
		return f
	}
	c := *f
	c.Version = v
	return &c
}
