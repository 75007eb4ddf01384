package document_test

import (
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

func TestPolicy(t *testing.T) {
	p := document.Policy{
		Schemes:  []string{"mailto", "ftp", "https", "nats", "pipe"},
		Hosts:    []string{"partner.example", ".trusted.example"},
		Subjects: []string{"replies.>", "orders.*.reply"},
	}
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"", true},
		{core.AnonymousAddress, true},
		{core.NoneAddress, true},
		{"mailto:orders@partner.example", true},
		{"MAILTO:orders@PARTNER.example", true},
		{"mailto:orders@sales.trusted.example", true},
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
		{"nats://./replies.a", false}, // found by FuzzPolicyAllow: "." is no host
		// The NATS binding's JetStream address: stream=NAME and nothing else.
		{"nats:replies.orders?stream=REPLIES", true},
		{"nats:replies.orders?stream=replies_2-b", true},
		{"nats://partner.example/replies.a?stream=REPLIES", true},
		{"nats://evil.example/replies.a?stream=REPLIES", false},
		{"nats:orders.42.reply?stream=ORDERS", true},
		{"nats:orders.42.other?stream=ORDERS", false}, // Subjects still govern the subject
		{"nats:$JS.API.STREAM.DELETE.ORDERS?stream=ORDERS", false},
		{"nats:replies.>?stream=REPLIES", false},
		{"nats:replies.a?stream=", false},
		{"nats:replies.a?stream", false},
		{"nats:replies.a?", false},
		{"nats:replies.a?Stream=REPLIES", false},
		{"nats:replies.a?streams=REPLIES", false},
		{"nats:replies.a?durable=X", false},
		{"nats:replies.a?stream=REPLIES&durable=X", false},
		{"nats:replies.a?durable=X&stream=REPLIES", false},
		{"nats:replies.a?stream=A&stream=B", false},
		{"nats:replies.a?stream=RE.PLIES", false},
		{"nats:replies.a?stream=RE*", false},
		{"nats:replies.a?stream=RE>", false},
		{"nats:replies.a?stream=RE/PLIES", false},
		{"nats:replies.a?stream=RE\\PLIES", false},
		{"nats:replies.a?stream=RE PLIES", false},
		{"nats:replies.a?stream=RE%20PLIES", false},
		{"nats:replies.a?stream=RE%2EPLIES", false},
		{"nats:replies.a?stream=RE\tPLIES", false},
		{"nats:replies.a?stream=RE\x7fPLIES", false},
		{"nats:replies.a?stream=RE=PLIES", false},
		{"nats:replies.a?stream=RE?PLIES", false},
		{"nats:replies.a?stream=REPLIES#x", false},
		{"nats:replies.a#x", false},
		{"nats:replies.a?stream=" + strings.Repeat("S", 256), false},
		{"https://./", false},
		{"pipe:1234", false}, // no host while Hosts is set
		{"::not a uri", false},
		{"relative/path", false},
		{"https://" + strings.Repeat("a", 3000) + ".partner.example/", false},
	} {
		err := p.Allow(tc.addr)
		if tc.ok {
			assert.NoError(t, err, tc.addr)
			continue
		}
		if !assert.Error(t, err, tc.addr) {
			continue
		}
		f := core.FaultOf(err)
		assert.Equal(t, core.CodeSender, f.Code, tc.addr)
		assert.ErrorIs(t, err, document.ErrAddressRefused, tc.addr)
	}
}

func TestPolicyWithoutHosts(t *testing.T) {
	p := document.Policy{Schemes: []string{"pipe", "nats", "https"}}
	require.NoError(t, p.Allow("pipe:1234"))
	require.NoError(t, p.Allow("nats:anything.goes"))
	require.NoError(t, p.Allow("https://anywhere.example/"))
	require.Error(t, p.Allow("nats:$JS.API.INFO"), "system subjects are refused whatever the policy")
	require.Error(t, p.Allow("https:///nohost"))
	require.Error(t, p.Allow("mailto:a@b.example"), "scheme not listed")

	var zero document.Policy
	require.NoError(t, zero.Allow(core.AnonymousAddress))
	require.NoError(t, zero.Allow(core.NoneAddress))
	require.Error(t, zero.Allow("https://partner.example/"), "the zero Policy allows no address")
}

func TestPolicyCheck(t *testing.T) {
	custom := document.Policy{Schemes: []string{"https"}, Check: func(u *url.URL) error {
		if u.Port() != "" {
			return errors.New("no custom ports")
		}
		return nil
	}}
	require.NoError(t, custom.Allow("https://x.example/r"))
	err := custom.Allow("https://x.example:8443/r")
	require.ErrorIs(t, err, document.ErrAddressRefused)
	f := core.FaultOf(err)
	assert.Equal(t, core.CodeSender, f.Code)
	assert.NotContains(t, f.Reason, "no custom ports", "the Check's text is not sent to the peer")
	assert.ErrorContains(t, err, "no custom ports", "but it is in the error chain for logs")
}
