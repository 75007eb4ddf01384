package document

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/soapwire/soapwire/core"
)

// Policy decides where replies and faults may be sent: ReplyTo and FaultTo
// come from peers, so an address is checked before anything goes there. An
// address is allowed when its scheme is in Schemes and, if Hosts is not
// empty, its host (or, for mailto, the domain of the address) is in Hosts or
// is a subdomain of an entry written with a leading dot (".example.com").
// Anonymous and none are always allowed: they send nothing anywhere new.
type Policy struct {
	Schemes []string
	Hosts   []string
	// Check, when set, is called last and can refuse with an error.
	Check func(u *url.URL) error
}

// Allow returns nil if addr may receive replies, else a Sender fault
// saying why.
func (p Policy) Allow(addr string) error {
	if addr == "" || addr == core.AnonymousAddress || addr == core.NoneAddress {
		return nil
	}
	u, err := url.Parse(addr)
	if err != nil || u.Scheme == "" {
		return core.SenderFault("reply address %q is not a URI", addr)
	}
	scheme := strings.ToLower(u.Scheme)
	if !contains(p.Schemes, scheme) {
		return core.SenderFault("reply address scheme %q is not allowed", scheme)
	}
	if len(p.Hosts) > 0 && scheme != "nats" { // NATS subjects have no host
		host := hostOf(u)
		if host == "" || !hostAllowed(p.Hosts, host) {
			return core.SenderFault("reply address host %q is not allowed", host)
		}
	}
	if p.Check != nil {
		if err := p.Check(u); err != nil {
			return &core.Fault{Code: core.CodeSender, Reason: fmt.Sprintf("reply address %q is not allowed", addr), Cause: err}
		}
	}
	return nil
}

func hostOf(u *url.URL) string {
	if u.Scheme == "mailto" {
		addr := u.Opaque
		if addr == "" {
			addr = u.Path
		}
		if i := strings.LastIndexByte(addr, '@'); i >= 0 {
			return strings.ToLower(addr[i+1:])
		}
		return ""
	}
	if u.Scheme == "nats" {
		return "" // subjects have no host
	}
	return strings.ToLower(u.Hostname())
}

func hostAllowed(hosts []string, host string) bool {
	for _, h := range hosts {
		h = strings.ToLower(h)
		if h == host || (strings.HasPrefix(h, ".") && strings.HasSuffix(host, h)) {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(v, s) {
			return true
		}
	}
	return false
}
