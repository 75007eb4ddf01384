package mail

import (
	"mime"
	netmail "net/mail"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// The names of the Meta keys Read sets, after ReadConfig.Prefix: a
// received message carries what its mail said (the raw header values, an
// address without its display name).
const (
	KeyMessageID   = "message-id"   // Message-ID header, "<…>"
	KeyInReplyTo   = "in-reply-to"  // In-Reply-To header
	KeyReferences  = "references"   // References header
	KeyFrom        = "from"         // From address
	KeyReplyTo     = "reply-to"     // Reply-To address
	KeyTo          = "to"           // To header
	KeyDeliveredTo = "delivered-to" // first Delivered-To header: the envelope recipient
	KeyReturnPath  = "return-path"  // Return-Path: the envelope sender, "" for a bounce
	KeySubject     = "subject"      // Subject, decoded
	KeyDate        = "date"         // Date header
	KeySOAPAction  = "soapaction"   // SOAPAction header, unquoted
	KeyContentType = "content-type" // Content-Type of the part that held the envelope
	KeyLoop        = "loop"         // why the loop guard suppresses answers to this mail, "" if it does not
)

// mapMail fills what the envelope did not say from the mail's header.
func mapMail(m *core.Message, h netmail.Header, part *envelopePart, c *ReadConfig) {
	dec := new(mime.WordDecoder)
	set := func(k, v string) {
		if v = strings.TrimSpace(v); v != "" {
			m.SetMeta(c.Prefix+k, v)
		}
	}
	msgID := h.Get("Message-Id")
	inReplyTo := h.Get("In-Reply-To")
	set(KeyMessageID, msgID)
	set(KeyInReplyTo, inReplyTo)
	set(KeyReferences, h.Get("References"))
	from := AddressOnly(h.Get("From"))
	replyTo := AddressOnly(h.Get("Reply-To"))
	set(KeyFrom, from)
	set(KeyReplyTo, replyTo)
	set(KeyTo, h.Get("To"))
	deliveredTo := AddressOnly(h.Get("Delivered-To"))
	set(KeyDeliveredTo, deliveredTo)
	if rp, ok := h["Return-Path"]; ok && len(rp) > 0 {
		m.SetMeta(c.Prefix+KeyReturnPath, strings.Trim(strings.TrimSpace(rp[0]), "<>"))
	}
	subject := h.Get("Subject")
	if d, err := dec.DecodeHeader(subject); err == nil {
		subject = d
	}
	set(KeySubject, subject)
	set(KeyDate, h.Get("Date"))
	soapAction := part.soapAction
	if soapAction == "" {
		soapAction = unquote(strings.TrimSpace(h.Get("Soapaction")))
	}
	set(KeySOAPAction, soapAction)
	set(KeyContentType, part.contentType)
	if c.Submitter != nil {
		if v := h.Get(SubmitterHeader); v != "" {
			if id, ok := c.Submitter(v); ok {
				m.SetMeta(core.MetaSubmitter, id)
			}
		}
	}

	if m.ID == "" {
		m.ID = IDFromMessageID(msgID)
	}
	if m.RelatesTo == "" {
		parent := inReplyTo
		if strings.TrimSpace(parent) == "" {
			parent = lastMsgID(h.Get("References"))
		}
		m.RelatesTo = IDFromMessageID(parent)
	}
	if m.Action == "" {
		m.Action = part.action
		if m.Action == "" {
			m.Action = soapAction
		}
	}
	if m.To == "" {
		to := deliveredTo
		if to == "" {
			to = AddressOnly(h.Get("To"))
		}
		if to != "" {
			m.To = Mailto(to)
		}
	}
	loop, ours := loopReason(h, c.Addresses)
	explicitReply := m.ReplyTo != "" && m.ReplyTo != core.AnonymousAddress
	if loop != "" {
		m.SetMeta(c.Prefix+KeyLoop, loop)
		if ours {
			m.ReplyTo, m.FaultTo = core.NoneAddress, core.NoneAddress
			return
		}
		if !explicitReply {
			m.ReplyTo = core.NoneAddress
			if m.FaultTo == "" || m.FaultTo == core.AnonymousAddress {
				m.FaultTo = core.NoneAddress
			}
		}
		return
	}
	if !explicitReply {
		back := replyTo
		if back == "" {
			back = from
		}
		if back != "" {
			m.ReplyTo = Mailto(back)
		} else if m.ReplyTo == core.AnonymousAddress {
			m.ReplyTo = ""
		}
	}
	if m.FaultTo == core.AnonymousAddress {
		m.FaultTo = ""
	}
}
