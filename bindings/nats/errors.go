package nats

import (
	"errors"
	"fmt"

	"github.com/nats-io/nats.go"
)

// Errors of the binding, for errors.Is.
var (
	// ErrNoResponders: nothing subscribes to the request's subject. It is in
	// the chain of a *NoRespondersError, never in that of a timeout.
	ErrNoResponders = errors.New("nats: no responders")
	// ErrAddress: an address is not a valid nats: address, or a listen
	// address not "host:port".
	ErrAddress = errors.New("nats: bad address")
	// ErrNoDestination: the message has no nats: To and the Transport or
	// Publisher no default subject.
	ErrNoDestination = errors.New("nats: no destination subject")
	// ErrTooLarge: the message is larger than the server's max payload; it
	// was not sent. core.ErrTooLarge is in the chain too.
	ErrTooLarge = errors.New("nats: message larger than the server's max payload")
	// ErrBadReply: a reply that is not a SOAP message the request can be
	// answered with (unreadable, or its headers contradict its envelope).
	ErrBadReply = errors.New("nats: bad reply")
	// ErrBadHeader: a header value the binding cannot send (a line break in
	// an action or id).
	ErrBadHeader = errors.New("nats: bad header value")
	// ErrNoStream: no JetStream stream captures a subject the binding
	// needs one for (a JetStream destination, a Receiver, a dead-letter
	// subject).
	ErrNoStream = errors.New("nats: no stream captures the subject")
	// ErrDeadLetter: a message could not be published to the dead-letter
	// subject; it was left for redelivery.
	ErrDeadLetter = errors.New("nats: dead-letter publish failed")
)

// NoRespondersError is returned by Transport.RoundTrip when the server says
// nothing subscribes to the subject (NATS's immediate "503 no responders"),
// as opposed to a timeout, where something may have received the request
// and not answered in time. errors.Is(err, ErrNoResponders) and
// errors.Is(err, nats.ErrNoResponders) hold; context.DeadlineExceeded is
// never in its chain.
type NoRespondersError struct {
	Subject string
}

func (e *NoRespondersError) Error() string {
	return fmt.Sprintf("nats: no responders on %s", e.Subject)
}

// Unwrap returns ErrNoResponders and nats.go's own sentinel.
func (e *NoRespondersError) Unwrap() []error {
	return []error{ErrNoResponders, nats.ErrNoResponders}
}
