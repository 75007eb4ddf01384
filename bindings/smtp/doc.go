// Package smtp carries SOAP 1.1 and 1.2 messages by mail, as the W3C SOAP
// 1.2 Email Binding describes, through a mailbox that loses nothing:
//
//   - Server, an embedded SMTP server (go-smtp) that accepts mail for the
//     service's addresses and writes each mail durably into a Maildir before
//     it answers 250 (NewServer and Serve for a service that owns its
//     lifetime; StartServer serves in the background until Close);
//   - Receiver, a core.Receiver that takes mails out of a Maildir (fed by a
//     Server or by any MTA that delivers into a Maildir: Postfix, Dovecot's
//     LDA, …), claims each by lock and rename so that any number of
//     processes share one folder without taking a mail twice, and parks a
//     mail that fails in failed/ with its fault beside it;
//   - Sender, a core.Sender that writes RFC 5322 + MIME mail and submits it
//     over a pool of reused SMTP sessions, with STARTTLS, AUTH, retries of
//     temporary refusals and ctx deadlines; a mail takes one round trip to a
//     server that offers PIPELINING and CHUNKING (MAIL, RCPT, BDAT and the
//     mail in one write), two with PIPELINING only;
//   - ReadMail, the parser the Receiver uses, for mail that arrives another
//     way.
//
// Callers alias the package:
//
//	import soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
//
// Each constructor takes its own option type (ServerOption, MaildirOption,
// ReceiverOption, SenderOption; ReadMailOption for ReadMail); an option
// several take returns an interface of them all (WithLogger a LogOption,
// WithTLS a SessionOption, ...). An option given to a constructor that does
// not take it does not compile.
//
// # The mail
//
// A SOAP 1.2 envelope travels as application/soap+xml with the action as
// the action parameter, a SOAP 1.1 envelope as text/xml with a SOAPAction
// header; the envelope is the body, 7bit or 8bit when its lines allow,
// quoted-printable otherwise. ReadMail also takes the envelope from the
// first such part of a multipart mail, and base64 bodies.
//
// The envelope is the unit of truth: its WS-Addressing headers win, and
// the mail mirrors them (Message-ID for the MessageID, In-Reply-To and
// References for RelatesTo; see MessageIDHeader). A mail without them (from
// a mail program, say) still works: the mail's headers fill the message's
// fields, so correlation by Message-ID ↔ In-Reply-To works as the W3C
// binding has it. Replies and faults that core.Serve sends go to the
// envelope's ReplyTo or FaultTo, else to the mail's Reply-To, else its From.
//
// # Loops
//
// Every mail the Sender writes carries X-Loop (its From address); replies
// also carry Auto-Submitted: auto-replied. A received mail that is a bounce,
// an auto-reply (Auto-Submitted other than "no", X-Autoreply), from a list
// (Precedence bulk/junk/list, List-Id) or that names the service in X-Loop
// is never answered: see ReadMail.
//
// # Durability
//
// The Server answers 250 only once the mail's bytes are on disk and the
// mail is in new/. With SyncJournal (the default on Linux) the mails that
// arrive together are appended to one journal file, synced once, then
// renamed into new/; about once a second a checkpoint (one syncfs(2)) makes
// the Maildir itself durable and removes the journal, and OpenMaildir
// replays any journal a crash left. With SyncFiles and SyncFilesystem each
// mail's file is synced in tmp/, renamed into new/ and new/ synced, the
// mails of a batch sharing the syncs. Either way a sync that fails answers
// 451 to every mail that waited for it and leaves none of them in new/
// (group commit, WithSyncMode). While a Receiver on the same *Maildir is
// receiving, the mail is handed over to it, already claimed: renamed into
// work/ instead of new/, or with SyncJournal left in tmp/ under its journal
// record until it is settled; its file stays open and locked, and the
// Receiver takes it with its bytes in memory. A
// Receiver holds a flock(2) on every mail it has claimed; a claim whose
// process died (its lock with it) is returned to new/ by the next Receiver
// that looks. Ack removes the mail (its file is reused for a later one);
// Nack moves it to failed/ next to a NAME.fault.xml holding the fault
// envelope and, in its detail, the cause. Nothing is deleted on failure.
package smtp
