package main

import (
	"fmt"
	"net"
	"net/mail"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"time"

	soaphttp "github.com/soapwire/soapwire/bindings/http"
	soapnats "github.com/soapwire/soapwire/bindings/nats"
	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
)

// The budgets each binding keeps toward its peers (docs/security.md,
// "Defaults in one place"), as serve's configuration sets them: a key left
// out keeps the binding's default; a bound can be tuned, not switched off
// (but the SMTP pace, min_data_rate -1, for a server only a trusted relay
// reaches).

// badFunc reports a problem of the configuration field it names.
type badFunc func(field, format string, args ...any)

// positiveDuration parses v, the value of field: a Go duration ("20s",
// "10m") over zero, or "" (the default: 0 is returned).
func positiveDuration(bad badFunc, field, v string) time.Duration {
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		bad(field, "%q: want a duration over zero, such as \"30s\" or \"10m\"", v)
		return 0
	}
	return d
}

// positive reports a negative value of field (0 or left out: the default).
func positive(bad badFunc, field string, v int) {
	if v < 0 {
		bad(field, "%d: must be positive (0 or left out: the default); a bound cannot be switched off here", v)
	}
}

// checkBudget checks the HTTP handler's budget fields.
func (h *httpConfig) checkBudget(bad badFunc) {
	positiveDuration(bad, "http.body_timeout", h.BodyTimeout)
	positive(bad, "http.min_body_rate", h.MinBodyRate)
}

// handlerOptions returns the options the HTTP budget fields set.
func (h *httpConfig) handlerOptions() []soaphttp.HandlerOption {
	var opts []soaphttp.HandlerOption
	if d, err := time.ParseDuration(h.BodyTimeout); err == nil && d > 0 {
		opts = append(opts, soaphttp.WithBodyTimeout(d))
	}
	if h.MinBodyRate > 0 {
		opts = append(opts, soaphttp.WithMinBodyRate(h.MinBodyRate))
	}
	if h.ContentTypeOptional {
		opts = append(opts, soaphttp.WithContentTypeOptional())
	}
	return opts
}

// checkBudget checks the embedded SMTP server's session budget fields.
func (s *smtpConfig) checkBudget(bad badFunc) {
	set := s.MaxSessions != 0 || s.MaxSessionsPerIP != 0 || s.SessionTimeout != "" || s.IOTimeout != "" ||
		s.MinDataRate != 0 || s.MinDataRateGrace != ""
	if set && s.Listen == "" {
		bad("smtp", "the session budget (max_sessions, max_sessions_per_ip, session_timeout, io_timeout, min_data_rate, min_data_rate_grace) is the embedded server's: it needs smtp.listen")
	}
	positive(bad, "smtp.max_sessions", s.MaxSessions)
	sessions := s.MaxSessions
	if sessions <= 0 {
		sessions = soapsmtp.DefaultMaxSessions
	}
	switch {
	case s.MaxSessionsPerIP < -1:
		bad("smtp.max_sessions_per_ip", "%d: must be positive, or -1 for no bound but max_sessions (a server only a relay reaches)", s.MaxSessionsPerIP)
	case s.MaxSessionsPerIP > sessions:
		bad("smtp.max_sessions_per_ip", "%d: more than max_sessions (%d): one address could take every session", s.MaxSessionsPerIP, sessions)
	}
	positiveDuration(bad, "smtp.session_timeout", s.SessionTimeout)
	positiveDuration(bad, "smtp.io_timeout", s.IOTimeout)
	positiveDuration(bad, "smtp.min_data_rate_grace", s.MinDataRateGrace)
	switch {
	case s.MinDataRate < -1:
		bad("smtp.min_data_rate", "%d: must be positive (bytes per second), or -1 for no pace rule (then only io_timeout bounds a drip)", s.MinDataRate)
	case s.MinDataRate == -1 && s.MinDataRateGrace != "":
		bad("smtp.min_data_rate_grace", "has no use with min_data_rate -1 (no pace rule)")
	}
}

// cmp0 returns v, or def when v is 0.
func cmp0(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// serverOptions returns the options the SMTP budget fields set.
func (s *smtpConfig) serverOptions() []soapsmtp.ServerOption {
	var opts []soapsmtp.ServerOption
	if s.MaxSessions > 0 {
		opts = append(opts, soapsmtp.WithMaxSessions(s.MaxSessions))
	}
	if s.MaxSessionsPerIP != 0 {
		opts = append(opts, soapsmtp.WithMaxSessionsPerIP(s.MaxSessionsPerIP))
	}
	if d, err := time.ParseDuration(s.SessionTimeout); err == nil && d > 0 {
		opts = append(opts, soapsmtp.WithSessionTimeout(d))
	}
	if d, err := time.ParseDuration(s.IOTimeout); err == nil && d > 0 {
		opts = append(opts, soapsmtp.WithIOTimeout(d))
	}
	switch {
	case s.MinDataRate == -1:
		opts = append(opts, soapsmtp.WithMinDataRate(0, 0))
	case s.MinDataRate > 0 || s.MinDataRateGrace != "":
		rate, grace := cmp0(s.MinDataRate, soapsmtp.DefaultMinDataRate), soapsmtp.DefaultMinDataRateGrace
		if d, err := time.ParseDuration(s.MinDataRateGrace); err == nil && d > 0 {
			grace = d
		}
		opts = append(opts, soapsmtp.WithMinDataRate(rate, grace))
	}
	return opts
}

// checkBudget checks the NATS subscription's pending limits.
func (n *natsConfig) checkBudget(bad badFunc) {
	positive(bad, "nats.pending_msgs", n.PendingMsgs)
	positive(bad, "nats.pending_bytes", n.PendingBytes)
	if n.Durable != "" && (n.PendingMsgs != 0 || n.PendingBytes != 0) {
		bad("nats", "pending_msgs and pending_bytes bound request-reply (a subscription); a durable consumer's backlog stays in the stream")
	}
}

// subscribeOptions returns the options the NATS budget fields set.
func (n *natsConfig) subscribeOptions() []soapnats.SubscribeOption {
	if n.PendingMsgs > 0 || n.PendingBytes > 0 {
		return []soapnats.SubscribeOption{soapnats.WithPendingLimits(n.PendingMsgs, n.PendingBytes)}
	}
	return nil
}

var schemeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*$`)

// check checks the reply policy's fields, as core.ReplyPolicy reads them.
func (p *policyConfig) check(bad badFunc) {
	for i, s := range p.Schemes {
		if !schemeName.MatchString(s) {
			bad(fmt.Sprintf("policy.schemes[%d]", i), "%q: not a URI scheme (such as \"https\" or \"mailto\")", s)
		}
	}
	for i, h := range p.Hosts {
		if err := policyHost(h); err != nil {
			bad(fmt.Sprintf("policy.hosts[%d]", i), "%q: %v", h, err)
		}
	}
	if p.Private && len(p.Hosts) > 0 {
		bad("policy.private", "has no use with policy.hosts: a listed host is allowed even if it is private, and no other is")
	}
	for i, s := range p.Subjects {
		if err := policySubject(s); err != nil {
			bad(fmt.Sprintf("policy.subjects[%d]", i), "%q: %v", s, err)
		}
	}
	for i, m := range p.Mailboxes {
		if err := policyMailbox(m); err != nil {
			bad(fmt.Sprintf("policy.mailboxes[%d]", i), "%q: %v", m, err)
		}
	}
}

// policyHost checks a ReplyPolicy.Hosts entry: a name, ".name" (its
// subdomains), or an IP address, each optionally with ":port".
func policyHost(e string) error {
	host := e
	if h, port, err := net.SplitHostPort(e); err == nil {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %q is not a port number", port)
		}
		host = h
	} else if strings.Contains(e, "]") || strings.Count(e, ":") == 1 {
		return fmt.Errorf("want a host, .domain or an IP address, optionally with :port (an IPv6 address with a port in brackets: [::1]:8080)")
	}
	if _, err := netip.ParseAddr(host); err == nil {
		return nil
	}
	name := strings.TrimSuffix(strings.TrimPrefix(host, "."), ".")
	if name == "" {
		return fmt.Errorf("no host")
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return fmt.Errorf("%q is not a host name label", label)
		}
		for _, r := range label {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_') {
				return fmt.Errorf("a host name has letters, digits, - and . only")
			}
		}
	}
	return nil
}

// policySubject checks a ReplyPolicy.Subjects pattern.
func policySubject(s string) error {
	if s == "" || strings.HasPrefix(s, "$") {
		return fmt.Errorf("not a subject answers may go to (empty, or a $ system subject)")
	}
	toks := strings.Split(s, ".")
	for i, tok := range toks {
		switch {
		case tok == "":
			return fmt.Errorf("an empty token")
		case tok == ">" && i != len(toks)-1:
			return fmt.Errorf("> is the last token only")
		case tok != "*" && tok != ">" && strings.ContainsAny(tok, "*> \t\r\n"):
			return fmt.Errorf("a token %q with a wildcard or a space in it", tok)
		}
	}
	return nil
}

// policyMailbox checks a ReplyPolicy.Mailboxes entry: "*", "@domain",
// "@.domain" or an address.
func policyMailbox(m string) error {
	switch {
	case m == "*":
		return nil
	case strings.HasPrefix(m, "@"):
		if err := policyHost(strings.TrimPrefix(m, "@")); err != nil || strings.Contains(m, ":") {
			return fmt.Errorf("want @domain or @.domain")
		}
		return nil
	}
	a, err := mail.ParseAddress(m)
	if err != nil || a.Address != m || !strings.Contains(m, "@") {
		return fmt.Errorf("want an address (buyer@partner.example), @domain, @.domain or *")
	}
	return nil
}
