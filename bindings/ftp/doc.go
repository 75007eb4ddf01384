// Package ftp carries SOAP 1.1 and 1.2 envelopes as files on an FTP
// server: a Sender that drops a message into a folder, a Poller that takes
// the messages dropped into an endpoint's inbox, a Client (a pool of
// logged-in control connections) they share, and an embedded server for
// tests and examples.
//
// Callers alias the package:
//
//	import soapftp "github.com/soapwire/soapwire/bindings/ftp"
//
// Each constructor takes its own option type (ClientOption, SenderOption,
// PollerOption, ServerOption); WithLogger is an Option of all four and
// WithTLS a TLSOption of the Client and the server. An option given to a
// constructor that does not take it does not compile.
//
// # Addresses and layout
//
// An address is ftp://host:port/folder: messages sent there are stored in
// that folder, one file each, named FileName(message id) (a UUID message id
// urn:uuid:… gives <uuid>.xml). Credentials never come from addresses: a
// Client logs in with its own, and a Sender refuses addresses on any other
// server (ErrForeignServer), whatever a peer writes in ReplyTo.
//
// An endpoint is a root folder with the folders of its Layout below it:
// inbox/ (where senders drop), work/ (claimed files), outbox/ (replies for
// peers that gave an anonymous or no ReplyTo), failed/ (parked files, each
// with a .fault.xml saying why) and optionally done/ (Acked files kept
// instead of deleted). Poller.Address is the inbox's address.
//
// # Never a partial file, never a lost one
//
// The Sender uploads to a temporary name that starts with a dot, then
// renames it to the final name, so no reader ever sees a partial file; on
// any failure, or when ctx ends, the temporary file is removed.
//
// The Poller lists the inbox, passes over temporary and hidden files
// silently and over unexpected or unsafe names (not *.xml, control
// characters, separators, "..", too long: see CheckName) with one log line
// each, and claims a file by renaming it into the work folder as
// <unix ms>.<poller id>.<name>: the rename is the lock, so of several
// Pollers on one endpoint exactly one gets each file. It downloads the file
// into a spool (memory, then a temporary file; never more than
// Limits.MaxBytes) and reads the envelope with core.ReadMessage. A file it
// cannot deliver (empty, not XML, not an envelope, too large) goes to the
// failed folder with its fault and is never yielded. Ack deletes the claim
// (or moves it to done/); core.Serve Acks only after the reply or fault was
// stored. Nack parks it in failed/ with a .fault.xml beside it, except when
// the cause is context.Canceled (a shutdown): then the file returns to the
// inbox for the next Poller.
//
// Claims are leases (WithLease, default 2 minutes). A Poller renews the
// claims it holds every quarter lease; a claim older than its lease was left
// by a Poller that crashed or lost its server, and any Poller of the
// endpoint returns it to the inbox. Delivery is therefore at least once: a
// file is processed again only when its lease ran out before it was
// settled.
//
// # Connections
//
// Every operation takes a logged-in control connection from the Client's
// pool (WithPoolSize, default 4), and a ctx deadline or cancellation
// interrupts it at once. Data connections are passive (EPSV, then PASV).
// WithTLS turns on explicit FTPS (AUTH TLS, PROT P). A connection that
// fails is dropped and a new one dialled, with backoff when dialling fails.
//
// # Metadata
//
// After Send, m.Meta[MetaFile] ("ftp.file") is the stored file's path, so
// document.Send's Receipt carries it. A received message has MetaFile (the
// name in the inbox) and MetaClaim ("ftp.claim", the path in work/).
package ftp
