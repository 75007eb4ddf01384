// Package unixsock is a SOAP binding over Unix domain sockets, written as a
// user of soapwire would write one: it imports only soapwire's public core
// package (and core/coretest in its tests), and passes the core/coretest
// conformance suites. It is the running example of
// docs/writing-a-binding.md.
//
// It has the three seams of a full binding:
//
//   - Transport is a core.RoundTripper (a call: one request frame, one reply
//     frame) and a core.Sender (a one-way send to the Inbox at m.To);
//   - Server adapts a core.Handler to a listening socket, as net/http's
//     server does for bindings/http: it answers each call with the handler's
//     reply, its fault, or "accepted, no reply";
//   - Inbox is a core.Receiver: its Serve loop accepts one-way sends on a
//     socket and stores each envelope in a spool folder (written, synced and
//     renamed into place) before it tells the sender it has it; Receive
//     delivers them in arrival order, Ack deletes one, Nack redelivers it,
//     and after WithMaxAttempts deliveries parks it in failed/ with its
//     fault. What was stored survives a restart (NewInbox on the same
//     folder).
//
// # Addresses
//
// An address is "unix:" and the socket's path: unix:/run/orders.sock. Send
// goes to m.To; RoundTrip to the Transport's address.
//
// # Frames
//
// One connection carries one exchange: the client writes one frame, the
// server answers with one frame and closes. The client keeps its side open
// until it has the answer: a Server takes a hang-up (or a half-close) for a
// caller that went away, and cancels the handler's ctx. A frame is a 9-byte header,
// the action and the payload:
//
//	"SW" | kind (1 byte) | action length (2 bytes, big-endian) | payload length (4 bytes, big-endian) | action | payload
//
// Kinds: 'C' call and 'S' send (client to server, payload an envelope);
// 'R' reply (an envelope, perhaps a fault), 'N' accepted with no reply, 'A'
// stored, and 'E' refused (the payload is the reason, UTF-8 text). The
// action travels beside the envelope, as HTTP's SOAPAction does, so a
// message without WS-Addressing headers keeps it. The length prefix lets the
// reader bound the payload before reading it (Limits.MaxBytes); the cost is
// that a writer buffers each envelope to learn its length.
//
// # Refusals
//
// A frame that is not one (wrong magic, unknown kind, an action over
// MaxActionLen bytes or with control characters), a frame of the wrong kind
// for the socket, a payload over Limits.MaxBytes, and an envelope the Inbox
// cannot read are answered 'E' with the reason, which the client returns as
// an error wrapping ErrRefused. An envelope a Server cannot read is answered
// with the Sender fault core.ReadMessage gave. A peer that goes quiet
// mid-frame is cut off after WithIOTimeout. Every refusal is logged through
// WithLogger (discarded by default).
package unixsock
