// Package nats carries SOAP 1.1 and 1.2 envelopes over NATS
// (github.com/nats-io/nats.go): request-reply served by queue groups, so any
// number of instances share the load, one-way publishes, and durable
// document delivery with JetStream. StartServer starts an embedded
// nats-server for examples and tests; everything else works the same on
// any NATS server or cluster.
//
// Callers alias the package:
//
//	import soapnats "github.com/soapwire/soapwire/bindings/nats"
//
// # Request-reply
//
// Subscribe serves a core.Handler on a subject in a queue group; Transport
// is the client: a core.RoundTripper (a NATS request, with many in flight on
// one connection, each bounded by its ctx) and a core.Sender (a publish).
// A fault travels back as a fault envelope and comes out of RoundTrip as a
// *core.Fault with Remote set. When nothing subscribes to the subject,
// RoundTrip fails at once with a *NoRespondersError (ErrNoResponders),
// which is never confused with a timeout (ctx's error).
//
// # Headers
//
// The envelope is the payload; NATS headers carry what SOAP over JMS puts in
// message properties:
//
//	Content-Type         text/xml; charset=utf-8                         (1.1)
//	                     application/soap+xml; charset=utf-8; action="…" (1.2)
//	SOAPAction           the action (both versions)
//	Nats-Msg-Id          the message id (JetStream deduplicates on it)
//	SOAP-Target-Service  the message's To, else the nats: address it was sent to
//
// A received message without a Content-Type, or whose headers contradict
// each other or the envelope (a 1.2 envelope sent as text/xml, SOAPAction
// against the action parameter or wsa:Action, Nats-Msg-Id against
// wsa:MessageID, SOAP-Target-Service against wsa:To, a header given twice
// with different values) is refused with a Sender fault whose subcode, in
// Namespace, names the problem (SubcodeMissingContentType, …; wsa's
// ActionMismatch for wsa:Action), and a log line. Where the envelope has no
// wsa:Action, MessageID or To, the headers fill them in.
//
// # Addresses
//
// "nats:orders.create" is a core NATS subject: a request-reply endpoint or
// a publish. "nats:orders.placed?stream=ORDERS" is a JetStream destination:
// Transport.Send and Publisher.Send publish there and wait for the stream to
// store the message. A document.Outbox routes the "nats" scheme to a
// Transport, which handles both. See Address.
//
// # JetStream
//
// Publisher is a core.Sender that publishes to a stream with Nats-Msg-Id =
// the message id, so the stream drops a duplicate inside its duplicate
// window, and sets Meta "nats.stream" and "nats.seq" on the message (which
// document.Send's Receipt carries). A message larger than the server's max
// payload is refused with ErrTooLarge before anything is published.
//
// Receiver is a core.Receiver on a durable consumer (run it with
// core.Serve): Ack after processing, confirmed by the server; Nack asks for
// redelivery after a growing backoff; a message Nacked on its last allowed
// delivery (WithMaxDeliveries) is published with its fault to a dead-letter
// subject and terminated, so it is never silently dropped. While a delivery
// is unsettled the Receiver keeps telling the server it is in progress, so
// a slow handler does not get its message redelivered to someone else.
//
// # Attachments
//
// A message with Packaging core.MTOM or core.SwA travels as one NATS message:
// header Content-Type = Message.ContentType(), the MIME package as the
// payload; readers take a multipart/related Content-Type with
// core.ReadPackage. A package over the server's max payload is refused with
// ErrTooLarge, unless WithObjectStore puts its large parts into a JetStream
// object store bucket, sending message/external-body parts (access-type
// x-nats-object) in their place, which readers given the bucket fetch back
// and delete once the message is settled (a Transport's reply: before
// RoundTrip returns, its parts read into the reply).
//
// Addresses, headers, fault subcodes, dead letters and the settings that
// matter in production are described in docs/bindings/nats.md.
package nats
