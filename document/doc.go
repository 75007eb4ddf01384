// Package document carries document-style conversations over any binding.
//
// In document style an XML document sits directly in the Body and the
// exchange is conversational: a purchase order goes out by mail, its
// confirmation comes back by file drop, and over HTTP the response only
// acknowledges receipt (202). The pieces:
//
//   - Send wraps a document (bytes, a streaming io.Reader or a Go value) in
//     an envelope of the chosen SOAP version with WS-Addressing headers
//     (MessageID, To, Action, ReplyTo, FaultTo) and a Conversation header
//     block, and hands it to a core.Sender. A document's prolog (byte order
//     mark, XML declaration, comments, whitespace before the root element)
//     is dropped; a DOCTYPE, a processing instruction or an encoding other
//     than UTF-8 (UTF-16 with a byte order mark is transcoded) is refused
//     with a *PrologError before anything is sent, a stream being read
//     only up to its root element first. An Outbox maps address schemes
//     (http, https, mailto, ftp, nats, …) to Senders and is itself a Sender;
//     an address whose scheme it has no Sender for is refused before
//     anything is sent. Send returns a Receipt of what the transport
//     confirmed (what the binding put in the message's Meta).
//   - Handler wraps a document handler (a HandleFunc): it gives it the
//     document and its conversation, recognises a repeated delivery of a
//     processed MessageID (the HandleFunc does not run twice; the earlier
//     outcome is sent again), and sends replies, receipts and faults to
//     ReplyTo/FaultTo through the Outbox, after checking those peer-supplied
//     addresses against a core.ReplyPolicy, so a request that came by mail can be
//     answered by file drop.
//   - Correlator turns a one-way Sender plus inbound replies into a
//     core.RoundTripper matched by RelatesTo: a request by one transport
//     answered on another looks to the caller like one call with a ctx
//     deadline; no reply in time is a *TimeoutError; late and unmatched
//     replies go to a fallback handler.
//   - Store keeps conversation state (open, awaiting reply, acknowledged,
//     completed, failed, expired) and the duplicate-suppression records;
//     MemoryStore and FileStore (which survives a restart) ship. Expire and
//     Prune keep a Store current and bounded.
//
// document/ imports only core packages and the standard library; bindings
// cooperate with it through core.Message fields (To, ReplyTo, FaultTo, ID,
// RelatesTo, Meta), never imports. See docs/documents.md.
package document
