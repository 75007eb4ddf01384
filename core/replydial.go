package core

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// Allow judges a host name by its text: a name that resolves to a
// loopback or private address ("intranet.example", a name whose DNS a
// peer controls and points at 127.0.0.1) passes it. The check on such a
// name holds where the connection is made: a Sender that connects where
// an answer's address says checks every IP address it connects to for an
// answer (DialControl), when the context it sends with says it sends an
// answer (WithAnswerPolicy) under a policy that wants it
// (NeedsDialCheck). Serve and document.Handler mark the context of every
// answer they send; bindings/http's Transport checks.

// answerPolicyKey is the context key of WithAnswerPolicy.
type answerPolicyKey struct{}

// WithAnswerPolicy returns ctx marked as the context of sending an answer
// (a reply or a fault) to an address a peer named (its ReplyTo or
// FaultTo), which p allowed. Serve marks the context of its replies
// Sender's Send with it, document.Handler that of its Outbox. A Sender that
// connects to the host an address names reads it (AnswerPolicyOf) and,
// when p.NeedsDialCheck, refuses to connect to a loopback or private
// address (DialControl): a host name p let through may resolve to one.
// Calls that are not answers (a client's own requests, a forwarder's next
// hop) carry no mark and are not checked.
func WithAnswerPolicy(ctx context.Context, p ReplyPolicy) context.Context {
	return context.WithValue(ctx, answerPolicyKey{}, &p)
}

// AnswerPolicyOf returns the policy of the answer being sent in ctx
// (WithAnswerPolicy), and whether ctx sends an answer.
func AnswerPolicyOf(ctx context.Context) (ReplyPolicy, bool) {
	p, ok := ctx.Value(answerPolicyKey{}).(*ReplyPolicy)
	if !ok {
		return ReplyPolicy{}, false
	}
	return *p, true
}

// NeedsDialCheck reports whether an answer to u under p must be checked
// where it connects: unless Private is set, or u's host is listed in
// Hosts (the operator named it, and may have named a host inside), every
// IP address a connection for it is made to must be one Allow takes
// without Private: not loopback, private, link-local, shared, multicast,
// unspecified or broadcast (DialControl).
func (p ReplyPolicy) NeedsDialCheck(u *url.URL) bool {
	if p.Private {
		return false
	}
	if len(p.Hosts) > 0 && u != nil {
		port := u.Port()
		if port == "" {
			port = defaultPort(strings.ToLower(u.Scheme))
		}
		if hostAllowed(p.Hosts, normalHost(u.Hostname()), port) {
			return false
		}
	}
	return true
}

// DialControl is a net.Dialer Control function that refuses to connect to
// an IP address ReplyPolicy refuses without Private (loopback, private,
// link-local, shared, multicast, unspecified, broadcast). It runs after
// the name was resolved and before the connection is made, for each
// address tried, so a name that resolves inside, or resolves to a public
// address first and to 127.0.0.1 when connected to (DNS rebinding), is
// refused all the same. Its error has ErrReplyRefused in its chain.
func DialControl(network, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		host = address
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return fmt.Errorf("%w: connecting to %q (%s): not an IP address", ErrReplyRefused, address, network)
	}
	if privateHost(ip.Unmap().WithZone("").String()) {
		return fmt.Errorf("%w: %s is loopback, private or link-local (an answer goes there only with ReplyPolicy.Private, or its host in ReplyPolicy.Hosts)", ErrReplyRefused, address)
	}
	return nil
}
