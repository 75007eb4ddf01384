package core

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// ReplyPolicy decides where the answers to a request may go. ReplyTo and
// FaultTo come from peers (the envelope's WS-Addressing headers, or what a
// binding mirrors from its transport: a mail's Reply-To or From), so before
// a request is handled both are checked, and a request whose answer could
// go somewhere the policy does not allow is refused without running the
// handler: no side effect, and nothing sent to the address it names.
// Serve applies one to every delivery (WithReplyPolicy; the zero
// ReplyPolicy by default), and document.Handler uses Serve's, or its own.
//
// An address is allowed when all of these hold:
//   - it is an absolute URI of at most MaxReplyAddressLen bytes; if Schemes
//     is not empty, its scheme is one of them (without case);
//   - an address with a host (http, https, ftp, ftps, …) has a real one:
//     not empty, not a number written the ways only inet_aton reads
//     ("2130706433", "0x7f.1"); userinfo tricks ("https://partner@evil/")
//     are judged by the real host;
//   - if Hosts is not empty, its host is one of them, or below an entry
//     written with a leading dot (".example.com" allows "a.example.com",
//     not "example.com"); an entry "host:port" also pins the port (the
//     scheme's default when the address names none). If Hosts is empty,
//     any host is allowed except, unless Private is set, a loopback,
//     private, link-local, shared (CGNAT), multicast or unspecified IP
//     address and the names "localhost" and "*.localhost" (a name that
//     resolves to such an address is refused where the answer connects:
//     NeedsDialCheck; the soapwire
//     FTP, SFTP and NATS Senders never connect where an address says: ftp,
//     ftps, sftp and nats addresses are not held to this, their Senders
//     refuse other servers than their own; so do the imap Appender's imap
//     and imaps, and the file Sender writes only below its root);
//   - a mailto address is one plain address (no second recipient, no
//     "?cc=" or other header fields, no display name), and it is the
//     request's authenticated submitter (Meta[MetaSubmitter], which the SMTP
//     binding sets from the AUTH identity its server recorded) or matches
//     Mailboxes. With Mailboxes empty, mail goes only to the submitter: a
//     forged From, Reply-To or wsa:ReplyTo never makes the service mail a
//     third party;
//   - a NATS subject ("nats:subject", optionally "?stream=NAME") has no
//     wildcard, no empty token and does not start with "$" (the system and
//     JetStream API subjects); if Subjects is not empty it matches one of
//     them (NATS wildcards: "replies.>", "orders.*.reply");
//   - Check, when set, returns nil.
//
// Serve and document.Handler also ask the Sender the answers would leave
// through (AllowAnswers): an address it has no route for (an http: ReplyTo
// on a service that replies by mail, an ftp: address on another server) is
// refused before the handler runs, not after.
//
// The anonymous and none addresses, and no address, are always allowed:
// they send nothing anywhere new.
type ReplyPolicy struct {
	// Schemes, when not empty, lists the schemes answers may go to
	// ("mailto", "https", "ftp", "nats", …). Empty: any scheme the Sender
	// can route.
	Schemes []string
	// Hosts, when not empty, lists the hosts answers may go to: a name
	// ("partner.example"), a name's subdomains (".partner.example"), an IP
	// address ("10.0.0.7", "::1"), each optionally with a port
	// ("partner.example:8443", "[::1]:8080"). A host listed here is allowed
	// even if it is private. Mail domains are not hosts: see Mailboxes.
	Hosts []string
	// Private lets an address name a loopback, private or link-local host
	// when Hosts is empty. Off by default: a request cannot make the
	// service post to 127.0.0.1, 10.0.0.0/8 or 169.254.169.254. Allow
	// judges names by their text; a name that resolves to such an address
	// is refused where the answer's connection is made (NeedsDialCheck,
	// DialControl: bindings/http's Transport), after the handler ran.
	Private bool
	// Subjects, when not empty, are the NATS subjects answers may be
	// published to (patterns with NATS wildcards).
	Subjects []string
	// Mailboxes lists where mail answers may go besides the authenticated
	// submitter: an address ("buyer@partner.example"), a domain
	// ("@partner.example") or a domain's subdomains ("@.partner.example").
	// "*" allows any address: the service then mails whatever a request
	// names, an open reflector unless something in front (an MTA checking
	// SPF and DKIM, a Check) vouches for the senders.
	Mailboxes []string
	// Check, when set, is called last, with the request and the parsed
	// address, and can refuse with an error (logged; its text is not sent
	// to the peer).
	Check func(ctx context.Context, m *Message, u *url.URL) error
}

// MaxReplyAddressLen is the longest ReplyTo or FaultTo a ReplyPolicy accepts.
const MaxReplyAddressLen = 2048

// MetaSubmitter is the Meta key under which a binding records the identity
// its transport authenticated as the message's submitter, when that is an
// address answers may go to: the SMTP binding's Receiver sets it to the
// AUTH user its server recorded in the stored mail (and only from a record
// it can verify). ReplyPolicy allows a mailto answer to it.
const MetaSubmitter = "core.submitter"

// ErrReplyRefused is in the chain of a ReplyPolicy's refusal, and of the
// cause Serve Nacks a delivery with when its ReplyTo or FaultTo is refused
// (by Serve's policy, or by a handler's, such as document.Handler's). That
// cause holds ErrMalformed too: a Receiver parks such a delivery at once,
// since resending the same message cannot help.
var ErrReplyRefused = errors.New("core: reply address refused")

// AddressChecker is a Sender that can tell, before anything is sent,
// whether it can send to an address: CheckAddress returns nil, or why not
// (a scheme it has no route for, an address of another server, a malformed
// one). Serve and document.Handler ask it about a request's ReplyTo and
// FaultTo before the handler runs. Every soapwire Sender is one.
type AddressChecker interface {
	CheckAddress(addr string) error
}

// Allow returns nil if an answer to m may go to addr, else a Sender fault
// naming addr, with ErrReplyRefused in its chain. m may be nil (no
// submitter is then known).
func (p ReplyPolicy) Allow(ctx context.Context, m *Message, addr string) error {
	if !IsReplyAddress(addr) {
		return nil
	}
	if len(addr) > MaxReplyAddressLen {
		return refuseReply("reply address is longer than %d bytes", MaxReplyAddressLen)
	}
	u, err := url.Parse(addr)
	if err != nil || u.Scheme == "" {
		return refuseReply("reply address %q is not an absolute URI", addr)
	}
	scheme := strings.ToLower(u.Scheme)
	if len(p.Schemes) > 0 && !containsFold(p.Schemes, scheme) {
		return refuseReply("reply address %q: scheme %q is not allowed", addr, scheme)
	}
	switch scheme {
	case "mailto":
		if err := p.allowMail(m, u, addr); err != nil {
			return err
		}
	case "nats":
		subject, err := natsSubject(u)
		if err != nil {
			return refuseReply("reply address %q: %v", addr, err)
		}
		if len(p.Subjects) > 0 && !subjectAllowed(p.Subjects, subject) {
			return refuseReply("reply address %q: subject %q is not allowed", addr, subject)
		}
		if u.Host != "" || u.User != nil {
			if err := p.allowHost(scheme, u, addr); err != nil {
				return err
			}
		}
	default:
		if u.Host == "" && u.User == nil && !hostScheme(scheme) {
			// an address without a host ("pipe:…"): nothing to reach
			if len(p.Hosts) > 0 {
				return refuseReply("reply address %q has no host", addr)
			}
			break
		}
		if err := p.allowHost(scheme, u, addr); err != nil {
			return err
		}
	}
	if p.Check != nil {
		if err := p.Check(ctx, m, u); err != nil {
			return &Fault{Code: CodeSender, Reason: fmt.Sprintf("reply address %q is not allowed", addr), Cause: fmt.Errorf("%w: %w", ErrReplyRefused, err)}
		}
	}
	return nil
}

// AllowAnswers checks m's ReplyTo and FaultTo with Allow and, when via is
// not nil, asks via whether it can send there: via an AddressChecker, its
// CheckAddress; a Sender that cannot tell routes only the Schemes listed
// (none when Schemes is empty). It returns nil or the first refusal, a
// Sender fault naming the address, with ErrReplyRefused in its chain.
func (p ReplyPolicy) AllowAnswers(ctx context.Context, m *Message, via Sender) error {
	for _, addr := range [...]string{m.ReplyTo, m.FaultTo} {
		if !IsReplyAddress(addr) {
			continue
		}
		if err := p.Allow(ctx, m, addr); err != nil {
			return err
		}
		if via == nil {
			continue
		}
		if c, ok := via.(AddressChecker); ok {
			if err := c.CheckAddress(addr); err != nil {
				return &Fault{Code: CodeSender, Reason: fmt.Sprintf("reply address %q cannot be reached from here", addr), Cause: fmt.Errorf("%w: %w", ErrReplyRefused, err)}
			}
			continue
		}
		if len(p.Schemes) == 0 {
			return &Fault{Code: CodeSender, Reason: fmt.Sprintf("reply address %q cannot be reached from here", addr),
				Cause: fmt.Errorf("%w: the reply Sender %T cannot say where it sends (it is no core.AddressChecker): list the schemes it takes in ReplyPolicy.Schemes", ErrReplyRefused, via)}
		}
	}
	return nil
}

// IsReplyAddress reports whether addr names somewhere an answer would be
// sent: not empty, anonymous (the back-channel) or none.
func IsReplyAddress(addr string) bool {
	return addr != "" && addr != AnonymousAddress && addr != NoneAddress
}

// replyPolicyKey is the context key of the ReplyPolicy Serve applied.
type replyPolicyKey struct{}

// ReplyPolicyOf returns the ReplyPolicy Serve checked the delivery being
// handled in ctx against, and whether there is one. A handler that sends
// answers itself (document.Handler) uses it when it has no policy of its own.
func ReplyPolicyOf(ctx context.Context) (ReplyPolicy, bool) {
	p, ok := ctx.Value(replyPolicyKey{}).(*ReplyPolicy)
	if !ok {
		return ReplyPolicy{}, false
	}
	return *p, true
}

func withReplyPolicy(ctx context.Context, p *ReplyPolicy) context.Context {
	return context.WithValue(ctx, replyPolicyKey{}, p)
}

func refuseReply(format string, args ...any) *Fault {
	return &Fault{Code: CodeSender, Reason: fmt.Sprintf(format, args...), Cause: ErrReplyRefused}
}

// allowMail checks a mailto address: one plain address, the submitter or
// one of Mailboxes.
func (p ReplyPolicy) allowMail(m *Message, u *url.URL, addr string) error {
	mbox, err := mailAddress(u)
	if err != nil {
		return refuseReply("reply address %q: %v", addr, err)
	}
	if m != nil {
		if sub := m.Meta[MetaSubmitter]; sub != "" && strings.EqualFold(sub, mbox) {
			return nil
		}
	}
	if mailboxAllowed(p.Mailboxes, mbox) {
		return nil
	}
	if len(p.Mailboxes) == 0 {
		return refuseReply("reply address %q: mail answers go only to the authenticated submitter or to listed mailboxes", addr)
	}
	return refuseReply("reply address %q: mailbox %q is not allowed", addr, mbox)
}

// allowHost checks the host and port of an address with an authority.
func (p ReplyPolicy) allowHost(scheme string, u *url.URL, addr string) error {
	host := normalHost(u.Hostname())
	if host == "" {
		return refuseReply("reply address %q has no host", addr)
	}
	if numericHost(host) {
		return refuseReply("reply address %q: host %q is a number that is no IP address", addr, host)
	}
	port := u.Port()
	if port == "" {
		port = defaultPort(scheme)
	}
	if len(p.Hosts) > 0 {
		if !hostAllowed(p.Hosts, host, port) {
			return refuseReply("reply address %q: host %q is not allowed", addr, hostPort(host, port))
		}
		return nil
	}
	if !p.Private && !ownServer(scheme) && privateHost(host) {
		return refuseReply("reply address %q: host %q is loopback, private or link-local", addr, host)
	}
	return nil
}

// hostScheme reports whether scheme's addresses must name a host.
func hostScheme(scheme string) bool {
	switch scheme {
	case "http", "https", "ftp", "ftps", "sftp", "ws", "wss":
		return true
	}
	return false
}

// ownServer reports whether soapwire's Sender for scheme connects only to
// a server it was configured with, never to the host an address names.
func ownServer(scheme string) bool {
	switch scheme {
	case "ftp", "ftps", "sftp", "file", "nats", "imap", "imaps":
		return true
	}
	return false
}

func defaultPort(scheme string) string {
	switch scheme {
	case "http", "ws":
		return "80"
	case "https", "wss":
		return "443"
	case "ftp":
		return "21"
	case "ftps":
		return "990"
	case "sftp":
		return "22"
	case "nats":
		return "4222"
	}
	return ""
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
