// Package core is soapwire's transport-neutral SOAP 1.1 and 1.2 core: it
// reads, processes and writes envelopes, header blocks and faults, and
// defines the handler shape and the seams every binding plugs into. It
// imports only the standard library and keeps no global state: no init
// functions, no package-level defaults, logging only through an injected
// *slog.Logger (nil discards).
//
// # Envelopes
//
// An [Envelope] has a [Version] ([V11] or [V12], chosen by the envelope
// namespace), its header blocks, parsed and bounded, and a [Body].
// [ReadEnvelope] reads the header and the start of the body; the rest of the
// body stays on the transport until it is consumed.
//
// A [HeaderBlock] names its element by namespace URI and local name, never
// by prefix, and carries the SOAP attributes as fields (Role: the 1.1 actor
// or 1.2 role, "" for the ultimate receiver; MustUnderstand; Relay, 1.2;
// EncodingStyle) and the element itself as namespace-complete XML, so it
// can be moved into another envelope as is. When writing, the fields win
// over what the XML says.
//
// An inbound [Body] is a stream, read once: [Body.Name] (the first child's
// name, for routing) is known as soon as the header is read; [Body.Token]
// (Body implements [encoding/xml.TokenReader]), [Body.Decode],
// [Body.WriteTo] and [Body.Discard] consume the rest, so a large document
// passes through with flat memory. Buffer it to use it twice. Outbound
// bodies come from [RawBody], [ValueBody], [StreamBody] (written by a func
// as it goes) and [FaultBody].
//
// # Messages and addressing
//
// A [Message] is an envelope with what the transport and the WS-Addressing
// 1.0 headers say about it: Action, ID (wsa:MessageID), RelatesTo, To,
// ReplyTo and FaultTo, plus binding properties in Meta ("smtp.message-id").
// [ReadMessage] moves the wsa headers into these fields; [Message.WriteTo]
// writes them back as wsa headers when the message has an ID, a RelatesTo
// or an address (an Action alone travels in the transport). The envelope
// stays the unit of truth: a conversation can start on one transport and
// continue on another. [Message.Reply] and [Message.FaultReply] answer a
// message (RelatesTo set, a fresh ID when the request had one).
// [AnonymousAddress] as ReplyTo means the transport's back-channel;
// [NoneAddress] means no reply.
//
// # Faults
//
// [Fault] is the module's error type: a [Code] ([CodeSender], 1.1 Client;
// [CodeReceiver], 1.1 Server; [CodeMustUnderstand]; [CodeVersionMismatch];
// [CodeDataEncodingUnknown]), 1.2 subcodes, a reason with its language and
// translations, Node and Role, detail XML, the NotUnderstood blocks, the
// Version it answers, Remote for a fault that arrived from a peer, and a
// Cause that is never serialized. It is written in the 1.1 or 1.2 form as
// the envelope's version says. [FaultOf] turns any error into a Fault: a
// plain error becomes a Receiver fault with a generic reason
// ([InternalErrorReason]) and its text is never sent to a peer.
//
// # Handlers, Mux and Node
//
// Everything that processes a message is a [Handler]:
//
//	ServeSOAP(ctx context.Context, m *Message) (*Message, error)
//
// A nil reply with a nil error accepts a one-way message; an error is a
// fault. [HandlerFunc] adapts a function, [Middleware] and [Chain] wrap
// handlers, [Recover] turns a panic into a Receiver fault. [Mux] routes on
// the body's first child's name, then on the action ([Route]); a message
// no route matches is a Sender fault.
//
// [Node] is the SOAP processing model in front of a handler: it decides
// which header blocks target it (role next, its Roles, and, for an ultimate
// receiver, the ultimate-receiver role), refuses every targeted
// mustUnderstand block it has no [HeaderFunc] for with one MustUnderstand
// fault before anything runs, runs the HeaderFuncs in document order, and
// then either calls Handler (ultimate receiver) or, as an intermediary,
// removes the blocks addressed to it (unless relayed) and forwards the
// message through Next. A HeaderFunc may return a new context for later
// stages and may add header blocks.
//
// # Bindings
//
// Bindings plug in through three small seams: [RoundTripper]
// (request-response out: HTTP, a NATS request), [Sender] (one-way out:
// SMTP, FTP, NATS publish) and [Receiver] with its [Delivery] (asynchronous
// in, settled by Ack or Nack: a mailbox, a file drop, JetStream).
// Request-response servers adapt their transport's own serving type to a
// Handler. [Serve] drives a Receiver: it hands each delivery to a handler,
// sends the reply to ReplyTo (a fault to FaultTo, else ReplyTo) through a
// Sender, and Acks the delivery only once that reply was handed on, or
// Nacks it, with its fault, when sending fails or a fault has nowhere to
// go.
//
// # Attachments: MTOM/XOP and SwA
//
// A [Message] may carry MIME parts ([Attachment]: Content-ID, Content-Type,
// headers, bytes from Open) in Message.Attachments, written as a
// multipart/related package when Message.Packaging is [MTOM] or [SwA]
// ([Message.ContentType] is the package's Content-Type for the transport's
// header) and read by [ReadPackage], which reads a plain envelope as
// ReadMessage does for any other content type. Parts are held in memory up
// to Limits.SpoolThreshold, the rest in one temporary file per package,
// released by [Message.Close] ([Serve] closes each delivery once settled).
// In an MTOM message each xop:Include of the body is resolved as the body
// is read: Token, Next, Decode and WriteTo see the base64 text of its part,
// in chunks; Discard and Verdict check includes without reading parts; a
// wrong Include is a Sender fault. [Binary] is a base64Binary value for body
// structs that is written as an xop:Include (MTOM), swaRef text (SwA) or
// inline base64, and decoded as the part itself. Limits bound the parts,
// their sizes, their headers and the package; a malformed package is a
// Sender fault with [ErrMalformed] in its chain. See docs/attachments.md.
//
// # Limits and strictness
//
// Reading is namespace-aware and strict, and bounded by [Limits]: total
// bytes, header bytes, nesting depth, attributes and namespace declarations
// per element, name length. A zero field takes its default
// ([DefaultLimits]), a negative one switches the bound off. A DOCTYPE, a
// processing instruction, an unbound prefix, a duplicate attribute, content
// after the Envelope, invalid UTF-8 or a control character, and every
// exceeded limit are Sender faults ([ErrTooLarge] and [ErrLimit] are in
// their chains), never a panic or unbounded memory. Input that is not an
// envelope at all (empty, not XML, a root element other than Envelope) has
// [ErrNotEnvelope] in its fault's chain, so a binding can refuse it without
// a SOAP fault. UTF-8 and UTF-16 with a byte order mark are accepted.
//
// The XML reading sits behind one internal tokenizer seam
// (core/internal/xmltok): soapwire's own strict, streaming tokenizer, whose
// tokens [Body.Next] hands out without copies. encoding/xml is used only
// where a caller asks for a Go value ([Body.Decode], [HeaderBlock.Decode],
// [NewHeaderBlock], [ValueBody]).
package core
