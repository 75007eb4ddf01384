package core

import "context"

// UnreadableMessage returns a message standing for one a transport
// delivered but whose envelope could not be read (not SOAP, malformed, over
// a bound): its Body fails with f at once (Body.Err is f). A Receiver
// yields one, instead of parking the input by itself, when the transport
// says which request it answers (a mail's In-Reply-To): the binding sets
// RelatesTo (and ID, Meta) from what it knows. Serve never hands such a
// message to a handler's ServeSOAP: it parks it (Nack with ErrMalformed and
// f), after telling a handler that waits for replies (UnreadableHandler),
// so the call waiting for that reply ends at once with f.
func UnreadableMessage(v Version, f *Fault) *Message {
	if f.Version == 0 && v != 0 {
		f = f.WithVersion(v)
	}
	m := NewMessage(v, Body{&bodySource{named: true, in: &inbound{err: f, v: v}}})
	m.ReplyTo, m.FaultTo = NoneAddress, NoneAddress
	return m
}

// UnreadableHandler is a Handler that waits for replies (document.Correlator).
// Serve calls ServeUnreadable with a message that could not be read but
// relates to a request (UnreadableMessage, RelatesTo set) before it parks
// the message: the handler ends the call waiting for that reply with f at
// once, as a malformed reply over request-reply (HTTP, NATS) ends its call.
type UnreadableHandler interface {
	Handler
	ServeUnreadable(ctx context.Context, m *Message, f *Fault)
}
