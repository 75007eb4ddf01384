package smtp

// Keys of core.Message.Meta set by this binding. A received message carries
// what its mail said (the raw header values, an address without its display
// name); a sent message carries what the server answered.
const (
	MetaMessageID   = "smtp.message-id"   // Message-ID header, "<…>" (received and sent)
	MetaInReplyTo   = "smtp.in-reply-to"  // In-Reply-To header (received and sent)
	MetaReferences  = "smtp.references"   // References header (received and sent)
	MetaFrom        = "smtp.from"         // From address (received)
	MetaReplyTo     = "smtp.reply-to"     // Reply-To address (received)
	MetaTo          = "smtp.to"           // To header (received)
	MetaDeliveredTo = "smtp.delivered-to" // first Delivered-To header: the envelope recipient (received)
	MetaReturnPath  = "smtp.return-path"  // Return-Path: the envelope sender, "" for a bounce (received)
	MetaSubject     = "smtp.subject"      // Subject, decoded (received); set it before Send to choose the subject
	MetaDate        = "smtp.date"         // Date header (received)
	MetaSOAPAction  = "smtp.soapaction"   // SOAPAction header, unquoted (received)
	MetaContentType = "smtp.content-type" // Content-Type of the part that held the envelope (received)
	MetaFile        = "smtp.file"         // the mail's file name in the Maildir (received)
	MetaLoop        = "smtp.loop"         // why the loop guard suppresses answers to this mail, "" if it does not (received)
	MetaQueuedAs    = "smtp.queued-as"    // the server's answer to the mail's data, e.g. "OK: queued as …" (sent)
)
