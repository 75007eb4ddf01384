package imap_test

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapimap "github.com/soapwire/soapwire/bindings/imap"
	"github.com/soapwire/soapwire/core"
)

// TestOAuth: WithOAuth logs in with the token source's token, by
// OAUTHBEARER where the server offers it, else XOAUTH2, against a server
// that checks the token; a refused token, a token source's error and a
// server without either mechanism fail NewReceiver.
func TestOAuth(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := startServer(t, soapimap.WithTokenAuth(func(_ context.Context, user, token string) bool {
		mu.Lock()
		defer mu.Unlock()
		seen = append(seen, user+" "+token)
		return token == "token-of-"+user
	}))
	plainOnly := startServer(t)
	good := func(ctx context.Context) (string, error) { return "token-of-orders", nil }
	tests := []struct {
		name    string
		srv     *testServer
		mech    string
		strip   string
		token   func(context.Context) (string, error)
		wantErr error
	}{
		{"OAuthBearer", srv, "OAUTHBEARER", "", good, nil},
		{"XOAuth2", srv, "XOAUTH2", " AUTH=OAUTHBEARER", good, nil},
		{"RefusedToken", srv, "OAUTHBEARER", "", func(context.Context) (string, error) { return "stolen", nil }, errors.New("")},
		{"TokenSourceFails", srv, "", "", func(context.Context) (string, error) { return "", context.DeadlineExceeded }, context.DeadlineExceeded},
		{"NoOAuthOffered", plainOnly, "", "", good, soapimap.ErrNoAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.srv.AddUser("orders", "password-never-used"))
			p := startProxy(t, tt.srv.Addr())
			if tt.strip != "" {
				p.strip.Store(&[]string{tt.strip})
			}
			addr := p.url("orders")
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			r, err := soapimap.NewReceiver(ctx, addr, soapimap.WithOAuth("", tt.token), soapimap.WithPlaintext())
			if tt.mech != "" {
				assert.True(t, p.clientSent("AUTHENTICATE "+tt.mech), "logged in by %s", tt.mech)
			}
			assert.False(t, p.clientSent("password-never-used"))
			if tt.wantErr != nil {
				require.Error(t, err)
				if tt.wantErr.Error() != "" {
					assert.ErrorIs(t, err, tt.wantErr)
				}
				return
			}
			require.NoError(t, err)
			defer r.Close()
			a, err := soapimap.NewAppender(addr, "shop@example.org", soapimap.WithOAuth("orders", tt.token), soapimap.WithPlaintext())
			require.NoError(t, err)
			defer a.Close()
			m := ping(core.V12, addr, "by token")
			require.NoError(t, a.Send(ctx, m))
			d, err := r.Receive(ctx)
			require.NoError(t, err)
			assert.Equal(t, m.ID, d.Message().ID)
			require.NoError(t, d.Ack(ctx))
		})
	}
	mu.Lock()
	defer mu.Unlock()
	assert.Contains(t, seen, "orders token-of-orders", "the server checked the token")
	assert.Contains(t, seen, "orders stolen")
}

// TestTLSRequired: imap:// needs STARTTLS unless WithPlaintext; with the
// embedded server's STARTTLS the certificate is verified.
func TestTLSRequired(t *testing.T) {
	plain := startServer(t)
	addr := plain.newUser(t)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	_, err := soapimap.NewReceiver(ctx, addr, soapimap.WithCredentials("", "secret"))
	require.ErrorIs(t, err, soapimap.ErrNoTLS, "no STARTTLS, no WithPlaintext")
	_, err = soapimap.NewAppender(addr, "a@example.org", soapimap.WithCredentials("", "secret"))
	require.NoError(t, err, "the Appender connects at the first Send")

	serverTLS, clientTLS, _, _ := selfSigned(t)
	secure := startServer(t, soapimap.WithTLS(serverTLS))
	addr = secure.newUser(t)
	r, err := soapimap.NewReceiver(ctx, addr, soapimap.WithCredentials("", "secret"), soapimap.WithTLS(clientTLS))
	require.NoError(t, err, "STARTTLS, verified")
	r.Close()
	_, err = soapimap.NewReceiver(ctx, addr, soapimap.WithCredentials("", "secret"), soapimap.WithTLS(&tls.Config{}))
	var ce *tls.CertificateVerificationError
	require.ErrorAs(t, err, &ce, "a certificate the client does not trust")
	_, err = soapimap.NewReceiver(ctx, addr, soapimap.WithCredentials("", "wrong"), soapimap.WithTLS(clientTLS))
	require.Error(t, err, "a wrong password")
	assert.Contains(t, err.Error(), "login")
}

// TestAddress: what an imap:// or imaps:// address may say, and the
// refusals (ErrAddress), before anything connects.
func TestAddress(t *testing.T) {
	ctx := t.Context()
	for _, bad := range []string{
		"", "mailto:a@b", "http://host/INBOX", "imap:///INBOX", "imap://u:pw@host/INBOX", "imap://host/INBOX?x=1",
		"imap://host/INBOX#f", "imap://host:0/INBOX", "imap://host:99999/INBOX", "imap://host/IN%2ABOX", "imap://host/a%0Ab",
	} {
		_, err := soapimap.NewReceiver(ctx, bad)
		assert.ErrorIs(t, err, soapimap.ErrAddress, "%q", bad)
		_, err = soapimap.NewAppender(bad, "a@example.org")
		assert.ErrorIs(t, err, soapimap.ErrAddress, "%q", bad)
	}
	_, err := soapimap.NewReceiver(ctx, "imaps://u@host/INBOX", soapimap.WithFolders("INBOX", "", ""))
	assert.ErrorIs(t, err, soapimap.ErrAddress, "the inbox as the processing folder")

	srv := startServer(t)
	addr := srv.newUser(t)
	a := newAppender(t, addr)
	other := startServer(t)
	for _, to := range []string{other.URL("user1", "INBOX"), strings.Replace(addr, "user1", "someone", 1), "mailto:a@example.org"} {
		m := ping(core.V12, to, "x")
		assert.ErrorIs(t, a.Send(ctx, m), soapimap.ErrAddress, "%q is not the Appender's account", to)
	}
	m := ping(core.V12, strings.Replace(addr, "/INBOX", "/Orders%20Archive", 1), "x")
	require.Error(t, a.Send(ctx, m), "no such folder")
	c := rawClient(t, addr)
	require.NoError(t, c.Create("Orders Archive", nil).Wait())
	require.NoError(t, a.Send(ctx, m), "a folder with a space, percent-encoded")
	assert.Len(t, folderMails(t, c, "Orders Archive"), 1)
}

// TestParseAddress: what ParseAddress reads from an address.
func TestParseAddress(t *testing.T) {
	tests := []struct {
		addr string
		want soapimap.Address
	}{
		{"imaps://orders@mail.example.org/INBOX", soapimap.Address{TLS: true, Host: "mail.example.org", Port: 993, User: "orders", Folder: "INBOX"}},
		{"imap://mail.example.org", soapimap.Address{Host: "mail.example.org", Port: 143, Folder: "INBOX"}},
		{"IMAPS://o%40example.org@[::1]:1993/Orders%20In/2026", soapimap.Address{TLS: true, Host: "::1", Port: 1993, User: "o@example.org", Folder: "Orders In/2026"}},
	}
	for _, tt := range tests {
		got, err := soapimap.ParseAddress(tt.addr)
		require.NoError(t, err, tt.addr)
		assert.Equal(t, tt.want, got, tt.addr)
	}
	_, err := soapimap.ParseAddress("imaps://u:p@h/INBOX")
	assert.ErrorIs(t, err, soapimap.ErrAddress)
}
