package smtp

import mailfmt "github.com/soapwire/soapwire/bindings/internal/mail"

// Keys of core.Message.Meta set by this binding. A received message carries
// what its mail said (the raw header values, an address without its display
// name); a sent message carries what the server answered.
const (
	MetaMessageID   = metaPrefix + mailfmt.KeyMessageID   // Message-ID header, "<…>" (received and sent)
	MetaInReplyTo   = metaPrefix + mailfmt.KeyInReplyTo   // In-Reply-To header (received and sent)
	MetaReferences  = metaPrefix + mailfmt.KeyReferences  // References header (received and sent)
	MetaFrom        = metaPrefix + mailfmt.KeyFrom        // From address (received)
	MetaReplyTo     = metaPrefix + mailfmt.KeyReplyTo     // Reply-To address (received)
	MetaTo          = metaPrefix + mailfmt.KeyTo          // To header (received)
	MetaDeliveredTo = metaPrefix + mailfmt.KeyDeliveredTo // first Delivered-To header: the envelope recipient (received)
	MetaReturnPath  = metaPrefix + mailfmt.KeyReturnPath  // Return-Path: the envelope sender, "" for a bounce (received)
	MetaSubject     = metaPrefix + mailfmt.KeySubject     // Subject, decoded (received); set it before Send to choose the subject
	MetaDate        = metaPrefix + mailfmt.KeyDate        // Date header (received)
	MetaSOAPAction  = metaPrefix + mailfmt.KeySOAPAction  // SOAPAction header, unquoted (received)
	MetaContentType = metaPrefix + mailfmt.KeyContentType // Content-Type of the part that held the envelope (received)
	MetaLoop        = metaPrefix + mailfmt.KeyLoop        // why the loop guard suppresses answers to this mail, "" if it does not (received)
	MetaFile        = "smtp.file"                         // the mail's file name in the Maildir (received)
	MetaQueuedAs    = "smtp.queued-as"                    // the server's answer to the mail's data, e.g. "OK: queued as …" (sent)
)

// metaPrefix is the prefix of this binding's Meta keys.
const metaPrefix = "smtp."
