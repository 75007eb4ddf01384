package imap

import mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"

// Keys of core.Message.Meta set by the Receiver: what the mail said (the
// raw header values, an address without its display name), as
// bindings/smtp has them under "smtp.", and where the mail is.
const (
	MetaMessageID   = metaPrefix + mailfmt.KeyMessageID   // Message-ID header, "<…>"
	MetaInReplyTo   = metaPrefix + mailfmt.KeyInReplyTo   // In-Reply-To header
	MetaReferences  = metaPrefix + mailfmt.KeyReferences  // References header
	MetaFrom        = metaPrefix + mailfmt.KeyFrom        // From address
	MetaReplyTo     = metaPrefix + mailfmt.KeyReplyTo     // Reply-To address
	MetaTo          = metaPrefix + mailfmt.KeyTo          // To header
	MetaDeliveredTo = metaPrefix + mailfmt.KeyDeliveredTo // first Delivered-To header: the envelope recipient
	MetaReturnPath  = metaPrefix + mailfmt.KeyReturnPath  // Return-Path: the envelope sender, "" for a bounce
	MetaSubject     = metaPrefix + mailfmt.KeySubject     // Subject, decoded; set it before an Appender's Send to choose the subject
	MetaDate        = metaPrefix + mailfmt.KeyDate        // Date header
	MetaSOAPAction  = metaPrefix + mailfmt.KeySOAPAction  // SOAPAction header, unquoted
	MetaContentType = metaPrefix + mailfmt.KeyContentType // Content-Type of the part that held the envelope
	MetaLoop        = metaPrefix + mailfmt.KeyLoop        // why the loop guard suppresses answers to this mail, "" if it does not
	MetaFolder      = "imap.folder"                       // the folder the mail was taken from (received)
	MetaUID         = "imap.uid"                          // the mail's UID in the processing folder while it is claimed (received)
	MetaAppendedUID = "imap.appended-uid"                 // the UID the server gave the appended mail, "" if it did not say (Appender)
)

// metaPrefix is the prefix of this binding's Meta keys.
const metaPrefix = "imap."
