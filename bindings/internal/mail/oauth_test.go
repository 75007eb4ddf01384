package mail_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/soapwire/soapwire/bindings/internal/mail"
)

// TestOAuthResponse: the initial responses of XOAUTH2 and OAUTHBEARER, as
// Google's and RFC 7628's examples write them.
func TestOAuthResponse(t *testing.T) {
	x, err := mail.OAuthResponse(mail.MechXOAuth2, "someuser@example.com", "ya29.vF9dft4", "", 0)
	require.NoError(t, err)
	assert.Equal(t, "user=someuser@example.com\x01auth=Bearer ya29.vF9dft4\x01\x01", string(x))
	b, err := mail.OAuthResponse(mail.MechOAuthBearer, "user@example.com", "vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg==", "server.example.com", 143)
	require.NoError(t, err)
	assert.Equal(t, "n,a=user@example.com,\x01host=server.example.com\x01port=143\x01auth=Bearer vF9dft4qmTc2Nvb3RlckBhbHRhdmlzdGEuY29tCg==\x01\x01", string(b))
	for _, bad := range []string{"a\rb", "a\nb", "a\x00b", "a\x01b"} {
		_, err := mail.OAuthResponse(mail.MechXOAuth2, bad, "t", "", 0)
		assert.ErrorIs(t, err, mail.ErrHeaderInjection, "%q", bad)
		_, err = mail.OAuthResponse(mail.MechOAuthBearer, "u", bad, "h", 1)
		assert.ErrorIs(t, err, mail.ErrHeaderInjection, "%q", bad)
	}
	_, err = mail.OAuthResponse("CRAM-MD5", "u", "t", "", 0)
	assert.Error(t, err)
	assert.False(t, errors.Is(err, mail.ErrHeaderInjection))
}

// FuzzOAuthResponse: what OAuthResponse writes, ParseOAuthResponse reads
// back (a user with ',' or '=' escaped in OAUTHBEARER); any response parses
// without a panic.
func FuzzOAuthResponse(f *testing.F) {
	f.Add("user@example.com", "token", "host", 993)
	f.Add("a,b=c", "t", "", 0)
	f.Add("", "x", "h", 1)
	f.Fuzz(func(t *testing.T, user, token, host string, port int) {
		for _, mech := range []string{mail.MechXOAuth2, mail.MechOAuthBearer} {
			mail.ParseOAuthResponse(mech, []byte(user+token+host))
			ir, err := mail.OAuthResponse(mech, user, token, host, port)
			if err != nil {
				return
			}
			u, tok, ok := mail.ParseOAuthResponse(mech, ir)
			if token == "" || strings.ContainsAny(token, "\x01") || mech == mail.MechXOAuth2 && user == "" {
				continue
			}
			require.True(t, ok, "%q", ir)
			assert.Equal(t, token, tok)
			if mech == mail.MechOAuthBearer || !strings.Contains(user, "\x01") {
				assert.Equal(t, user, u)
			}
		}
	})
}
