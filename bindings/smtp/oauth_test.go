package smtp_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	soapsmtp "github.com/soapwire/soapwire/bindings/smtp"
	"github.com/soapwire/soapwire/core"
)

// oauthBackend is a go-smtp server that takes AUTH XOAUTH2 and/or
// OAUTHBEARER, checking the bearer token, and refuses mail without a login.
type oauthBackend struct {
	mechs []string
	token string
	mu    sync.Mutex
	users []string // who logged in, by mechanism: "XOAUTH2 shop@example.test"
	mails atomic.Int32
}

func (b *oauthBackend) NewSession(*gosmtp.Conn) (gosmtp.Session, error) {
	return &oauthSession{b: b}, nil
}

type oauthSession struct {
	b    *oauthBackend
	user string
}

func (s *oauthSession) AuthMechanisms() []string { return s.b.mechs }

func (s *oauthSession) Auth(mech string) (sasl.Server, error) {
	return &tokenCheck{s: s, mech: mech}, nil
}

// tokenCheck is the server side: the initial response, checked; a refusal
// is an error challenge, then 535.
type tokenCheck struct {
	s      *oauthSession
	mech   string
	failed bool
}

func (c *tokenCheck) Next(resp []byte) ([]byte, bool, error) {
	if c.failed {
		return nil, true, &gosmtp.SMTPError{Code: 535, EnhancedCode: gosmtp.EnhancedCode{5, 7, 8}, Message: "invalid token"}
	}
	user, token := parseOAuth(c.mech, string(resp))
	if token != c.s.b.token {
		c.failed = true
		return []byte(`{"status":"401","schemes":"bearer"}`), false, nil
	}
	c.s.user = user
	c.s.b.mu.Lock()
	c.s.b.users = append(c.s.b.users, c.mech+" "+user)
	c.s.b.mu.Unlock()
	return nil, true, nil
}

// parseOAuth reads an XOAUTH2 or OAUTHBEARER initial response, by hand
// (independently of the code under test).
func parseOAuth(mech, resp string) (user, token string) {
	for _, f := range strings.Split(resp, "\x01") {
		switch {
		case strings.HasPrefix(f, "user="):
			user = f[5:]
		case strings.HasPrefix(f, "auth=Bearer "):
			token = f[12:]
		case mech == "OAUTHBEARER" && strings.HasPrefix(f, "n,a="):
			user = strings.TrimSuffix(f[4:], ",")
		}
	}
	return user, token
}

func (s *oauthSession) Mail(string, *gosmtp.MailOptions) error {
	if s.user == "" {
		return &gosmtp.SMTPError{Code: 530, Message: "authentication required"}
	}
	return nil
}
func (s *oauthSession) Rcpt(string, *gosmtp.RcptOptions) error { return nil }
func (s *oauthSession) Data(r io.Reader) error {
	io.Copy(io.Discard, r)
	s.b.mails.Add(1)
	return nil
}
func (s *oauthSession) Reset()        {}
func (s *oauthSession) Logout() error { return nil }

func startOAuthServer(t *testing.T, be *oauthBackend) string {
	t.Helper()
	srv := gosmtp.NewServer(be)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// TestSenderOAuth: WithOAuth logs in with the token source's token by
// OAUTHBEARER where offered, else XOAUTH2; a token the server refuses is
// a 535 *StatusError (not tried again), a token source's error fails the
// Send, and a server offering neither is ErrNoAuth.
func TestSenderOAuth(t *testing.T) {
	tests := []struct {
		name    string
		mechs   []string
		token   string
		tokErr  error
		want    string // the login the server saw
		wantErr error
	}{
		{"OAuthBearer", []string{"PLAIN", "OAUTHBEARER", "XOAUTH2"}, "good", nil, "OAUTHBEARER shop@example.test", nil},
		{"XOAuth2", []string{"XOAUTH2"}, "good", nil, "XOAUTH2 shop@example.test", nil},
		{"RefusedXOAuth2", []string{"XOAUTH2"}, "bad", nil, "", soapsmtp.ErrRefused},
		{"RefusedOAuthBearer", []string{"OAUTHBEARER"}, "bad", nil, "", soapsmtp.ErrRefused},
		{"TokenSourceFails", []string{"XOAUTH2"}, "", errors.New("token endpoint down"), "", nil},
		{"NoOAuth", []string{"PLAIN"}, "good", nil, "", soapsmtp.ErrNoAuth},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			be := &oauthBackend{mechs: tt.mechs, token: "good"}
			addr := startOAuthServer(t, be)
			var calls atomic.Int32
			s := newSender(t, addr, soapsmtp.WithOAuth("shop@example.test", func(ctx context.Context) (string, error) {
				calls.Add(1)
				return tt.token, tt.tokErr
			}))
			m := core.NewMessage(core.V12, core.RawBody([]byte(`<p:ping xmlns:p="urn:test"/>`)))
			m.To = "mailto:orders@example.test"
			err := s.Send(t.Context(), m)
			switch {
			case tt.want != "":
				require.NoError(t, err)
				assert.Equal(t, []string{tt.want}, be.users)
				assert.Equal(t, int32(1), be.mails.Load())
			case tt.wantErr != nil:
				require.ErrorIs(t, err, tt.wantErr)
				assert.Zero(t, be.mails.Load())
			default:
				require.ErrorIs(t, err, tt.tokErr)
				assert.Equal(t, int32(1), calls.Load(), "a token source's error is not tried again")
			}
		})
	}
}
