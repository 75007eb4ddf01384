package core_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
)

// assertRefused checks that err is a ReplyPolicy refusal: a Sender fault
// with ErrReplyRefused in its chain.
func assertRefused(t *testing.T, err error, msgAndArgs ...any) bool {
	t.Helper()
	if !assert.Error(t, err, msgAndArgs...) {
		return false
	}
	f := core.FaultOf(err)
	return assert.Equal(t, core.CodeSender, f.Code, msgAndArgs...) &&
		assert.ErrorIs(t, err, core.ErrReplyRefused, msgAndArgs...)
}

func TestReplyPolicy(t *testing.T) {
	p := core.ReplyPolicy{
		Schemes:   []string{"mailto", "ftp", "https", "nats", "pipe"},
		Hosts:     []string{"partner.example", ".trusted.example", "pinned.example:8443", "10.0.0.7"},
		Subjects:  []string{"replies.>", "orders.*.reply"},
		Mailboxes: []string{"orders@partner.example", "@sales.example", "@.trusted.example"},
	}
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"", true},
		{core.AnonymousAddress, true},
		{core.NoneAddress, true},
		{"mailto:orders@partner.example", true},
		{"MAILTO:Orders@PARTNER.example", true},
		{"mailto:anyone@sales.example", true},
		{"mailto:anyone@eu.trusted.example", true},
		{"mailto:anyone@trusted.example", false}, // "@.x" means subdomains only
		{"mailto:other@partner.example", false},  // an address, not the domain
		{"mailto:orders@evil.example", false},
		{"mailto:orders@partner.example?cc=spy@evil.example", false},
		{"mailto:orders@partner.example?bcc=spy@evil.example", false},
		{"mailto:orders@partner.example?body=hi", false},
		{"mailto:spy@evil.example,orders@partner.example", false},
		{"mailto:spy@evil.example%2Corders@partner.example", false},
		{"mailto:spy%40evil.example@partner.example", false},
		{"mailto:Orders <orders@partner.example>", false},
		{"mailto:orders@partner.example#x", false},
		{"mailto://orders@partner.example", false},
		{"mailto:nobody", false},
		{"ftp://partner.example/outbox", true},
		{"ftp://partner.example./outbox", true},
		{"ftp://a.b.trusted.example/outbox", true},
		{"ftp://trusted.example/outbox", false}, // ".trusted.example" means subdomains only
		{"ftp://trusted.example.evil/outbox", false},
		{"ftp://eviltrusted.example/outbox", false},
		{"ftp:///no-host", false},
		{"https://169.254.169.254/latest/meta-data", false},
		{"https://partner.example@evil.example/", false},
		{"https://evil.example#@partner.example", false},
		{"https://evil.example\\@partner.example/", false},
		{"https://partner.example:8443/replies", true},
		{"https://pinned.example:8443/replies", true},
		{"https://pinned.example/replies", false}, // pinned to 8443; the default is 443
		{"https://pinned.example:9443/replies", false},
		{"https://10.0.0.7/replies", true}, // listed: private, but named by the operator
		{"https://10.0.0.8/replies", false},
		{"http://partner.example/", false}, // scheme not allowed
		{"file:///etc/passwd", false},
		{"gopher://partner.example/", false},
		{"nats:replies.orders", true},
		{"nats:replies", false}, // "replies.>" needs a token after
		{"nats:orders.42.reply", true},
		{"nats:orders.42.other", false},
		{"nats:$JS.API.STREAM.DELETE.ORDERS", false},
		{"nats:$SYS.REQ.SERVER.PING", false},
		{"nats:replies.*", false},
		{"nats:replies.>", false},
		{"nats:replies..x", false},
		{"nats:replies. x", false},
		{"nats://partner.example/replies.a", true},
		{"nats://evil.example/replies.a", false},
		{"nats://./replies.a", false}, // "." is no host
		// The NATS binding's JetStream address: stream=NAME and nothing else.
		{"nats:replies.orders?stream=REPLIES", true},
		{"nats:replies.orders?stream=replies_2-b", true},
		{"nats:orders.42.other?stream=ORDERS", false}, // Subjects still govern the subject
		{"nats:$JS.API.STREAM.DELETE.ORDERS?stream=ORDERS", false},
		{"nats:replies.>?stream=REPLIES", false},
		{"nats:replies.a?stream=", false},
		{"nats:replies.a?stream", false},
		{"nats:replies.a?", false},
		{"nats:replies.a?Stream=REPLIES", false},
		{"nats:replies.a?durable=X", false},
		{"nats:replies.a?stream=REPLIES&durable=X", false},
		{"nats:replies.a?stream=A&stream=B", false},
		{"nats:replies.a?stream=RE.PLIES", false},
		{"nats:replies.a?stream=RE%20PLIES", false},
		{"nats:replies.a?stream=REPLIES#x", false},
		{"nats:replies.a?stream=" + strings.Repeat("S", 256), false},
		{"https://./", false},
		{"pipe:1234", false}, // no host while Hosts is set
		{"::not a uri", false},
		{"relative/path", false},
		{"https://" + strings.Repeat("a", 3000) + ".partner.example/", false},
	} {
		err := p.Allow(t.Context(), nil, tc.addr)
		if tc.ok {
			assert.NoError(t, err, tc.addr)
			continue
		}
		assertRefused(t, err, tc.addr)
	}
}

// TestReplyPolicyDefaults: the zero ReplyPolicy allows any public host,
// refuses loopback, private and link-local hosts (and numbers that only
// the C resolver reads as addresses) unless Private is set, and mails only
// the request's authenticated submitter.
func TestReplyPolicyDefaults(t *testing.T) {
	var zero core.ReplyPolicy
	private := core.ReplyPolicy{Private: true}
	for _, tc := range []struct {
		addr              string
		zeroOK, privateOK bool
	}{
		{"https://partner.example/replies", true, true},
		{"https://partner.example:8443/replies", true, true},
		{"https://93.184.215.14/replies", true, true},
		{"pipe:1234", true, true},
		{"nats:replies.x", true, true},
		{"http://127.0.0.1:8080/r", false, true},
		{"http://[::1]/r", false, true},
		{"http://[::ffff:127.0.0.1]/r", false, true},
		{"http://localhost/r", false, true},
		{"http://LOCALHOST./r", false, true},
		{"http://api.localhost/r", false, true},
		{"http://10.1.2.3/r", false, true},
		{"http://172.16.0.1/r", false, true},
		{"http://192.168.1.1/r", false, true},
		{"http://169.254.169.254/latest/meta-data", false, true},
		{"http://100.64.0.1/r", false, true},
		{"http://0.0.0.0/r", false, true},
		{"http://[fd00::1]/r", false, true},
		{"http://[fe80::1]/r", false, true},
		{"http://224.0.0.1/r", false, true},
		{"http://2130706433/r", false, false}, // 127.0.0.1 to inet_aton
		{"http://0x7f.1/r", false, false},
		{"http://017.0.0.1/r", false, false},
		// ftp and nats Senders connect only to their own server
		{"ftp://127.0.0.1:2121/outbox", true, true},
		// so do sftp Senders; a file Sender writes only below its root
		{"sftp://orders@127.0.0.1:2222/outbox", true, true},
		{"sftp:///no-host", false, false},
		{"file:///srv/drops/acme/outbox", true, true},
		{"file://localhost/srv/drops/acme/outbox", true, true},
		{"mailto:anyone@partner.example", false, false},
	} {
		err := zero.Allow(t.Context(), nil, tc.addr)
		if tc.zeroOK {
			assert.NoError(t, err, "zero: %s", tc.addr)
		} else {
			assertRefused(t, err, "zero: %s", tc.addr)
		}
		err = private.Allow(t.Context(), nil, tc.addr)
		if tc.privateOK {
			assert.NoError(t, err, "Private: %s", tc.addr)
		} else {
			assertRefused(t, err, "Private: %s", tc.addr)
		}
	}
	require.Error(t, zero.Allow(t.Context(), nil, "nats:$JS.API.INFO"), "system subjects are refused whatever the policy")
	require.Error(t, zero.Allow(t.Context(), nil, "https:///nohost"))
}

// TestReplyPolicySubmitter: mail goes to the authenticated submitter
// (MetaSubmitter), to no one else, and a listed "*" opens mail to anyone.
func TestReplyPolicySubmitter(t *testing.T) {
	var zero core.ReplyPolicy
	m := core.NewMessage(core.V12, core.RawBody(nil))
	m.SetMeta(core.MetaSubmitter, "Buyer@Partner.example")
	require.NoError(t, zero.Allow(t.Context(), m, "mailto:buyer@partner.example"))
	assertRefused(t, zero.Allow(t.Context(), m, "mailto:victim@third.example"))
	assertRefused(t, zero.Allow(t.Context(), nil, "mailto:buyer@partner.example"), "no message: no submitter")
	assertRefused(t, zero.Allow(t.Context(), m, "mailto:buyer@partner.example?bcc=victim@third.example"))
	open := core.ReplyPolicy{Mailboxes: []string{"*"}}
	require.NoError(t, open.Allow(t.Context(), nil, "mailto:victim@third.example"))
	assertRefused(t, open.Allow(t.Context(), nil, "mailto:a@b.example,c@d.example"), "* still means one plain address")
}

func TestReplyPolicyCheck(t *testing.T) {
	var seen *core.Message
	custom := core.ReplyPolicy{Schemes: []string{"https"}, Check: func(_ context.Context, m *core.Message, u *url.URL) error {
		seen = m
		if u.Port() != "" {
			return errors.New("no custom ports")
		}
		return nil
	}}
	m := core.NewMessage(core.V12, core.RawBody(nil))
	require.NoError(t, custom.Allow(t.Context(), m, "https://x.example/r"))
	assert.Same(t, m, seen, "Check sees the request")
	err := custom.Allow(t.Context(), m, "https://x.example:8443/r")
	assertRefused(t, err)
	f := core.FaultOf(err)
	assert.NotContains(t, f.Reason, "no custom ports", "the Check's text is not sent to the peer")
	assert.ErrorContains(t, err, "no custom ports", "but it is in the error chain for logs")
}

// routes is a Sender that says which addresses it can reach.
type routes struct {
	core.SendFunc
	ok func(addr string) error
}

func (r routes) CheckAddress(addr string) error { return r.ok(addr) }

// TestReplyPolicyAllowAnswers: ReplyTo and FaultTo both, and the Sender's
// routes: an address the Sender cannot reach is refused, and a Sender
// that cannot tell reaches only the Schemes listed.
func TestReplyPolicyAllowAnswers(t *testing.T) {
	mailOnly := routes{ok: func(addr string) error {
		if !strings.HasPrefix(addr, "mailto:") {
			return errors.New("smtp: no route")
		}
		return nil
	}}
	p := core.ReplyPolicy{Mailboxes: []string{"@partner.example"}}
	msg := func(replyTo, faultTo string) *core.Message {
		m := core.NewMessage(core.V12, core.RawBody(nil))
		m.ReplyTo, m.FaultTo = replyTo, faultTo
		return m
	}
	ctx := t.Context()
	require.NoError(t, p.AllowAnswers(ctx, msg("mailto:a@partner.example", ""), mailOnly))
	require.NoError(t, p.AllowAnswers(ctx, msg(core.NoneAddress, core.AnonymousAddress), mailOnly))
	err := p.AllowAnswers(ctx, msg("http://partner.example/replies", ""), mailOnly)
	assertRefused(t, err, "no route for http")
	assert.ErrorContains(t, err, "smtp: no route")
	assertRefused(t, p.AllowAnswers(ctx, msg("mailto:a@partner.example", "mailto:victim@third.example"), mailOnly), "FaultTo is checked too")
	require.NoError(t, p.AllowAnswers(ctx, msg("http://partner.example/replies", ""), nil), "no Sender: the handler answers itself")

	blind := core.SendFunc(func(context.Context, *core.Message) error { return nil })
	assertRefused(t, p.AllowAnswers(ctx, msg("mailto:a@partner.example", ""), blind), "a Sender that cannot tell routes nothing by default")
	listed := core.ReplyPolicy{Schemes: []string{"mailto"}, Mailboxes: []string{"@partner.example"}}
	require.NoError(t, listed.AllowAnswers(ctx, msg("mailto:a@partner.example", ""), blind), "… and the Schemes listed")
}
