// Package mail is the mail format the mail bindings share: a SOAP message
// in an RFC 5322 + MIME mail, as the W3C SOAP 1.2 Email Binding describes.
//
// Read (and ReadBytes, for a mail in memory) finds the envelope in a mail
// (the body, or the first SOAP part of a multipart mail; 7bit, 8bit,
// binary, quoted-printable or base64; UTF-8, US-ASCII or UTF-16) and reads
// it with core.ReadMessage, its body left a stream; the mail's headers fill
// what the envelope's WS-Addressing headers leave empty (Message-ID ↔
// MessageID, In-Reply-To and References ↔ RelatesTo, Reply-To and From ↔
// ReplyTo) and are mirrored in Meta under the binding's prefix. The loop
// guard keeps bounces, auto-replies, list mail and the service's own mail
// from being answered. Compose writes a message as a mail; MessageIDHeader
// and IDFromMessageID map message ids to Message-IDs and back, exactly;
// WriteFault writes the record of a parked mail.
//
// It is internal to bindings/: bindings/smtp (the Maildir Receiver, the
// Sender) and bindings/imap (the mailbox Receiver) use it, and each exports
// what its users need (soapsmtp.ReadMail, MessageIDHeader,
// IDFromMessageID), so the format can change without an API change.
package mail
