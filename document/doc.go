// Package document carries document-style conversations over any binding.
//
// In document style an XML document sits directly in the Body and the
// exchange is conversational: a purchase order goes out by mail, its
// confirmation comes back by file drop. The pieces:
//
//   - Send wraps a document (bytes, a stream or a Go value) in an envelope
//     with WS-Addressing headers and a conversation header block, and hands it
//     to the Sender the scheme of its address selects; an Outbox maps
//     schemes (http, https, mailto, ftp, nats) to Senders and is a Sender.
//     Send returns a Receipt of what the transport confirmed.
//   - Handler wraps a document handler: it gives it the document and its
//     conversation, recognises a repeated delivery of a processed MessageID
//     (the handler does not run twice; the earlier outcome is sent again),
//     and sends replies and faults to ReplyTo/FaultTo through the Outbox,
//     after checking those peer-supplied addresses against a Policy.
//   - Correlator turns a one-way Sender plus inbound replies into a
//     core.RoundTripper matched by RelatesTo: a request by mail answered by
//     file drop looks to the caller like one call with a ctx deadline.
//   - Store keeps conversation state (open, awaiting reply, acknowledged,
//     completed, failed, expired); MemoryStore and FileStore ship.
//
// document/ imports only core packages and the standard library; bindings
// cooperate with it through core.Message fields (To, ReplyTo, ID, RelatesTo,
// Meta), never imports.
package document
