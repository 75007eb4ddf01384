package document

import (
	"errors"
	"fmt"

	"github.com/soapwire/soapwire/core"
)

// Sentinel errors. Refusals that concern a peer come as a *core.Fault whose
// Cause holds one of these, so errors.Is works on either.
var (
	// ErrUnknownScheme: no Sender is registered for an address's scheme;
	// nothing was sent.
	ErrUnknownScheme = errors.New("document: no sender for this address scheme")
	// ErrNoAddress: a message has no destination (no To, or To is the
	// anonymous or none address, which name no place to send to).
	ErrNoAddress = errors.New("document: message has no destination address")
	// ErrAddressRefused: a peer-supplied ReplyTo or FaultTo is not allowed by
	// the reply policy; nothing was sent there. It is core.ErrReplyRefused.
	ErrAddressRefused = core.ErrReplyRefused
	// ErrTimeout is in the chain of every *TimeoutError.
	ErrTimeout = errors.New("document: no reply in time")
	// ErrAwaiting: Correlator.RoundTrip was given a message id that is
	// already awaiting a reply.
	ErrAwaiting = errors.New("document: message id already awaiting a reply")
	// ErrInFlight: a message with this id is being processed by another
	// Handler sharing the Store; the delivery should be retried later.
	ErrInFlight = errors.New("document: message is being processed elsewhere")
	// ErrNotFound: Store.Get found no conversation with this id.
	ErrNotFound = errors.New("document: conversation not found")
	// ErrUnmatched: Correlator.ServeSOAP got a reply that no caller waits
	// for and has no fallback to hand it to (the reply is refused, so the
	// binding parks or redelivers it; it is not dropped).
	ErrUnmatched = errors.New("document: reply matches no waiting request and there is no fallback")
	// ErrProlog is in the chain of every *PrologError: a document given to
	// Send, NewMessage or NewBody whose prolog (what precedes its root
	// element) a SOAP Body cannot carry and that is not simply dropped (a
	// DOCTYPE, a processing instruction, an encoding other than UTF-8 or
	// UTF-16 with a byte order mark, text, a prolog over MaxProlog).
	ErrProlog = errors.New("document: document prolog refused")
	// ErrEncoding: a UTF-16 document is not valid UTF-16 (a lone
	// surrogate, an odd number of bytes).
	ErrEncoding = errors.New("document: document is not valid UTF-16")
)

// TimeoutError is returned by Correlator.RoundTrip when ctx ends before the
// reply comes. errors.Is(err, ErrTimeout) holds, and so does errors.Is(err,
// context.DeadlineExceeded) (or context.Canceled) for the ctx error.
type TimeoutError struct {
	MessageID    string // the request's id: a late reply has it as RelatesTo
	Conversation string
	Err          error // ctx.Err()
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("document: no reply to %s: %v", e.MessageID, e.Err)
}

// Unwrap returns ErrTimeout and the ctx error.
func (e *TimeoutError) Unwrap() []error { return []error{ErrTimeout, e.Err} }
