package document_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/core"
	"github.com/soapwire/soapwire/document"
)

func TestPolicy(t *testing.T) {
	p := document.Policy{Schemes: []string{"mailto", "ftp", "https", "nats"}, Hosts: []string{"partner.example", ".trusted.example"}}
	for _, tc := range []struct {
		addr string
		ok   bool
	}{
		{"", true},
		{core.AnonymousAddress, true},
		{core.NoneAddress, true},
		{"mailto:orders@partner.example", true},
		{"mailto:orders@evil.example", false},
		{"ftp://partner.example/outbox", true},
		{"ftp://a.b.trusted.example/outbox", true},
		{"ftp://trusted.example.evil/outbox", false},
		{"https://169.254.169.254/latest/meta-data", false},
		{"http://partner.example/", false}, // scheme not allowed
		{"file:///etc/passwd", false},
		{"nats:replies.orders", true},
		{"::not a uri", false},
	} {
		err := p.Allow(tc.addr)
		if tc.ok {
			assert.NoError(t, err, tc.addr)
			continue
		}
		require.Error(t, err, tc.addr)
		assert.Equal(t, core.CodeSender, core.FaultOf(err).Code, tc.addr)
	}
	custom := document.Policy{Schemes: []string{"https"}, Check: func(u *url.URL) error {
		if u.Port() != "" {
			return errors.New("no custom ports")
		}
		return nil
	}}
	require.NoError(t, custom.Allow("https://x.example/r"))
	require.Error(t, custom.Allow("https://x.example:8443/r"))
}
