package core

import (
	"errors"
	"net"
	"net/mail"
	"net/netip"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes of reply addresses ReplyPolicy judges.

// mailAddress returns the lower-cased address of a mailto URI that names
// one plain address, and refuses anything a mailer could expand into
// further recipients or headers.
func mailAddress(u *url.URL) (string, error) {
	if u.Host != "" || u.User != nil {
		return "", errors.New("mailto has no authority")
	}
	if u.RawQuery != "" || u.ForceQuery {
		return "", errors.New("mailto header fields (?cc=, ?bcc=, …) are not allowed")
	}
	if u.Fragment != "" || u.RawFragment != "" {
		return "", errors.New("mailto has no fragment")
	}
	raw := u.Opaque
	if raw == "" {
		raw = u.Path
	}
	addr, err := url.PathUnescape(raw)
	if err != nil {
		return "", errors.New("mailto address is badly escaped")
	}
	if strings.ContainsAny(addr, ",;") {
		return "", errors.New("mailto names more than one recipient")
	}
	a, err := mail.ParseAddress(addr)
	if err != nil {
		return "", errors.New("mailto address is not an address")
	}
	if a.Name != "" || a.Address != addr {
		return "", errors.New("mailto must be a bare address")
	}
	at := strings.LastIndexByte(a.Address, '@')
	if at <= 0 || at == len(a.Address)-1 {
		return "", errors.New("mailto address has no domain")
	}
	return strings.ToLower(a.Address[:at]) + "@" + normalHost(a.Address[at+1:]), nil
}

// mailboxAllowed matches a lower-cased address against Mailboxes entries:
// "a@b" exactly, "@b" the domain, "@.b" its subdomains, "*" anything.
func mailboxAllowed(entries []string, addr string) bool {
	at := strings.LastIndexByte(addr, '@')
	domain := addr[at+1:]
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(e, "mailto:")))
		switch {
		case e == "*":
			return true
		case strings.HasPrefix(e, "@."):
			sub := normalHost(e[1:])
			if len(domain) > len(sub) && strings.HasSuffix(domain, sub) {
				return true
			}
		case strings.HasPrefix(e, "@"):
			if normalHost(e[1:]) == domain {
				return true
			}
		default:
			if i := strings.LastIndexByte(e, '@'); i > 0 && e[:i]+"@"+normalHost(e[i+1:]) == addr {
				return true
			}
		}
	}
	return false
}

// natsSubject returns the subject of "nats:subject" or
// "nats://host/subject", refusing wildcards and the "$" system subjects.
// The one query parameter allowed is stream=NAME (the NATS binding's
// JetStream address), given once, with a valid stream name.
func natsSubject(u *url.URL) (string, error) {
	s := u.Opaque
	if s == "" {
		s = strings.TrimPrefix(u.Path, "/")
	}
	if u.Fragment != "" || u.RawFragment != "" {
		return "", errors.New("a NATS address has no fragment")
	}
	if u.RawQuery != "" || u.ForceQuery {
		if err := natsQuery(u.RawQuery); err != nil {
			return "", err
		}
	}
	if s == "" || len(s) > 256 {
		return "", errors.New("NATS subject is empty or too long")
	}
	if s[0] == '$' {
		return "", errors.New(`NATS subjects starting with "$" are system subjects`)
	}
	for _, tok := range strings.Split(s, ".") {
		if tok == "" {
			return "", errors.New("NATS subject has an empty token")
		}
		if strings.ContainsAny(tok, "*>") {
			return "", errors.New("NATS subject has a wildcard")
		}
		for _, r := range tok {
			if r <= ' ' || r == 0x7f {
				return "", errors.New("NATS subject has a space or control character")
			}
		}
	}
	return s, nil
}

// natsQuery checks the query of a NATS address: exactly "stream=NAME",
// NAME a JetStream stream name as written (no escapes decoded), which may
// not hold a space, ".", "*", ">", "/", "\\", a control character, or
// "%", "&", "=", "?", "#" (so it reads the same escaped or not).
func natsQuery(q string) error {
	name, ok := strings.CutPrefix(q, "stream=")
	if !ok {
		return errors.New("the only parameter of a NATS address is stream=NAME")
	}
	if name == "" || len(name) > 255 {
		return errors.New("the stream name of a NATS address is empty or too long")
	}
	if !utf8.ValidString(name) {
		return errors.New("the stream name of a NATS address is not UTF-8")
	}
	for _, r := range name {
		if r <= ' ' || r == 0x7f || unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(".*>/\\%&=?#", r) {
			return errors.New("the stream name of a NATS address has a space, a control character or one of . * > / \\ % & = ? #")
		}
	}
	return nil
}

// subjectAllowed matches subject against NATS patterns ("*" is one token,
// a final ">" one or more).
func subjectAllowed(patterns []string, subject string) bool {
	toks := strings.Split(subject, ".")
	for _, p := range patterns {
		if subjectMatch(strings.Split(p, "."), toks) {
			return true
		}
	}
	return false
}

func subjectMatch(pat, toks []string) bool {
	for i, p := range pat {
		if p == ">" {
			return i == len(pat)-1 && len(toks) > i
		}
		if i >= len(toks) || (p != "*" && p != toks[i]) {
			return false
		}
	}
	return len(pat) == len(toks)
}

// normalHost lower-cases a host name and drops a trailing dot; an IP
// address is written in its canonical form.
func normalHost(h string) string {
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if ip, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
		return ip.Unmap().WithZone("").String()
	}
	return h
}

// numericHost reports whether h is made of numbers only (decimal, octal or
// 0x hexadecimal, joined by dots) without being a dotted-quad IPv4 address
// netip reads: "2130706433", "0x7f.1", "017.0.0.1". The C resolver reads
// them as IP addresses (inet_aton); a policy must not guess which.
func numericHost(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" {
			return false
		}
		l := label
		if strings.HasPrefix(l, "0x") {
			l = l[2:]
			if l == "" {
				return true
			}
			for _, c := range l {
				if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
					return false
				}
			}
			continue
		}
		for _, c := range l {
			if c < '0' || c > '9' {
				return false
			}
		}
	}
	return true
}

// privateHost reports whether h is a loopback, private, link-local,
// shared-address-space, multicast or unspecified IP address, or a name
// for the local host.
func privateHost(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(h)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	// RFC 6598's shared address space (carrier-grade NAT), and the
	// limited broadcast address
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{100, 64, 0, 0}), 10).Contains(ip) ||
		ip == netip.AddrFrom4([4]byte{255, 255, 255, 255})
}

// hostAllowed matches host (normalized) and port against Hosts entries:
// "name", ".name" (subdomains), an IP address, each optionally ":port".
func hostAllowed(entries []string, host, port string) bool {
	for _, e := range entries {
		e = strings.TrimSpace(e)
		want, wantPort := e, ""
		if h, p, err := net.SplitHostPort(e); err == nil {
			want, wantPort = h, p
		}
		if wantPort != "" && wantPort != port {
			continue
		}
		if strings.HasPrefix(want, ".") {
			sub := normalHost(want)
			if len(host) > len(sub) && strings.HasSuffix(host, sub) {
				return true
			}
			continue
		}
		if normalHost(want) == host {
			return true
		}
	}
	return false
}

func hostPort(host, port string) string {
	if port == "" {
		return host
	}
	return net.JoinHostPort(host, port)
}
