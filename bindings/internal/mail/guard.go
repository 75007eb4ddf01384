package mail

import (
	"mime"
	netmail "net/mail"
	"strings"
)

// loopReason says why a mail must not be answered automatically (RFC 3834
// §2, and what MTAs and vacation programs do), or "". ours is true when the
// mail carries an X-Loop header naming one of the service's own addresses:
// it was sent by this service.
func loopReason(h netmail.Header, own []string) (reason string, ours bool) {
	for _, v := range h["X-Loop"] {
		a := strings.ToLower(AddressOnly(v))
		if a == "" {
			a = strings.ToLower(strings.TrimSpace(v))
		}
		for _, o := range own {
			if o = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(o), "mailto:")); a != "" && a == o {
				return "x-loop: sent by this service (" + a + ")", true
			}
		}
	}
	if rp, ok := h["Return-Path"]; ok && len(rp) > 0 {
		if v := strings.TrimSpace(rp[0]); v == "<>" || v == "" {
			return "bounce: empty Return-Path", false
		}
	}
	if from := AddressOnly(h.Get("From")); from != "" {
		local, _, _ := strings.Cut(strings.ToLower(from), "@")
		if local == "mailer-daemon" || local == "postmaster" {
			return "bounce: from " + from, false
		}
	}
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil && mt == "multipart/report" {
		return "bounce: a delivery or disposition report", false
	}
	if as := strings.TrimSpace(h.Get("Auto-Submitted")); as != "" {
		kw, _, _ := strings.Cut(as, ";")
		if !strings.EqualFold(strings.TrimSpace(kw), "no") {
			return "auto-submitted: " + as, false
		}
	}
	for _, k := range []string{"X-Autoreply", "X-Autorespond"} {
		if _, ok := h[k]; ok {
			return "auto-reply: " + k, false
		}
	}
	switch p := strings.ToLower(strings.TrimSpace(h.Get("Precedence"))); p {
	case "bulk", "junk", "list", "auto_reply":
		return "precedence: " + p, false
	}
	if _, ok := h["List-Id"]; ok {
		return "mailing list: " + strings.TrimSpace(h.Get("List-Id")), false
	}
	return "", false
}
