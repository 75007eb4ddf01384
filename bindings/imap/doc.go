// Package imap receives SOAP messages from an IMAP mailbox — the mailbox
// someone else runs (Microsoft 365, Gmail, a company's Dovecot) — with the
// guarantees of bindings/smtp's Maildir: no mail lost across a crash, each
// mail claimed by exactly one Receiver, failures parked, never deleted.
//
//   - Receiver, a core.Receiver on an IMAP folder (the inbox of an
//     imap:// or imaps:// address): pushed to by IDLE (re-issued every
//     WithIdleInterval, under the 29 minutes after which servers may drop an
//     idle client), polling where the server has no IDLE; reconnecting with
//     backoff after a connection is lost;
//   - Appender, a core.Sender that APPENDs a message as a mail into a folder
//     of an account (tests, examples, a shared mailbox without an MTA);
//   - Server, an embedded IMAP server (go-imap's, in memory) for examples
//     and tests, started with StartServer.
//
// Replies go out through core.Serve and bindings/smtp's Sender, as for the
// Maildir: the mail format (bindings/internal/mail) is the same, so a mail
// read over IMAP has its Message-ID, In-Reply-To, Reply-To and From mapped
// to the message's fields, under "imap." Meta keys.
//
// Callers alias the package:
//
//	import soapimap "github.com/soapwire/soapwire/bindings/imap"
//
// # Claims
//
// A Receiver claims a mail by UID MOVE (RFC 6851) from the inbox into a
// processing folder: atomic on the server, so of several Receivers on one
// inbox exactly one gets each mail (COPYUID, from UIDPLUS, tells it the
// mail's UID there; a Receiver whose MOVE found nothing lost the race).
// Where the server has CONDSTORE, a conditional STORE of the lease keyword
// takes the mail first, so only one Receiver moves it (Dovecot's Maildir
// MOVE is not exclusive). Where the server has no MOVE, go-imap's client
// claims by UID COPY, STORE \Deleted and UID EXPUNGE (UIDPLUS). Should a mail
// still land twice in the processing folder, the claimer whose copy has not
// the lowest UID among the twins (same Message-ID, size and internal date)
// expunges it (it cannot see a twin already handled and deleted: on a server
// with neither MOVE nor CONDSTORE, run one Receiver per inbox). A crash
// between a COPY and its EXPUNGE leaves the mail in the inbox too: it is
// processed twice (document.Handler drops the duplicate by message id).
//
// The claimed mail's size (RFC822.SIZE) is checked before it is fetched
// (WithMaxMessageBytes); a mail is fetched whole, into memory up to
// 256 KiB and into an unnamed temporary file beyond, and its envelope read
// from there as a stream.
//
// # Settling
//
// Ack deletes the mail (STORE \Deleted, UID EXPUNGE of its UID) or,
// WithArchive, moves it to the done folder. Nack moves it to the failed
// folder and appends beside it a note: a mail from the service relating to
// it (In-Reply-To its Message-ID, X-Soapwire-Parked-UID its UID there,
// keyword NoteKeyword, Auto-Submitted so nothing answers it) whose body is
// the SOAP fault and, in its detail, the cause. A mail is never deleted
// for failing. A cause of context.Canceled returns the mail to the inbox.
// A mail that is not SOAP or too large is parked so by Receive itself.
//
// # Leases and crashes
//
// A claim is a lease (WithLease, default 2 minutes): a keyword on the mail
// in the processing folder that its Receiver renews every quarter lease.
// Any Receiver looks in the processing folder at its first Receive and then
// every WithRecoverInterval, and returns to the inbox the mails whose lease
// ran out (their Receiver died or lost its server for a lease), stamps
// those with none (a Receiver that died between MOVE and keyword), and
// expunges those an Ack flagged \Deleted without expunging. So a crash
// while claiming, processing or replying loses nothing; the mail is
// processed again, once its lease ran out, if the crash came before the Ack
// (a reply already sent is then sent again: at-least-once, like the
// Maildir). Close returns its unsettled mails to the inbox at once.
//
// # Security
//
// imaps:// is TLS from the first byte; imap:// requires STARTTLS
// (ErrNoTLS if the server does not offer it) unless WithPlaintext. Logins:
// WithCredentials (AUTHENTICATE PLAIN, else LOGIN) or WithOAuth, a bearer
// token from a callback (OAUTHBEARER, else XOAUTH2).
package imap
