// Package http carries SOAP 1.1 and 1.2 envelopes over HTTP: a server
// handler that adapts a core.Handler to net/http, a client Transport that is
// a core.RoundTripper and a core.Sender, and, from the two, a SOAP
// intermediary (a core.Node whose Next is a Transport, mounted with
// NewHandler).
//
// Callers alias the package:
//
//	import soaphttp "github.com/soapwire/soapwire/bindings/http"
//
// # Serving
//
// NewHandler accepts POST requests in either version: SOAP 1.1 as text/xml
// with a SOAPAction header, SOAP 1.2 as application/soap+xml with an optional
// action parameter. The envelope's namespace decides the version; a content
// type that contradicts it is a VersionMismatch fault. A POST without a
// Content-Type is refused with 415 unless WithContentTypeOptional: it is
// what a web page can send to another origin without a CORS preflight. The
// request body is read lazily through core.ReadMessage, so a handler streams
// it. Replies are answered 200, one-way messages (a nil reply) 202 with an
// empty body, and faults 500, except SOAP 1.2 Sender faults, which are 400
// (SOAP 1.2 Part 2 §7.5). HTTP-level refusals are 401, 405, 413 and 415, an
// empty 400 for a body that is not SOAP at all (see below), and, from
// NewServer, net/http's 431 for request headers over DefaultMaxHeaderBytes.
// A body whose framing is broken is 400 and one that does not arrive in time
// is 408 (WithBodyTimeout, WithMinBodyRate), both with a Sender fault in
// either version.
//
// Replies are written into a buffer of up to 32 KiB (core's envelope writer
// appends straight into it) before the status line, so an error while
// writing a small reply still becomes a fault; a larger reply is streamed.
// A request body the handler left unread is read to its end after the
// reply when at most 64 KiB of it are left, so its tokenizer is recycled
// and the connection kept.
//
// A request that is not SOAP at all (an empty body, not XML, a root element
// other than an Envelope) sent without a Content-Type (WithContentTypeOptional)
// is answered 400 with an empty body. Once an
// Envelope of either version has begun, whatever is wrong with it is a
// Sender fault in that version (400 for 1.2, 500 for 1.1) whose reason says
// what was wrong. Every refusal is logged through WithLogger.
//
// A message with attachments travels as a MIME package (multipart/related:
// MTOM/XOP or SOAP with Attachments). NewHandler reads one with
// core.ReadPackage (the root part's type decides the version; parts beyond
// Limits.SpoolThreshold are spooled to disk) and answers in the request's
// packaging when the reply has attachments; a malformed package is 400 and
// one over its limits 413. The Transport posts a message whose Packaging is
// MTOM or SwA with m.ContentType() and reads multipart/related replies the
// same way: close them (core.Message.Close) when done.
//
// GET serves the SOAP 1.2 SOAP Response MEP (WithGet) and "?wsdl" for a
// handler that is a Describer, such as a core/rpc Service, with the address
// set to the host the client used. WithAuth protects every method.
// NewServer returns an *http.Server with read, write, header and idle
// timeouts set.
//
// # Calling
//
// NewTransport posts envelopes to a URL with the right media type and
// action, reuses keep-alive connections, honours ctx deadlines (without one,
// a call that makes no progress for WithTimeout, 60 s, fails) and returns
// fault replies as *core.Fault (Remote set), non-SOAP replies as
// *StatusError, and 202 as (nil, nil). It distrusts its server: a reply in
// the other SOAP version, or announcing more than WithLimits allows, is an
// error.
package http
