package http

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/soapwire/soapwire/core"
)

// An answer to an address a peer named (core.Serve and document.Handler
// send replies and faults with a ctx marked by core.WithAnswerPolicy) is
// posted through a client of its own whose dialer refuses loopback,
// private and link-local addresses (core.DialControl), unless the policy
// opts in (core.ReplyPolicy.NeedsDialCheck): the policy judged the host
// name by its text, and a name may resolve to 127.0.0.1. Its connections
// are pooled apart from those of the Transport's other calls, so a
// connection opened for a call to an inside host is never reused for an
// answer. It connects directly: a proxy (HTTP_PROXY) would connect where
// this side cannot see.

// answerClient returns the client that posts to url with ctx: the
// Transport's own, or for an answer that must be checked where it
// connects, the checked one.
func (t *Transport) answerClient(ctx context.Context, rawURL string) (*http.Client, error) {
	p, ok := core.AnswerPolicyOf(ctx)
	if !ok {
		return t.client, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || !p.NeedsDialCheck(u) {
		return t.client, nil
	}
	t.checkedMu.Lock()
	if !t.checkedMade {
		t.makeChecked()
		t.checkedMade = true
	}
	checked := t.checked
	t.checkedMu.Unlock()
	if checked == nil {
		return nil, fmt.Errorf("%w: the Transport's client (WithClient) dials in a way it cannot check, so an answer to %s could reach a private address: set ReplyPolicy.Private or list the host in ReplyPolicy.Hosts, or give a client whose Transport is an *http.Transport without a custom dialer", core.ErrReplyRefused, u.Redacted())
	}
	return checked, nil
}

// makeChecked makes the checked client: the Transport's client with its
// *http.Transport cloned, direct, dialing through core.DialControl. A
// client whose RoundTripper is not an *http.Transport, or that has a dialer
// of its own, cannot be checked: t.checked stays nil. t.checkedMu is held.
func (t *Transport) makeChecked() {
	base := t.own
	if base != nil {
		base = base.Clone()
		base.DialContext = nil // (a test's resolver)
	} else {
		switch rt := t.client.Transport.(type) {
		case nil:
			base = http.DefaultTransport.(*http.Transport)
		case *http.Transport:
			if rt.DialContext != nil || rt.Dial != nil || rt.DialTLSContext != nil || rt.DialTLS != nil {
				return
			}
			base = rt
		default:
			return
		}
	}
	tr := base.Clone()
	tr.Proxy = nil
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second, Control: core.DialControl, Resolver: t.o.resolver}
	tr.DialContext = d.DialContext
	c := *t.client
	c.Transport = tr
	t.checkedTr, t.checked = tr, &c
}
