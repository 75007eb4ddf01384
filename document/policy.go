package document

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Policy decides where replies and faults may go. ReplyTo and FaultTo come
// from peers, so each is checked before anything is sent there; a refused
// address is a Sender fault and nothing is sent.
//
// An address is allowed when all of these hold:
//   - it is an absolute URI of at most MaxAddressLen bytes whose scheme is
//     in Schemes (case-insensitive);
//   - http, https, ftp and ftps addresses have a host; mailto is a single
//     plain address (no second recipient, no "?cc=" or other header fields);
//     a NATS subject ("nats:subject" or "nats://host/subject") has no
//     wildcard and does not start with "$" (the system and JetStream API
//     subjects), and may carry one parameter, "?stream=NAME", with a valid
//     JetStream stream name (the NATS binding's durable address);
//   - if Hosts is not empty, the host (for mailto the domain of the address)
//     is one of Hosts, or a subdomain of an entry written with a leading dot
//     (".example.com" allows "a.example.com", not "example.com"). A bare
//     NATS subject ("nats:subject") has no host and is governed by Subjects
//     alone; any other address without a host ("pipe:…") passes only if
//     Hosts is empty;
//   - if Subjects is not empty, a NATS subject matches one of them (NATS
//     wildcards: "replies.>" or "orders.*.reply");
//   - Check, when set, returns nil.
//
// The anonymous and none addresses are always allowed: they send nothing
// anywhere new. The zero Policy allows nothing else.
type Policy struct {
	Schemes  []string
	Hosts    []string
	Subjects []string
	// Check, when set, is called last and can refuse with an error (its
	// text is not sent to the peer).
	Check func(u *url.URL) error
}

// MaxAddressLen is the longest ReplyTo or FaultTo a Policy accepts.
const MaxAddressLen = 2048

// Allow returns nil if replies may be sent to addr, else a Sender fault
// saying why, with ErrAddressRefused in its chain.
func (p Policy) Allow(addr string) error {
	if addr == "" || addr == core.AnonymousAddress || addr == core.NoneAddress {
		return nil
	}
	if len(addr) > MaxAddressLen {
		return refuse("reply address is longer than %d bytes", MaxAddressLen)
	}
	u, err := url.Parse(addr)
	if err != nil || u.Scheme == "" {
		return refuse("reply address %q is not an absolute URI", addr)
	}
	scheme := strings.ToLower(u.Scheme)
	if !containsFold(p.Schemes, scheme) {
		return refuse("reply address scheme %q is not allowed", scheme)
	}
	var host string
	switch scheme {
	case "mailto":
		if host, err = mailDomain(u); err != nil {
			return refuse("reply address %q: %v", addr, err)
		}
	case "nats":
		subject, err := natsSubject(u)
		if err != nil {
			return refuse("reply address %q: %v", addr, err)
		}
		if len(p.Subjects) > 0 && !subjectAllowed(p.Subjects, subject) {
			return refuse("reply subject %q is not allowed", subject)
		}
		host = normalHost(u.Hostname())
	case "http", "https", "ftp", "ftps":
		if host = normalHost(u.Hostname()); host == "" {
			return refuse("reply address %q has no host", addr)
		}
	default:
		host = normalHost(u.Hostname())
	}
	if u.Host != "" && host == "" {
		return refuse("reply address %q has an empty host", addr)
	}
	bareSubject := scheme == "nats" && u.Host == ""
	if len(p.Hosts) > 0 && !bareSubject && (host == "" || !hostAllowed(p.Hosts, host)) {
		return refuse("reply address host %q is not allowed", host)
	}
	if p.Check != nil {
		if err := p.Check(u); err != nil {
			return &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf("reply address %q is not allowed", addr), Cause: fmt.Errorf("%w: %w", ErrAddressRefused, err)}
		}
	}
	return nil
}

func refuse(format string, args ...any) *core.Fault {
	f := core.SenderFault(format, args...)
	f.Cause = ErrAddressRefused
	return f
}

func normalHost(h string) string { return strings.TrimSuffix(strings.ToLower(h), ".") }

func hostAllowed(hosts []string, host string) bool {
	for _, h := range hosts {
		h = strings.ToLower(h)
		if strings.HasPrefix(h, ".") {
			if len(host) > len(h) && strings.HasSuffix(host, h) {
				return true
			}
			continue
		}
		if normalHost(h) == host {
			return true
		}
	}
	return false
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
